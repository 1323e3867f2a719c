package providertest

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// FieldHarness is the Harness capability the Fields test needs: a
// person's change of a managed field (nil values clear it), not through
// the provider. The tracker must offer labels, priority (Jira Cloud's
// default priorities), a due date and an estimate on the items' screens.
type FieldHarness interface {
	SetFieldAsPerson(ctx context.Context, key, field string, values []string) error
}

// testFields: fields resolve to canonical values, are written with the
// create and read back with their bases; an edit writes only the fields
// its spec holds (a cleared one is emptied, the others are left alone);
// a person's change shows in Fields while the bases stay.
func testFields(t *testing.T, s *suite) {
	fr, ok := s.Provider.(core.FieldResolver)
	if !ok {
		t.Fatal("the provider is not a core.FieldResolver")
	}
	fh, ok := s.Harness.(FieldHarness)
	if !ok {
		t.Fatal("the harness is not a providertest.FieldHarness")
	}
	spec := s.spec(core.KindStory, "s-1", "Fields", "", "")
	in := map[string]core.FieldValue{
		core.FieldLabels:   {Values: []string{"guest", "checkout"}, Source: "item"},
		core.FieldPriority: {Values: []string{"high"}},
		core.FieldDue:      {Values: []string{"2027-03-01"}},
		core.FieldEstimate: {Values: []string{"3.50"}},
	}
	res, err := fr.ResolveFields(s.ctx, []core.FieldRequest{{Reference: spec.Reference, Kind: spec.Kind, Create: true, Fields: in}})
	if err != nil || len(res) != 1 {
		t.Fatalf("ResolveFields: %v, %d results; want 1", err, len(res))
	}
	want := map[string][]string{core.FieldLabels: {"checkout", "guest"}, core.FieldPriority: {"High"}, core.FieldDue: {"2027-03-01"}, core.FieldEstimate: {"3.5"}}
	for k, w := range want {
		if got := sorted(res[0][k].Values); !slices.Equal(got, w) {
			t.Errorf("resolved %s = %q; want %q (canonical)", k, got, w)
		}
	}
	_, err = fr.ResolveFields(s.ctx, []core.FieldRequest{{Reference: spec.Reference, Kind: spec.Kind, Fields: map[string]core.FieldValue{core.FieldPriority: {Values: []string{"Not a priority"}}}}})
	wantCode(t, "ResolveFields with an unknown priority", err, core.CodeValidationFailed)
	if ce := core.AsError(err); ce != nil && (len(ce.Details) != 1 || ce.Details[0].Field != core.FieldPriority || ce.Details[0].Item != string(spec.Reference)) {
		t.Errorf("details %+v; want one naming the item and priority", ce.Details)
	}

	spec.Fields = res[0]
	spec.FieldBases = map[string]string{}
	for k, v := range res[0] {
		spec.FieldBases[k] = core.FieldDigest(v.Values)
	}
	key := s.create(t, spec)[0]
	w := s.get(t, key)
	for k, v := range want {
		if got := sorted(w.Fields[k]); !slices.Equal(got, v) {
			t.Errorf("read back %s = %q; want %q", k, got, v)
		}
	}
	if !maps.Equal(w.FieldBases, spec.FieldBases) {
		t.Errorf("FieldBases = %v; want %v", w.FieldBases, spec.FieldBases)
	}

	// An edit that clears the due date and holds no other field.
	up := spec
	up.Fields = map[string]core.FieldValue{core.FieldDue: {}}
	up.FieldBases = maps.Clone(spec.FieldBases)
	up.FieldBases[core.FieldDue] = core.FieldDigest(nil)
	if err := s.Provider.Update(s.ctx, key, up); err != nil {
		t.Fatalf("Update: %v", err)
	}
	w = s.get(t, key)
	if len(w.Fields[core.FieldDue]) != 0 {
		t.Errorf("due = %q after clearing; want empty", w.Fields[core.FieldDue])
	}
	for _, k := range []string{core.FieldLabels, core.FieldPriority, core.FieldEstimate} {
		if got := sorted(w.Fields[k]); !slices.Equal(got, want[k]) {
			t.Errorf("%s = %q after an edit that did not hold it; want %q left alone", k, got, want[k])
		}
	}

	// A person's change.
	if err := fh.SetFieldAsPerson(s.ctx, key, core.FieldPriority, []string{"Low"}); err != nil {
		t.Fatalf("SetFieldAsPerson: %v", err)
	}
	w = s.get(t, key)
	if !slices.Equal(w.Fields[core.FieldPriority], []string{"Low"}) || w.FieldBases[core.FieldPriority] != spec.FieldBases[core.FieldPriority] {
		t.Errorf("after a person's change: priority %q base %q; want Low with the base DevWorkWire wrote", w.Fields[core.FieldPriority], w.FieldBases[core.FieldPriority])
	}
	if w.EditedOutside {
		t.Error("a person's field change marks the item's content edited outside; only its fields changed")
	}
}

func sorted(v []string) []string {
	v = slices.Clone(v)
	slices.Sort(v)
	return v
}
