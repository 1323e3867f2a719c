package core_test

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/fakeprovider"
)

// fieldKind is one field kind of the three-way scenarios: the document's
// line name and key, and three values (the first import's, a person's in
// the tracker, the document's next) as the document writes them and in
// the tracker's canonical form.
type fieldKind struct {
	name, key  string
	v0, vJ, vD string
	c0, cJ, cD []string
}

// fieldKinds are every built-in field and every custom field type (issue
// 16): text, number, date, select, multi-select, user (a reviewer who
// cannot be assigned issues: user fields take anyone) and labels.
var fieldKinds = []fieldKind{
	{"Labels", "labels", "a, b", "a, c", "a, d", []string{"a", "b"}, []string{"a", "c"}, []string{"a", "d"}},
	{"Priority", "priority", "High", "Low", "lowest", []string{"High"}, []string{"Low"}, []string{"Lowest"}},
	{"Assignee", "assignee", "ana@example.com", "bo@example.com", "cy@example.com", []string{"acc-ana"}, []string{"acc-bo"}, []string{"acc-cy"}},
	{"Estimate", "estimate", "5", "8", "13.0", []string{"5"}, []string{"8"}, []string{"13"}},
	{"Components", "components", "Payments", "Payments, Web", "Web", []string{"Payments"}, []string{"Payments", "Web"}, []string{"Web"}},
	{"Fix versions", "fix_versions", "2027.1", "2027.2", "2027.3", []string{"2027.1"}, []string{"2027.2"}, []string{"2027.3"}},
	{"Due", "due", "2027-03-01", "2027-03-02", "2027-03-03", []string{"2027-03-01"}, []string{"2027-03-02"}, []string{"2027-03-03"}},
	{"Notes", "fields.Notes", "alpha", "beta", "gamma", []string{"alpha"}, []string{"beta"}, []string{"gamma"}},
	{"Points", "fields.Points", "1", "2", "3", []string{"1"}, []string{"2"}, []string{"3"}},
	{"Start", "fields.Start", "2027-01-01", "2027-01-02", "2027-01-03", []string{"2027-01-01"}, []string{"2027-01-02"}, []string{"2027-01-03"}},
	{"Team", "fields.Team", "Payments", "Web", "mobile", []string{"Payments"}, []string{"Web"}, []string{"Mobile"}},
	{"Areas", "fields.Areas", "UI, API", "UI", "UI, DB", []string{"UI", "API"}, []string{"UI"}, []string{"UI", "DB"}},
	{"Reviewer", "fields.Reviewer", "nina@example.com", "bo@example.com", "cy@example.com", []string{"acc-nina"}, []string{"acc-bo"}, []string{"acc-cy"}},
	{"Tags", "fields.Tags", "x, y", "x", "x, z", []string{"x", "y"}, []string{"x"}, []string{"x", "z"}},
}

// kindsEnv is an env whose tracker has every custom field type.
func kindsEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.p.SetFieldMeta(fakeprovider.FieldMeta{
		Users:       map[string][]string{"ana@example.com": {"acc-ana"}, "bo@example.com": {"acc-bo"}, "cy@example.com": {"acc-cy"}, "nina@example.com": {"acc-nina"}},
		Components:  []string{"Payments", "Web"},
		FixVersions: []string{"2027.1", "2027.2", "2027.3"},
		Custom: map[string][]string{"fields.Notes": nil, "fields.Points": nil, "fields.Start": nil, "fields.Team": {"Payments", "Web", "Mobile"},
			"fields.Areas": {"UI", "API", "DB"}, "fields.Reviewer": nil, "fields.Tags": nil},
		Types: map[string]string{"fields.Notes": "text", "fields.Points": "number", "fields.Start": "date", "fields.Team": "select",
			"fields.Areas": "multiselect", "fields.Reviewer": "user", "fields.Tags": "labels"},
		NotAssignable: []string{"acc-nina"},
	})
	e.svc = core.NewWorkItemService(core.ServiceOptions{
		Provider: e.p, Store: e.st, Now: e.clock.Now, Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Fields: core.FieldOptions{Custom: []string{"Notes", "Points", "Start", "Team", "Areas", "Reviewer", "Tags"}},
	})
	return e
}

// kindDoc is a document whose story sets one field line.
func kindDoc(k fieldKind, value, text, marker string) string {
	return fmt.Sprintf("---\nid: fk\n---\n## Epic e-1: Epic\n\nEpic text.\n\n### Story s-1: Story\n%s: %s\n%s\n%s\n", k.name, value, marker, text)
}

// shownTo is how a change shows the document's value: canonical, or as
// written where it is one value written otherwise (a person's e-mail;
// an estimate is read as a number by the parser already).
func (k fieldKind) shownTo(written string, canonical []string) string {
	if len(canonical) == 1 && !strings.EqualFold(written, canonical[0]) && !strings.Contains(written, ",") && k.key != "estimate" {
		return written
	}
	return strings.Join(canonical, ", ")
}

func fieldRow(t *testing.T, row core.PlanItem, key string) core.PlanField {
	t.Helper()
	for _, f := range row.Fields {
		if f.Field == key {
			return f
		}
	}
	t.Fatalf("no %s row in %+v", key, row.Fields)
	return core.PlanField{}
}

func changeOf(row core.PlanItem, key string) (core.FieldChange, bool) {
	for _, c := range row.Changes {
		if c.Field == key {
			return c, true
		}
	}
	return core.FieldChange{}, false
}

// TestThreeWayEveryFieldKind runs the four three-way cases for every
// built-in field and every custom field type through the fake provider:
// a person's change the document did not make is kept; the document's
// change is written (and shown old → new); both changing differently is a
// conflict (drift, nothing written, shown with what each side changed)
// that "Drift: take-document" writes; both moving the same way is
// unchanged, and the next write moves the base forward.
func TestThreeWayEveryFieldKind(t *testing.T) {
	for _, k := range fieldKinds {
		t.Run(k.name, func(t *testing.T) {
			start := func(t *testing.T) (*env, string) {
				t.Helper()
				e := kindsEnv(t)
				e.commit(e.preview(kindDoc(k, k.v0, "Text.", "")).PreviewHandle, "k0")
				w := e.item("fk/s-1")
				if !slices.Equal(w.Fields[k.key], k.c0) {
					t.Fatalf("after the first import %s = %q; want %q", k.key, w.Fields[k.key], k.c0)
				}
				return e, w.Key
			}
			person := func(t *testing.T, e *env, key string) {
				t.Helper()
				if err := e.p.SetField(key, k.key, k.cJ); err != nil {
					t.Fatal(err)
				}
			}
			t.Run("kept", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				pre := e.preview(kindDoc(k, k.v0, "Text changed.", ""))
				row := planRow(t, pre, "fk/s-1")
				if f := fieldRow(t, row, k.key); f.Write != "kept" || f.Tracker != strings.Join(k.cJ, ", ") {
					t.Errorf("row %+v; want kept with the tracker's %q", f, k.cJ)
				}
				if _, ok := changeOf(row, k.key); ok || row.Action != core.ActionUpdate {
					t.Errorf("%s with changes %+v; want an update of the description only", row.Action, row.Changes)
				}
				e.commit(pre.PreviewHandle, "k1")
				if w := e.item("fk/s-1"); !slices.Equal(w.Fields[k.key], k.cJ) || w.FieldBases[k.key] != core.FieldDigest(k.c0) {
					t.Errorf("after the commit %q (base %s); want the person's %q with the old base", w.Fields[k.key], w.FieldBases[k.key], k.cJ)
				}
			})
			t.Run("written", func(t *testing.T) {
				e, _ := start(t)
				pre := e.preview(kindDoc(k, k.vD, "Text.", ""))
				row := planRow(t, pre, "fk/s-1")
				c, _ := changeOf(row, k.key)
				if f := fieldRow(t, row, k.key); f.Write != "set" || row.Action != core.ActionUpdate || c.From != strings.Join(k.c0, ", ") || c.To != k.shownTo(k.vD, k.cD) || c.Conflict {
					t.Errorf("%s %+v change %+v; want set, %q → %q", row.Action, f, c, k.c0, k.shownTo(k.vD, k.cD))
				}
				e.commit(pre.PreviewHandle, "k1")
				if w := e.item("fk/s-1"); !slices.Equal(w.Fields[k.key], k.cD) {
					t.Errorf("after the commit %q; want %q", w.Fields[k.key], k.cD)
				}
			})
			t.Run("conflict", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				pre := e.preview(kindDoc(k, k.vD, "Text.", ""))
				row := planRow(t, pre, "fk/s-1")
				c, _ := changeOf(row, k.key)
				if f := fieldRow(t, row, k.key); f.Write != "conflict" || row.Action != core.ActionDrift || !c.Conflict {
					t.Fatalf("%s %+v change %+v; want a conflict, drift", row.Action, f, c)
				}
				base := strings.Join(k.c0, ", ")
				if c.Tracker == nil || c.Document == nil || c.Tracker.From != base || c.Tracker.To != strings.Join(k.cJ, ", ") || c.Document.From != base || c.Document.To != k.shownTo(k.vD, k.cD) {
					t.Errorf("sides %+v %+v; want %s → %q (Jira) and → %q (document)", c.Tracker, c.Document, base, k.cJ, k.shownTo(k.vD, k.cD))
				}
				writes := e.p.Writes()
				e.commit(pre.PreviewHandle, "k1")
				if w := e.item("fk/s-1"); e.p.Writes() != writes || !slices.Equal(w.Fields[k.key], k.cJ) {
					t.Errorf("the drift wrote (%d) or changed %s to %q", e.p.Writes()-writes, k.key, w.Fields[k.key])
				}
				pre = e.preview(kindDoc(k, k.vD, "Text.", "Drift: take-document"))
				if f := fieldRow(t, planRow(t, pre, "fk/s-1"), k.key); f.Write != "take-document" {
					t.Errorf("with take-document %+v", f)
				}
				e.commit(pre.PreviewHandle, "k2")
				if w := e.item("fk/s-1"); !slices.Equal(w.Fields[k.key], k.cD) {
					t.Errorf("after take-document %q; want %q", w.Fields[k.key], k.cD)
				}
			})
			t.Run("same way", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				row := planRow(t, e.preview(kindDoc(k, k.vJ, "Text.", "")), "fk/s-1")
				if f := fieldRow(t, row, k.key); f.Write != "unchanged" || row.Action != core.ActionUnchanged {
					t.Errorf("%s %+v; want unchanged", row.Action, f)
				}
				// The next write (of the description) moves the base to
				// the shared value, so the document's next change of the
				// field is written, not a conflict.
				e.commit(e.preview(kindDoc(k, k.vJ, "Text changed.", "")).PreviewHandle, "k1")
				if w := e.item("fk/s-1"); w.FieldBases[k.key] != core.FieldDigest(k.cJ) {
					t.Errorf("base %s; want moved forward to %q", w.FieldBases[k.key], k.cJ)
				}
				pre := e.preview(kindDoc(k, k.vD, "Text changed.", ""))
				if f := fieldRow(t, planRow(t, pre, "fk/s-1"), k.key); f.Write != "set" {
					t.Errorf("the document's next change %+v; want set", f)
				}
				e.commit(pre.PreviewHandle, "k2")
				if w := e.item("fk/s-1"); !slices.Equal(w.Fields[k.key], k.cD) {
					t.Errorf("after the commit %q; want %q", w.Fields[k.key], k.cD)
				}
			})
		})
	}
}

// The assignee is resolved among assignable people only, a user field
// among everyone: a reviewer who cannot be assigned issues is refused as
// the assignee (issue 16).
func TestNotAssignablePersonIsRefusedAsAssigneeOnly(t *testing.T) {
	e := kindsEnv(t)
	_, err := e.svc.ImportPreview(e.ctx, core.ImportPreviewInput{Path: "plan.md", Data: []byte(kindDoc(fieldKinds[2], "nina@example.com", "Text.", ""))})
	ce := wantErr(t, err, core.CodeValidationFailed)
	if len(ce.Details) != 1 || ce.Details[0].Field != "assignee" || !strings.Contains(ce.Details[0].Message, `no assignable user "nina@example.com"`) {
		t.Errorf("details %+v", ce.Details)
	}
}
