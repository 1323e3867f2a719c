package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestTeamPastTheConnectionLimit: more agents than the server admits
// connections. Six `dwire mcp` processes share a Postgres store in a
// database limited to three connections (a managed plan's per-role or
// per-database limit; the server says "too many connections", SQLSTATE
// 53300, past it), each previewing and committing a document of its own,
// all at once. Every preview and commit succeeds on its first call (a
// process waits for a free connection instead of failing), and once the
// work is done the processes, still running, hold no connection at all.
func TestTeamPastTheConnectionLimit(t *testing.T) {
	needPostgres(t)
	const agents, limit = 6, 3
	store := pgtest.LimitedDatabase(t, pgURL, limit)
	dbName := strings.TrimPrefix(mustURL(t, store).Path, "/")
	e := newEnv(t, envOptions{storeURL: store})
	if err := e.jira.SetConfig(context.Background(), 20, 0, 0); err != nil {
		t.Fatal(err)
	}

	// Connections to the limited database, seen from outside it (one
	// goroutine at a time: a pgx.Conn is not safe for concurrent use).
	admin, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	conns := func() int {
		var n int
		if err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, dbName).Scan(&n); err != nil {
			t.Fatalf("count connections: %v", err)
		}
		return n
	}
	stop := make(chan struct{})
	peak := make(chan int)
	go func() {
		most := 0
		for {
			most = max(most, conns())
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	c := e.startCrowd("crowd", agents, 3)
	began := time.Now()
	e.previewAndCommitAll(c)
	took := time.Since(began)
	close(stop)
	most := <-peak
	// Idle now, every process still running: none holds a connection.
	deadline := time.Now().Add(20 * time.Second)
	for n := conns(); n != 0; n = conns() {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open 20 s after the last call, by %d idle processes; want none", n, agents)
		}
		<-time.After(100 * time.Millisecond)
	}
	for _, p := range c.plans {
		e.matches(p)
	}
	e.noDuplicates()
	t.Logf("%d agents on a database admitting %d connections: every preview and commit succeeded on its first call in %s; peak %d connections; none left once idle",
		agents, limit, took.Round(time.Millisecond), most)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
