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
	c := e.startCrowd("pace", agents, 6)
	if err := e.jira.ClearRequests(ctx); err != nil {
		t.Fatal(err)
	}
	e.previewAndCommitAll(c)
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
	for _, p := range c.plans {
		e.matches(p)
	}
	e.noDuplicates()
}

// crowd is dwire mcp processes on one workspace, each an agent with a
// plan of its own.
type crowd struct {
	plans    []planSpec
	paths    []string
	sessions []*mcp.ClientSession
}

// startCrowd writes n plans (ids prefix-0, prefix-1, …; one epic of
// stories stories each) and starts a dwire mcp process for each; a
// process opens the store on its first call.
func (e *env) startCrowd(prefix string, n, stories int) crowd {
	var c crowd
	for a := range n {
		p := planSpec{id: fmt.Sprintf("%s-%d", prefix, a), epics: 1, stories: stories}
		c.plans = append(c.plans, p)
		c.paths = append(c.paths, e.write(p.id+".md", p.markdown()))
		s, _ := e.mcp()
		c.sessions = append(c.sessions, s)
	}
	return c
}

// previewAndCommitAll has every agent preview its document and commit
// that preview (confirmed, a key of its own), all at once, and fails the
// test for each agent whose preview or commit failed or did not create
// every item of its plan.
func (e *env) previewAndCommitAll(c crowd) {
	previews, commits := make([]scOutcome, len(c.sessions)), make([]scOutcome, len(c.sessions))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for a := range c.sessions {
		wg.Go(func() {
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			previews[a] = e.scCall(ctx, c.sessions[a], "import_preview", map[string]any{"path": c.paths[a]})
			if previews[a].errData != nil || previews[a].transport != nil {
				return
			}
			commits[a] = e.scCall(ctx, c.sessions[a], "import_commit", map[string]any{"preview_handle": previews[a].result.PreviewHandle, "confirmed": true, "idempotency_key": newKey()})
		})
	}
	close(start)
	wg.Wait()
	for a := range c.sessions {
		if p := previews[a]; p.transport != nil || p.errData != nil {
			e.t.Errorf("agent %d: import_preview: %v %v", a, p.transport, p.errData)
			continue
		}
		want := len(c.plans[a].refs())
		if o := commits[a]; o.transport != nil || o.errData != nil || o.result.ResultType != "committed" || o.result.Counts.Created != want {
			e.t.Errorf("agent %d: import_commit: %v %v %+v; want %d created", a, o.transport, o.errData, o.result, want)
		}
	}
}
