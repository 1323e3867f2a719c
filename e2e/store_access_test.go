package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/devworkwire/devworkwire/core"
)

// scStore is a workspace's state store reached directly, the way any other
// process with access to it could: the SQLite file in the workspace, or
// the workspace's schema of the shared PostgreSQL server. The exactly-once
// scenarios read the commit lock and the dedup index through it, and
// rewrite a stored plan as a hostile writer of a shared store would.
type scStore struct {
	t      *testing.T
	kind   string // "sqlite" | "postgres"
	path   string // the SQLite file
	schema string // the PostgreSQL schema

	mu   sync.Mutex
	lite *sql.DB
	pg   *pgx.Conn
}

// storeKinds are the stores the scenarios run on.
var storeKinds = []string{"sqlite", "postgres"}

// newStoreEnv returns a workspace on a fresh store of kind (a Postgres
// scenario skips, or fails under DWIRE_REQUIRE_POSTGRES=1, without a
// server) and direct access to that store.
func newStoreEnv(t *testing.T, kind string, o envOptions) (*env, *scStore) {
	t.Helper()
	st := &scStore{t: t, kind: kind}
	if kind == "postgres" {
		o.storeURL, st.schema = teamSchema(t)
	}
	e := newEnv(t, o)
	if kind == "sqlite" {
		st.path = filepath.Join(e.dir, "state.db")
	}
	t.Cleanup(st.close)
	return e, st
}

func (s *scStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lite != nil {
		_ = s.lite.Close()
	}
	if s.pg != nil {
		_ = s.pg.Close(context.Background())
	}
}

// table names a table of the store in SQL.
func (s *scStore) table(name string) string {
	if s.kind == "postgres" {
		return pgx.Identifier{s.schema, name}.Sanitize()
	}
	return name
}

// queryRow runs a one-row query written with $1, $2 … placeholders and
// scans it into dest.
func (s *scStore) queryRow(q string, args []any, dest ...any) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.kind == "postgres" {
		err = s.pgConn(ctx).QueryRow(ctx, q, args...).Scan(dest...)
	} else {
		err = s.liteDB().QueryRowContext(ctx, liteSQL(q), args...).Scan(dest...)
	}
	if err != nil {
		s.t.Fatalf("%s store: %s: %v", s.kind, q, err)
	}
}

// exec runs a statement written with $1, $2 … placeholders and returns
// the rows it affected.
func (s *scStore) exec(q string, args ...any) int64 {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kind == "postgres" {
		tag, err := s.pgConn(ctx).Exec(ctx, q, args...)
		if err != nil {
			s.t.Fatalf("postgres store: %s: %v", q, err)
		}
		return tag.RowsAffected()
	}
	res, err := s.liteDB().ExecContext(ctx, liteSQL(q), args...)
	if err != nil {
		s.t.Fatalf("sqlite store: %s: %v", q, err)
	}
	n, _ := res.RowsAffected()
	return n
}

// liteSQL turns $1, $2 … into SQLite's numbered ?1, ?2 ….
func liteSQL(q string) string { return strings.ReplaceAll(q, "$", "?") }

// pgConn opens the connection on first use (s.mu held).
func (s *scStore) pgConn(ctx context.Context) *pgx.Conn {
	if s.pg == nil {
		c, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			s.t.Fatalf("connect to the Postgres store: %v", err)
		}
		s.pg = c
	}
	return s.pg
}

// liteDB opens the file on first use (s.mu held): dwire creates it.
func (s *scStore) liteDB() *sql.DB {
	if s.lite == nil {
		if _, err := os.Stat(s.path); err != nil {
			s.t.Fatalf("the SQLite store: %v", err)
		}
		db, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			s.t.Fatal(err)
		}
		s.lite = db
	}
	return s.lite
}

// commitLocks counts the commit locks someone holds and, of those, the
// ones whose lease has not lapsed by the store's own clock: the server's
// now() for Postgres, this machine's clock (the one every process sharing
// the file uses) for SQLite.
func (s *scStore) commitLocks() (held, live int) {
	s.t.Helper()
	if s.kind == "postgres" {
		s.queryRow(`SELECT count(*), count(*) FILTER (WHERE expires_at > now()) FROM `+s.table("locks")+` WHERE owner <> ''`, nil, &held, &live)
		return held, live
	}
	s.queryRow(`SELECT count(*), coalesce(sum(expires_at > $1), 0) FROM locks WHERE owner <> ''`, []any{time.Now().UnixMicro()}, &held, &live)
	return held, live
}

// indexed counts the dedup index entries (keyed entries and write-ahead
// markers alike) whose reference starts with prefix.
func (s *scStore) indexed(prefix string) int {
	s.t.Helper()
	var n int
	s.queryRow(`SELECT count(*) FROM `+s.table("dedup_index")+` WHERE substr(reference, 1, length($1)) = $1`, []any{prefix}, &n)
	return n
}

// inTransaction reports whether another connection is inside a write
// transaction on the store right now: for SQLite, whether the file's write
// lock is taken (a BEGIN IMMEDIATE that may not wait fails); for Postgres,
// whether a session of the store's schema is inside a transaction.
func (s *scStore) inTransaction() bool {
	s.t.Helper()
	if s.kind == "postgres" {
		var n int
		s.queryRow(`SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)') AND position($1 in query) > 0`, []any{s.schema}, &n)
		return n > 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.liteDB().Conn(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		s.t.Fatal(err)
	}
	defer c.ExecContext(ctx, `PRAGMA busy_timeout = 10000`)
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "locked") {
			return true
		}
		s.t.Fatalf("probe the SQLite write lock: %v", err)
	}
	if _, err := c.ExecContext(ctx, `ROLLBACK`); err != nil {
		s.t.Fatal(err)
	}
	return false
}

// swapPlan rewrites the plan stored under handle, and its digest, as
// anyone who can write the store could: old becomes new in the plan.
func (s *scStore) swapPlan(handle, old, new string) {
	s.t.Helper()
	var plan []byte
	s.queryRow(`SELECT plan FROM `+s.table("previews")+` WHERE handle = $1`, []any{handle}, &plan)
	if !bytes.Contains(plan, []byte(old)) {
		s.t.Fatalf("the stored plan of %s does not contain %q", handle, old)
	}
	plan = bytes.ReplaceAll(plan, []byte(old), []byte(new))
	if n := s.exec(`UPDATE `+s.table("previews")+` SET plan = $1, plan_digest = $2 WHERE handle = $3`, plan, core.PlanDigest(plan), handle); n != 1 {
		s.t.Fatalf("the swap of %s's plan updated %d rows", handle, n)
	}
}

// pauseOutside SIGSTOPs the dwire process of session p at a moment when it
// is inside no store transaction (a paused process holding the SQLite
// write lock, or a Postgres row lock, blocks every other process: another
// scenario than a paused committer whose lease runs out). A pause that
// lands inside one is undone and tried again.
func (s *scStore) pauseOutside(p *ptySession) {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		p.signal(syscall.SIGSTOP)
		p.waitStopped()
		if !s.inTransaction() {
			return
		}
		if attempt == 50 {
			s.t.Fatalf("dwire %v was inside a store transaction at each of %d pauses", p.args, attempt)
		}
		p.signal(syscall.SIGCONT)
		<-time.After(time.Millisecond) // let it finish the transaction; then pause again
	}
}

// waitStopped polls /proc until the process is stopped by a signal.
func (p *ptySession) waitStopped() {
	p.e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.c.Process.Pid))
		if err != nil {
			p.e.t.Fatalf("read the state of dwire %v: %v", p.args, err)
		}
		// pid (comm) STATE …: comm may hold spaces, so read after the last ')'.
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "T" {
			return
		}
		if time.Now().After(deadline) {
			p.e.t.Fatalf("dwire %v did not stop within 30s of SIGSTOP", p.args)
		}
		<-time.After(time.Millisecond) // poll the process state
	}
}

// pollUntil polls cond every 10 ms until it holds; the test fails naming
// what when d passes first.
func pollUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s", d, what)
		}
		<-time.After(10 * time.Millisecond) // the poll interval
	}
}
