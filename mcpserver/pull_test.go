package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPullPreviewReadsInsideTheWorkspace: pull_preview resolves the path
// inside the workspace (the service gets the resolved file), passes the
// person's choices, shows the path relative to the workspace, and refuses
// a path outside it before the service reads anything.
func TestPullPreviewReadsInsideTheWorkspace(t *testing.T) {
	ws, outside := newWorkspace(t)
	svc := &fakeService{pullPreview: func(_ context.Context, in service.PullPreviewInput) (service.PullPreviewResult, error) {
		r := samplePullPreview()
		r.Path = in.Path
		return r, nil
	}}
	c := connect(t, svc, Options{Workspace: ws}, nil, "")
	m := c.mustCall(t, ToolPullPreview, map[string]any{"path": "plans/checkout.md", "take_tracker": []string{"s-1"}, "take_document": []string{"s-2"}})
	real, _ := filepath.EvalSymlinks(filepath.Join(ws, "plans", "checkout.md"))
	if svc.lastPull.Path != real || strings.Join(svc.lastPull.TakeTracker, ",") != "s-1" || strings.Join(svc.lastPull.TakeDocument, ",") != "s-2" {
		t.Errorf("service got %+v", svc.lastPull)
	}
	if m["path"] != filepath.Join("plans", "checkout.md") || m["preview_handle"] != "h-pull" || m["rows_truncated"] != false || m["diff_truncated"] != false || m["result_type"] != "preview" {
		t.Errorf("result %v", m)
	}
	n := svc.called("PullPreview")
	for _, p := range []string{outside, "../elsewhere.md", "plans/missing.md", ""} {
		wantCode(t, errOf(c.call(t, ToolPullPreview, map[string]any{"path": p})), core.CodeSourceNotFound)
	}
	if svc.called("PullPreview") != n {
		t.Errorf("the service was called for a path outside the workspace")
	}
}

// TestPullCommitWritesOnlyInsideTheWorkspace: a stored pull plan (one a
// person may have made with the CLI) that rewrites a file outside the
// workspace is refused before the service commits; inside, the commit
// goes ahead and its path is shown relative to the workspace.
func TestPullCommitWritesOnlyInsideTheWorkspace(t *testing.T) {
	ws, outside := newWorkspace(t)
	svc := &fakeService{pullPath: outside}
	c := connect(t, svc, Options{Workspace: ws, Elicitation: ElicitationOff}, nil, "")
	d := wantCode(t, errOf(c.call(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull", "confirmed": true})), core.CodeSourceNotFound)
	if msg := d["message"].(string); !strings.Contains(msg, outside) || !strings.Contains(msg, "Nothing was written") || !strings.Contains(msg, "outside the workspace") {
		t.Errorf("message %q", msg)
	}
	if svc.called("PullCommit") != 0 {
		t.Fatalf("committed a plan that writes outside the workspace")
	}
	inside, _ := filepath.EvalSymlinks(filepath.Join(ws, "plans", "checkout.md"))
	svc = &fakeService{pullPath: inside, pullCommit: func(_ context.Context, in service.CommitInput) (service.PullCommitResult, error) {
		return service.PullCommitResult{ResultType: service.ResultCommitted, RunID: "run-lc", PreviewHandle: in.PreviewHandle, IdempotencyKey: in.IdempotencyKey, Path: inside, FileWritten: true, CommittedAt: fixedTime}, nil
	}}
	c = connect(t, svc, Options{Workspace: ws, Elicitation: ElicitationOff}, nil, "")
	m := c.mustCall(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull", "confirmed": true, "idempotency_key": "k-7"})
	if m["path"] != filepath.Join("plans", "checkout.md") || m["file_written"] != true || svc.lastCommit.IdempotencyKey != "k-7" {
		t.Errorf("result %v, commit %+v", m, svc.lastCommit)
	}
	// Without confirmed the service refuses (its code), and the stored
	// plan is not even read.
	svc = &fakeService{pullPath: outside}
	c = connect(t, svc, Options{Workspace: ws}, nil, "")
	wantCode(t, errOf(c.call(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull"})), core.CodeConfirmationRequired)
	if svc.called("StoredPull") != 0 {
		t.Errorf("the stored plan was read for an unconfirmed commit")
	}
}

// TestPullCommitAsksThePerson: where the client can ask, the question
// says which file is rewritten and what Jira records, and the commit runs
// with the digest of the plan shown; without a client that can ask,
// required mode names the terminal command that pulls.
func TestPullCommitAsksThePerson(t *testing.T) {
	ws, _ := newWorkspace(t)
	inside, _ := filepath.EvalSymlinks(filepath.Join(ws, "plans", "checkout.md"))
	for _, proto := range protocols {
		svc := &fakeService{pullPath: inside}
		a := &asker{response: accept()}
		c := connect(t, svc, Options{Workspace: ws}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
		m := c.mustCall(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull", "confirmed": true})
		if m["result_type"] != "committed" || a.n.Load() != 1 || svc.called("PullCommit") != 1 || svc.lastCommit.PlanDigest != "sha256:pull" {
			t.Errorf("%s: result %v, asked %d, committed %d, digest %q", proto, m, a.n.Load(), svc.called("PullCommit"), svc.lastCommit.PlanDigest)
		}
		q := a.asked()
		for _, want := range []string{"into the planning document " + inside, `document "checkout-v2"`, "2 writes: rewrite 1 planning document, record 1 item as matching the document", "no field, text or status", `- record story s-1 "Pay" (DEMO-7): the tracker's title taken into the document`, "cannot be undone"} {
			if !strings.Contains(q, want) {
				t.Errorf("%s: question lacks %q:\n%s", proto, want, q)
			}
		}
		if strings.Contains(q, "s-2") {
			t.Errorf("%s: question lists an unchanged item:\n%s", proto, q)
		}
		// Declined: nothing is committed.
		svc = &fakeService{pullPath: inside}
		a = &asker{response: &mcp.ElicitResult{Action: "decline"}}
		c = connect(t, svc, Options{Workspace: ws}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
		wantCode(t, errOf(c.call(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull", "confirmed": true})), core.CodeConfirmationRequired)
		if svc.called("PullCommit") != 0 {
			t.Errorf("%s: committed after a decline", proto)
		}
		// Required, a client that cannot ask.
		svc = &fakeService{pullPath: inside}
		c = connect(t, svc, Options{Workspace: ws, Elicitation: ElicitationRequired}, nil, proto)
		d := wantCode(t, errOf(c.call(t, ToolPullCommit, map[string]any{"preview_handle": "h-pull", "confirmed": true})), core.CodeConfirmationRequired)
		if msg := d["message"].(string); !strings.Contains(msg, "dwire pull "+inside) || strings.Contains(msg, "dwire review") || svc.called("PullCommit") != 0 {
			t.Errorf("%s required: %q", proto, msg)
		}
	}
}

// TestPullPreviewIsBounded: rows, change values and the diff are bounded
// like the import preview's; counts stay whole.
func TestPullPreviewIsBounded(t *testing.T) {
	r := samplePullPreview()
	long := strings.Repeat("a long description line\n", 200)
	r.Items = nil
	for i := 0; i < MaxRows+50; i++ {
		it := service.PullItem{Reference: core.Reference("d/s-" + string(rune('a'+i%26))), Kind: core.KindStory, Title: "t", Action: service.PullActionUnchanged}
		if i%2 == 1 {
			it.Action, it.Changes = service.PullActionPull, []service.PullChange{{Field: "description", Document: long, Tracker: long + "x", Take: service.TakeTracker}}
		}
		r.Items = append(r.Items, it)
	}
	r.Diff = strings.Repeat("+"+long, 40)
	b := boundPull(r)
	pulled := 0
	for _, it := range b.Items {
		if it.Action == service.PullActionPull {
			pulled++
		}
	}
	if len(b.Items) != MaxRows || !b.RowsTruncated || b.RowsTotal != MaxRows+50 || pulled != (MaxRows+50)/2 {
		t.Errorf("%d rows (%d pulled) of %d, truncated %v", len(b.Items), pulled, b.RowsTotal, b.RowsTruncated)
	}
	if b.ChangesOmitted == 0 || !b.DiffTruncated || len(b.Diff) > MaxChangeBytes || !strings.HasSuffix(b.Diff, "\n") {
		t.Errorf("changes omitted %d, diff %d bytes truncated %v", b.ChangesOmitted, len(b.Diff), b.DiffTruncated)
	}
	if r.Items[1].Changes == nil {
		t.Errorf("bounding changed the service's rows")
	}
	if b.Counts != r.Counts {
		t.Errorf("counts %+v", b.Counts)
	}
}

// TestRealServicePullGate: against the real service, a person's change in
// Jira is previewed without a write (to Jira or the file), committed only
// with confirmed: true, written into the file in place, replayed by the
// same key without a write, and the next import of the file is unchanged;
// the handles of import and pull do not cross.
func TestRealServicePullGate(t *testing.T) {
	r := editedAfterImport(t)
	file := filepath.Join(r.ws, "plans", "checkout.md")
	read := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	writes := r.prov.Writes()
	r.prov.ForbidWrites(t)
	pv := r.c.mustCall(t, ToolPullPreview, map[string]any{"path": "plans/checkout.md"})
	r.prov.AllowWrites()
	if read() != checkoutDoc || r.prov.Writes() != writes {
		t.Fatalf("pull_preview wrote")
	}
	h := pv["preview_handle"].(string)
	if pv["writes"] != true || pv["counts"].(map[string]any)["pull"] != float64(1) || !strings.Contains(pv["diff"].(string), "+### Story s-1: Pay as a guest") || pv["path"] != filepath.Join("plans", "checkout.md") {
		t.Fatalf("pull_preview %v", pv)
	}
	// The gate: no confirmation, the other kind's tools and handles.
	wantCode(t, errOf(r.c.call(t, ToolPullCommit, map[string]any{"preview_handle": h})), core.CodeConfirmationRequired)
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodePreviewNotFound)
	ih := r.preview(t)
	wantCode(t, errOf(r.c.call(t, ToolPullCommit, map[string]any{"preview_handle": ih, "confirmed": true})), core.CodePreviewNotFound)
	data := wantCode(t, errOf(r.c.call(t, ToolPullCommit, map[string]any{"preview_handle": h, "confirmed": true, "plan_digest": "sha256:other"})), core.CodePreviewStale)
	if !strings.Contains(data["message"].(string), "call pull_preview again") {
		t.Errorf("stale refusal does not name the next step: %v", data["message"])
	}
	if read() != checkoutDoc || r.prov.Writes() != writes {
		t.Fatalf("a refused pull_commit wrote")
	}
	cm := r.c.mustCall(t, ToolPullCommit, map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "pull-1", "plan_digest": pv["plan_digest"]})
	if cm["result_type"] != "committed" || cm["file_written"] != true || cm["path"] != filepath.Join("plans", "checkout.md") || len(cm["settled"].([]any)) != 1 {
		t.Errorf("pull_commit %v", cm)
	}
	if want := strings.Replace(checkoutDoc, "Story s-1: Pay without an account", "Story s-1: Pay as a guest", 1); read() != want {
		t.Errorf("file after the pull:\n%s", read())
	}
	w := r.prov.Writes()
	again := r.c.mustCall(t, ToolPullCommit, map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "pull-1"})
	if again["replayed"] != true || r.prov.Writes() != w {
		t.Errorf("replay %v, %d writes", again, r.prov.Writes()-w)
	}
	c := r.c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/checkout.md"})["counts"].(map[string]any)
	if c["update"] != float64(0) || c["drift"] != float64(0) || c["create"] != float64(0) {
		t.Errorf("the import after the pull: %v", c)
	}
	// A directory is not a document to pull into.
	wantCode(t, errOf(r.c.call(t, ToolPullPreview, map[string]any{"path": "plans"})), core.CodeSourceNotFound)
	// Nothing more to pull: no handle.
	if n := r.c.mustCall(t, ToolPullPreview, map[string]any{"path": "plans/checkout.md"}); n["writes"] != false || n["preview_handle"] != nil {
		t.Errorf("second pull_preview %v", n)
	}
}

// TestRealServicePullAsksOnce: with a client that can ask, the real
// service's stored pull plan is the question (its file and item), the
// accepted plan is committed, and the replay with the same key asks
// nobody and writes nothing.
func TestRealServicePullAsksOnce(t *testing.T) {
	a := &asker{response: accept()}
	r := newReal(t, Options{}, &mcp.ClientOptions{ElicitationHandler: a.handle}, nil)
	r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": r.preview(t), "confirmed": true})
	key := r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "checkout/s-2"})["item"].(map[string]any)["key"].(string)
	if err := r.prov.EditTitle(key, "Keep the address"); err != nil {
		t.Fatal(err)
	}
	h := r.c.mustCall(t, ToolPullPreview, map[string]any{"path": "plans/checkout.md"})["preview_handle"].(string)
	asked := a.n.Load()
	args := map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "pull-ask"}
	if m := r.c.mustCall(t, ToolPullCommit, args); m["file_written"] != true {
		t.Fatalf("pull_commit %v", m)
	}
	q := a.asked()
	if a.n.Load() != asked+1 || !strings.Contains(q, filepath.Join("plans", "checkout.md")) || !strings.Contains(q, `- record story s-2 "`) || !strings.Contains(q, "the tracker's title taken into the document") || !strings.Contains(q, "- file ") {
		t.Errorf("asked %d times; question:\n%s", a.n.Load()-asked, q)
	}
	w := r.prov.Writes()
	if m := r.c.mustCall(t, ToolPullCommit, args); m["replayed"] != true || a.n.Load() != asked+1 || r.prov.Writes() != w {
		t.Errorf("replay %v: asked %d more, %d writes", m, a.n.Load()-asked-1, r.prov.Writes()-w)
	}
}

// TestPullStaleRefusalSaysTheNextStepOnce: a pull whose document changed
// since its preview is refused with the tool to call in place of the
// service's own "run the pull again", not after it.
func TestPullStaleRefusalSaysTheNextStepOnce(t *testing.T) {
	r := editedAfterImport(t)
	pv := r.c.mustCall(t, ToolPullPreview, map[string]any{"path": "plans/checkout.md"})
	file := filepath.Join(r.ws, "plans", "checkout.md")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, "\nA line a person added.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	data := wantCode(t, errOf(r.c.call(t, ToolPullCommit, map[string]any{"preview_handle": pv["preview_handle"], "confirmed": true})), core.CodePreviewStale)
	msg := data["message"].(string)
	if strings.Count(msg, "Next: call pull_preview again") != 1 || strings.Contains(msg, "Run the pull again") {
		t.Errorf("message %q; want the tool's step once, in place of the service's advice", msg)
	}
}

// editedAfterImport is a real service with the checkout document imported
// and s-1's title then changed in the tracker by a person: a pull to make.
func editedAfterImport(t *testing.T) *real {
	t.Helper()
	r := newReal(t, Options{Elicitation: ElicitationOff}, nil, nil)
	r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": r.preview(t), "confirmed": true})
	key := r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "checkout/s-1"})["item"].(map[string]any)["key"].(string)
	if err := r.prov.EditTitle(key, "Pay as a guest"); err != nil {
		t.Fatal(err)
	}
	return r
}
