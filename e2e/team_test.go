package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teamStore returns a shared Postgres store URL with a schema of its own
// (dropped when the test ends), or skips when there is no PostgreSQL and
// none is required.
func teamStore(t *testing.T) string {
	t.Helper()
	u, _ := teamSchema(t)
	return u
}

// needPostgres skips a scenario that needs the shared Postgres store when
// none is available, and fails it where one is required (CI sets
// DWIRE_REQUIRE_POSTGRES=1, so there it always runs).
func needPostgres(t *testing.T) {
	t.Helper()
	if pgURL == "" {
		if os.Getenv("DWIRE_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL is required (DWIRE_REQUIRE_POSTGRES=1) but none is available: %s", pgWhy)
		}
		t.Skipf("no PostgreSQL for the shared store: %s", pgWhy)
	}
}

// teamSchema is teamStore, also returning the schema's name.
func teamSchema(t *testing.T) (storeURL, schema string) {
	t.Helper()
	needPostgres(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema = "e2e_team_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			t.Logf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	return pgURL + sep + "schema=" + schema, schema
}

// TestTeamAgentPreviewPersonReviews: an agent previews over MCP against a
// shared Postgres store; a person runs `dwire review <handle>` on a
// terminal against the same store, sees the plan and answers y; the
// agent's own later commit of that handle is refused, with zero writes.
func TestTeamAgentPreviewPersonReviews(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{storeURL: teamStore(t)})
	p := planSpec{id: "team-review", epics: 2, stories: 2}
	path := e.write("plan.md", p.markdown())

	cs, _ := e.mcp()
	pv := e.scPreview(cs, path)
	if pv.Counts.Create != 6 || !strings.HasPrefix(pv.PreviewHandle, "imp_") {
		t.Fatalf("agent's preview = %+v", pv)
	}
	if w := e.writes(); w != 0 {
		t.Fatalf("the agent's preview made %d writes", w)
	}

	r := e.dwirePTY("y\r", "review", pv.PreviewHandle)
	if r.code != 0 {
		t.Fatalf("dwire review: %s", r)
	}
	for _, want := range []string{"Story 1", "Epic 2", "[y/N]"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the review did not show %q:\n%s", want, r.stdout)
		}
	}
	e.matches(p)
	if n := len(e.issues()); n != 6 {
		t.Fatalf("the tracker holds %d issues after the review, want 6", n)
	}

	// The handle is used up: the agent's commit is refused and writes nothing.
	if err := e.jira.ClearRequests(ctx); err != nil {
		t.Fatal(err)
	}
	o := e.scCommitImport(cs, pv.PreviewHandle, newKey())
	if o.code() != "PREVIEW_NOT_FOUND" || !strings.Contains(fmt.Sprint(o.errData["message"]), "already committed") {
		t.Errorf("the agent's commit of a reviewed handle: got %s %v, want PREVIEW_NOT_FOUND (already committed)", scOrOK(o.code()), o.errData)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("the refused commit made %d writes", w)
	}
	// The person reviewing it again is told it was committed; nothing written.
	r = e.dwirePTY("y\r", "review", pv.PreviewHandle)
	if r.code != 0 || !strings.Contains(r.stdout, "already committed") {
		t.Errorf("a second review of a committed handle: %s", r)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("the second review made %d writes", w)
	}
	e.matches(p)
}

// TestTeamConcurrentCommits: 4 documents, one preview handle each (made
// with `dwire import --dry-run --json`); each handle is raced by a person
// (`dwire review` on a terminal, answering y) and an agent (`dwire mcp`,
// import_commit) — 8 processes against one Postgres store and one fake
// Jira, released together. Every handle executes exactly once, the other
// process gets the documented refusal, and the tracker holds 4×3 issues
// with zero duplicates.
func TestTeamConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{storeURL: teamStore(t)})
	const docs = 4
	var plans []planSpec
	var handles []string
	for d := range docs {
		p := planSpec{id: fmt.Sprintf("race-%d", d), epics: 1, stories: 2}
		e.write(p.id+".md", p.markdown())
		var pv previewJSON
		if r := e.dwireJSON(&pv, "import", p.id+".md", "--dry-run"); r.code != 0 || pv.PreviewHandle == "" {
			t.Fatalf("dwire import --dry-run --json: %s", r)
		}
		plans = append(plans, p)
		handles = append(handles, pv.PreviewHandle)
	}
	// Some latency so the two commits of a handle overlap in time.
	if err := e.jira.SetConfig(ctx, 20, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.jira.ClearRequests(ctx); err != nil {
		t.Fatal(err)
	}

	// The agents: connected and idle until the release.
	sessions := make([]*mcp.ClientSession, docs)
	for d := range docs {
		sessions[d], _ = e.mcp()
	}
	// The people: each at the prompt, waiting for the release to answer.
	ready := make(chan struct{}, docs)
	release := make(chan struct{})
	cli := make([]result, docs)
	agent := make([]scOutcome, docs)
	var wg sync.WaitGroup
	for d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Odd handles give the agent the head start instead.
			var lag time.Duration
			if d%2 == 1 {
				lag = time.Duration(mrand.Int64N(int64(80 * time.Millisecond)))
			}
			cli[d] = e.reviewOnSignal(handles[d], ready, release, lag)
		}()
	}
	timeout := time.After(2 * time.Minute)
	for range docs {
		select {
		case <-ready:
		case <-timeout:
			close(release)
			wg.Wait()
			t.Fatalf("not every dwire review reached its prompt: %v", cli)
		}
	}
	for d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			// A random head start for the person on even handles, so
			// either side can win.
			if d%2 == 0 {
				<-time.After(time.Duration(mrand.Int64N(int64(80 * time.Millisecond))))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			agent[d] = e.scCall(ctx, sessions[d], "import_commit", map[string]any{"preview_handle": handles[d], "confirmed": true, "idempotency_key": newKey()})
		}()
	}
	close(release)
	wg.Wait()

	wins := map[string]int{}
	for d := range docs {
		var winners []string
		c := cli[d]
		switch {
		case c.code == 0 && !strings.Contains(c.stdout, "Error:") && !strings.Contains(c.stdout, "Skipped:"):
			winners = append(winners, "cli")
		case c.code == 1 && strings.Contains(c.stdout, "PREVIEW_NOT_FOUND") && strings.Contains(c.stdout, "already committed"):
		default:
			t.Errorf("handle %d: dwire review ended neither committed nor refused as already committed: %s", d, c)
		}
		a := agent[d]
		switch {
		case a.transport != nil:
			t.Errorf("handle %d: import_commit: %v", d, a.transport)
		case a.errData == nil && a.result.ResultType == "committed" && !a.result.Replayed:
			winners = append(winners, "mcp")
			if a.result.Counts.Created != 3 {
				t.Errorf("handle %d: the agent's commit created %d items, want 3", d, a.result.Counts.Created)
			}
		case a.code() == "PREVIEW_NOT_FOUND" && strings.Contains(fmt.Sprint(a.errData["message"]), "already committed"):
		default:
			t.Errorf("handle %d: import_commit got %s %v, want a commit or PREVIEW_NOT_FOUND (already committed)", d, scOrOK(a.code()), a.errData)
		}
		if len(winners) != 1 {
			t.Errorf("handle %d was executed by %v, want exactly one winner\n--- cli\n%s\n--- mcp\n%+v", d, winners, c, a)
			continue
		}
		wins[winners[0]]++
	}

	// Every handle executed once: 2 bulk creates per document (epic, then
	// stories), 4×3 issues, each reference once.
	rs, err := e.jira.Requests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bulk := 0
	for _, r := range rs {
		if r.Method == "POST" && r.Path == "/rest/api/3/issue/bulk" {
			bulk++
		}
	}
	if bulk != 2*docs {
		t.Errorf("%d bulk creates for %d documents, want %d (each handle once)", bulk, docs, 2*docs)
	}
	for _, p := range plans {
		e.matches(p)
	}
	if n := len(e.issues()); n != docs*3 {
		t.Errorf("the tracker holds %d issues, want %d", n, docs*3)
	}
	e.noDuplicates()
	t.Logf("team race: %d handles, 8 processes (4 dwire review on a pty, 4 dwire mcp); winners: %d CLI, %d MCP; losers refused with PREVIEW_NOT_FOUND (already committed): %d; %d issues, %d bulk creates; duplicates found: 0",
		docs, wins["cli"], wins["mcp"], docs, len(e.issues()), bulk)
}

// reviewOnSignal runs `dwire review <handle>` on a pseudo-terminal, says
// on ready when the prompt shows, and answers y lag after release closes.
func (e *env) reviewOnSignal(handle string, ready chan<- struct{}, release <-chan struct{}, lag time.Duration) result {
	return e.ptyRun([]string{"review", handle}, "y\r", func() {
		ready <- struct{}{}
		<-release
		<-time.After(lag) // the other side's head start
	})
}
