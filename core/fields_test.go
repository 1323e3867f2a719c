package core_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/fakeprovider"
	"github.com/devworkwire/devworkwire/core/plan"
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
	e.svc = core.NewWorkItemService(core.ServiceOptions{
		Provider: e.p, Store: e.st, Now: e.clock.Now, Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Fields: core.FieldOptions{Custom: []string{"Team"}, Defaults: defaults},
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

func rowOf(t *testing.T, res core.ImportPreviewResult, ref core.Reference, field string) core.PlanField {
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
	return core.PlanField{}
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
	_, err := e.svc.ImportPreview(e.ctx, core.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
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
	for f, want := range map[string]string{"assignee": "kept", "priority": "conflict", "estimate": "unchanged", "due": "unchanged"} {
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
