package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentsShareTheSitesPacing: agents that share a state store share
// the site's pacing. Ten `dwire mcp` processes on one workspace (its
// SQLite store) preview and commit a document each, all at once, against
// a site whose burst limit is 10 requests per second for each endpoint
// (Jira's limit counts every process's requests). Every call succeeds,
// and few of the requests sent are refused: the processes spend one
// learned rate from the store instead of each finding the limit alone.
func TestAgentsShareTheSitesPacing(t *testing.T) {
	const agents = 10
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	if err := e.jira.SetBurstLimit(ctx, 10); err != nil {
		t.Fatal(err)
	}
	plans := make([]planSpec, agents)
	sessions := make([]*mcp.ClientSession, agents)
	paths := make([]string, agents)
	for a := range agents {
		plans[a] = planSpec{id: fmt.Sprintf("pace-%d", a), epics: 1, stories: 6}
		paths[a] = e.write(plans[a].id+".md", plans[a].markdown())
		sessions[a], _ = e.mcp()
	}
	if err := e.jira.ClearRequests(ctx); err != nil {
		t.Fatal(err)
	}
	previews, outcomes := e.previewAndCommitAll(sessions, paths)
	for a := range agents {
		if p := previews[a]; p.transport != nil || p.errData != nil {
			t.Errorf("agent %d: import_preview: %v %v", a, p.transport, p.errData)
			continue
		}
		if o := outcomes[a]; o.transport != nil || o.errData != nil || o.result.ResultType != "committed" || o.result.Counts.Created != 7 {
			t.Errorf("agent %d: import_commit: %v %v %+v; want 7 created", a, o.transport, o.errData, o.result)
		}
	}
	reqs, err := e.jira.Requests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, r := range reqs {
		if r.Status == 429 {
			refused++
		}
	}
	share := float64(refused) / float64(len(reqs))
	t.Logf("%d agents under a 10 req/s burst limit: %d requests, %d refused (%.1f%%)", agents, len(reqs), refused, 100*share)
	if share > 0.05 {
		t.Errorf("%d of %d requests (%.1f%%) were refused with 429; want at most 5%%: the agents do not share the site's pacing", refused, len(reqs), 100*share)
	}
	for _, p := range plans {
		e.matches(p)
	}
	e.noDuplicates()
}

// previewAndCommitAll has every session preview its document and commit
// that preview (confirmed, a key of its own), all at once, and returns
// each one's preview and commit.
func (e *env) previewAndCommitAll(sessions []*mcp.ClientSession, paths []string) (previews, commits []scOutcome) {
	previews, commits = make([]scOutcome, len(sessions)), make([]scOutcome, len(sessions))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for a := range sessions {
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			previews[a] = e.scCall(ctx, sessions[a], "import_preview", map[string]any{"path": paths[a]})
			if previews[a].errData != nil || previews[a].transport != nil {
				return
			}
			commits[a] = e.scCall(ctx, sessions[a], "import_commit", map[string]any{"preview_handle": previews[a].result.PreviewHandle, "confirmed": true, "idempotency_key": newKey()})
		})
	}
	close(start)
	wg.Wait()
	return previews, commits
}
