package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
