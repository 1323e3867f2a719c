package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

func open(t *testing.T, path string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func wantIntegrityOK(t *testing.T, s *sqlitestore.Store) {
	t.Helper()
	got, err := s.IntegrityCheck(t.Context())
	if err != nil || got != "ok" {
		t.Fatalf("PRAGMA integrity_check = %q, %v; want ok", got, err)
	}
}

func TestDefaultPathPermissions(t *testing.T) {
	state := filepath.Join(t.TempDir(), "xdg-state")
	t.Setenv("XDG_STATE_HOME", state)
	p, err := sqlitestore.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "devworkwire", "state.db"); p != want {
		t.Fatalf("DefaultPath = %s, want %s", p, want)
	}
	s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Path() != p {
		t.Fatalf("opened %s, want the default %s", s.Path(), p)
	}
	// A write creates the WAL and shared-memory files: SQLite gives them
	// the database file's mode.
	if err := s.UpsertIndex(t.Context(), []core.IndexEntry{{Scope: "s", Reference: "d/i", Key: "K-1"}}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{filepath.Dir(p): 0o700, p: 0o600, p + "-wal": 0o600, p + "-shm": 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
	var mode string
	if err := s.DB().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var bt int
	if err := s.DB().QueryRowContext(t.Context(), `PRAGMA busy_timeout`).Scan(&bt); err != nil || bt != int(sqlitestore.DefaultBusyTimeout.Milliseconds()) {
		t.Fatalf("busy_timeout = %d, %v", bt, err)
	}
}

func TestDefaultPathFallsBackToHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "relative/not/allowed")
	t.Setenv("HOME", home)
	p, err := sqlitestore.DefaultPath()
	if err != nil || p != filepath.Join(home, ".local", "state", "devworkwire", "state.db") {
		t.Fatalf("DefaultPath = %s, %v", p, err)
	}
}

// TestConcurrentFirstOpenMigratesOnce opens new files from 8 goroutines at
// once, over many rounds and on more threads than the machine may have
// cores: SQLite refuses concurrent switches of a new file to WAL mode with
// SQLITE_BUSY at once (no busy wait), which about one round in 30 hit
// before Open retried the switch.
func TestConcurrentFirstOpenMigratesOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for round := range 80 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("new-%d.db", round))
		storetest.OpenConcurrently(t, 8, func() (*sqlitestore.Store, error) {
			return sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
		})
		s := open(t, path)
		var v int
		if err := s.DB().QueryRowContext(t.Context(), `PRAGMA user_version`).Scan(&v); err != nil || v != sqlitestore.SchemaVersion() || v < 1 {
			t.Fatalf("round %d: user_version = %d, %v; want %d", round, v, err, sqlitestore.SchemaVersion())
		}
		var mode string
		if err := s.DB().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("round %d: journal_mode = %q, %v; want wal", round, mode, err)
		}
		wantIntegrityOK(t, s)
	}
}

func wantConfigInvalid(t *testing.T, err error, what string) {
	t.Helper()
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeConfigInvalid {
		t.Fatalf("%s: err = %v, want CONFIG_INVALID", what, err)
	}
	named := false
	for _, d := range ce.Details {
		named = named || d.Field == "store"
	}
	if !named {
		t.Fatalf("%s: CONFIG_INVALID does not name the field `store`: %+v", what, ce.Details)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("these are not the droids you are looking for, not a database at all......................................................................"), 0o600); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"directory":        dir,
		"not a database":   notDB,
		"query in path":    filepath.Join(dir, "a.db?mode=ro"),
		"parent is a file": filepath.Join(blocker, "sub", "state.db"),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
			if err == nil {
				s.Close()
			}
			wantConfigInvalid(t, err, name)
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "future.db")
	s := open(t, path)
	if _, err := s.DB().ExecContext(t.Context(), fmt.Sprintf(`PRAGMA user_version = %d`, sqlitestore.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
	wantConfigInvalid(t, err, "newer schema")
}

// holdWriteLock holds the database's write lock on a connection of s
// until the test ends.
func holdWriteLock(t *testing.T, s *sqlitestore.Store) {
	t.Helper()
	conn, err := s.DB().Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.ExecContext(context.Background(), `ROLLBACK`)
		_ = conn.Close()
	})
}

func TestBusyIsRetryable(t *testing.T) {
	// Another connection holds the write lock longer than the busy
	// timeout: the write fails as retryable INTERNAL_ERROR, promptly.
	path := filepath.Join(t.TempDir(), "busy.db")
	holder := open(t, path)
	holdWriteLock(t, holder)
	s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path, BusyTimeout: 50 * time.Millisecond})
	if err == nil {
		defer s.Close()
		err = s.SavePreview(t.Context(), core.Preview{Handle: "h", Kind: core.PreviewImport, ExpiresAt: time.Now().Add(time.Hour)})
	}
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInternal || !ce.Retryable {
		t.Fatalf("write under a held lock: %v; want retryable INTERNAL_ERROR", err)
	}
}

// TestFenceWithoutMarkersIsARead: a fence with no markers writes nothing,
// so it answers while another connection holds the write lock (a commit's
// rank or update fences do not queue behind a create batch's markers);
// one with markers still needs the write lock.
func TestFenceWithoutMarkersIsARead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fence.db")
	s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lk, err := s.AcquireLock(t.Context(), "doc", "me", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path, BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	holdWriteLock(t, s)
	if err := other.Fence(t.Context(), "doc", "me", lk.Generation, nil); err != nil {
		t.Errorf("fence without markers under a held write lock: %v", err)
	}
	if err := other.Fence(t.Context(), "doc", "someone else", lk.Generation, nil); !errors.As(err, new(*core.LockLostError)) {
		t.Errorf("fence of a lock not held: %v; want a LockLostError", err)
	}
	marker := []core.IndexEntry{{Scope: "s", Reference: "doc/s-1", Digest: "x", UpdatedAt: time.Now()}}
	if err := other.Fence(t.Context(), "doc", "me", lk.Generation, marker); err == nil {
		t.Errorf("a fence with markers went through a held write lock")
	}
}

// The audit table refuses an UPDATE (its trigger): storetest's
// AuditNeverRewritten.
func TestAuditRowsAreNeverRewritten(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.db"))
	storetest.AuditNeverRewritten(t, s, []string{
		`UPDATE audit SET at = at + 1 WHERE seq = ?`,
		`UPDATE audit SET body = CAST('{"event":"preview","handle":"imp_a","by":{"kind":"person","user":"mallory"}}' AS BLOB) WHERE seq = ?`,
	}, func(stmt string, seq int64) (int64, error) {
		res, err := s.DB().ExecContext(t.Context(), stmt, seq)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}, func() error {
		_, err := s.DB().ExecContext(t.Context(), `DROP TRIGGER audit_never_rewritten`)
		return err
	})
}

// A lock taken over by a process of an earlier version (which records no
// heartbeat, so the row keeps the previous holder's) has an unknown
// heartbeat, never the previous holder's silence.
func TestLockTakenByAnEarlierVersionHasNoHeartbeat(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "state.db"))
	if _, err := s.AcquireLock(t.Context(), "doc", "new", time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err := s.AcquireLock(t.Context(), "doc", "other", time.Minute)
	var held *core.LockHeldError
	if !errors.As(err, &held) || held.Renewed.IsZero() {
		t.Fatalf("held by a holder of this version: %v (%+v); want its heartbeat", err, held)
	}
	// An earlier version's takeover: owner, lease and generation, nothing else.
	if _, err := s.DB().ExecContext(t.Context(), `UPDATE locks SET owner = 'old', generation = generation + 1`); err != nil {
		t.Fatal(err)
	}
	_, err = s.AcquireLock(t.Context(), "doc", "other", time.Minute)
	held = nil
	if !errors.As(err, &held) || held.Owner != "old" || !held.Renewed.IsZero() || held.Silent != 0 {
		t.Fatalf("held by an earlier version's holder: %v (%+v); want no heartbeat", err, held)
	}
}

// A store file of schema version 5 (the release that stored a pull's
// preview under the 'import' kind) opens at the current version, its pull
// previews of kind 'pull' and every other row as it was.
func TestSchema5PullPreviewsLoadAsPulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations.Load(os.DirFS("."), "migrations")
	if err != nil || len(ms) < 5 {
		t.Fatalf("migrations 1-5: %d, %v", len(ms), err)
	}
	for _, m := range ms[:5] {
		if _, err := db.ExecContext(t.Context(), m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	for _, r := range storetest.LegacyPreviews() {
		if _, err := db.ExecContext(t.Context(), `INSERT INTO previews (handle, kind, scope, plan, plan_digest, created_at, expires_at) VALUES (?, ?, 's', ?, ?, 1, 4102444800000000)`, r.Handle, r.Stored, []byte(r.Plan), core.PlanDigest([]byte(r.Plan))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(t.Context(), `PRAGMA user_version = 5`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := open(t, path)
	storetest.CheckLegacyPreviews(t, s)
	wantIntegrityOK(t, s)
	if v := sqlitestore.SchemaVersion(); v != 9 {
		t.Errorf("schema version %d; this test migrates 5 to 9", v)
	}
}

// TestRunResultIsReadOnce: reading a run returns its result on the
// statement's first row only, not once per outcome (a 10,000-item
// commit's result, megabytes, was read 10,000 times when the commit's end
// was recorded), and GetRun still returns the result and every outcome.
func TestRunResultIsReadOnce(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, sqlitestore.Options{Path: filepath.Join(t.TempDir(), "state.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.DB()
	result := []byte(strings.Repeat("r", 20000))
	if _, err := db.ExecContext(ctx, `INSERT INTO runs (idempotency_key, run_id, handle, state, started_at, finished_at, result) VALUES ('k', 'run', 'h', 'committed', 1, 2, ?)`, result); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := db.ExecContext(ctx, `INSERT INTO run_outcomes (idempotency_key, reference, action, issue_key, outcome, code, message) VALUES ('k', ?, 'create', ?, 'committed', '', '')`, fmt.Sprintf("ref%d", i), fmt.Sprintf("DEMO-%d", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT `+sqlrows.RunColumns("run_outcomes")+`
		FROM runs r LEFT JOIN run_outcomes o ON o.idempotency_key = r.idempotency_key
		WHERE r.idempotency_key = 'k' ORDER BY o.seq`)
	if err != nil {
		t.Fatal(err)
	}
	var withResult, all int
	for rows.Next() {
		vals := make([]any, 13)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		all++
		if vals[5] != nil {
			withResult++
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if all != 5 || withResult != 1 {
		t.Errorf("the run's statement returned the result on %d of %d rows, want 1 of 5", withResult, all)
	}
	run, found, err := s.GetRun(ctx, "k")
	if err != nil || !found {
		t.Fatalf("GetRun: found %v, %v", found, err)
	}
	if string(run.Result) != string(result) || len(run.Outcomes) != 5 || run.Outcomes[4].Key != "DEMO-5" {
		t.Errorf("GetRun = result of %d bytes, %d outcomes, want %d bytes and 5 outcomes in order", len(run.Result), len(run.Outcomes), len(result))
	}
}
