package service_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// PendingPreviews lists only what a person waits on: of the previews not
// committed and not expired, not those set aside (declined, dry runs),
// nor one found stale (CheckPreview, or a commit refused as stale), nor
// one a newer preview of the same document supersedes, nor one that
// writes nothing; pull previews are listed, each kind with its own handle
// prefix.
func TestPendingListsWhatAPersonWaitsOn(t *testing.T) {
	e, path := pullEnv(t) // shop imported and committed
	doc := func(id string) string {
		return markdown(id, docItem{id: "e-1", title: "Epic " + id}, docItem{id: "s-1", kind: "story", title: "Story of " + id, epic: "e-1"})
	}
	preview := func(d string) string {
		t.Helper()
		e.clock.Advance(time.Second) // newest first is defined
		res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(d)})
		if err != nil {
			t.Fatal(err)
		}
		return res.PreviewHandle
	}
	aside := func(h, why string) {
		t.Helper()
		if err := e.svc.SetPreviewAside(e.ctx, h, why); err != nil {
			t.Fatal(err)
		}
	}
	e.ctx = core.WithActor(e.ctx, agentActor)
	waiting := preview(doc("agent"))
	e.ctx = core.WithActor(e.ctx, personActor)
	aside(preview(doc("dry")), service.AsideDryRun)
	aside(preview(doc("declined")), service.AsideDeclined)
	older := preview(doc("twice"))
	newer := preview(doc("twice"))
	nothing := preview(pullDoc) // shop is in the tracker as it is
	key := e.byRef()["shop/s-1"].Key
	e.clock.Advance(time.Second)
	prg, err := e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: key, Comment: "Started"})
	if err != nil {
		t.Fatal(err)
	}
	staleOne, err := e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: e.byRef()["shop/s-2"].Key, Comment: "Done"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.p.EditTitle(e.byRef()["shop/s-2"].Key, "Renamed in Jira"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.CheckPreview(e.ctx, staleOne.PreviewHandle); core.ErrorCode(err) != core.CodePreviewStale {
		t.Fatalf("CheckPreview of a changed item = %v; want PREVIEW_STALE", err)
	}
	if err := e.svc.CheckPreview(e.ctx, prg.PreviewHandle); err != nil {
		t.Fatalf("CheckPreview of a current plan = %v", err)
	}
	if err := e.p.EditTitle(key, "Pay as a visitor"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	pull := e.pullPreview(service.PullPreviewInput{Path: path})
	if !strings.HasPrefix(pull.PreviewHandle, "pul_") || !strings.HasPrefix(prg.PreviewHandle, "prg_") || !strings.HasPrefix(waiting, "imp_") {
		t.Errorf("handles %s, %s, %s; want pul_, prg_ and imp_", pull.PreviewHandle, prg.PreviewHandle, waiting)
	}

	res, err := e.svc.PendingPreviews(e.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Previews {
		got = append(got, p.PreviewHandle)
	}
	// prg was made before the tracker change the pull shows, and nothing
	// checked it since: still waiting.
	want := []string{pull.PreviewHandle, prg.PreviewHandle, newer, waiting}
	if !slices.Equal(got, want) || res.Returned != 4 || res.Truncated {
		t.Errorf("pending %v (returned %d, truncated %v); want %v\n(older %s, nothing %s, stale %s)", got, res.Returned, res.Truncated, want, older, nothing, staleOne.PreviewHandle)
	}
	if p := res.Previews[0]; p.Kind != core.PreviewPull || p.Document != "shop" || !strings.Contains(p.Writes, "rewrite 1 planning document") {
		t.Errorf("the pull's entry %+v", p)
	}
	if p := res.Previews[3]; p.Document != "agent" || !strings.Contains(p.Writes, "create 2 items") {
		t.Errorf("the agent's entry %+v", p)
	}
	if limited, err := e.svc.PendingPreviews(e.ctx, 2); err != nil || limited.Returned != 2 || !limited.Truncated {
		t.Errorf("PendingPreviews(2) = returned %d, truncated %v, %v; want 2 and truncated", limited.Returned, limited.Truncated, err)
	}
	// A set-aside handle still commits if given.
	if _, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: older, Confirmed: true}); err != nil {
		t.Errorf("committing a superseded preview by its handle: %v", err)
	}
}
