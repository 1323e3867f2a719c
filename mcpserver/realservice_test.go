package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests put the real service.WorkItemService (over fakeprovider and
// memstore) behind the MCP server and check every gate rule and every
// error code the service raises, as an agent sees them through MCP.

type real struct {
	prov  *fakeprovider.Provider
	st    *memstore.Store
	svc   *service.WorkItemService
	clock *storetest.Clock
	ws    string
	c     *conn
}

// newReal is the real service (realOver) behind a server with options o.
func newReal(t testing.TB, o Options, copts *mcp.ClientOptions, wrap func(core.WorkItemProvider) core.WorkItemProvider) *real {
	t.Helper()
	return realOver(wrap).serve(t, o, copts)
}

// realOver is the real service over fakeprovider (behind wrap, unless
// nil) and a memstore, on one test clock; no server yet.
func realOver(wrap func(core.WorkItemProvider) core.WorkItemProvider) *real {
	clk := storetest.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	prov := fakeprovider.New(fakeprovider.Options{Now: clk.Now})
	var p core.WorkItemProvider = prov
	if wrap != nil {
		p = wrap(prov)
	}
	st := memstore.New(memstore.Options{Now: clk.Now})
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: st, Now: clk.Now})
	return &real{prov: prov, st: st, svc: svc, clock: clk}
}

// serve puts r's service behind a server with options o, over a new
// workspace (o's own when it names one), and connects a client.
func (r *real) serve(t testing.TB, o Options, copts *mcp.ClientOptions) *real {
	t.Helper()
	r.ws, _ = newWorkspace(t)
	if o.Workspace == "" {
		o.Workspace = r.ws
	}
	r.c = connect(t, r.svc, o, copts, "")
	return r
}

func (r *real) preview(t *testing.T) string {
	t.Helper()
	m := r.c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/checkout.md"})
	return m["preview_handle"].(string)
}

func TestRealServicePreviewsAndReadsWriteNothing(t *testing.T) {
	r := newReal(t, Options{Elicitation: ElicitationOff}, nil, nil)
	h := r.preview(t)
	r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})
	writes := r.prov.Writes()
	r.prov.ForbidWrites(t)
	r.preview(t)
	m := r.c.mustCall(t, ToolWorkItemQuery, map[string]any{"document": "checkout"})
	key := m["items"].([]any)[0].(map[string]any)["key"].(string)
	r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": key})
	r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "checkout/s-2"})
	r.c.mustCall(t, ToolProgressPreview, map[string]any{"item": key, "status": "done", "comment": "Done."})
	r.prov.AllowWrites()
	if got := r.prov.Writes(); got != writes {
		t.Errorf("previews and reads wrote %d times", got-writes)
	}
}

func TestRealServiceGateRules(t *testing.T) {
	r := newReal(t, Options{Elicitation: ElicitationOff}, nil, nil)
	writes := func() int { return r.prov.Writes() }

	// Rule 1: no commit without a preview.
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": "imp_deadbeef", "confirmed": true})), core.CodePreviewNotFound)
	// Rule 2: the handle alone is not consent.
	h := r.preview(t)
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h})), core.CodeConfirmationRequired)
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": false})), core.CodeConfirmationRequired)
	// A handle of the other kind is refused.
	if writes() != 0 {
		t.Fatalf("writes before any commit: %d", writes())
	}
	// Commit, then replay with the same key: zero new writes.
	m := r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "k-1"})
	if m["result_type"] != "committed" {
		t.Fatal(m)
	}
	w := writes()
	m = r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "k-1"})
	if m["replayed"] != true || writes() != w {
		t.Errorf("replay: %v, %d new writes", m, writes()-w)
	}
	// The same key with another plan.
	h2 := r.preview(t)
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h2, "confirmed": true, "idempotency_key": "k-1"})), core.CodeIdempotencyKeyReused)
	// Progress handle to the import commit, and the other way round.
	key := r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "checkout/s-1"})["item"].(map[string]any)["key"].(string)
	ph := r.c.mustCall(t, ToolProgressPreview, map[string]any{"item": key, "status": "in_progress"})["preview_handle"].(string)
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": ph, "confirmed": true})), core.CodePreviewNotFound)
	wantCode(t, errOf(r.c.call(t, ToolProgressCommit, map[string]any{"preview_handle": h2, "confirmed": true})), core.CodePreviewNotFound)
	if writes() != w {
		t.Errorf("refusals wrote %d times", writes()-w)
	}
	// Expired.
	r.clock.Advance(31 * time.Minute)
	wantCode(t, errOf(r.c.call(t, ToolProgressCommit, map[string]any{"preview_handle": ph, "confirmed": true})), core.CodePreviewExpired)
}

func TestRealServiceStalePlanIsRefused(t *testing.T) {
	r := newReal(t, Options{}, nil, nil)
	h := r.preview(t)
	r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})
	// Change the document, preview the update, then a person edits the
	// item in Jira before the commit.
	doc := strings.Replace(checkoutDoc, "Pay without an account", "Pay as a guest", 1)
	if err := os.WriteFile(filepath.Join(r.ws, "plans", "checkout.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	h = r.preview(t)
	key := r.c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "checkout/s-1"})["item"].(map[string]any)["key"].(string)
	if err := r.prov.EditTitle(key, "Edited by a person"); err != nil {
		t.Fatal(err)
	}
	w := r.prov.Writes()
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodePreviewStale)
	if r.prov.Writes() != w {
		t.Error("a stale plan wrote")
	}
	// The next preview shows the item as drift.
	m := r.c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/checkout.md"})
	if m["counts"].(map[string]any)["drift"] != 1.0 {
		t.Errorf("drift not shown: %v", m["counts"])
	}
}

func TestRealServiceCodesThroughMCP(t *testing.T) {
	r := newReal(t, Options{Elicitation: ElicitationOff}, nil, nil)
	wantCode(t, errOf(r.c.call(t, ToolImportPreview, map[string]any{"path": "plans/none.md"})), core.CodeSourceNotFound)
	wantCode(t, errOf(r.c.call(t, ToolImportPreview, map[string]any{"path": "plans/huge.md"})), core.CodeSourceParseFailed)
	d := wantCode(t, errOf(r.c.call(t, ToolImportPreview, map[string]any{"path": "plans/broken.md"})), core.CodeValidationFailed)
	if len(d["details"].([]any)) < 2 {
		t.Errorf("details: %v", d["details"])
	}
	if err := os.WriteFile(filepath.Join(r.ws, "plans", "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCode(t, errOf(r.c.call(t, ToolImportPreview, map[string]any{"path": "plans/x.txt"})), core.CodeSourceParseFailed)
	wantCode(t, errOf(r.c.call(t, ToolWorkItemGet, map[string]any{"item": "DEMO-404"})), core.CodeWorkItemNotFound)
	wantCode(t, errOf(r.c.call(t, ToolProgressPreview, map[string]any{"item": "nodoc/s-1", "status": "done"})), core.CodeWorkItemNotFound)

	for _, code := range []core.Code{core.CodeJiraUnauthorized, core.CodeJiraPermissionDenied, core.CodeJiraRateLimited, core.CodeJiraUnavailable, core.CodeReferenceFieldMissing} {
		r.prov.FailCall(fakeprovider.OpQuery, 1, core.Errorf(code, "tracker said no (%s)", code))
		wantCode(t, errOf(r.c.call(t, ToolWorkItemQuery, map[string]any{})), code)
	}

	// A stop before anything was written carries the failure's own code
	// (not COMMIT_PARTIAL), with per-item details.
	h := r.preview(t)
	r.prov.FailItem(1, fakeprovider.ItemFail, core.Errorf(core.CodeJiraUnavailable, "503"))
	d = wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodeJiraUnavailable)
	if len(d["details"].([]any)) != 3 || d["retryable"] != true {
		t.Errorf("nothing-written details: %v, retryable %v", d["details"], d["retryable"])
	}
	// COMMIT_PARTIAL (something was written) with per-item details: the
	// epic goes in, the first story fails.
	h = r.preview(t)
	r.prov.FailItem(2, fakeprovider.ItemFail, core.Errorf(core.CodeJiraUnavailable, "503"))
	d = wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodeCommitPartial)
	if len(d["details"].([]any)) != 3 {
		t.Errorf("partial details: %v", d["details"])
	}
}

// TestRealServiceCrashMidCommit: the provider "dies" (panics) in the
// middle of a commit. The server answers INTERNAL_ERROR and keeps
// serving; repeating the commit with the same key reports
// COMMIT_INTERRUPTED with what is known.
func TestRealServiceCrashMidCommit(t *testing.T) {
	r := newReal(t, Options{}, nil, nil)
	h := r.preview(t)
	r.prov.CrashAt(fakeprovider.OpCreate, 2, false)
	args := map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "k-crash"}
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, args)), core.CodeInternal)
	d := wantCode(t, errOf(r.c.call(t, ToolImportCommit, args)), core.CodeCommitInterrupted)
	if len(d["details"].([]any)) == 0 {
		t.Errorf("interrupted run without details: %v", d)
	}
}

// blockingProvider holds every Create after the first until released, so
// a test can cancel a commit between items.
type blockingProvider struct {
	*fakeprovider.Provider
	mu      sync.Mutex
	n       int
	entered chan struct{}
}

func (b *blockingProvider) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	b.mu.Lock()
	b.n++
	n := b.n
	b.mu.Unlock()
	if n == 1 {
		out, err := b.Provider.Create(ctx, specs)
		close(b.entered)
		<-ctx.Done() // hold until the client cancels
		return out, err
	}
	return b.Provider.Create(ctx, specs)
}

func TestRealServiceCancellationStopsBetweenItems(t *testing.T) {
	var bp *blockingProvider
	progress := make(chan float64, 10)
	r := newReal(t, Options{Elicitation: ElicitationOff}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		},
	}, func(p core.WorkItemProvider) core.WorkItemProvider {
		bp = &blockingProvider{Provider: p.(*fakeprovider.Provider), entered: make(chan struct{})}
		return bp
	})
	h := r.preview(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := map[string]any{"preview_handle": h, "confirmed": true, "idempotency_key": "k-cancel"}
	go func() {
		_, err := r.c.cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args, Meta: mcp.Meta{"progressToken": 7}})
		done <- err
	}()
	<-bp.entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	// The run finishes as a fail-fast stop: the epic is in, the stories
	// were never tried. Asking again with the key returns that outcome.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := r.c.call(t, ToolImportCommit, args)
		_, data := wireError(t, err)
		if data["code"] == string(core.CodeCommitPartial) {
			outcomes := map[string]int{}
			for _, x := range data["details"].([]any) {
				outcomes[x.(map[string]any)["outcome"].(string)]++
			}
			if outcomes[core.OutcomeCommitted] != 1 || outcomes[core.OutcomeUntried] != 2 {
				t.Errorf("cancelled commit details: %v", data["details"])
			}
			break
		}
		if data["code"] != string(core.CodeCommitInterrupted) || time.Now().After(deadline) {
			t.Fatalf("after cancel: %v", data)
		}
	}
	if n := len(r.prov.Items()); n != 1 {
		t.Errorf("%d items in the tracker after cancelling, want 1 (the epic)", n)
	}
	// (No progress notification is expected for the epic: the request
	// was already cancelled when its outcome was recorded.)
	_ = progress
}

func TestRealServiceElicitationShowsThePlan(t *testing.T) {
	var question string
	var answers atomic.Int32
	r := newReal(t, Options{Elicitation: ElicitationRequired}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			question = req.Params.Message
			if answers.Add(1) == 1 {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return accept(), nil
		},
	}, nil)
	h := r.preview(t)
	args := map[string]any{"preview_handle": h, "confirmed": true}
	wantCode(t, errOf(r.c.call(t, ToolImportCommit, args)), core.CodeConfirmationRequired)
	for _, want := range []string{fakeprovider.DefaultScope, `"checkout"`, "create 3", "Pay without an account", "Guest checkout"} {
		if !strings.Contains(question, want) {
			t.Errorf("question lacks %q:\n%s", want, question)
		}
	}
	if r.prov.Writes() != 0 {
		t.Error("declined commit wrote")
	}
	// The declined handle stays unconsumed: asked again, the person accepts.
	m := r.c.mustCall(t, ToolImportCommit, args)
	if m["counts"].(map[string]any)["created"] != 3.0 || answers.Load() != 2 {
		t.Errorf("after decline then accept: %v (asked %d times)", m["counts"], answers.Load())
	}
}

func errOf(_ *mcp.CallToolResult, err error) error { return err }
