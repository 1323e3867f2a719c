package service_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// withoutS2 is the checkout document without story s-2.
func withoutS2() []docItem {
	return slices.DeleteFunc(slices.Clone(checkoutItems), func(it docItem) bool { return it.id == "s-2" })
}

// A story removed from the document is shown as removed, left alone:
// nothing is written or deleted, the commit counts it.
func TestRemovedItemIsShownAndLeftAlone(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-2"].Key
	pre := e.preview(markdown("checkout", withoutS2()...))
	if pre.Counts != (service.Counts{Unchanged: 5, Removed: 1}) {
		t.Fatalf("counts %+v", pre.Counts)
	}
	row := planRow(t, pre, "checkout/s-2")
	if row.Action != service.ActionRemoved || row.Key != key || row.Title != "Save address" || row.Status != core.StatusTodo || row.Parent != "checkout/e-1" || row.Kind != core.KindStory {
		t.Errorf("row %+v", row)
	}
	before := e.p.Writes()
	res := e.commit(pre.PreviewHandle, "")
	if res.Counts != (service.CommitCounts{Unchanged: 5, Removed: 1}) || e.p.Writes() != before {
		t.Errorf("commit %+v, %d writes", res.Counts, e.p.Writes()-before)
	}
	if w := e.byRef()["checkout/s-2"]; w.Key != key || w.Status != core.StatusTodo {
		t.Errorf("the removed item changed: %+v", w)
	}
	// Deleted in the tracker: nothing to show.
	e.p.Delete(key)
	if pre := e.preview(markdown("checkout", withoutS2()...)); pre.Counts != (service.Counts{Unchanged: 5}) {
		t.Errorf("after the delete: %+v", pre.Counts)
	}
}

// `removed: close` (front matter) or the preview input plans a transition
// to done with a comment; the commit writes it; an item already done is
// only shown.
func TestRemovedItemIsClosedOnlyWhenChosen(t *testing.T) {
	for _, how := range []string{"front matter", "input"} {
		t.Run(how, func(t *testing.T) {
			e := checkoutEnv(t)
			key := e.byRef()["checkout/s-2"].Key
			doc := markdown("checkout", withoutS2()...)
			in := service.ImportPreviewInput{Path: "plan.md"}
			if how == "front matter" {
				doc = strings.Replace(doc, "id: checkout\n", "id: checkout\nremoved: close\n", 1)
			} else {
				in.Removed = "close"
			}
			in.Data = []byte(doc)
			e.p.ForbidWrites(t)
			pre, err := e.svc.ImportPreview(e.ctx, in)
			e.p.AllowWrites()
			if err != nil {
				t.Fatal(err)
			}
			row := planRow(t, pre, "checkout/s-2")
			if pre.Counts != (service.Counts{Unchanged: 5, Close: 1}) || row.Action != service.ActionClose || row.Transition == "" ||
				!strings.Contains(row.Comment, "no longer in the planning document checkout") {
				t.Fatalf("counts %+v row %+v", pre.Counts, row)
			}
			res := e.commit(pre.PreviewHandle, "")
			if res.Counts != (service.CommitCounts{Unchanged: 5, Closed: 1}) {
				t.Errorf("commit %+v", res.Counts)
			}
			if w := e.byRef()["checkout/s-2"]; w.Status != core.StatusDone || len(e.p.Comments(key)) != 1 {
				t.Errorf("after the close: %+v, comments %q", w, e.p.Comments(key))
			}
			again := e.preview(doc)
			if r := planRow(t, again, "checkout/s-2"); r.Action != service.ActionRemoved || r.Status != core.StatusDone || again.Counts.Close != 0 {
				t.Errorf("a closed item is planned again: %+v", r)
			}
		})
	}
}

// Closing needs the transition and comment permissions (checked at the
// preview) and a transition to done; without one the item is left alone
// with a warning.
func TestClosingRemovedItemsNeedsAWay(t *testing.T) {
	e := checkoutEnv(t)
	in := service.ImportPreviewInput{Path: "plan.md", Data: []byte(markdown("checkout", withoutS2()...)), Removed: "close"}
	e.p.Deny(core.PermissionTransition)
	_, err := e.svc.ImportPreview(e.ctx, in)
	wantErr(t, err, core.CodeJiraPermissionDenied, "TRANSITION_ISSUES")
	e = newEnv(t)
	e.importDoc(checkoutDoc())
	e.p.RemoveTransitionTo(core.StatusDone)
	pre, err := e.svc.ImportPreview(e.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if row := planRow(t, pre, "checkout/s-2"); row.Action != service.ActionRemoved || len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "no workflow transition takes it from todo to done") {
		t.Errorf("row %+v warnings %q", row, pre.Warnings)
	}
}

// A close that fails stops the commit like any write (COMMIT_PARTIAL with
// the close named), after the creates and updates.
func TestFailedCloseIsReported(t *testing.T) {
	e := checkoutEnv(t)
	items := withoutS2()
	items[1].title = "Pay as a guest"
	in := service.ImportPreviewInput{Path: "plan.md", Data: []byte(markdown("checkout", items...)), Removed: "close"}
	pre, err := e.svc.ImportPreview(e.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	e.p.FailCall(fakeprovider.OpTransition, 1, core.Errorf(core.CodeJiraPermissionDenied, "no"))
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeCommitPartial, "closing checkout/s-2")
	outcomes := map[string]string{}
	for _, d := range ce.Details {
		outcomes[d.Item] = d.Outcome
	}
	if outcomes["checkout/s-1"] != core.OutcomeCommitted || outcomes["checkout/s-2"] != core.OutcomeFailed {
		t.Errorf("outcomes %v", outcomes)
	}
}

// After the import that no longer lists it, a removed item is marked in
// queries (ready work included) and reads; the others are not.
func TestQueriesMarkRemovedItems(t *testing.T) {
	e := checkoutEnv(t)
	pre := e.preview(markdown("checkout", withoutS2()...))
	e.commit(pre.PreviewHandle, "")
	res, err := e.svc.Query(e.ctx, service.QueryInput{Ready: true})
	if err != nil {
		t.Fatal(err)
	}
	marked := map[core.Reference]bool{}
	for _, v := range res.Items {
		marked[v.Reference] = v.Removed
	}
	if len(marked) < 3 || !marked["checkout/s-2"] || marked["checkout/s-1"] {
		t.Errorf("ready items and their removed marks: %v", marked)
	}
	g, err := e.svc.Get(e.ctx, service.GetInput{Item: "checkout/s-2"})
	if err != nil || !g.Item.Removed {
		t.Errorf("Get = %+v, %v; want removed", g.Item, err)
	}
	if g, _ := e.svc.Get(e.ctx, service.GetInput{Item: "checkout/s-1"}); g.Item.Removed {
		t.Error("a listed item is marked removed")
	}
}

// The caller's choice wins over the document's, and only close or leave
// is a choice.
func TestRemovedChoice(t *testing.T) {
	e := checkoutEnv(t)
	doc := strings.Replace(markdown("checkout", withoutS2()...), "id: checkout\n", "id: checkout\nremoved: close\n", 1)
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc), Removed: "leave"})
	if err != nil || pre.Counts.Removed != 1 || pre.Counts.Close != 0 {
		t.Fatalf("leave over the document's close: %+v, %v", pre.Counts, err)
	}
	_, err = e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc), Removed: "delete"})
	wantErr(t, err, core.CodeValidationFailed, `removed "delete" is not a choice`)
}

// A sub-task the document lists (under its story) is not taken as removed
// once the tracker holds it under its reference.
func TestListedSubtaskIsNotRemoved(t *testing.T) {
	e := checkoutEnv(t)
	key := e.p.AddAsPerson(core.WorkItem{Reference: "checkout/t-1", Kind: core.KindStory, Title: "A sub-task"})
	if err := e.st.UpsertIndex(e.ctx, []core.IndexEntry{{Scope: e.p.Scope(), Reference: "checkout/t-1", Key: key, Digest: "sha256:x", UpdatedAt: e.clock.Now()}}); err != nil {
		t.Fatal(err)
	}
	doc := checkoutDoc() + "\n#### Sub-task t-1: A sub-task\n" // under the last story, s-4
	if pre := e.preview(doc); pre.Counts.Removed != 0 {
		t.Errorf("a listed sub-task is shown as removed: %+v", pre.Counts)
	}
	if pre := e.preview(checkoutDoc()); pre.Counts.Removed != 1 {
		t.Errorf("an unlisted one is not: %+v", pre.Counts)
	}
}
