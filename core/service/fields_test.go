package service_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/go-cmp/cmp"
)

// fieldsEnv is an env whose tracker knows two users, components, a
// version and a custom select field "Team" (required on create), with
// the configuration declaring Team and a project default.
func fieldsEnv(t *testing.T, defaults plan.Fields) *env {
	t.Helper()
	e := newEnv(t)
	e.p.SetFieldMeta(fakeprovider.FieldMeta{
		Users:       map[string][]string{"ana@example.com": {"acc-ana"}, "bo@example.com": {"acc-bo"}, "Sam": {"acc-sam1", "acc-sam2"}},
		Components:  []string{"Payments", "Web"},
		FixVersions: []string{"2027.1"},
		Custom:      map[string][]string{"fields.Team": {"Payments", "Web"}},
		Required:    []string{"fields.Team"},
	})
	e.svc = e.serviceWith(service.ServiceOptions{
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Fields: service.FieldOptions{Custom: []string{"Team"}, Defaults: defaults},
	})
	return e
}

const fieldsDoc = `---
id: pay
defaults:
  labels: [checkout]
---
## Epic e-1: Checkout
Team: Web

### Story s-1: Pay as a guest
Labels: guest
Priority: high
Assignee: ana@example.com
Estimate: 5
Components: Payments, Web
Fix versions: 2027.1
Due: 2027-03-01
Team: Payments

Pay without an account.
`

func (e *env) item(ref core.Reference) core.WorkItem {
	e.t.Helper()
	w, ok := e.byRef()[ref]
	if !ok {
		e.t.Fatalf("no item %s", ref)
	}
	return w
}

func rowOf(t *testing.T, res service.ImportPreviewResult, ref core.Reference, field string) service.PlanField {
	t.Helper()
	for _, it := range res.Items {
		if it.Reference != ref {
			continue
		}
		for _, f := range it.Fields {
			if f.Field == field {
				return f
			}
		}
	}
	t.Fatalf("no field %s on %s in %+v", field, ref, res.Items)
	return service.PlanField{}
}

func TestFieldsAreWrittenAndShownWithTheirSource(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{Priority: plan.Field[string]{State: plan.FieldSet, Value: "Low", From: "config"}})
	res := e.preview(fieldsDoc)
	if strings.Contains(strings.Join(res.Warnings, "\n"), "does not write") {
		t.Errorf("fields are still said not to be written: %q", res.Warnings)
	}
	if r := rowOf(t, res, "pay/s-1", "labels"); r.Value != "checkout, guest" || r.Source != "item+document" || r.Write != "set" {
		t.Errorf("labels row %+v", r)
	}
	if r := rowOf(t, res, "pay/s-1", "priority"); r.Value != "high" || r.Source != "item" {
		t.Errorf("priority row %+v", r)
	}
	if r := rowOf(t, res, "pay/e-1", "priority"); r.Value != "Low" || r.Source != "config" {
		t.Errorf("the epic's priority row %+v, want the config default", r)
	}
	e.commit(res.PreviewHandle, "k1")
	got := e.item("pay/s-1").Fields
	want := map[string][]string{
		"labels": {"checkout", "guest"}, "priority": {"High"}, "assignee": {"acc-ana"}, "estimate": {"5"},
		"components": {"Payments", "Web"}, "fix_versions": {"2027.1"}, "due": {"2027-03-01"}, "fields.Team": {"Payments"},
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if again := e.preview(fieldsDoc); again.Counts.Unchanged != 2 {
		t.Errorf("re-preview counts %+v, want both unchanged", again.Counts)
	}
}

func TestFieldsRefusedAtPreviewAllAtOnce(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	doc := `---
id: bad
---
## Epic e-1: Checkout

### Story s-1: Pay
Priority: Urgent
Assignee: Sam
Components: Mobile
Team: Ops
`
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	ce := wantErr(t, err, core.CodeValidationFailed)
	var got []string
	for _, d := range ce.Details {
		got = append(got, d.Item+" "+d.Field+": "+d.Message)
	}
	for _, want := range []string{
		`bad/s-1 priority: Priority: "Urgent" does not exist; allowed: Highest, High, Medium, Low, Lowest`,
		`bad/s-1 assignee: Assignee: "Sam" is ambiguous: acc-sam1, acc-sam2`,
		`bad/s-1 components: Components: "Mobile" does not exist; allowed: Payments, Web`,
		`bad/s-1 fields.Team: Team: "Ops" is not an option; allowed: Payments, Web`,
		`bad/e-1 fields.Team: Team: required; set it in the item or a default`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("details lack %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if e.p.Writes() != 0 {
		t.Fatal("a refused preview wrote")
	}
}

// The three-way cases per field: a person's change the document did not
// make is kept; the document's change is written; both changing
// differently is a conflict the document can override; both moving the
// same way is unchanged.
func TestFieldsThreeWay(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	e.commit(e.preview(fieldsDoc).PreviewHandle, "k1")
	s1 := e.item("pay/s-1")

	// A person reassigns the story and changes its priority; the
	// document changes the description and the priority differently, and
	// the estimate to what a person also set.
	for f, v := range map[string][]string{"assignee": {"acc-bo"}, "priority": {"Lowest"}, "estimate": {"8"}} {
		if err := e.p.SetField(s1.Key, f, v); err != nil {
			t.Fatal(err)
		}
	}
	doc := strings.NewReplacer("Pay without an account.", "Pay without an account, quickly.", "Priority: high", "Priority: Medium", "Estimate: 5", "Estimate: 8").Replace(fieldsDoc)
	res := e.preview(doc)
	for f, want := range map[string]service.FieldWrite{"assignee": "kept", "priority": "conflict", "estimate": "unchanged", "due": "unchanged"} {
		if r := rowOf(t, res, "pay/s-1", f); r.Write != want {
			t.Errorf("%s: %+v, want %s", f, r, want)
		}
	}
	all := strings.Join(res.Warnings, "\n")
	if !strings.Contains(all, "Assignee changed in the tracker") || !strings.Contains(all, "kept Jira's change") || !strings.Contains(all, "Priority changed both in the tracker and in the document") {
		t.Errorf("warnings: %s", all)
	}
	e.commit(res.PreviewHandle, "k2")
	w := e.item("pay/s-1")
	if w.Description != "Pay without an account, quickly." || !slices.Equal(w.Fields["assignee"], []string{"acc-bo"}) || !slices.Equal(w.Fields["priority"], []string{"Lowest"}) {
		t.Errorf("after commit: description %q, fields %v", w.Description, w.Fields)
	}

	// Drift: take-document writes the conflicting field.
	res = e.preview(strings.Replace(doc, "Priority: Medium", "Priority: Medium\nDrift: take-document", 1))
	if r := rowOf(t, res, "pay/s-1", "priority"); r.Write != "take-document" {
		t.Errorf("priority %+v, want take-document", r)
	}
	e.commit(res.PreviewHandle, "k3")
	if w := e.item("pay/s-1"); !slices.Equal(w.Fields["priority"], []string{"Medium"}) || !slices.Equal(w.Fields["assignee"], []string{"acc-bo"}) {
		t.Errorf("after take-document: %v", w.Fields)
	}
}

// An item written before per-field bases (no FieldBases) takes the
// document's values, and is compared three ways from then on.
func TestFieldsMigrationFromItemLevelDigest(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	plain := strings.NewReplacer("Team: Web\n", "Team: Web\n", "Labels: guest\nPriority: high\nAssignee: ana@example.com\nEstimate: 5\nComponents: Payments, Web\nFix versions: 2027.1\nDue: 2027-03-01\n", "").Replace(fieldsDoc)
	e.commit(e.preview(plain).PreviewHandle, "k1")
	key := e.item("pay/s-1").Key
	// What an older version wrote: no bases; a person set the priority.
	if err := e.p.SetField(key, "priority", []string{"Low"}); err != nil {
		t.Fatal(err)
	}
	if e.item("pay/s-1").FieldBases["priority"] != "" {
		t.Fatal("precondition: the item has a priority base")
	}
	res := e.preview(fieldsDoc)
	if r := rowOf(t, res, "pay/s-1", "priority"); r.Write != "set" {
		t.Errorf("priority %+v, want set (no base yet: the document's value)", r)
	}
	e.commit(res.PreviewHandle, "k2")
	w := e.item("pay/s-1")
	if !slices.Equal(w.Fields["priority"], []string{"High"}) || w.FieldBases["priority"] != core.FieldDigest([]string{"High"}) {
		t.Errorf("after the first write with bases: %v %v", w.Fields, w.FieldBases)
	}
}

func TestFieldsNoLongerManagedAreLeftAlone(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	e.commit(e.preview(fieldsDoc).PreviewHandle, "k1")
	res := e.preview(strings.Replace(fieldsDoc, "Priority: high\n", "", 1))
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "Priority is no longer managed by the document; it is left as High") {
		t.Errorf("warnings: %q", res.Warnings)
	}
	e.commit(res.PreviewHandle, "k2")
	if w := e.item("pay/s-1"); !slices.Equal(w.Fields["priority"], []string{"High"}) {
		t.Errorf("priority = %v, want High left alone", w.Fields["priority"])
	}
}

// "Drift: take-document priority" takes the document's priority in a
// conflict and leaves the item's other conflicts (and its content) alone.
func TestFieldsTakeDocumentNamesFields(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	e.commit(e.preview(fieldsDoc).PreviewHandle, "k1")
	key := e.item("pay/s-1").Key
	for f, v := range map[string][]string{"priority": {"Lowest"}, "estimate": {"13"}} {
		if err := e.p.SetField(key, f, v); err != nil {
			t.Fatal(err)
		}
	}
	doc := strings.NewReplacer("Priority: high", "Priority: Medium\nDrift: take-document priority", "Estimate: 5", "Estimate: 8").Replace(fieldsDoc)
	res := e.preview(doc)
	if p, est := rowOf(t, res, "pay/s-1", "priority"), rowOf(t, res, "pay/s-1", "estimate"); p.Write != "take-document" || est.Write != "conflict" {
		t.Errorf("priority %+v, estimate %+v; want take-document and conflict", p, est)
	}
	e.commit(res.PreviewHandle, "k2")
	w := e.item("pay/s-1")
	if !slices.Equal(w.Fields["priority"], []string{"Medium"}) || !slices.Equal(w.Fields["estimate"], []string{"13"}) {
		t.Errorf("after commit: %v; want priority Medium written, estimate 13 kept", w.Fields)
	}
}

// Criteria written with task-list boxes are written as tasks (a plain one
// among them unchecked), so the tracker shows a checklist; unchanged on
// the next preview.
func TestCriteriaBoxesAreWrittenAsTasks(t *testing.T) {
	e := newEnv(t)
	doc := "---\nid: ac\n---\n## Epic e-1: E\n\n### Story s-1: S\nText.\n\nAcceptance criteria:\n- [x] Done already\n- [ ] Still to do\n\n- Plain\n"
	e.commit(e.preview(doc).PreviewHandle, "k1")
	if got := e.item("ac/s-1").AcceptanceCriteria; !slices.Equal(got, []string{"[x] Done already", "[ ] Still to do", "[ ] Plain"}) {
		t.Errorf("criteria in the tracker %q", got)
	}
	if res := e.preview(doc); res.Counts.Unchanged != 2 {
		t.Errorf("re-preview %+v; want unchanged", res.Counts)
	}
}

// Every managed field an update writes has its change, old → new, in the
// form the tracker holds it (a person as the document writes them; lists
// as values added and removed); a field in conflict on the same row (not
// written, the item's other fields are) is there too, with what the
// person changed and what the document wants (issues 16 and 18).
func TestUpdateRowsShowEveryManagedField(t *testing.T) {
	e := fieldsEnv(t, plan.Fields{})
	e.p.SetFieldMeta(fakeprovider.FieldMeta{
		Users:       map[string][]string{"ana@example.com": {"acc-ana"}, "bo@example.com": {"acc-bo"}},
		Components:  []string{"Payments", "Web"},
		FixVersions: []string{"2027.1", "2027.2"},
		Custom:      map[string][]string{"fields.Team": {"Payments", "Web"}},
	})
	e.commit(e.preview(fieldsDoc).PreviewHandle, "k1")
	if err := e.p.SetField(e.item("pay/s-1").Key, "priority", []string{"Lowest"}); err != nil {
		t.Fatal(err)
	}
	doc := strings.NewReplacer("Labels: guest", "Labels: express", "Priority: high", "Priority: Medium", "Assignee: ana@example.com", "Assignee: bo@example.com",
		"Estimate: 5", "Estimate: 8", "Components: Payments, Web", "Components: Web", "Fix versions: 2027.1", "Fix versions: 2027.2",
		"Due: 2027-03-01", "Due: none", "Team: Payments", "Team: Web").Replace(fieldsDoc)
	pre := e.preview(doc)
	row := planRow(t, pre, "pay/s-1")
	want := []service.FieldChange{
		{Field: "assignee", From: "acc-ana", To: "bo@example.com"},
		{Field: "components", From: "Payments, Web", To: "Web", Removed: []string{"Payments"}},
		{Field: "due", From: "2027-03-01", To: ""},
		{Field: "estimate", From: "5", To: "8"},
		{Field: "fields.Team", From: "Payments", To: "Web"},
		{Field: "fix_versions", From: "2027.1", To: "2027.2", Added: []string{"2027.2"}, Removed: []string{"2027.1"}},
		{Field: "labels", From: "checkout, guest", To: "checkout, express", Added: []string{"express"}, Removed: []string{"guest"}},
		{Field: "priority", From: "Lowest", To: "Medium", Conflict: true, Base: "High", Tracker: &service.FieldSide{To: "Lowest"}, Document: &service.FieldSide{To: "Medium"}},
	}
	if diff := cmp.Diff(want, row.Changes); row.Action != core.ActionUpdate || diff != "" {
		t.Errorf("%s changes (-want +got):\n%s", row.Action, diff)
	}
	if slices.Contains(row.ChangedFields, "priority") {
		t.Errorf("changed_fields %v name the field in conflict (not written)", row.ChangedFields)
	}
	storedAsShown(t, e, pre)
	b, _ := json.Marshal(row)
	if !strings.Contains(string(b), `{"field":"priority","from":"Lowest","to":"Medium","conflict":true,"base":"High","tracker":{"to":"Lowest"},"document":{"to":"Medium"}}`) {
		t.Errorf("JSON row %s", b)
	}
	e.commit(pre.PreviewHandle, "k2")
	if w := e.item("pay/s-1"); !slices.Equal(w.Fields["priority"], []string{"Lowest"}) || !slices.Equal(w.Fields["fields.Team"], []string{"Web"}) {
		t.Errorf("after the commit: %v; want the conflicting priority left, the rest written", w.Fields)
	}
}

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
	e.svc = e.serviceWith(service.ServiceOptions{
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Fields: service.FieldOptions{Custom: []string{"Notes", "Points", "Start", "Team", "Areas", "Reviewer", "Tags"}},
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

func changeOf(row service.PlanItem, key string) (service.FieldChange, bool) {
	for _, c := range row.Changes {
		if c.Field == key {
			return c, true
		}
	}
	return service.FieldChange{}, false
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
			// look previews doc: the story's row, its field row and change.
			look := func(t *testing.T, e *env, doc string) (service.ImportPreviewResult, service.PlanItem, service.PlanField, service.FieldChange) {
				t.Helper()
				pre := e.preview(doc)
				row := planRow(t, pre, "fk/s-1")
				c, _ := changeOf(row, k.key)
				return pre, row, rowOf(t, pre, "fk/s-1", k.key), c
			}
			// commit commits pre and checks the field's value after it.
			commit := func(t *testing.T, e *env, pre service.ImportPreviewResult, idem string, want []string) core.WorkItem {
				t.Helper()
				e.commit(pre.PreviewHandle, idem)
				w := e.item("fk/s-1")
				if !slices.Equal(w.Fields[k.key], want) {
					t.Errorf("after the commit %s = %q; want %q", k.key, w.Fields[k.key], want)
				}
				return w
			}
			t.Run("kept", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				pre, row, f, _ := look(t, e, kindDoc(k, k.v0, "Text changed.", ""))
				if f.Write != "kept" || f.Tracker != strings.Join(k.cJ, ", ") {
					t.Errorf("row %+v; want kept with the tracker's %q", f, k.cJ)
				}
				if _, ok := changeOf(row, k.key); ok || row.Action != core.ActionUpdate {
					t.Errorf("%s with changes %+v; want an update of the description only", row.Action, row.Changes)
				}
				if w := commit(t, e, pre, "k1", k.cJ); w.FieldBases[k.key] != core.FieldDigest(k.c0) {
					t.Errorf("base %s; want the old base kept", w.FieldBases[k.key])
				}
			})
			t.Run("written", func(t *testing.T) {
				e, _ := start(t)
				pre, row, f, c := look(t, e, kindDoc(k, k.vD, "Text.", ""))
				if f.Write != "set" || row.Action != core.ActionUpdate || c.From != strings.Join(k.c0, ", ") || c.To != k.shownTo(k.vD, k.cD) || c.Conflict {
					t.Errorf("%s %+v change %+v; want set, %q → %q", row.Action, f, c, k.c0, k.shownTo(k.vD, k.cD))
				}
				commit(t, e, pre, "k1", k.cD)
			})
			t.Run("conflict", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				pre, row, f, c := look(t, e, kindDoc(k, k.vD, "Text.", ""))
				if f.Write != "conflict" || row.Action != core.ActionDrift || !c.Conflict {
					t.Fatalf("%s %+v change %+v; want a conflict, drift", row.Action, f, c)
				}
				base := strings.Join(k.c0, ", ")
				if c.Tracker == nil || c.Document == nil || c.Base != base || c.Tracker.To != strings.Join(k.cJ, ", ") || c.Document.To != k.shownTo(k.vD, k.cD) {
					t.Errorf("sides %+v %+v; want %s → %q (Jira) and → %q (document)", c.Tracker, c.Document, base, k.cJ, k.shownTo(k.vD, k.cD))
				}
				writes := e.p.Writes()
				if commit(t, e, pre, "k1", k.cJ); e.p.Writes() != writes {
					t.Errorf("the drift wrote %d times", e.p.Writes()-writes)
				}
				pre, _, f, _ = look(t, e, kindDoc(k, k.vD, "Text.", "Drift: take-document"))
				if f.Write != "take-document" {
					t.Errorf("with take-document %+v", f)
				}
				commit(t, e, pre, "k2", k.cD)
			})
			t.Run("same way", func(t *testing.T) {
				e, key := start(t)
				person(t, e, key)
				if _, row, f, _ := look(t, e, kindDoc(k, k.vJ, "Text.", "")); f.Write != "unchanged" || row.Action != core.ActionUnchanged {
					t.Errorf("%s %+v; want unchanged", row.Action, f)
				}
				// The next write (of the description) moves the base to
				// the shared value, so the document's next change of the
				// field is written, not a conflict.
				if w := commit(t, e, e.preview(kindDoc(k, k.vJ, "Text changed.", "")), "k1", k.cJ); w.FieldBases[k.key] != core.FieldDigest(k.cJ) {
					t.Errorf("base %s; want moved forward to %q", w.FieldBases[k.key], k.cJ)
				}
				pre, _, f, _ := look(t, e, kindDoc(k, k.vD, "Text changed.", ""))
				if f.Write != "set" {
					t.Errorf("the document's next change %+v; want set", f)
				}
				commit(t, e, pre, "k2", k.cD)
			})
		})
	}
}

// The assignee is resolved among assignable people only, a user field
// among everyone: a reviewer who cannot be assigned issues is refused as
// the assignee.
func TestNotAssignablePersonIsRefusedAsAssigneeOnly(t *testing.T) {
	e := kindsEnv(t)
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(kindDoc(fieldKinds[2], "nina@example.com", "Text.", ""))})
	ce := wantErr(t, err, core.CodeValidationFailed)
	if len(ce.Details) != 1 || ce.Details[0].Field != "assignee" || !strings.Contains(ce.Details[0].Message, `no assignable user "nina@example.com"`) {
		t.Errorf("details %+v", ce.Details)
	}
}
