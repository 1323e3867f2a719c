package service_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// backlog adds, as people would, an epic DEMO-1 with a story DEMO-2
// (which has a sub-task DEMO-3), a loose story DEMO-4 and an epic DEMO-5:
// none carries a reference.
func backlog(e *env) {
	e.t.Helper()
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindEpic, Title: "Checkout (old)", Description: "What the team wrote."})
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay", ParentKey: "DEMO-1", Description: "Pay by card."})
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindSubtask, Title: "Wire the API", ParentKey: "DEMO-2"})
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Loose"})
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindEpic, Title: "Other epic"})
}

const adoptDoc = `---
id: shop
---
## Epic e-1: Checkout
Key: DEMO-1

What the team wrote.

### Story s-1: Pay
Key: DEMO-2

Pay by card or wallet.

#### Sub-task t-1: Wire the API
Key: DEMO-3

### Story s-2: Brand new
`

// A Key line adopts the issue: the preview shows adopt with the diff
// between the tracker and the document, the commit writes the reference
// and the document's content to that issue (no create), and a re-import
// is unchanged.
func TestAdoptTakesOverExistingIssues(t *testing.T) {
	e := newEnv(t)
	backlog(e)
	pre := e.preview(adoptDoc)
	if pre.Counts.Adopt != 3 || pre.Counts.Create != 1 || pre.Counts.Update != 0 {
		t.Fatalf("counts %+v; want 3 adopt, 1 create", pre.Counts)
	}
	ep := planRow(t, pre, "shop/e-1")
	if ep.Action != service.ActionAdopt || ep.Key != "DEMO-1" || len(ep.Changes) != 1 || ep.Changes[0].Field != "title" || ep.Changes[0].From != "Checkout (old)" || ep.Changes[0].To != "Checkout" {
		t.Errorf("epic row %+v; want adopt DEMO-1 with title Checkout (old) → Checkout", ep)
	}
	st := planRow(t, pre, "shop/s-1")
	if st.Action != service.ActionAdopt || st.Key != "DEMO-2" || !slices.Contains(st.ChangedFields, "description") {
		t.Errorf("story row %+v; want adopt DEMO-2 changing the description", st)
	}
	if sub := planRow(t, pre, "shop/t-1"); sub.Action != service.ActionAdopt || sub.Key != "DEMO-3" {
		t.Errorf("sub-task row %+v", sub)
	}
	before := len(e.p.Items())
	res := e.commit(pre.PreviewHandle, "")
	if res.Counts.Adopted != 3 || res.Counts.Created != 1 {
		t.Errorf("commit counts %+v", res.Counts)
	}
	if n := len(e.p.Items()); n != before+1 {
		t.Errorf("%d issues after the commit, want %d (only s-2 created)", n, before+1)
	}
	got := e.byRef()
	for ref, key := range map[core.Reference]string{"shop/e-1": "DEMO-1", "shop/s-1": "DEMO-2", "shop/t-1": "DEMO-3"} {
		if got[ref].Key != key {
			t.Errorf("%s is held by %q, want %s", ref, got[ref].Key, key)
		}
	}
	if w := got["shop/e-1"]; w.Title != "Checkout" || w.EditedOutside {
		t.Errorf("adopted epic %+v; want the document's title, written by DevWorkWire", w)
	}
	if w := got["shop/s-1"]; w.Description != "Pay by card or wallet." || w.ParentKey != "DEMO-1" {
		t.Errorf("adopted story %+v", w)
	}
	idx, err := e.st.LookupIndex(e.ctx, e.p.Scope(), []core.Reference{"shop/e-1", "shop/s-1", "shop/t-1"})
	if err != nil || idx["shop/e-1"].Key != "DEMO-1" || idx["shop/t-1"].Key != "DEMO-3" {
		t.Errorf("dedup index %+v, %v", idx, err)
	}
	// Re-imported with the Key lines still there: plain unchanged.
	again := e.preview(adoptDoc)
	if again.Counts.Unchanged != 4 || again.Counts.Adopt != 0 || again.Counts.Create != 0 {
		t.Errorf("re-import counts %+v; want 4 unchanged", again.Counts)
	}
}

// Every item that cannot adopt its issue is refused at once, before
// anything is stored: unknown key, another project's, an issue holding
// another reference, kind mismatches, a sub-task of another story, and
// an item whose reference another issue already holds.
func TestAdoptRefusals(t *testing.T) {
	e := newEnv(t)
	backlog(e)
	e.importDoc("---\nid: shop\n---\n## Story s-9: Made by the plan\n")
	held := e.byRef()["shop/s-9"].Key
	claimed := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Someone's", Reference: "other/x-1"})
	sub := e.p.AddAsPerson(core.WorkItem{Kind: core.KindSubtask, Title: "A piece", ParentKey: "DEMO-4"})
	doc := `---
id: shop
---
## Epic e-1: Checkout
Key: DEMO-4

### Story s-1: Pay
Key: DEMO-5

#### Sub-task t-1: Wire
Key: DEMO-3

### Story s-2: Gone
Key: DEMO-99

### Story s-3: Elsewhere
Key: OTHER-7

### Story s-4: Claimed
Key: ` + claimed + `

## Story s-5: Sub-task as a story
Key: ` + sub + `

## Story s-9: Made by the plan
Key: DEMO-2
`
	before := e.p.Writes()
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	ce := wantErr(t, err, core.CodeValidationFailed, "8 item(s) cannot adopt")
	want := map[string]string{
		"e-1": "DEMO-4: it is a story in the tracker and the item is an epic",
		"s-1": "DEMO-5: it is an epic in the tracker and the item is a story",
		"t-1": "it is a sub-task of DEMO-2 in the tracker, but the item sits under story s-1",
		"s-2": "cannot adopt DEMO-99: Work item DEMO-99 does not exist",
		"s-3": "OTHER-7 is an issue of project OTHER",
		"s-4": "already carries the reference other/x-1 (item x-1 of document other)",
		"s-5": "it is a sub-task in the tracker and the item is a story",
		"s-9": "its reference shop/s-9 is already held by " + held,
	}
	// Each names its item by reference, as field-value problems do.
	for _, d := range ce.Details {
		id, _ := strings.CutPrefix(d.Item, "shop/")
		if w, ok := want[id]; ok && id != d.Item && strings.Contains(d.Message, w) && d.Field == "key" && d.Line > 0 {
			delete(want, id)
		}
	}
	for id, w := range want {
		t.Errorf("no detail for %s with %q in %+v", id, w, ce.Details)
	}
	if e.p.Writes() != before {
		t.Errorf("a refused preview wrote %d times", e.p.Writes()-before)
	}
	// One issue adopted by two items: the document's own problem.
	_, err = e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte("## Story a: A\nKey: DEMO-4\n\n## Story b: B\nKey: DEMO-4\n")})
	wantErr(t, err, core.CodeValidationFailed, "Story b adopts DEMO-4 at line 5, which Story a adopts already")
}

// A commit that dies after an adopt's edit took effect, before its
// outcome was recorded, and is previewed again (search not showing the
// new reference yet) adopts once: the issue is found as this item's.
func TestAdoptAfterACrashAdoptsOnce(t *testing.T) {
	for _, after := range []bool{false, true} {
		e := newEnv(t)
		e.oneAtATime()
		backlog(e)
		doc := "---\nid: shop\n---\n## Epic e-1: Checkout\nKey: DEMO-1\n\n## Epic e-2: Other\nKey: DEMO-5\n"
		pre := e.preview(doc)
		e.p.CrashAt(fakeprovider.OpUpdate, 2, after)
		e.p.SetSearchLag(true)
		func() {
			defer func() {
				if r := recover(); r != fakeprovider.ErrCrash {
					t.Fatalf("after=%v: recovered %v, want the crash", after, r)
				}
			}()
			e.commit(pre.PreviewHandle, "")
		}()
		e.p.ClearFaults()
		e.svc = e.service(e.p) // a new process
		re := e.preview(doc)
		if re.Counts.Create != 0 || re.Counts.Adopt+re.Counts.Unchanged+re.Counts.Update != 2 {
			t.Fatalf("after=%v: re-preview %+v", after, re.Counts)
		}
		wantAdopt := 1
		if after {
			wantAdopt = 0 // the second edit went through: found as this item's
		}
		if re.Counts.Adopt != wantAdopt {
			t.Errorf("after=%v: %d adopts on the re-preview, want %d", after, re.Counts.Adopt, wantAdopt)
		}
		e.commit(re.PreviewHandle, "")
		e.p.Settle()
		got := e.byRef()
		if got["shop/e-1"].Key != "DEMO-1" || got["shop/e-2"].Key != "DEMO-5" || len(e.p.Items()) != 5 {
			t.Errorf("after=%v: references %v, %d issues", after, got, len(e.p.Items()))
		}
	}
}

// The stale check covers an adopted issue: edited, or taken by someone
// else, between the preview and the commit → PREVIEW_STALE, nothing
// written.
func TestAdoptStale(t *testing.T) {
	for name, change := range map[string]func(p *fakeprovider.Provider) error{
		"edited":  func(p *fakeprovider.Provider) error { return p.EditTitle("DEMO-1", "Renamed") },
		"claimed": func(p *fakeprovider.Provider) error { return p.SetReference("DEMO-1", "other/x") },
		"deleted": func(p *fakeprovider.Provider) error { p.Delete("DEMO-1"); return nil },
	} {
		e := newEnv(t)
		backlog(e)
		pre := e.preview("---\nid: shop\n---\n## Epic e-1: Checkout\nKey: DEMO-1\n")
		if err := change(e.p); err != nil {
			t.Fatal(err)
		}
		before := e.p.Writes()
		_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
		ce := wantErr(t, err, core.CodePreviewStale)
		if len(ce.Details) != 1 || ce.Details[0].Key != "DEMO-1" || !strings.Contains(ce.Details[0].Message, "which the plan adopts as shop/e-1") {
			t.Errorf("%s: details %+v", name, ce.Details)
		}
		if e.p.Writes() != before {
			t.Errorf("%s: a stale commit wrote", name)
		}
	}
}
