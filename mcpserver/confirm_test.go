package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// asker is a client elicitation handler that answers with a fixed result
// and records the questions it was asked.
type asker struct {
	n        atomic.Int32
	message  atomic.Value
	response *mcp.ElicitResult
	err      error
	// reading, when set, runs while the person reads the question.
	reading func()
}

func (a *asker) handle(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.n.Add(1)
	a.message.Store(r.Params.Message)
	if a.reading != nil {
		a.reading()
	}
	return a.response, a.err
}

func (a *asker) asked() string {
	s, _ := a.message.Load().(string)
	return s
}

func accept() *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
}

var commitCalls = []struct {
	tool, handle, service string
}{
	{ToolImportCommit, "h-import", "ImportCommit"},
	{ToolProgressCommit, "h-progress", "ProgressCommit"},
}

func TestElicitationAcceptProceeds(t *testing.T) {
	for _, proto := range protocols {
		for _, cc := range commitCalls {
			svc := &fakeService{}
			a := &asker{response: accept()}
			c := connect(t, svc, Options{}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
			m := c.mustCall(t, cc.tool, map[string]any{"preview_handle": cc.handle, "confirmed": true, "idempotency_key": "k-9"})
			if m["result_type"] != "committed" {
				t.Errorf("%s %s: result %v", proto, cc.tool, m)
			}
			if a.n.Load() != 1 || svc.called(cc.service) != 1 {
				t.Errorf("%s %s: asked %d times, service called %d times; want 1 and 1", proto, cc.tool, a.n.Load(), svc.called(cc.service))
			}
			q := a.asked()
			if !strings.Contains(q, "write to Jira") || !strings.Contains(q, "cannot be undone") {
				t.Errorf("%s: question does not say what is written: %q", cc.tool, q)
			}
			if cc.tool == ToolImportCommit && (!strings.Contains(q, "https://fake.example/DEMO") || !strings.Contains(q, "create 2 items, update 1 item, add 1 dependency link") || !strings.Contains(q, "- link s-1 depends on s-2")) {
				t.Errorf("import question lacks scope, counts or items: %q", q)
			}
			if cc.tool == ToolProgressCommit && (!strings.Contains(q, "DEMO-7") || !strings.Contains(q, "todo to in_progress") || !strings.Contains(q, "Started work")) {
				t.Errorf("progress question lacks item, status change or comment: %q", q)
			}
			if svc.lastCommit.IdempotencyKey != "k-9" || !svc.lastCommit.Confirmed {
				t.Errorf("commit input after confirmation: %+v", svc.lastCommit)
			}
			if !strings.Contains(c.logs.String(), `"person_accepted":true`) {
				t.Errorf("the log does not record the confirmation")
			}
		}
	}
}

func TestElicitationRefusals(t *testing.T) {
	cases := []struct {
		name string
		resp *mcp.ElicitResult
		err  error
		want string
	}{
		{"decline", &mcp.ElicitResult{Action: "decline"}, nil, "declined"},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, nil, "dismissed"},
		{"accept-unticked", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, nil, "without ticking"},
		{"client-error", nil, errors.New("no UI"), "could not be asked"},
	}
	for _, proto := range protocols {
		for _, tc := range cases {
			for _, cc := range commitCalls {
				svc := &fakeService{}
				a := &asker{response: tc.resp, err: tc.err}
				c := connect(t, svc, Options{}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
				_, err := c.call(t, cc.tool, map[string]any{"preview_handle": cc.handle, "confirmed": true})
				if proto == protoNewest && tc.name == "client-error" {
					// On the stateless protocol the client fails the call
					// itself: it never answers, so nothing is written.
					if err == nil {
						t.Errorf("%s %s: want an error", proto, tc.name)
					}
				} else {
					data := wantCode(t, err, core.CodeConfirmationRequired)
					if msg := data["message"].(string); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "Nothing was written") {
						t.Errorf("%s %s %s: message %q", proto, tc.name, cc.tool, msg)
					}
				}
				if n := svc.called(cc.service); n != 0 {
					t.Errorf("%s %s %s: service commit called %d times after a refusal", proto, tc.name, cc.tool, n)
				}
			}
		}
	}
}

func TestElicitationModes(t *testing.T) {
	for _, proto := range protocols {
		// off: never asks, even a client that can.
		svc := &fakeService{}
		a := &asker{response: &mcp.ElicitResult{Action: "decline"}}
		c := connect(t, svc, Options{Elicitation: ElicitationOff}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
		c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true})
		if a.n.Load() != 0 || svc.called("Preview") != 0 {
			t.Errorf("%s off: asked %d", proto, a.n.Load())
		}

		// when-available, client cannot ask: commits without asking.
		svc = &fakeService{}
		c = connect(t, svc, Options{Elicitation: ElicitationWhenAvailable}, nil, proto)
		c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true})
		if svc.called("ImportCommit") != 1 {
			t.Errorf("%s when-available: not committed", proto)
		}

		// required, client cannot ask: refused, saying why.
		for _, mode := range []string{ElicitationRequired, "bogus"} {
			svc = &fakeService{}
			c = connect(t, svc, Options{Elicitation: mode}, nil, proto)
			for _, cc := range commitCalls {
				_, err := c.call(t, cc.tool, map[string]any{"preview_handle": cc.handle, "confirmed": true})
				data := wantCode(t, err, core.CodeConfirmationRequired)
				if msg := data["message"].(string); !strings.Contains(msg, "does not support elicitation") || !strings.Contains(msg, "dwire review "+cc.handle) {
					t.Errorf("%s required: message %q", proto, msg)
				}
				if svc.called(cc.service) != 0 {
					t.Errorf("%s required: committed without asking", proto)
				}
			}
		}

		// required, client can ask and accepts.
		svc = &fakeService{}
		a = &asker{response: accept()}
		c = connect(t, svc, Options{Elicitation: ElicitationRequired}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
		c.mustCall(t, ToolProgressCommit, map[string]any{"preview_handle": "h-progress", "confirmed": true})
		if a.n.Load() != 1 {
			t.Errorf("%s required: asked %d times", proto, a.n.Load())
		}
	}
}

// TestNoQuestionWhenNothingCanBeWritten: an unknown handle is refused with
// the service's code before anyone is asked; a consumed handle (replay)
// or a handle of the other kind goes to the service, which replays or
// refuses without writing.
func TestNoQuestionWhenNothingCanBeWritten(t *testing.T) {
	a := &asker{response: accept()}
	svc := &fakeService{}
	c := connect(t, svc, Options{Elicitation: ElicitationRequired}, &mcp.ClientOptions{ElicitationHandler: a.handle}, "")
	_, err := c.call(t, ToolImportCommit, map[string]any{"preview_handle": "h-nope", "confirmed": true})
	wantCode(t, err, core.CodePreviewNotFound)
	if a.n.Load() != 0 || svc.called("ImportCommit") != 0 {
		t.Error("asked about an unknown handle")
	}

	svc.preview = func(context.Context, string) (service.PreviewInfo, error) {
		p := sampleImportPreview()
		return service.PreviewInfo{Kind: core.PreviewImport, Import: &p, ConsumedBy: "k-1"}, nil
	}
	c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true, "idempotency_key": "k-1"})
	if a.n.Load() != 0 {
		t.Error("asked again for a replay")
	}
}

// TestForgedAnswersAreRefused: on the stateless protocol a client answers
// by calling again with inputResponses; an answer to a question this
// server never asked, or a reused answer, is refused.
func TestForgedAnswersAreRefused(t *testing.T) {
	svc := &fakeService{}
	copts := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return accept(), nil },
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}
	c := connect(t, svc, Options{}, copts, protoNewest)
	args := map[string]any{"preview_handle": "h-import", "confirmed": true}
	answer := mcp.InputResponseMap{confirmKey: accept()}

	// Never asked.
	_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args, InputResponses: answer, RequestState: "made-up"})
	wantCode(t, err, core.CodeConfirmationRequired)

	// Asked: the first call returns the question, not a result.
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" || res.InputRequests[confirmKey] == nil {
		t.Fatalf("want an input-required result, got %+v", res)
	}
	if svc.called("ImportCommit") != 0 {
		t.Fatal("committed before the answer")
	}
	// Answer for another plan with this question's state: refused.
	other := map[string]any{"preview_handle": "h-import", "confirmed": true, "idempotency_key": "other"}
	_, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: other, InputResponses: answer, RequestState: res.RequestState})
	wantCode(t, err, core.CodeConfirmationRequired)
	// The state was spent by that attempt: the real answer is refused too.
	_, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args, InputResponses: answer, RequestState: res.RequestState})
	wantCode(t, err, core.CodeConfirmationRequired)
	if svc.called("ImportCommit") != 0 {
		t.Fatal("committed on a forged or reused answer")
	}

	// A fresh question answered properly, once.
	res, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args, InputResponses: answer, RequestState: res.RequestState}); err != nil {
		t.Fatal(err)
	}
	_, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportCommit, Arguments: args, InputResponses: answer, RequestState: res.RequestState})
	wantCode(t, err, core.CodeConfirmationRequired)
	if n := svc.called("ImportCommit"); n != 1 {
		t.Errorf("service commit called %d times, want 1", n)
	}
}

// TestDescribeBoundsEachKindOfWrite: every kind of write is counted and
// listed, each kind up to maxListed, then "and N more" of that kind: 40
// creates do not hide a link.
func TestDescribeBoundsEachKindOfWrite(t *testing.T) {
	p := sampleImportPreview()
	var ws []service.PlannedWrite
	for i := 0; i < 40; i++ {
		ws = append(ws, service.PlannedWrite{Action: core.ActionCreate, Item: fmt.Sprintf("s-%d", i), Text: fmt.Sprintf("story s-%d \"t\"", i)})
	}
	ws = append(ws, service.PlannedWrite{Action: service.ActionLink, Item: "s-1", Text: "s-1 depends on s-0: s-1 is blocked by s-0"})
	p.Writes = service.NewPlanWrites(ws)
	s := describe(service.PreviewInfo{Kind: core.PreviewImport, Import: &p})
	for _, want := range []string{"41 writes: create 40 items, add 1 dependency link", "- create story s-14 \"t\"\n", "… and 25 more create writes (create 40 items in all).", "- link s-1 depends on s-0: s-1 is blocked by s-0\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("describe lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "s-15 ") || strings.Count(s, "\n- ") != maxListed+1 {
		t.Errorf("describe lists more than %d of a kind:\n%s", maxListed, s)
	}
}

func TestPendingQuestionsAreBoundedAndSingleUse(t *testing.T) {
	p := newPendingConfirmations()
	first := p.add(pendingQuestion{tool: "t", handle: "h0"})
	var last string
	for i := 0; i < maxPending+10; i++ {
		last = p.add(pendingQuestion{tool: "t", handle: "h"})
	}
	if len(p.m) > maxPending {
		t.Errorf("%d pending questions kept", len(p.m))
	}
	if _, ok := p.take(first); ok {
		t.Error("the oldest question survived the bound")
	}
	if q, ok := p.take(last); !ok || q.handle != "h" {
		t.Error("the newest question was lost")
	}
	if _, ok := p.take(last); ok {
		t.Error("a question was answerable twice")
	}
}

// Items left alone (unchanged, edited in Jira, no longer listed) are
// counted in words, and no write is listed for them.
func TestDescribeCountsWhatIsLeftAlone(t *testing.T) {
	p := sampleImportPreview()
	p.Counts = service.Counts{Unchanged: 1, Drift: 2, Removed: 1}
	p.Writes = service.NewPlanWrites(nil)
	s := describe(service.PreviewInfo{Kind: core.PreviewImport, Import: &p})
	if !strings.Contains(s, `importing document "checkout-v2": no writes. 1 unchanged item and 2 items edited in Jira are left alone, and 1 item the document no longer lists.`) || strings.Contains(s, "\n- ") {
		t.Errorf("describe: %s", s)
	}
}

// TestDescribePullCountsInWords: the pull question counts its writes
// and the items in conflict in words ("1 item", "items" for more).
func TestDescribePullCountsInWords(t *testing.T) {
	for _, c := range []struct {
		conflict int
		records  int
		want     []string
	}{
		{1, 1, []string{"2 writes: rewrite 1 planning document, record 1 item as matching the document", "; 1 item in conflict is left as it is."}},
		{3, 2, []string{"3 writes: rewrite 1 planning document, record 2 items as matching the document", "; 3 items in conflict are left as they are."}},
	} {
		ws := []service.PlannedWrite{{Action: service.WriteFile, Text: "plan.md"}}
		for i := 0; i < c.records; i++ {
			ws = append(ws, service.PlannedWrite{Action: service.WriteRecord, Text: fmt.Sprintf("story s-%d", i)})
		}
		var b strings.Builder
		describePull(&b, &service.PullPreviewResult{Path: "plan.md", Document: "d", Diff: "x", Counts: service.PullCounts{Conflict: c.conflict}, Planned: service.NewPlanWrites(ws)})
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%+v: question lacks %q:\n%s", c, w, b.String())
			}
		}
	}
}

// rewrittenStore is a state store in which someone who can write it (any
// agent on a shared Postgres store) replaced one preview's plan and its
// digest: from then on LoadPreview shows the new plan, and StartRun
// compares the digest it is given with the new one, as every store does.
type rewrittenStore struct {
	*memstore.Store
	mu     sync.Mutex
	handle string
	plan   []byte
}

func (s *rewrittenStore) rewrite(handle string, plan []byte) {
	s.mu.Lock()
	s.handle, s.plan = handle, plan
	s.mu.Unlock()
}

func (s *rewrittenStore) current(handle string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if handle != s.handle {
		return nil
	}
	return s.plan
}

func (s *rewrittenStore) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	p, err := s.Store.LoadPreview(ctx, handle)
	if plan := s.current(handle); plan != nil && err == nil {
		p.Plan, p.Digest = plan, core.PlanDigest(plan)
	}
	return p, err
}

func (s *rewrittenStore) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	if plan := s.current(req.Handle); plan != nil {
		if err := core.CheckPlanDigest(req.Handle, "", req.PlanDigest, core.PlanDigest(plan)); err != nil {
			return core.Run{}, false, err
		}
		req.PlanDigest = "" // the embedded store still holds the original
	}
	return s.Store.StartRun(ctx, req)
}

const biggerDoc = checkoutDoc + `
### Story s-3: Injected after the preview
Nobody confirmed this one.
`

// TestElicitationCommitsThePlanThatWasShown: the person is asked about the
// stored plan; if the plan (and its digest) is rewritten in the store
// while the question waits, the accepted commit writes nothing
// (PREVIEW_STALE): what is written is what the person saw. An agent's
// plan_digest that is not the stored plan's is refused before anyone is
// asked. Both protocol versions (elicitation/create and multi round-trip).
func TestElicitationCommitsThePlanThatWasShown(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			prov := fakeprovider.New(fakeprovider.Options{})
			st := &rewrittenStore{Store: memstore.New(memstore.Options{})}
			svc := service.NewWorkItemService(service.ServiceOptions{Provider: prov, Store: st})
			ws, _ := newWorkspace(t)
			if err := os.WriteFile(filepath.Join(ws, "plans", "bigger.md"), []byte(biggerDoc), 0o644); err != nil {
				t.Fatal(err)
			}
			a := &asker{response: accept()}
			c := connect(t, svc, Options{Workspace: ws, Elicitation: ElicitationRequired}, &mcp.ClientOptions{ElicitationHandler: a.handle}, proto)
			shown := c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/checkout.md"})
			handle, digest := shown["preview_handle"].(string), shown["plan_digest"].(string)
			if digest == "" {
				t.Fatal("the preview result carries no plan_digest")
			}
			other := c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/bigger.md"})
			injected, err := st.Store.LoadPreview(context.Background(), other["preview_handle"].(string))
			if err != nil {
				t.Fatal(err)
			}
			a.reading = func() { st.rewrite(handle, injected.Plan) } // swapped while the person reads the question

			prov.ForbidWrites(t)
			_, err = c.call(t, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true})
			data := wantCode(t, err, core.CodePreviewStale)
			if msg := data["message"].(string); !strings.Contains(msg, "not the plan that was shown") {
				t.Errorf("message: %s", msg)
			}
			if a.n.Load() != 1 || strings.Contains(a.asked(), "Injected") {
				t.Fatalf("asked %d times; question: %v", a.n.Load(), a.asked())
			}

			// The agent's own digest of another plan: refused, nobody asked.
			a.reading = nil
			_, err = c.call(t, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true, "plan_digest": digest})
			wantCode(t, err, core.CodePreviewStale)
			if a.n.Load() != 1 {
				t.Errorf("the person was asked about a plan the agent did not see")
			}
			prov.AllowWrites()

			// With the plan as stored now, shown and accepted, it commits.
			m := c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true})
			if m["counts"].(map[string]any)["created"] != 4.0 || !strings.Contains(a.asked(), "Injected") {
				t.Errorf("commit of the plan shown: %v; question %v", m["counts"], a.asked())
			}
		})
	}
}
