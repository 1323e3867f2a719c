package service_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/go-cmp/cmp"
)

// planRow returns the preview row of ref.
func planRow(t *testing.T, p service.ImportPreviewResult, ref core.Reference) service.PlanItem {
	t.Helper()
	for _, it := range p.Items {
		if it.Reference == ref {
			return it
		}
	}
	t.Fatalf("no row %s in %+v", ref, p.Items)
	return service.PlanItem{}
}

// An update row says, per field, what the tracker holds and what the
// document writes; the stored plan carries it (shown again by its
// handle), so what is reviewed is what was stored.
func TestUpdateRowsCarryTheirChanges(t *testing.T) {
	e := checkoutEnv(t)
	keys := e.byRef()
	items := slices.Clone(checkoutItems)
	items[1].title = "Pay as a guest"
	items[1].desc = "Line one.\nLine two.\nLine three."
	items[2].ac = []string{"It works", "It is fast", "It is tested"}
	items[4].epic = "e-1"
	pre := e.preview(markdown("checkout", items...))
	want := map[core.Reference][]service.FieldChange{
		"checkout/s-1": {
			{Field: "title", From: "Pay without an account", To: "Pay as a guest"},
			{Field: "description", From: "Story Pay without an account.", To: "Line one.\nLine two.\nLine three.",
				Diff: "@@ -1 +1,3 @@\n-Story Pay without an account.\n+Line one.\n+Line two.\n+Line three.\n"},
		},
		"checkout/s-2": {{Field: "acceptance_criteria", From: "It works\nIt is tested", To: "It works\nIt is fast\nIt is tested",
			Diff: "@@ -1,2 +1,3 @@\n It works\n+It is fast\n It is tested\n"}},
		"checkout/s-3": {{Field: "parent", From: keys["checkout/e-2"].Key, To: keys["checkout/e-1"].Key}},
	}
	for ref, w := range want {
		row := planRow(t, pre, ref)
		if diff := cmp.Diff(w, row.Changes); diff != "" {
			t.Errorf("%s changes (-want +got):\n%s", ref, diff)
		}
		var names []string
		for _, c := range row.Changes {
			names = append(names, c.Field)
		}
		if !slices.Equal(names, row.ChangedFields) {
			t.Errorf("%s: changes %v, changed_fields %v", ref, names, row.ChangedFields)
		}
	}
	if row := planRow(t, pre, "checkout/e-1"); row.Changes != nil {
		t.Errorf("unchanged row has changes %+v", row.Changes)
	}
	storedAsShown(t, e, pre)
	b, _ := json.Marshal(planRow(t, pre, "checkout/s-3"))
	if !strings.Contains(string(b), `"changes":[{"field":"parent","from":"`) {
		t.Errorf("JSON row %s", b)
	}
}

// storedAsShown checks that the stored preview shows pre's rows again.
func storedAsShown(t *testing.T, e *env, pre service.ImportPreviewResult) {
	t.Helper()
	info, err := e.svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pre.Items, info.Import.Items); diff != "" {
		t.Errorf("stored preview differs (-made +shown again):\n%s", diff)
	}
}

// A story moved under an epic this plan creates names the epic by its
// reference (its key is not known before the commit).
func TestParentChangeToANewEpicNamesItsReference(t *testing.T) {
	e := checkoutEnv(t)
	items := append(slices.Clone(checkoutItems), epic("e-3", "New epic"))
	items[4].epic = "e-3"
	row := planRow(t, e.preview(markdown("checkout", items...)), "checkout/s-3")
	if len(row.Changes) != 1 || row.Changes[0].Field != "parent" || row.Changes[0].To != "checkout/e-3" || row.Changes[0].From == "" {
		t.Errorf("changes %+v", row.Changes)
	}
}

// A drift row says where the tracker (with the person's edit) and the
// document differ: the parts in conflict, from the tracker's value to the
// document's; nothing of it is written. A person's edit the document did
// not touch is kept and shows no change, while the document's other
// changes are written (drift per part).
func TestDriftRowsSayWhatDiffers(t *testing.T) {
	editTitleAndCriteria := func(t *testing.T) *env {
		t.Helper()
		e := checkoutEnv(t)
		// A person edits the title and the criteria.
		edit := func(w *core.WorkItem) { w.Title, w.AcceptanceCriteria = "Edited in Jira", []string{"It works"} }
		if err := e.p.Edit(e.byRef()["checkout/s-1"].Key, edit); err != nil {
			t.Fatal(err)
		}
		return e
	}
	fieldWrites := func(row service.PlanItem) map[string]string {
		m := map[string]string{}
		for _, f := range row.Fields {
			m[f.Field] = string(f.Write)
		}
		return m
	}
	t.Run("the document changes the same parts differently: drift, with the changes", func(t *testing.T) {
		e := editTitleAndCriteria(t)
		items := slices.Clone(checkoutItems)
		items[1].title = "Pay as a guest"
		items[1].ac = []string{"It works", "It is tested", "It is documented"}
		row := planRow(t, e.preview(markdown("checkout", items...)), "checkout/s-1")
		// Each in conflict, with what the person changed (base → Jira)
		// and what the document wants (base → document).
		want := []service.FieldChange{
			{Field: "title", From: "Edited in Jira", To: "Pay as a guest", Conflict: true, Base: "Pay without an account",
				Tracker: &service.FieldSide{To: "Edited in Jira"}, Document: &service.FieldSide{To: "Pay as a guest"}},
			{Field: "acceptance_criteria", From: "It works", To: "It works\nIt is tested\nIt is documented", Diff: "@@ -1 +1,3 @@\n It works\n+It is tested\n+It is documented\n", Conflict: true, Base: "It works\nIt is tested",
				Tracker:  &service.FieldSide{To: "It works", Diff: "@@ -1,2 +1 @@\n It works\n-It is tested\n"},
				Document: &service.FieldSide{To: "It works\nIt is tested\nIt is documented", Diff: "@@ -1,2 +1,3 @@\n It works\n It is tested\n+It is documented\n"}},
		}
		if diff := cmp.Diff(want, row.Changes); row.Action != core.ActionDrift || diff != "" {
			t.Errorf("%s changes (-want +got):\n%s", row.Action, diff)
		}
		if row.ChangedFields != nil {
			t.Errorf("a drift row names changed_fields %v (it writes nothing)", row.ChangedFields)
		}
		if w := fieldWrites(row); w["title"] != "conflict" || w["acceptance_criteria"] != "conflict" {
			t.Errorf("field rows %+v", row.Fields)
		}
	})
	t.Run("the document changes another part: an update writing it, the person's parts kept", func(t *testing.T) {
		e := editTitleAndCriteria(t)
		items := slices.Clone(checkoutItems)
		items[1].desc = "Changed in the document."
		pre := e.preview(markdown("checkout", items...))
		row := planRow(t, pre, "checkout/s-1")
		want := []service.FieldChange{{Field: "description", From: "Story Pay without an account.", To: "Changed in the document."}}
		if diff := cmp.Diff(want, row.Changes); row.Action != core.ActionUpdate || diff != "" {
			t.Errorf("%s changes (-want +got):\n%s", row.Action, diff)
		}
		if !slices.Equal(row.ChangedFields, []string{"description"}) {
			t.Errorf("changed_fields %v", row.ChangedFields)
		}
		if w := fieldWrites(row); w["title"] != "kept" || w["acceptance_criteria"] != "kept" {
			t.Errorf("field rows %+v", row.Fields)
		}
		e.commit(pre.PreviewHandle, "")
		if w := e.byRef()["checkout/s-1"]; w.Title != "Edited in Jira" || !slices.Equal(w.AcceptanceCriteria, []string{"It works"}) || w.Description != "Changed in the document." {
			t.Errorf("after the commit: %q %q %q", w.Title, w.Description, w.AcceptanceCriteria)
		}
	})
}

// Values are bounded: a long description is cut with "…" (truncated) and
// its diff keeps at most MaxDiffLines lines, counting the rest.
func TestChangesAreBounded(t *testing.T) {
	e := checkoutEnv(t)
	var lines []string
	for i := range 100 {
		lines = append(lines, strings.Repeat("x", 30)+" line "+string(rune('a'+i%26)))
	}
	items := slices.Clone(checkoutItems)
	items[1].desc = strings.Join(lines, "\n")
	row := planRow(t, e.preview(markdown("checkout", items...)), "checkout/s-1")
	c := row.Changes[0]
	if !c.Truncated || len([]rune(c.To)) != service.MaxChangeValue || !strings.HasSuffix(c.To, "…") {
		t.Errorf("to not bounded: %d runes, truncated %v", len([]rune(c.To)), c.Truncated)
	}
	dl := strings.Split(strings.TrimSuffix(c.Diff, "\n"), "\n")
	if len(dl) != service.MaxDiffLines+2 || dl[len(dl)-1] != `\ 77 more changed lines not shown` {
		t.Errorf("diff of %d lines, last %q", len(dl), dl[len(dl)-1])
	}
}
