package service_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// contentRow returns the preview row of ref and its content row of field k
// (Write "" when the part is simply written or unchanged: no row).
func contentRow(t *testing.T, pre service.ImportPreviewResult, ref core.Reference, k string) (service.PlanItem, service.FieldWrite) {
	t.Helper()
	for _, it := range pre.Items {
		if it.Reference == ref {
			for _, f := range it.Fields {
				if f.Field == k {
					return it, f.Write
				}
			}
			return it, ""
		}
	}
	t.Fatalf("no row for %s", ref)
	return service.PlanItem{}, ""
}

// personEdits imports the checkout document, applies a person's edit to
// s-1 in the tracker and returns the env and the document's items to
// change.
func personEdits(t *testing.T, edit func(w *core.WorkItem)) (*env, []docItem) {
	t.Helper()
	e := checkoutEnv(t)
	if err := e.p.Edit(e.byRef()["checkout/s-1"].Key, edit); err != nil {
		t.Fatal(err)
	}
	return e, slices.Clone(checkoutItems)
}

// TestContentMergePerPart: title, description and acceptance criteria are
// each a part of the three-way merge (contentmerge.go), the four cases on
// each.
func TestContentMergePerPart(t *testing.T) {
	const ref = core.Reference("checkout/s-1")
	t.Run("a person's description kept while the document's title is written", func(t *testing.T) {
		e, items := personEdits(t, func(w *core.WorkItem) { w.Description = "Written in Jira." })
		items[1].title = "Pay as a guest"
		pre := e.preview(markdown("checkout", items...))
		row, write := contentRow(t, pre, ref, "description")
		if row.Action != core.ActionUpdate || write != "kept" || !slices.Equal(row.ChangedFields, []string{"title"}) || pre.Counts != (service.Counts{Update: 1, Unchanged: 5}) {
			t.Fatalf("counts %+v row %+v", pre.Counts, row)
		}
		if len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "Description changed in the tracker") || !strings.Contains(pre.Warnings[0], "kept Jira's change") {
			t.Errorf("warnings %q", pre.Warnings)
		}
		e.commit(pre.PreviewHandle, "")
		if w := e.byRef()[ref]; w.Title != "Pay as a guest" || w.Description != "Written in Jira." {
			t.Errorf("after the commit: %q %q", w.Title, w.Description)
		}
		// The person's description stays kept (not taken as DevWorkWire's
		// and overwritten by the next import).
		pre = e.preview(markdown("checkout", items...))
		if _, write := contentRow(t, pre, ref, "description"); write != "kept" || pre.Counts != (service.Counts{Unchanged: 6}) {
			t.Errorf("next preview: %+v, description %q", pre.Counts, write)
		}
	})
	t.Run("a ticked criterion in Jira with the document unchanged is kept", func(t *testing.T) {
		e := newEnv(t)
		items := slices.Clone(checkoutItems)
		items[1].ac = []string{"[ ] It works", "[ ] It is tested"}
		doc := markdown("checkout", items...)
		e.importDoc(doc)
		key := e.byRef()[ref].Key
		if got := e.byRef()[ref].AcceptanceCriteria; !slices.Equal(got, []string{"[ ] It works", "[ ] It is tested"}) {
			t.Fatalf("precondition: criteria %q", got)
		}
		if err := e.p.Edit(key, func(w *core.WorkItem) { w.AcceptanceCriteria = []string{"[x] It works", "[ ] It is tested"} }); err != nil {
			t.Fatal(err)
		}
		pre := e.preview(doc)
		row, write := contentRow(t, pre, ref, "acceptance_criteria")
		if row.Action != core.ActionUnchanged || write != "kept" || pre.Counts != (service.Counts{Unchanged: 6}) {
			t.Fatalf("counts %+v row %+v", pre.Counts, row)
		}
		if len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "Acceptance criteria changed in the tracker") || !strings.Contains(pre.Warnings[0], "kept Jira's change") {
			t.Errorf("warnings %q", pre.Warnings)
		}
	})
	t.Run("the document's change is written where the tracker did not change", func(t *testing.T) {
		e, items := personEdits(t, func(w *core.WorkItem) { w.Title = "Renamed in Jira" })
		items[1].desc = "A new description."
		items[1].ac = []string{"It works", "It is tested", "It is fast"}
		pre := e.preview(markdown("checkout", items...))
		row, write := contentRow(t, pre, ref, "title")
		if row.Action != core.ActionUpdate || write != "kept" || !slices.Equal(row.ChangedFields, []string{"description", "acceptance_criteria"}) {
			t.Fatalf("row %+v", row)
		}
		e.commit(pre.PreviewHandle, "")
		if w := e.byRef()[ref]; w.Title != "Renamed in Jira" || w.Description != "A new description." || len(w.AcceptanceCriteria) != 3 {
			t.Errorf("after the commit: %+v", w)
		}
	})
	t.Run("both changed differently: a conflict, the other parts still written; take-document names it", func(t *testing.T) {
		e, items := personEdits(t, func(w *core.WorkItem) { w.Description = "Jira's text." })
		items[1].desc = "The document's text."
		pre := e.preview(markdown("checkout", items...))
		if row, write := contentRow(t, pre, ref, "description"); row.Action != core.ActionDrift || write != "conflict" || pre.Counts != (service.Counts{Drift: 1, Unchanged: 5}) {
			t.Fatalf("conflict alone: counts %+v row %+v", pre.Counts, row)
		}
		if len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "Description changed both") || !strings.Contains(pre.Warnings[0], `"Drift: take-document description"`) {
			t.Errorf("warnings %q", pre.Warnings)
		}
		items[1].title = "Pay as a guest" // another part changes too: it is written
		pre = e.preview(markdown("checkout", items...))
		row, write := contentRow(t, pre, ref, "description")
		if row.Action != core.ActionUpdate || write != "conflict" || !slices.Equal(row.ChangedFields, []string{"title"}) {
			t.Fatalf("conflict and a title change: row %+v", row)
		}
		e.commit(pre.PreviewHandle, "")
		if w := e.byRef()[ref]; w.Title != "Pay as a guest" || w.Description != "Jira's text." {
			t.Errorf("after the commit: %q %q", w.Title, w.Description)
		}
		// Still a conflict on the next import (Jira's text is not taken as
		// DevWorkWire's); "Drift: take-document description" writes it.
		if pre := e.preview(markdown("checkout", items...)); pre.Counts != (service.Counts{Drift: 1, Unchanged: 5}) {
			t.Errorf("next preview: %+v", pre.Counts)
		}
		doc := strings.Replace(markdown("checkout", items...), "## Story s-1: Pay as a guest\nEpic: e-1\n", "## Story s-1: Pay as a guest\nEpic: e-1\nDrift: take-document description\n", 1)
		pre = e.preview(doc)
		if row, write := contentRow(t, pre, ref, "description"); row.Action != core.ActionUpdate || write != "take-document" || !row.TakeDocument {
			t.Fatalf("take-document description: row %+v", row)
		}
		e.commit(pre.PreviewHandle, "")
		if w := e.byRef()[ref]; w.Description != "The document's text." {
			t.Errorf("after take-document: %q", w.Description)
		}
	})
	t.Run("both moved the same way: unchanged, the base moves forward", func(t *testing.T) {
		e, items := personEdits(t, func(w *core.WorkItem) { w.Title = "Pay as a guest" })
		items[1].title = "Pay as a guest"
		pre := e.preview(markdown("checkout", items...))
		if row, write := contentRow(t, pre, ref, "title"); row.Action != core.ActionUnchanged || write != "" || pre.Counts != (service.Counts{Unchanged: 6}) || len(pre.Warnings) != 0 {
			t.Fatalf("counts %+v row %+v warnings %q", pre.Counts, row, pre.Warnings)
		}
		// The next write (of the description) records the new base: a
		// later change of the document's title is written, not a conflict.
		items[1].desc = "Changed."
		pre = e.preview(markdown("checkout", items...))
		if row, _ := contentRow(t, pre, ref, "title"); row.Action != core.ActionUpdate || !slices.Equal(row.ChangedFields, []string{"description"}) {
			t.Fatalf("description change: row %+v", row)
		}
		e.commit(pre.PreviewHandle, "")
		items[1].title = "Pay with no account"
		pre = e.preview(markdown("checkout", items...))
		if row, write := contentRow(t, pre, ref, "title"); row.Action != core.ActionUpdate || write != "" || !slices.Equal(row.ChangedFields, []string{"title"}) || len(pre.Warnings) != 0 {
			t.Fatalf("title change after the base moved: row %+v (title %q) warnings %q", row, write, pre.Warnings)
		}
	})
}

// TestTakeDocumentResolvesConflictsOnly: "Drift: take-document" takes the
// document's version of what both sides changed, and keeps a person's edit
// of a part the document did not change, as it does for a managed field
// (a person's description used to be overwritten by the document's
// unchanged one).
func TestTakeDocumentResolvesConflictsOnly(t *testing.T) {
	const ref = core.Reference("checkout/s-1")
	for _, c := range []struct{ name, marker string }{{"alone", "Drift: take-document"}, {"naming the part", "Drift: take-document title, description"}} {
		t.Run(c.name, func(t *testing.T) {
			e, items := personEdits(t, func(w *core.WorkItem) { w.Title, w.Description = "Renamed in Jira", "Written in Jira." })
			items[1].title = "Pay as a guest" // the title: changed on both sides
			doc := strings.Replace(markdown("checkout", items...), "## Story s-1: Pay as a guest\nEpic: e-1\n", "## Story s-1: Pay as a guest\nEpic: e-1\n"+c.marker+"\n", 1)
			pre := e.preview(doc)
			row, title := contentRow(t, pre, ref, "title")
			if _, desc := contentRow(t, pre, ref, "description"); title != service.WriteTakeDocument || desc != service.WriteKept {
				t.Fatalf("title %q, description %q; want take-document and kept", title, desc)
			}
			if row.Action != core.ActionUpdate || !row.TakeDocument || !slices.Equal(row.ChangedFields, []string{"title"}) {
				t.Fatalf("row %+v", row)
			}
			if all := strings.Join(pre.Warnings, "\n"); !strings.Contains(all, "Description changed in the tracker") || !strings.Contains(all, "kept Jira's change") {
				t.Errorf("warnings %q", pre.Warnings)
			}
			e.commit(pre.PreviewHandle, "")
			if w := e.byRef()[ref]; w.Title != "Pay as a guest" || w.Description != "Written in Jira." {
				t.Errorf("after the commit: %q %q; want the document's title and the person's description", w.Title, w.Description)
			}
		})
	}
}
