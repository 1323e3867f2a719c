package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
)

func open(t *testing.T, url, schema string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Many processes' worth of pools opening a fresh schema at once: the
// advisory lock makes the migrations run once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	storetest.OpenConcurrently(t, 8, func() (*pgstore.Store, error) {
		return pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema, MaxConns: 2})
	})
	s := open(t, url, schema)
	var n, max int
	if err := s.Pool().QueryRow(t.Context(), fmt.Sprintf(`SELECT count(*), max(version) FROM %q.schema_migrations`, schema)).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != pgstore.SchemaVersion() || max != pgstore.SchemaVersion() {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d", n, max, pgstore.SchemaVersion())
	}
}

// Two schemas in one database are two independent stores.
func TestSchemasAreIsolated(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url, pgtest.Schema(t)), open(t, url, pgtest.Schema(t))
	now := time.Now()
	p := core.Preview{Handle: "same-handle", Kind: core.PreviewImport, Scope: "s", Plan: []byte("a"), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := a.SavePreview(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := b.LoadPreview(t.Context(), p.Handle); core.ErrorCode(err) != core.CodePreviewNotFound {
		t.Fatalf("schema b sees schema a's preview: %v", err)
	}
	p.Plan = []byte("b")
	if err := b.SavePreview(t.Context(), p); err != nil {
		t.Fatalf("same handle in another schema: %v", err)
	}
	if got, err := a.LoadPreview(t.Context(), p.Handle); err != nil || string(got.Plan) != "a" {
		t.Fatalf("schema a's preview = %q, %v", got.Plan, err)
	}
}

func wantCode(t *testing.T, err error, code core.Code, retryable bool) *core.Error {
	t.Helper()
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != code || ce.Retryable != retryable {
		t.Fatalf("err = %v, want %s (retryable %v)", err, code, retryable)
	}
	return ce
}

// wantUnreachable: an unreachable server is CONFIG_INVALID (exit 2, not
// retryable, as the contract's table has it) naming host and port and the
// field `store` — not a retryable INTERNAL_ERROR (exit 70).
func wantUnreachable(t *testing.T, err error, addr string) {
	t.Helper()
	ce := wantCode(t, err, core.CodeConfigInvalid, false)
	if !containsStr(ce.Message, "Cannot reach the Postgres state store at "+addr+"/db") || len(ce.Details) == 0 || ce.Details[0].Field != "store" {
		t.Fatalf("unreachable: %v (details %+v); want host and port %s and field store", ce, ce.Details, addr)
	}
}

func TestOpenErrors(t *testing.T) {
	url := pgtest.URL(t)
	t.Run("bad schema name", func(t *testing.T) {
		for _, name := range []string{"Team", "1abc", "pg_catalog", "a-b", `x"; drop`, "information_schema"} {
			_, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: name})
			ce := wantCode(t, err, core.CodeConfigInvalid, false)
			if len(ce.Details) == 0 || ce.Details[0].Field != "store" {
				t.Fatalf("schema %q: details %+v do not name `store`", name, ce.Details)
			}
		}
	})
	t.Run("unparsable URL", func(t *testing.T) {
		_, err := pgstore.Open(t.Context(), pgstore.Options{URL: "postgres://u:s3cret-not-real@host:notaport/db"})
		ce := wantCode(t, err, core.CodeConfigInvalid, false)
		if containsStr(ce.Error(), "s3cret-not-real") {
			t.Fatalf("error leaks the password: %v", ce)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		if !isTCP(url) {
			t.Skip("SKIPPED: the throwaway cluster trusts every local user; password checks need DWIRE_TEST_POSTGRES_URL")
		}
		bad := withPassword(t, url, "wrong-password-not-secret")
		_, err := pgstore.Open(t.Context(), pgstore.Options{URL: bad, Schema: pgtest.Schema(t)})
		ce := wantCode(t, err, core.CodeConfigInvalid, false)
		if containsStr(ce.Error(), "wrong-password-not-secret") {
			t.Fatalf("error leaks the password: %v", ce)
		}
	})
	t.Run("unknown database", func(t *testing.T) {
		_, err := pgstore.Open(t.Context(), pgstore.Options{URL: withDatabase(t, url, "no_such_db_dwire"), Schema: pgtest.Schema(t)})
		wantCode(t, err, core.CodeConfigInvalid, false)
	})
	t.Run("unreachable: refused", func(t *testing.T) {
		// A loopback port with nothing listening.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, err = pgstore.Open(t.Context(), pgstore.Options{URL: "postgres://u@" + addr + "/db?sslmode=disable", ConnectTimeout: 2 * time.Second})
		wantUnreachable(t, err, addr)
	})
	t.Run("unreachable: hangs", func(t *testing.T) {
		// A loopback listener that accepts and never answers: Open gives
		// up at the connect timeout instead of hanging.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var conns []net.Conn
		var mu sync.Mutex
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
		defer func() {
			mu.Lock()
			for _, c := range conns {
				c.Close()
			}
			mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		_, err = pgstore.Open(ctx, pgstore.Options{URL: "postgres://u@" + l.Addr().String() + "/db?sslmode=disable", ConnectTimeout: 300 * time.Millisecond})
		wantUnreachable(t, err, l.Addr().String())
		if ctx.Err() != nil {
			t.Fatal("Open waited for the outer context instead of its connect timeout")
		}
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	s := open(t, url, schema)
	if _, err := s.Pool().Exec(t.Context(), fmt.Sprintf(`INSERT INTO %q.schema_migrations (version, name) VALUES ($1, 'future')`, schema), pgstore.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema})
	wantCode(t, err, core.CodeConfigInvalid, false)
}

// Lock leases are measured on the server's now(), not on the process
// clock (Options.Now), so machines with skewed clocks agree on them.
func TestLeaseOnServerClock(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	skewed := func() time.Time { return time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC) } // a host far behind
	s, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema, Now: skewed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after time.Time
	if err := s.Pool().QueryRow(t.Context(), `SELECT now()`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	lk, err := s.AcquireLock(t.Context(), "server-clock", "a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Pool().QueryRow(t.Context(), `SELECT now()`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if lk.Expires.Before(before.Add(time.Hour)) || lk.Expires.After(after.Add(time.Hour)) {
		t.Fatalf("lease ends %s; want the server's now() + 1h, between %s and %s", lk.Expires, before.Add(time.Hour), after.Add(time.Hour))
	}
	// A host far ahead does not take the live lease over either.
	ahead, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema, Now: func() time.Time { return time.Now().Add(48 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	defer ahead.Close()
	_, err = ahead.AcquireLock(t.Context(), "server-clock", "b", time.Hour)
	var held *core.LockHeldError
	if !errors.As(err, &held) || held.Owner != "a" {
		t.Fatalf("AcquireLock from a host 48 h ahead: %v; want held by a", err)
	}
}

// A process paused inside one of the store's transactions (here: a
// transaction that took a row lock of the commit-lock table, as Fence
// does, and then went silent) no longer blocks everyone else for as long
// as it stays paused: the server ends its session after
// Options.IdleInTransactionTimeout, the transaction rolls back, and the
// lock is free for the next process. The default is the commit lock's
// lease.
func TestPausedTransactionIsEndedByTheServer(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	if pgstore.DefaultIdleInTransactionTimeout != core.DefaultCommitLockLease {
		t.Errorf("default %s; want the commit lock's lease", pgstore.DefaultIdleInTransactionTimeout)
	}
	def := open(t, url, schema)
	var setting string
	if err := def.Pool().QueryRow(t.Context(), `SHOW idle_in_transaction_session_timeout`).Scan(&setting); err != nil || setting != "30s" {
		t.Errorf("default session setting %q, %v; want 30s", setting, err)
	}
	s, err := pgstore.Open(t.Context(), pgstore.Options{URL: url, Schema: schema, IdleInTransactionTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AcquireLock(t.Context(), "paused", "a", time.Hour); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Pool().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	var n int
	if err := tx.QueryRow(t.Context(), `SELECT count(*) FROM (SELECT 1 FROM `+pgx.Identifier{schema, "locks"}.Sanitize()+` WHERE name = 'paused' FOR UPDATE) l`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("lock the row: %d, %v", n, err)
	}
	// The paused holder does nothing more. Another process's Fence with
	// markers needs the row (one without markers only reads it); it gets
	// it once the server ended the paused session.
	marker := []core.IndexEntry{{Scope: "s", Reference: "doc/s-1", Digest: "x", UpdatedAt: time.Now()}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err := def.Fence(ctx, "paused", "a", 1, marker)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the row stayed locked by the paused transaction: %v", err)
		}
	}
	if _, err := tx.Exec(t.Context(), `SELECT 1`); err == nil {
		t.Error("the paused transaction still works; want its session ended by the server")
	}
}

// TestFenceWithoutMarkersIsARead: a fence with no markers writes nothing,
// so it answers while another transaction holds the lock row (another
// fence with markers, or a takeover under way); one with markers waits
// for that row lock.
func TestFenceWithoutMarkersIsARead(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	s := open(t, url, schema)
	lk, err := s.AcquireLock(t.Context(), "doc", "me", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.Pool().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(t.Context(), fmt.Sprintf(`SELECT 1 FROM %q.locks WHERE name = 'doc' FOR UPDATE`, schema)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if err := s.Fence(ctx, "doc", "me", lk.Generation, nil); err != nil {
		t.Errorf("fence without markers under a held row lock: %v", err)
	}
	if err := s.Fence(ctx, "doc", "someone else", lk.Generation, nil); !errors.As(err, new(*core.LockLostError)) {
		t.Errorf("fence of a lock not held: %v; want a LockLostError", err)
	}
	short, cancelShort := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancelShort()
	marker := []core.IndexEntry{{Scope: "s", Reference: "doc/s-1", Digest: "x", UpdatedAt: time.Now()}}
	if err := s.Fence(short, "doc", "me", lk.Generation, marker); err == nil {
		t.Errorf("a fence with markers went through a held row lock")
	}
}

// The audit table refuses an UPDATE (its trigger): storetest's
// AuditNeverRewritten.
func TestAuditRowsAreNeverRewritten(t *testing.T) {
	s := open(t, pgtest.URL(t), pgtest.Schema(t))
	table := pgx.Identifier{s.Schema(), "audit"}.Sanitize()
	storetest.AuditNeverRewritten(t, s, []string{
		`UPDATE ` + table + ` SET at = at + interval '1 second' WHERE seq = $1`,
		`UPDATE ` + table + ` SET body = convert_to('{"event":"preview","handle":"imp_a","by":{"kind":"person","user":"mallory"}}', 'UTF8') WHERE seq = $1`,
	}, func(stmt string, seq int64) (int64, error) {
		tag, err := s.Pool().Exec(t.Context(), stmt, seq)
		return tag.RowsAffected(), err
	}, func() error {
		_, err := s.Pool().Exec(t.Context(), `DROP TRIGGER audit_never_rewritten ON `+table)
		return err
	})
}

// A schema of version 5 (the release that stored a pull's preview under
// the 'import' kind) opens at the current version, its pull previews of
// kind 'pull' and every other row as it was.
func TestSchema5PullPreviewsLoadAsPulls(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	q := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(t.Context(), `CREATE SCHEMA `+q+`; CREATE TABLE `+q+`.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations.Load(os.DirFS("."), "migrations")
	if err != nil || len(ms) < 5 {
		t.Fatalf("migrations 1-5: %d, %v", len(ms), err)
	}
	for _, m := range ms[:5] {
		if _, err := conn.Exec(t.Context(), strings.ReplaceAll(m.SQL, "{schema}", q)); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := conn.Exec(t.Context(), fmt.Sprintf(`INSERT INTO %s.schema_migrations (version, name) VALUES ($1, $2)`, q), m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range storetest.LegacyPreviews() {
		if _, err := conn.Exec(t.Context(), fmt.Sprintf(`INSERT INTO %s.previews (handle, kind, scope, plan, plan_digest, created_at, expires_at) VALUES ($1, $2, 's', $3, $4, now(), now() + interval '1 day')`, q),
			r.Handle, r.Stored, []byte(r.Plan), core.PlanDigest([]byte(r.Plan))); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, url, schema)
	storetest.CheckLegacyPreviews(t, s)
	if v := pgstore.SchemaVersion(); v != 9 {
		t.Errorf("schema version %d; this test migrates 5 to 9", v)
	}
}
