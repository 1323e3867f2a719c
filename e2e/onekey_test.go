package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneKeyFromManyAgentsAtOnce: 25 import_commit calls with one
// idempotency key and handle, five at once from each of five real `dwire
// mcp` processes, on one store (every request to the fake taking 50 ms).
// Exactly one call writes; every other answers as a repeat of the key
// does — its result replayed, or COMMIT_INTERRUPTED "is running now"
// while the commit runs — never PREVIEW_STALE (which would say nothing
// was written) and never "is not running" for the commit that is. Every
// item exists once, and a last repeat replays the result. On SQLite and
// Postgres.
func TestOneKeyFromManyAgentsAtOnce(t *testing.T) { eachStore(t, oneKeyFromManyAgents) }

func oneKeyFromManyAgents(t *testing.T, kind string) {
	const procs, callsEach = 5, 5
	ctx := context.Background()
	e, _ := newStoreEnv(t, kind, envOptions{})
	p := planSpec{id: "onekey", epics: 2, stories: 20}
	e.write(p.id+".md", p.markdown())
	first, _ := e.mcp()
	pv := e.scPreview(first, p.id+".md")
	e.slowJira(50)
	args := map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": newKey()}
	sessions := []*mcp.ClientSession{first}
	for range procs - 1 {
		cs, _ := e.mcp()
		sessions = append(sessions, cs)
	}
	var (
		mu      sync.Mutex
		answers = map[string]int{}
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for _, s := range sessions {
		for range callsEach {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				o := e.scCall(ctx, s, "import_commit", args)
				var what string
				switch {
				case o.transport != nil:
					what = "transport: " + o.transport.Error()
				case o.errData == nil && o.result.Replayed:
					what = "replayed"
				case o.errData == nil:
					what = "committed"
				case o.code() == "COMMIT_INTERRUPTED" && strings.Contains(message(o), "is running now"):
					what = "running"
				default:
					what = o.code() + ": " + message(o)
				}
				mu.Lock()
				answers[what]++
				mu.Unlock()
			}()
		}
	}
	close(start)
	wg.Wait()
	t.Logf("%s: %d calls with one key at once: %v", kind, procs*callsEach, answers)
	for what, n := range answers {
		switch what {
		case "committed":
			if n != 1 {
				t.Errorf("%d calls committed; want exactly 1", n)
			}
		case "replayed", "running":
		default:
			t.Errorf("%d call(s) answered %s; want the commit, its replay or \"is running now\"", n, what)
		}
	}
	e.noDuplicates()
	if n := len(e.issues()); n != p.epics*(1+p.stories) {
		t.Errorf("%d issues; want the plan's %d, once", n, p.epics*(1+p.stories))
	}
	o := e.scCall(ctx, first, "import_commit", args)
	if o.errData != nil || !o.result.Replayed {
		t.Errorf("a last repeat: %v, replayed %v; want the result replayed", o.errData, o.result.Replayed)
	}
}
