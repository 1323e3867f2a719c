package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agents on one store: N `dwire mcp` processes, each previewing and
// committing a document of its own at the same moment, on one Postgres
// store against one site with Jira's burst limit. Throughput, the p95 of
// the commits' latency, the share of requests Jira refused with 429 and
// the store's connections at their peak.

// AgentsRun is one team size.
type AgentsRun struct {
	Agents       int     `json:"agents"`
	Items        int     `json:"items"` // per agent
	LimitPerSec  float64 `json:"limit_per_sec"`
	WallMS       float64 `json:"wall_ms"`
	ItemsPerSec  float64 `json:"items_per_sec"`
	CommitP95MS  float64 `json:"commit_p95_ms"`
	Requests     int     `json:"requests"`
	RateLimited  int     `json:"rate_limited"`
	Failed       int     `json:"failed"` // calls that did not succeed
	PeakConns    int     `json:"peak_connections"`
	FirstFailure string  `json:"first_failure,omitempty"`
}

// agentsRuns runs each team size against a fresh mockjira and a fresh
// Postgres schema.
func (b *bench) agentsRuns(ctx context.Context, teams []int, items int, rate float64) ([]AgentsRun, error) {
	pg := os.Getenv("DWIRE_TEST_POSTGRES_URL")
	if pg == "" {
		return nil, fmt.Errorf("the agents rows need a Postgres server: set DWIRE_TEST_POSTGRES_URL")
	}
	var out []AgentsRun
	for _, n := range teams {
		r, err := b.agentsRun(ctx, pg, n, items, rate)
		if err != nil {
			return nil, fmt.Errorf("%d agents: %w", n, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (b *bench) agentsRun(ctx context.Context, pg string, agents, items int, rate float64) (AgentsRun, error) {
	r := AgentsRun{Agents: agents, Items: items, LimitPerSec: rate}
	logf(b.o, "%d agents on one Postgres store, %d items each, burst limit %.0f/s", agents, items, rate)
	mj, err := b.startJiraWith(ctx, "-burst-limit", fmt.Sprint(rate))
	if err != nil {
		return r, err
	}
	defer stopJira(mj)
	// A database of its own, so its connections are the agents' alone.
	dbName := "bench_agents_" + randomHex(4)
	admin, err := pgx.Connect(ctx, pg)
	if err != nil {
		return r, err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{dbName}.Sanitize()); err != nil {
		return r, fmt.Errorf("create a database for the run: %w", err)
	}
	defer func() {
		_, _ = admin.Exec(context.Background(), `DROP DATABASE IF EXISTS `+pgx.Identifier{dbName}.Sanitize()+` WITH (FORCE)`)
	}()
	store, err := withDatabase(pg, dbName)
	if err != nil {
		return r, err
	}
	dir, err := b.dirFor(fmt.Sprintf("agents-%d", agents))
	if err != nil {
		return r, err
	}
	ws := filepath.Join(dir, "ws")
	if err := writeWorkspace(ws, mj.URL); err != nil {
		return r, err
	}
	cfg := fmt.Sprintf("jira:\n  site: %s\n  project: %s\n  email: %s\n  token_env: JIRA_API_TOKEN\nstore: %s\n", mj.URL, benchProject, benchEmail, store)
	if err := os.WriteFile(filepath.Join(ws, ".devworkwire.yaml"), []byte(cfg), 0o644); err != nil {
		return r, err
	}
	paths := make([]string, agents)
	for a := range agents {
		paths[a] = fmt.Sprintf("agent-%d.md", a)
		doc := bytes.Replace(document(items, nil), []byte("id: bench\n"), fmt.Appendf(nil, "id: agent-%d\n", a), 1)
		if err := os.WriteFile(filepath.Join(ws, paths[a]), doc, 0o644); err != nil {
			return r, err
		}
	}
	// The agents' processes, started and initialised before the clock.
	sessions := make([]*mcp.ClientSession, agents)
	for a := range agents {
		c := dwireCmd(ctx, b.bins, ws, "mcp")
		client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("bench-agent-%d", a), Version: "1.0.0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
		if err != nil {
			return r, fmt.Errorf("start dwire mcp: %w", err)
		}
		defer cs.Close()
		sessions[a] = cs
	}
	if err := mj.ClearRequests(ctx); err != nil {
		return r, err
	}
	// The store's connections, sampled from outside it.
	stop, peak := make(chan struct{}), make(chan int)
	go func() {
		most := 0
		for {
			var n int
			if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, dbName).Scan(&n); err == nil {
				most = max(most, n)
			}
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var (
		mu       sync.Mutex
		commits  []time.Duration
		failures []string
		wg       sync.WaitGroup
	)
	fail := func(a int, what string, err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf("agent %d: %s: %v", a, what, err))
	}
	begin := time.Now()
	for a := range agents {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
			defer cancel()
			var pv struct {
				Handle string `json:"preview_handle"`
			}
			if err := callTool(cctx, sessions[a], "import_preview", map[string]any{"path": paths[a]}, &pv); err != nil {
				fail(a, "import_preview", err)
				return
			}
			var res struct {
				ResultType string `json:"result_type"`
				Counts     struct {
					Created int `json:"created"`
				} `json:"counts"`
			}
			t0 := time.Now()
			err := callTool(cctx, sessions[a], "import_commit", map[string]any{"preview_handle": pv.Handle, "confirmed": true, "idempotency_key": "bench-" + randomHex(8)}, &res)
			took := time.Since(t0)
			if err == nil && (res.ResultType != "committed" || res.Counts.Created != items) {
				err = fmt.Errorf("%s with %d created, want committed with %d", res.ResultType, res.Counts.Created, items)
			}
			if err != nil {
				fail(a, "import_commit", err)
				return
			}
			mu.Lock()
			commits = append(commits, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	wall := time.Since(begin)
	close(stop)
	r.PeakConns = <-peak
	p, err := collect(ctx, mj, mockjiraCPU())
	if err != nil {
		return r, err
	}
	if b.o.Timeline != "" {
		if err := writeTimeline(fmt.Sprintf("%s.agents-%d", b.o.Timeline, agents), fmt.Sprintf("%d agents", agents), p); err != nil {
			return r, err
		}
	}
	r.WallMS = ms(wall)
	r.ItemsPerSec = float64(len(commits)*items) / wall.Seconds()
	r.Requests, r.RateLimited = p.Requests, p.RateLimited
	r.Failed = len(failures)
	if len(failures) > 0 {
		r.FirstFailure = firstLine(failures[0])
	}
	if len(commits) > 0 {
		slices.Sort(commits)
		r.CommitP95MS = ms(commits[(len(commits)*95+99)/100-1])
	}
	return r, nil
}

// callTool calls an MCP tool and decodes its structured result into out.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args any, out any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("isError result")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// withDatabase is the Postgres URL pg naming database db.
func withDatabase(pg, db string) (string, error) {
	u, err := url.Parse(pg)
	if err != nil {
		return "", fmt.Errorf("DWIRE_TEST_POSTGRES_URL: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func agentsTargets(r *Results) []Target {
	var ts []Target
	for _, ar := range r.Agents {
		t := Target{Name: fmt.Sprintf("%d agents on one Postgres store under a %.0f req/s burst limit", ar.Agents, ar.LimitPerSec),
			Goal: "0 failed calls, 429s < 5% of requests"}
		share := 0.0
		if ar.Requests > 0 {
			share = float64(ar.RateLimited) / float64(ar.Requests)
		}
		t.Measured = fmt.Sprintf("%d failed, %d 429s of %d requests (%.1f%%); %.0f items/s, commit p95 %.2f s, peak %d connections", ar.Failed, ar.RateLimited, ar.Requests, 100*share, ar.ItemsPerSec, ar.CommitP95MS/1000, ar.PeakConns)
		t.Status = status(ar.Failed == 0 && share < 0.05)
		ts = append(ts, t)
	}
	return ts
}

func agentsMarkdown(r *Results) string {
	if len(r.Agents) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Agents on one store\n\nN `dwire mcp` processes (started and initialised before the clock starts) each preview and commit a document of their own (%d items) at the same moment, through the MCP door (`import_preview`, then `import_commit` with `confirmed: true`), on one Postgres store (a fresh database, so its connections are the agents' alone) against one mockjira with `-burst-limit %.0f` and the same latency. The processes share the site's pacing through the store (docs/jira-client.md, \"Pacing\"): the store starts knowing nothing of the site, so the first second's excess over the limit is found by refusals. Throughput is items committed per second of wall time; commit latency is each `import_commit` call's; 429s are of every request the processes sent; connections are the store's at their peak (sampled every 20 ms).\n\n", r.Agents[0].Items, r.Agents[0].LimitPerSec)
	b.WriteString("| Agents | Items each | Wall (s) | Items/s | Commit p95 (s) | Requests | 429s | 429 share | Failed calls | Peak connections |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, ar := range r.Agents {
		share := 0.0
		if ar.Requests > 0 {
			share = 100 * float64(ar.RateLimited) / float64(ar.Requests)
		}
		fmt.Fprintf(&b, "| %d | %d | %.2f | %.0f | %.2f | %d | %d | %.1f%% | %d | %d |\n", ar.Agents, ar.Items, ar.WallMS/1000, ar.ItemsPerSec, ar.CommitP95MS/1000, ar.Requests, ar.RateLimited, share, ar.Failed, ar.PeakConns)
	}
	if f := r.Agents[len(r.Agents)-1].FirstFailure; f != "" {
		fmt.Fprintf(&b, "\nFirst failure: %s\n", f)
	}
	b.WriteString("\n")
	return b.String()
}
