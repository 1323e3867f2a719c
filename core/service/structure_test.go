package service_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// Scenarios of a document's structure: sub-tasks, dependencies,
// sprint, rank — preview, refusals, commit, re-import, faults.

const structureDoc = `---
id: shop
---
## Epic e-1: Checkout

### Story s-1: Pay as a guest

Text.

### Story s-2: Save the address
Depends on: s-1
Sprint: DEMO Sprint 2

#### Sub-task t-1: Migration for the address table

Text.

### Story s-3: Show the receipt
Blocks: s-2
`

func (e *env) keyOf(ref core.Reference) string {
	e.t.Helper()
	w, ok := e.byRef()[ref]
	if !ok {
		e.t.Fatalf("%s is not in the tracker", ref)
	}
	return w.Key
}

func structureMessages(res service.ImportPreviewResult) []string {
	var out []string
	for _, c := range res.Structure {
		out = append(out, string(c.Action)+": "+c.Message)
	}
	return out
}

func TestStructureImportAndReimport(t *testing.T) {
	e := newEnv(t)
	res := e.preview(structureDoc)
	msgs := strings.Join(structureMessages(res), "\n")
	for _, want := range []string{"link: s-2 depends on s-1", "link: s-2 depends on s-3", "sprint: s-2 moves to sprint DEMO Sprint 2"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("preview lacks %q:\n%s", want, msgs)
		}
	}
	cr := e.commit(res.PreviewHandle, "")
	if cr.Counts.Created != 5 || cr.Counts.Linked != 2 || cr.Counts.Sprinted != 1 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	s1, s2, s3, t1 := e.keyOf("shop/s-1"), e.keyOf("shop/s-2"), e.keyOf("shop/s-3"), e.keyOf("shop/t-1")
	if got, want := e.p.Deps(), []string{s2 + "<-" + s1, s2 + "<-" + s3}; !sameSet(got, want) {
		t.Errorf("dependencies %v; want %v", got, want)
	}
	w := e.byRef()["shop/t-1"]
	if w.Kind != core.KindSubtask || w.ParentKey != s2 || w.Sprint != "DEMO Sprint 2" {
		t.Errorf("sub-task %s: kind %s parent %s sprint %q; want a sub-task of %s in DEMO Sprint 2", t1, w.Kind, w.ParentKey, w.Sprint, s2)
	}
	// Unchanged re-import: nothing to do, no writes.
	again := e.preview(structureDoc)
	if len(again.Structure) != 0 || again.Counts.Unchanged != 5 {
		t.Errorf("re-import: structure %v counts %+v", structureMessages(again), again.Counts)
	}
	// A person links s-3 to e-1 themselves; the document drops s-2's
	// dependency on s-1: only DevWorkWire's link is removed.
	e1 := e.keyOf("shop/e-1")
	if err := e.p.Link(s3, e1); err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(structureDoc, "Depends on: s-1\n", "", 1)
	res = e.preview(doc)
	if got := structureMessages(res); len(got) != 1 || !strings.Contains(got[0], "unlink: s-2 no longer depends on s-1") {
		t.Errorf("preview after removing a dependency: %v", got)
	}
	cr = e.commit(res.PreviewHandle, "")
	if cr.Counts.Unlinked != 1 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	if got, want := e.p.Deps(), []string{s2 + "<-" + s3, s3 + "<-" + e1}; !sameSet(got, want) {
		t.Errorf("after the re-import: %v; want %v (the person's link kept)", got, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestStructureRefusals: every problem at once, nothing stored, no write.
func TestStructureRefusals(t *testing.T) {
	e := newEnv(t)
	e.p.AddSprint("Old", core.SprintClosed, "DEMO board")
	e.p.AddSprint("Twice", core.SprintFuture, "A")
	e.p.AddSprint("Twice", core.SprintActive, "B")
	e.p.DisableSubtasks()
	doc := `---
id: bad
---
### Story s-1: One
Depends on: other/s-9, NOPE-404
Sprint: Nowhere

#### Sub-task t-1: Piece

### Story s-2: Two
Sprint: Old

### Story s-3: Three
Sprint: Twice
`
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "bad.md", Data: []byte(doc)})
	ce := wantErr(t, err, core.CodeValidationFailed, "structure cannot be written (6 problem(s))")
	all := ce.Message
	for _, want := range []string{"other/s-9, which is not in the tracker", "NOPE-404, which does not exist", `"Nowhere" does not exist`, `"Old" is closed`, `"Twice" is ambiguous: Twice (future, board A); Twice (active, board B)`, "sub-task type"} {
		if !strings.Contains(all, want) {
			t.Errorf("refusal lacks %q: %s", want, all)
		}
	}
	if e.p.Writes() != 0 {
		t.Errorf("%d writes", e.p.Writes())
	}
}

// TestStructureStaleCheckCoversLinks: a link a person adds after the
// preview makes the commit refuse the plan.
func TestStructureStaleCheckCoversLinks(t *testing.T) {
	e := newEnv(t)
	e.importDoc(structureDoc)
	doc := strings.Replace(structureDoc, "Text.\n\n### Story s-2", "Changed text.\n\n### Story s-2", 1)
	res := e.preview(doc)
	if err := e.p.Link(e.keyOf("shop/s-1"), e.keyOf("shop/e-1")); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale)
}

// TestLinkLostResponseIsReadBackNotResent: the answer to a link request
// never came, but the link was made: the commit reads it back, records it
// as committed and made by DevWorkWire, and sends it once.
func TestLinkLostResponseIsReadBackNotResent(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime()
	e.p.LoseResponse(fakeprovider.OpAddDependency, 1, core.Errorf(core.CodeJiraUnavailable, "connection reset"))
	cr := e.importDoc(structureDoc)
	if cr.Counts.Linked != 2 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpAddDependency]; n != 2 {
		t.Errorf("link requests: %d; want 2 (none resent)", n)
	}
	// Made by DevWorkWire: dropping it from the document removes it.
	res := e.preview(strings.Replace(structureDoc, "Depends on: s-1\n", "", 1))
	if got := structureMessages(res); len(got) != 1 || !strings.HasPrefix(got[0], "unlink:") {
		t.Errorf("after the read-back link: %v", got)
	}
}

// TestLinkUnknownIsReportedNotResent: a link whose answer never came and
// that the tracker does not show is unknown: COMMIT_PARTIAL, the sprint
// move after it untried.
func TestLinkUnknownIsReportedNotResent(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime()
	e.p.FailCall(fakeprovider.OpAddDependency, 1, core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "timeout")))
	res := e.preview(structureDoc)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeCommitPartial)
	outcomes := map[string]string{}
	for _, d := range ce.Details {
		outcomes[d.Item] = d.Outcome
	}
	if outcomes["shop/~link:s-2<-s-1"] != core.OutcomeUnknown || outcomes["shop/~sprint:s-2"] != core.OutcomeUntried {
		t.Errorf("outcomes: %v", outcomes)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpAddDependency]; n > 2 {
		t.Errorf("link requests: %d", n)
	}
}

// failedSprintMove commits structureDoc with its sprint move failing with
// err, one write at a time: the tallies the tests check are of the plan's
// order (with writes in flight together, which others got through first
// varies).
func failedSprintMove(t *testing.T, err error) (*env, error) {
	e := newEnv(t)
	e.oneAtATime()
	e.p.FailCall(fakeprovider.OpMoveToSprint, 1, err)
	res := e.preview(structureDoc)
	_, cerr := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	return e, cerr
}

// TestSprintMoveFailureIsPartial: a refused sprint move fails the commit
// fast with COMMIT_PARTIAL; the items and links are committed.
func TestSprintMoveFailureIsPartial(t *testing.T) {
	_, err := failedSprintMove(t, core.Errorf(core.CodeValidationFailed, "sprint closed meanwhile"))
	ce := wantErr(t, err, core.CodeCommitPartial)
	failed := itemsWith(ce.Details, core.OutcomeFailed)
	if !slices.Equal(failed, []string{"shop/~sprint:s-2"}) {
		t.Errorf("failed: %v (%+v)", failed, ce.Details)
	}
	// The links and the sprint move are not items: counted apart.
	wantErr(t, err, core.CodeCommitPartial, "5 item(s) committed, 0 failed, 0 unknown, 0 untried; structure changes (dependencies, sprint, backlog order): 2 written, 1 failed, 0 unknown, 0 untried")
}

// TestSprintMoveLostAnswerIsReadBack: the sprint move was made but its
// answer never came: the commit reads the item back, finds it in the
// sprint, records the move as committed and sends it once.
func TestSprintMoveLostAnswerIsReadBack(t *testing.T) {
	e := newEnv(t)
	e.p.LoseResponse(fakeprovider.OpMoveToSprint, 1, nil)
	cr := e.importDoc(structureDoc)
	if cr.Counts.Sprinted != 1 || cr.Counts.Linked != 2 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpMoveToSprint]; n != 1 {
		t.Errorf("sprint moves sent: %d; want 1 (none resent)", n)
	}
	if w := e.byRef()["shop/s-2"]; w.Sprint != "DEMO Sprint 2" {
		t.Errorf("s-2 in sprint %q", w.Sprint)
	}
	if again := e.preview(structureDoc); len(again.Structure) != 0 {
		t.Errorf("re-import: %v", structureMessages(again))
	}
}

// TestSprintMoveDroppedAnswerIsUnknown: the sprint move's answer never
// came and the item is not in the sprint: the move is reported unknown
// (COMMIT_PARTIAL), not sent again; the next preview plans it again.
func TestSprintMoveDroppedAnswerIsUnknown(t *testing.T) {
	e, err := failedSprintMove(t, core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "the connection dropped")))
	ce := wantErr(t, err, core.CodeCommitPartial, "5 item(s) committed, 0 failed, 0 unknown, 0 untried; structure changes (dependencies, sprint, backlog order): 2 written, 0 failed, 1 unknown, 0 untried", "were not sent again")
	if !slices.ContainsFunc(ce.Details, func(d core.Detail) bool {
		return d.Item == "shop/~sprint:s-2" && d.Outcome == core.OutcomeUnknown && strings.Contains(d.Message, "may or may not have been applied")
	}) {
		t.Errorf("details: %+v", ce.Details)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpMoveToSprint]; n != 1 {
		t.Errorf("sprint moves sent: %d; want 1", n)
	}
	if got := structureMessages(e.preview(structureDoc)); !slices.Equal(got, []string{"sprint: s-2 moves to sprint DEMO Sprint 2"}) {
		t.Errorf("next preview: %v", got)
	}
}

func (e *env) ranked() *service.WorkItemService {
	return e.serviceWith(service.ServiceOptions{Rank: true})
}

func TestRankFollowsTheDocument(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	doc := "---\nid: order\n---\n### Story s-1: One\n\n### Story s-2: Two\n\n### Story s-3: Three\n\n## Epic e-1: Later epic\n"
	// The epic is created first, then ranked after s-3. The new items'
	// rank moves are structure changes, and the preview lists them.
	pre := e.preview(doc)
	if got, want := structureMessages(pre), []string{"rank: 3 new items (s-2 … e-1) are placed after s-1 in the backlog, in the document's order"}; !slices.Equal(got, want) || pre.Counts.Structure != 3 {
		t.Errorf("first preview: %v, %d structure change(s); want %v, 3", got, pre.Counts.Structure, want)
	}
	if cr := e.commit(pre.PreviewHandle, ""); cr.Counts.Ranked != 3 || cr.Counts.Created != 4 {
		t.Errorf("first commit counts: %+v", cr.Counts)
	}
	keys := func(ids ...string) []string {
		var out []string
		for _, id := range ids {
			out = append(out, e.keyOf(core.NewReference("order", id)))
		}
		return out
	}
	if got, want := e.p.Backlog(), keys("s-1", "s-2", "s-3", "e-1"); !slices.Equal(got, want) {
		t.Fatalf("backlog after import: %v; want %v", got, want)
	}
	reordered := "---\nid: order\n---\n### Story s-3: Three\n\n### Story s-1: One\n\n### Story s-2: Two\n\n## Epic e-1: Later epic\n"
	res := e.preview(reordered)
	if got := structureMessages(res); len(got) != 1 || got[0] != "rank: s-3 moves before s-1" {
		t.Errorf("preview: %v", got)
	}
	cr := e.commit(res.PreviewHandle, "")
	if cr.Counts.Ranked != 1 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	if got, want := e.p.Backlog(), keys("s-3", "s-1", "s-2", "e-1"); !slices.Equal(got, want) {
		t.Errorf("backlog: %v; want %v", got, want)
	}
	if again := e.preview(reordered); len(again.Structure) != 0 {
		t.Errorf("re-import: %v", structureMessages(again))
	}
	// A refused rank is a failed outcome; it was the only write, so
	// nothing was written and the run fails with the cause's code.
	e.p.FailRank(e.keyOf("order/s-2"), core.Errorf(core.CodeValidationFailed, "rank locked"))
	res = e.preview("---\nid: order\n---\n### Story s-2: Two\n\n### Story s-3: Three\n\n### Story s-1: One\n\n## Epic e-1: Later epic\n")
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeValidationFailed, "ranking")
	if !slices.ContainsFunc(ce.Details, func(d core.Detail) bool { return d.Item == "order/~rank:s-2" && d.Outcome == core.OutcomeFailed }) {
		t.Errorf("details: %+v", ce.Details)
	}
}

// TestRankLostAnswerIsReadBack: the rank request was applied but its
// answer never came: the commit reads the order back, records the moves
// as committed and sends the request once.
func TestRankLostAnswerIsReadBack(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	e.importDoc(rankDoc("s-1", "s-2", "s-3"))
	e.p.LoseResponse(fakeprovider.OpRank, 1, nil)
	sent := e.p.Stats().Calls[fakeprovider.OpRank]
	cr := e.commit(e.preview(rankDoc("s-3", "s-1", "s-2")).PreviewHandle, "")
	if cr.Counts.Ranked != 1 {
		t.Errorf("counts: %+v", cr.Counts)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpRank] - sent; n != 1 {
		t.Errorf("rank requests: %d; want 1 (none resent)", n)
	}
	if got, want := e.p.Backlog(), []string{e.keyOf("order/s-3"), e.keyOf("order/s-1"), e.keyOf("order/s-2")}; !slices.Equal(got, want) {
		t.Errorf("backlog %v; want %v", got, want)
	}
}

// TestRankUnknownIsReportedNotResent: the rank request's answer never
// came and the order does not show the move: the move is unknown
// (COMMIT_PARTIAL, a structure change, not an item), not sent again; the
// next preview plans it again.
func TestRankUnknownIsReportedNotResent(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	e.importDoc(rankDoc("s-1", "s-2", "s-3"))
	e.p.FailCall(fakeprovider.OpRank, 1, core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "timeout")))
	sent := e.p.Stats().Calls[fakeprovider.OpRank]
	res := e.preview(rankDoc("s-3", "s-1", "s-2"))
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeCommitPartial, "0 item(s) committed, 0 failed, 0 unknown, 0 untried; structure changes (dependencies, sprint, backlog order): 0 written, 0 failed, 1 unknown, 0 untried", "may have been written", "were not sent again")
	if !slices.ContainsFunc(ce.Details, func(d core.Detail) bool { return d.Item == "order/~rank:s-3" && d.Outcome == core.OutcomeUnknown }) {
		t.Errorf("details: %+v", ce.Details)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpRank] - sent; n != 1 {
		t.Errorf("rank requests: %d; want 1", n)
	}
	if got := structureMessages(e.preview(rankDoc("s-3", "s-1", "s-2"))); !slices.Equal(got, []string{"rank: s-3 moves before s-1"}) {
		t.Errorf("next preview: %v", got)
	}
}

// TestRankPlacesNewItemsAhead: new items ahead of the first item that
// stays are placed before it, and the preview says so.
func TestRankPlacesNewItemsAhead(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	e.importDoc(rankDoc("s-1", "s-2"))
	res := e.preview(rankDoc("s-0", "s-1", "s-2"))
	if got, want := structureMessages(res), []string{"rank: new item s-0 is placed before s-1 in the backlog"}; !slices.Equal(got, want) {
		t.Errorf("preview: %v; want %v", got, want)
	}
	e.commit(res.PreviewHandle, "")
	if got, want := e.p.Backlog(), []string{e.keyOf("order/s-0"), e.keyOf("order/s-1"), e.keyOf("order/s-2")}; !slices.Equal(got, want) {
		t.Errorf("backlog %v; want %v", got, want)
	}
}

// rankDoc is document "order" with its stories in the order given.
func rankDoc(ids ...string) string {
	doc := "---\nid: order\n---\n"
	for _, id := range ids {
		doc += "### Story " + id + ": Story " + id + "\n\n"
	}
	return doc
}

// TestRankLeavesOutHeldBackItems: an epic whose create had an unknown
// outcome is held back by the next preview (no key); the items created
// by that plan are ranked among themselves, not relative to the held-back
// epic (which sent a rank request with no anchor, refused by Jira).
func TestRankLeavesOutHeldBackItems(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	e.svc = e.ranked()
	doc := "---\nid: held\n---\n## Epic e-1: First\n\n### Story s-1: One\n\n### Story s-2: Two\n"
	pre := e.preview(doc)
	e.p.FailItem(1, fakeprovider.ItemLost, nil) // e-1: created, response lost
	if _, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true}); core.ErrorCode(err) != core.CodeCommitPartial {
		t.Fatalf("first commit: %v", err)
	}
	again := e.preview(doc)
	if again.Counts.Blocked != 1 {
		t.Fatalf("re-preview counts %+v; want e-1 held back", again.Counts)
	}
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: again.PreviewHandle, Confirmed: true})
	if err != nil {
		for _, d := range core.AsError(err).Details {
			if strings.Contains(string(d.Item), "~rank:") && d.Outcome != core.OutcomeCommitted {
				t.Errorf("rank write %s: %s %s", d.Item, d.Outcome, d.Message)
			}
		}
	}
	s1, s2 := e.keyOf("held/s-1"), e.keyOf("held/s-2")
	if s1 == "" || s2 == "" {
		t.Fatalf("stories not created: %q %q (%v)", s1, s2, err)
	}
	if got := e.p.Backlog(); slices.Index(got, s1) > slices.Index(got, s2) {
		t.Errorf("backlog %v: s-1 (%s) after s-2 (%s)", got, s1, s2)
	}
}

// TestReadyIsStoriesAndSubtasks: ready work is stories and sub-tasks in
// todo whose blockers are all done; epics are not listed; marking the
// blocker done makes the blocked item ready. Get lists dependencies both
// ways with status, sub-tasks and the sprint.
func TestReadyIsStoriesAndSubtasks(t *testing.T) {
	e := newEnv(t)
	e.importDoc(structureDoc)
	ready := func() []string {
		r, err := e.svc.Query(e.ctx, service.QueryInput{Ready: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range r.Items {
			out = append(out, string(it.Reference))
		}
		slices.Sort(out)
		return out
	}
	// s-2 is blocked by s-1 and s-3 (todo); t-1 is a sub-task, ready.
	if got, want := ready(), []string{"shop/s-1", "shop/s-3", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready: %v; want %v", got, want)
	}
	for _, id := range []string{"s-1", "s-3"} {
		if err := e.p.SetStatus(e.keyOf(core.NewReference("shop", id)), core.StatusDone); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := ready(), []string{"shop/s-2", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready after the blockers are done: %v; want %v", got, want)
	}
	g, err := e.svc.Get(e.ctx, service.GetInput{Item: "shop/s-2"})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Item
	if len(v.BlockedBy) != 2 || len(v.Subtasks) != 1 || v.Subtasks[0].Key != e.keyOf("shop/t-1") || v.Sprint != "DEMO Sprint 2" {
		t.Errorf("s-2: blocked by %v, sub-tasks %v, sprint %q", v.BlockedBy, v.Subtasks, v.Sprint)
	}
	g, err = e.svc.Get(e.ctx, service.GetInput{Item: "shop/s-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Item.Blocks) != 1 || g.Item.Blocks[0].Key != e.keyOf("shop/s-2") || g.Item.Blocks[0].Status != core.StatusTodo {
		t.Errorf("s-1 blocks %v", g.Item.Blocks)
	}
	g, err = e.svc.Get(e.ctx, service.GetInput{Item: "shop/t-1"})
	if err != nil {
		t.Fatal(err)
	}
	if g.Item.Story == nil || g.Item.Story.Key != e.keyOf("shop/s-2") || g.Item.Epic != nil {
		t.Errorf("t-1: story %+v epic %+v", g.Item.Story, g.Item.Epic)
	}
}

// TestGraphReadsStatuses: the graph of a document, with statuses read
// from the tracker (no write).
func TestGraphReadsStatuses(t *testing.T) {
	e := newEnv(t)
	e.importDoc(structureDoc)
	s1 := e.keyOf("shop/s-1")
	if err := e.p.SetStatus(s1, core.StatusDone); err != nil {
		t.Fatal(err)
	}
	e.p.ForbidWrites(t)
	g, err := e.svc.Graph(e.ctx, service.GraphInput{Path: "plan.md", Data: []byte(structureDoc), Status: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range g.Nodes {
		got[n.ID] = n.Key + "/" + string(n.Status)
	}
	if got["s-1"] != s1+"/done" || got["t-1"] != e.keyOf("shop/t-1")+"/todo" || len(g.Nodes) != 5 {
		t.Errorf("nodes: %v", got)
	}
	want := []service.GraphEdge{{From: "e-1", To: "s-1", Kind: service.EdgeParent}, {From: "s-1", To: "s-2", Kind: service.EdgeBlocks}, {From: "s-3", To: "s-2", Kind: service.EdgeBlocks}}
	for _, w := range want {
		if !slices.Contains(g.Edges, w) {
			t.Errorf("edges %v lack %v", g.Edges, w)
		}
	}
}

// TestDependencyReadsOnlyAtLinkEnds: the preview reads the tracker's links
// only at the ends of a link the document lists or DevWorkWire made. With
// ranking on by default, every document has structure; an unchanged plan
// without dependencies read the links of all its items (a bulk fetch per
// 100 items over HTTP: 23 requests instead of 13 for the unchanged
// re-import of 1,000 items in make bench).
func TestDependencyReadsOnlyAtLinkEnds(t *testing.T) {
	e := newEnv(t)
	plain := strings.NewReplacer("Depends on: s-1\n", "", "Blocks: s-2\n", "").Replace(structureDoc)
	e.importDoc(plain)
	before := e.p.Stats().Calls[fakeprovider.OpDependencies]
	if res := e.preview(plain); len(res.Structure) != 0 || res.Counts.Unchanged != 5 {
		t.Fatalf("unchanged re-import: structure %v counts %+v", structureMessages(res), res.Counts)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpDependencies] - before; n != 0 {
		t.Errorf("an unchanged plan without dependencies read the tracker's links %d times; want 0", n)
	}
	// A person's link between two items is no business of the plan's,
	// and a dependency added to the document is still found missing.
	if err := e.p.Link(e.keyOf("shop/s-3"), e.keyOf("shop/s-1")); err != nil {
		t.Fatal(err)
	}
	withDep := strings.Replace(plain, "### Story s-3: Show the receipt\n", "### Story s-3: Show the receipt\nDepends on: s-2\n", 1)
	res := e.preview(withDep)
	if got := structureMessages(res); len(got) != 1 || !strings.Contains(got[0], "link: s-3 depends on s-2") {
		t.Errorf("preview with a new dependency: %v", got)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpDependencies] - before; n != 1 {
		t.Errorf("links read %d times; want 1 (the ends of the listed link)", n)
	}
}

// longRun is document "order" with n stories s-1 … s-n; a fresh import
// ranks s-2 … s-n after s-1.
func longRun(n int) (doc string, ids []string) {
	for i := 1; i <= n; i++ {
		ids = append(ids, fmt.Sprintf("s-%d", i))
	}
	return rankDoc(ids...), ids
}

// TestRankLongRunInTwoRounds: a fresh 1,000-item import places its 999
// moves in two rounds: the first chunk (30 items) and the 19 other
// chunks' heads in one request, then each other chunk's rest after its
// own head, all 19 in flight together (one is held until the other 18
// were sent); the backlog is the document's order and the requests are
// ceil(999/50) = 20, the fewest there can be.
func TestRankLongRunInTwoRounds(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	doc, ids := longRun(1000)
	pre := e.preview(doc)
	sent := e.p.Stats().Calls[fakeprovider.OpRank]
	reached, resume := e.p.Hold(fakeprovider.OpRank, 2) // round 2's first request
	defer resume()
	wait := e.commitAsync(e.svc, pre.PreviewHandle, "")
	select {
	case <-reached:
	case <-time.After(30 * time.Second):
		t.Fatal("round 2's first request never came")
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.p.Stats().Calls[fakeprovider.OpRank]-sent < 19 {
		if time.Now().After(deadline) {
			t.Fatalf("round 2: %d rank requests sent while the first was held; want all 18 others", e.p.Stats().Calls[fakeprovider.OpRank]-sent-1)
		}
		runtime.Gosched()
	}
	resume()
	if err := wait(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpRank] - sent; n != 20 {
		t.Errorf("rank requests: %d; want 20 (1 for the first chunk and the heads + 19 chunks)", n)
	}
	want := orderKeys(e, ids)
	if got := e.p.Backlog(); !slices.Equal(got, want) {
		t.Errorf("backlog is not the document's order")
	}
	if again := e.preview(doc); len(again.Structure) != 0 {
		t.Errorf("re-import plans: %v", structureMessages(again))
	}
}

// TestRankRefusedHeadLeavesItsChunkUntried: the heads' request is refused
// in round 1; round 2 sends nothing, the chunks' rest stay untried and the
// commit is COMMIT_PARTIAL.
func TestRankRefusedHeadLeavesItsChunkUntried(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	doc, _ := longRun(200) // 199 moves: round 1 = s-2…s-47 (the first chunk) and the heads s-48, s-99, s-150
	e.importDoc(rankDoc("s-1"))
	pre := e.preview(doc)
	sent := e.p.Stats().Calls[fakeprovider.OpRank]
	e.p.FailCall(fakeprovider.OpRank, 1, core.Errorf(core.CodeValidationFailed, "rank locked"))
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeCommitPartial, "structure changes (dependencies, sprint, backlog order): 0 written, 49 failed, 0 unknown, 150 untried")
	if !slices.ContainsFunc(ce.Details, func(d core.Detail) bool { return d.Item == "order/~rank:s-99" && d.Outcome == core.OutcomeFailed }) {
		t.Errorf("details: no failed s-99")
	}
	if !slices.ContainsFunc(ce.Details, func(d core.Detail) bool { return d.Item == "order/~rank:s-100" && d.Outcome == core.OutcomeUntried }) {
		t.Errorf("details: s-100 (s-99's chunk) not untried")
	}
	if n := e.p.Stats().Calls[fakeprovider.OpRank] - sent; n != 1 {
		t.Errorf("rank requests: %d; want 1 (round 1; no chunk after a failure)", n)
	}
}

// TestRankTwoRoundsReadBackAndMirror: 199 moves in two rounds (1 request
// for the first chunk and 3 heads + 3 chunks) end in the document's order when the heads'
// request was applied but its answer never came (read back, not resent,
// round 2 goes on), and in the mirror: new items ahead of the one that
// stays (the chunks' last items and the chunk next to the anchor before
// it, then each other chunk's rest before its own last item).
func TestRankTwoRoundsReadBackAndMirror(t *testing.T) {
	for _, tc := range []struct {
		name, stays string
		lose        bool
	}{{"lost heads answer", "s-1", true}, {"before the anchor", "s-200", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.svc = e.ranked()
			doc, ids := longRun(200)
			e.importDoc(rankDoc(tc.stays))
			pre := e.preview(doc)
			sent := e.p.Stats().Calls[fakeprovider.OpRank]
			if tc.lose {
				e.p.LoseResponse(fakeprovider.OpRank, 1, nil)
			}
			if cr := e.commit(pre.PreviewHandle, ""); cr.Counts.Ranked != 199 {
				t.Errorf("counts: %+v", cr.Counts)
			}
			if n := e.p.Stats().Calls[fakeprovider.OpRank] - sent; n != 4 {
				t.Errorf("rank requests: %d; want 4 (1 for round 1, none resent, + 3 chunks)", n)
			}
			if got := e.p.Backlog(); !slices.Equal(got, orderKeys(e, ids)) {
				t.Errorf("backlog is not the document's order")
			}
		})
	}
}

// orderKeys is the tracker's keys of document "order"'s items ids.
func orderKeys(e *env, ids []string) []string {
	byRef := e.byRef()
	var out []string
	for _, id := range ids {
		out = append(out, byRef[core.NewReference("order", id)].Key)
	}
	return out
}

// holdCreateOf holds the create batch holding one reference until resumed.
type holdCreateOf struct {
	*fakeprovider.Provider
	ref     core.Reference
	reached chan struct{}
	resume  chan struct{}
}

func (h *holdCreateOf) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	if slices.ContainsFunc(specs, func(s core.ItemSpec) bool { return s.Reference == h.ref }) {
		close(h.reached)
		<-h.resume
	}
	return h.Provider.Create(ctx, specs)
}

// TestRankGoesOutWhileStoriesAreCreated: a fresh 1,000-item import ranks
// alongside its creates: with the batch creating the last story
// held, the heads' request and the chunks already created are ranked (the
// chunks' heads were created first). The backlog ends in the document's
// order with the same 20 creates and 20 rank requests.
func TestRankGoesOutWhileStoriesAreCreated(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	doc, ids := longRun(1000)
	pre := e.preview(doc)
	created, ranked := e.p.Stats().Calls[fakeprovider.OpCreate], e.p.Stats().Calls[fakeprovider.OpRank]
	h := &holdCreateOf{Provider: e.p, ref: core.NewReference("order", "s-1000"), reached: make(chan struct{}), resume: make(chan struct{})}
	svc := e.serviceWith(service.ServiceOptions{Provider: h, Rank: true})
	wait := e.commitAsync(svc, pre.PreviewHandle, "")
	select {
	case <-h.reached:
	case <-time.After(30 * time.Second):
		t.Fatal("the batch creating s-1000 never came")
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.p.Stats().Calls[fakeprovider.OpRank]-ranked < 2 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	early := e.p.Stats().Calls[fakeprovider.OpRank] - ranked
	close(h.resume)
	if err := wait(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if early < 2 {
		t.Errorf("%d rank requests sent while the last create batch was held; want the heads' and at least one chunk's", early)
	}
	st := e.p.Stats()
	if c, r := st.Calls[fakeprovider.OpCreate]-created, st.Calls[fakeprovider.OpRank]-ranked; c != 20 || r != 20 {
		t.Errorf("create requests %d, rank requests %d; want 20 and 20", c, r)
	}
	if got := e.p.Backlog(); !slices.Equal(got, orderKeys(e, ids)) {
		t.Errorf("backlog is not the document's order")
	}
}

// TestRankRunsTakeTheFewestRequests: a run of 51–100 moves is a chain of
// 2 requests (two rounds would take three in as many round trips); a run
// of 101–2,500 moves takes ceil(moves/50) (the first chunk goes whole into
// round 1 with the other chunks' heads; 101 moves: a first chunk of one
// item); a longer run falls back to heads alone in round 1 (2,599 moves:
// 51 chunks, 2 requests for their heads + 51). The backlog is the
// document's order.
func TestRankRunsTakeTheFewestRequests(t *testing.T) {
	for _, tc := range []struct{ items, want int }{{52, 2}, {101, 2}, {102, 3}, {2600, 53}} {
		t.Run(fmt.Sprint(tc.items), func(t *testing.T) {
			e := newEnv(t)
			e.svc = e.ranked()
			doc, ids := longRun(tc.items)
			e.importDoc(rankDoc("s-1"))
			pre := e.preview(doc)
			sent := e.p.Stats().Calls[fakeprovider.OpRank]
			if cr := e.commit(pre.PreviewHandle, ""); cr.Counts.Ranked != tc.items-1 {
				t.Errorf("counts: %+v", cr.Counts)
			}
			if got := e.p.Stats().Calls[fakeprovider.OpRank] - sent; got != tc.want {
				t.Errorf("rank requests: %d; want %d", got, tc.want)
			}
			if got := e.p.Backlog(); !slices.Equal(got, orderKeys(e, ids)) {
				t.Errorf("backlog is not the document's order")
			}
		})
	}
}
