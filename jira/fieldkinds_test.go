package jira

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/memstore"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// customKind is one custom field type of the three-way scenario over
// HTTP: the values the document writes first (v0), a person's (as Jira's
// edit request JSON) and its canonical read, the document's next (vD)
// with its canonical read.
type customKind struct {
	name, v0 string
	c0       []string
	person   string
	cJ       []string
	vJ, vD   string
	cD       []string
}

var customKindsHTTP = []customKind{
	{"Notes", "alpha", []string{"alpha"}, `"beta"`, []string{"beta"}, "beta", "gamma", []string{"gamma"}},
	{"Points", "1", []string{"1"}, `2`, []string{"2"}, "2", "3", []string{"3"}},
	{"Start", "2027-01-01", []string{"2027-01-01"}, `"2027-01-02"`, []string{"2027-01-02"}, "2027-01-02", "2027-01-03", []string{"2027-01-03"}},
	{"Team", "Payments", []string{"Payments"}, `{"value":"Web"}`, []string{"Web"}, "Web", "Mobile", []string{"Mobile"}},
	{"Areas", "UI, API", []string{"UI", "API"}, `[{"value":"UI"}]`, []string{"UI"}, "UI", "UI, DB", []string{"UI", "DB"}},
	{"Reviewer", "nina@example.com", []string{"acc-nina"}, `{"accountId":"acc-bo"}`, []string{"acc-bo"}, "bo@example.com", "ana@example.com", []string{"acc-ana"}},
	{"Tags", "x, y", []string{"x", "y"}, `["x"]`, []string{"x"}, "x", "x, z", []string{"x", "z"}},
}

// TestThreeWayEveryCustomTypeOverHTTP runs the four three-way cases for
// each custom field type through the adapter and the fake Jira: one story
// per case, each setting every custom field (issue 16). A person edits
// in Jira; the bases and their values travel in the issue property.
func TestThreeWayEveryCustomTypeOverHTTP(t *testing.T) {
	custom := map[string]string{}
	for _, k := range customKindsHTTP {
		custom[k.name] = k.name
	}
	f := startJira(t, jiratest.Options{}, func(c *Config) { c.CustomFields = custom })
	if err := f.srv.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{
			{Name: "Notes", Type: jiratest.FieldText}, {Name: "Points", Type: jiratest.FieldNumber}, {Name: "Start", Type: jiratest.FieldDate},
			{Name: "Team", Type: jiratest.FieldSelect, Options: []string{"Payments", "Web", "Mobile"}},
			{Name: "Areas", Type: jiratest.FieldMultiSelect, Options: []string{"UI", "API", "DB"}},
			{Name: "Reviewer", Type: jiratest.FieldUser}, {Name: "Tags", Type: jiratest.FieldLabels},
		},
		Users: []jiratest.User{
			{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"},
			{AccountID: "acc-bo", Email: "bo@example.com", DisplayName: "Bo Berg"},
			{AccountID: "acc-nina", Email: "nina@example.com", DisplayName: "Nina Roth", Projects: []string{"OTHER"}}, // a reviewer, not assignable
		},
	}); err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range custom {
			if !yield(n) {
				return
			}
		}
	})
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: f.p, Store: memstore.New(memstore.Options{}), Fields: core.FieldOptions{Custom: names}})
	cases := []string{"kept", "written", "conflict", "same"}
	// value picks, per case, the value each field line writes.
	doc := func(value func(c string, k customKind) string, text func(c string) string) []byte {
		var b strings.Builder
		b.WriteString("---\nid: ck\n---\n## Epic e-1: Epic\n\nEpic text.\n\n")
		for _, c := range cases {
			fmt.Fprintf(&b, "### Story %s: Story %s\n", c, c)
			for _, k := range customKindsHTTP {
				fmt.Fprintf(&b, "%s: %s\n", k.name, value(c, k))
			}
			fmt.Fprintf(&b, "\n%s\n\n", text(c))
		}
		return []byte(b.String())
	}
	first := func(_ string, k customKind) string { return k.v0 }
	next := func(c string, k customKind) string {
		switch c {
		case "written", "conflict":
			return k.vD
		case "same":
			return k.vJ
		}
		return k.v0
	}
	text := func(string) string { return "Text." }
	n := 0
	run := func(data []byte) core.ImportPreviewResult {
		t.Helper()
		pv, err := svc.ImportPreview(f.ctx, core.ImportPreviewInput{Path: "ck.md", Data: data})
		if err != nil {
			t.Fatalf("preview: %v", err)
		}
		n++
		if pv.Counts.Create+pv.Counts.Update > 0 {
			if _, err := svc.ImportCommit(f.ctx, core.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: fmt.Sprint("k", n)}); err != nil {
				t.Fatal(err)
			}
		}
		return pv
	}
	items := func() map[string]core.WorkItem {
		t.Helper()
		refs := make([]core.Reference, len(cases))
		for i, c := range cases {
			refs[i] = core.Reference("ck/" + c)
		}
		found, err := f.p.Lookup(f.ctx, refs, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]core.WorkItem{}
		for ref, w := range found {
			out[strings.TrimPrefix(string(ref), "ck/")] = w
		}
		return out
	}
	run(doc(first, text))
	for _, c := range []string{"kept", "conflict", "same"} {
		edit := map[string]json.RawMessage{}
		for _, k := range customKindsHTTP {
			edit[k.name] = json.RawMessage(k.person)
		}
		if err := f.srv.EditAsPerson(items()[c].Key, jiratest.PersonEdit{Fields: edit}); err != nil {
			t.Fatal(err)
		}
	}
	// The kept story also changes its text, so that it is written.
	pv := run(doc(next, func(c string) string { return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept"] }))
	rows := map[string]core.PlanItem{}
	for _, it := range pv.Items {
		rows[strings.TrimPrefix(string(it.Reference), "ck/")] = it
	}
	wantAction := map[string]core.Action{"kept": core.ActionUpdate, "written": core.ActionUpdate, "conflict": core.ActionDrift, "same": core.ActionUnchanged}
	wantWrite := map[string]string{"kept": "kept", "written": "set", "conflict": "conflict", "same": "unchanged"}
	for _, c := range cases {
		if rows[c].Action != wantAction[c] {
			t.Errorf("%s: action %s; want %s", c, rows[c].Action, wantAction[c])
		}
		for _, k := range customKindsHTTP {
			key := core.FieldCustomPrefix + k.name
			var write string
			for _, r := range rows[c].Fields {
				if r.Field == key {
					write = r.Write
				}
			}
			if write != wantWrite[c] {
				t.Errorf("%s %s: write %q; want %q", c, k.name, write, wantWrite[c])
			}
			var ch *core.FieldChange
			for i := range rows[c].Changes {
				if rows[c].Changes[i].Field == key {
					ch = &rows[c].Changes[i]
				}
			}
			switch c {
			case "written":
				if ch == nil || ch.From != strings.Join(k.c0, ", ") || ch.Conflict {
					t.Errorf("%s %s: change %+v; want from %q", c, k.name, ch, k.c0)
				}
			case "conflict":
				if ch == nil || !ch.Conflict || ch.Tracker == nil || ch.Base != strings.Join(k.c0, ", ") || ch.Tracker.To != strings.Join(k.cJ, ", ") || ch.Document == nil {
					t.Errorf("%s %s: change %+v; want a conflict from %q to the person's %q", c, k.name, ch, k.c0, k.cJ)
				}
			default:
				if ch != nil {
					t.Errorf("%s %s: change %+v; want none", c, k.name, ch)
				}
			}
		}
	}
	now := items()
	for _, k := range customKindsHTTP {
		key := core.FieldCustomPrefix + k.name
		for c, want := range map[string][]string{"kept": k.cJ, "written": k.cD, "conflict": k.cJ, "same": k.cJ} {
			if got := now[c].Fields[key]; !slices.Equal(got, want) {
				t.Errorf("after the commit, %s %s = %q; want %q", c, k.name, got, want)
			}
		}
		if b := now["kept"].FieldBases[key]; b != core.FieldDigest(k.c0) {
			t.Errorf("kept %s: base %s; want the one DevWorkWire wrote", k.name, b)
		}
	}
	// Both moved the same way: the next write moves the base forward, and
	// the document's next change is written. The conflict is taken.
	run(doc(next, func(c string) string {
		return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept" || c == "same"]
	}))
	for _, k := range customKindsHTTP {
		if b := items()["same"].FieldBases[core.FieldCustomPrefix+k.name]; b != core.FieldDigest(k.cJ) {
			t.Errorf("same %s: base %s; want moved forward to %q", k.name, b, k.cJ)
		}
	}
	last := func(c string, k customKind) string {
		if c == "same" {
			return k.vD
		}
		return next(c, k)
	}
	data := strings.Replace(string(doc(last, func(c string) string {
		return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept" || c == "same"]
	})), "### Story conflict: Story conflict\n", "### Story conflict: Story conflict\nDrift: take-document\n", 1)
	run([]byte(data))
	now = items()
	for _, k := range customKindsHTTP {
		key := core.FieldCustomPrefix + k.name
		if got := now["same"].Fields[key]; !slices.Equal(got, k.cD) {
			t.Errorf("same %s after the document's change = %q; want %q", k.name, got, k.cD)
		}
		if got := now["conflict"].Fields[key]; !slices.Equal(got, k.cD) {
			t.Errorf("conflict %s after take-document = %q; want %q", k.name, got, k.cD)
		}
	}
}
