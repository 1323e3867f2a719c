package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DefaultBusyTimeout is how long a write waits for another process holding
// the database's write lock.
const DefaultBusyTimeout = 10 * time.Second

// Options configure Open.
type Options struct {
	// Path of the database file; "" means DefaultPath(). Missing parent
	// directories are created with mode 0700, a new file with mode 0600.
	Path string
	// Now is the clock used to prune expired previews on open and to
	// measure lock leases; nil means time.Now.
	Now func() time.Time
	// Logger receives one line per open (nil discards).
	Logger *slog.Logger
	// BusyTimeout bounds the wait for another process's write lock
	// (0 means DefaultBusyTimeout).
	BusyTimeout time.Duration
}

// Store is a core.Store in one SQLite file. It is safe for concurrent use
// by goroutines and by several processes on the same file.
type Store struct {
	db     *sql.DB
	path   string
	now    func() time.Time // lock leases
	closed atomic.Bool
	// wmu serialises this process's write transactions, so goroutines
	// queue here instead of in SQLite's busy handler (which sleeps).
	// Other processes are held off by BEGIN IMMEDIATE and busy_timeout.
	wmu sync.Mutex
}

var _ core.Store = (*Store)(nil)

const what = "SQLite"

// DefaultPath returns $XDG_STATE_HOME/devworkwire/state.db, or
// ~/.local/state/devworkwire/state.db when XDG_STATE_HOME is unset or not
// absolute (as the XDG base directory specification requires).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", core.Errorf(core.CodeConfigInvalid, "Cannot find the default state directory: neither XDG_STATE_HOME nor HOME is set. Set XDG_STATE_HOME, or set the store URL (field `store`, env DWIRE_STORE_URL) to sqlite:///path/to/state.db.").
				WithDetails(core.Detail{Field: "store", Message: "no default state directory"})
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "devworkwire", "state.db"), nil
}

// Open opens (creating when missing) the database, applies pending
// migrations and prunes expired previews.
func Open(ctx context.Context, o Options) (*Store, error) {
	path := o.Path
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") || path == ":memory:" {
		return nil, invalidPath(path, "the path must be a plain file path without '?' or '#'")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, invalidPath(path, "it cannot be made absolute")
	}
	path = abs
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	bt := o.BusyTimeout
	if bt <= 0 {
		bt = DefaultBusyTimeout
	}
	dsn := fmt.Sprintf("%s?_txlock=immediate&_busy_timeout=%d&_journal_mode=WAL&_synchronous=FULL&_foreign_keys=1", path, bt.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, storeerr.Fault(err, what, "open "+path)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	now := o.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{db: db, path: path, now: now}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	n, err := s.PruneExpired(ctx, now())
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logger.DebugContext(ctx, "state store opened", "store", "sqlite", "path", path, "pruned_previews", n)
	return s, nil
}

func invalidPath(path, why string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "The SQLite state store path %q is not usable: %s. Fix the store URL (field `store`, env DWIRE_STORE_URL), e.g. sqlite:///home/me/.local/state/devworkwire/state.db.", path, why).
		WithDetails(core.Detail{Field: "store", Message: why})
}

// prepareFile creates the directory (0700) and the file (0600) if missing.
func prepareFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return invalidPath(path, fmt.Sprintf("its directory %s cannot be created (%s)", dir, errText(err)))
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return invalidPath(path, "it is a directory")
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return invalidPath(path, fmt.Sprintf("it cannot be read (%s)", errText(err)))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return invalidPath(path, fmt.Sprintf("it cannot be created (%s)", errText(err)))
	}
	return f.Close()
}

// errText is the part of a file-system error worth showing: "permission
// denied", not the whole path again.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// DB returns the underlying database (for tests and diagnostics).
func (s *Store) DB() *sql.DB { return s.db }

// fault translates a driver error for operation op.
func (s *Store) fault(err error, op string) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
	}
	if s.closed.Load() || errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "sql: database is closed") {
		return storeerr.Closed(what)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			e := core.Wrap(err, core.CodeInternal, "The SQLite state store %s stayed locked by another process for longer than the busy timeout while trying to %s. Try again; if it persists, look for a stuck dwire process using the file.", s.path, op)
			e.Retryable = true
			return e
		case sqlite3.SQLITE_FULL:
			return core.Wrap(err, core.CodeInternal, "The disk holding the SQLite state store %s is full (while trying to %s). Free some space and try again.", s.path, op)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			return core.Wrap(err, core.CodeConfigInvalid, "The SQLite state store %s cannot be written (while trying to %s). Check the file's permissions, or point the store URL (field `store`) elsewhere.", s.path, op).
				WithDetails(core.Detail{Field: "store", Message: "not writable"})
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return core.Wrap(err, core.CodeConfigInvalid, "The file %s is not a valid DevWorkWire state database (while trying to %s). Move it aside (a new one is created), or point the store URL (field `store`) elsewhere.", s.path, op).
				WithDetails(core.Detail{Field: "store", Message: "not a state database"})
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return core.Wrap(err, core.CodeInternal, "The SQLite state store operation %q was cancelled before it finished. Nothing was changed by it; try again.", op)
	}
	return storeerr.Fault(err, what, op)
}

// write runs fn in one BEGIN IMMEDIATE transaction.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	if s.closed.Load() {
		return storeerr.Closed(what)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fault(err, op)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.fault(err, op)
	}
	return s.fault(tx.Commit(), op)
}

// micros and fromMicros convert times to the stored form.
func micros(t time.Time) int64 { return t.UTC().Truncate(time.Microsecond).UnixMicro() }

func nullMicros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(t), Valid: true}
}

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func fromNullMicros(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMicros(v.Int64)
}

// SavePreview implements core.Store.
func (s *Store) SavePreview(ctx context.Context, p core.Preview) error {
	if err := storeerr.CheckPreview(p); err != nil {
		return err
	}
	plan := p.Plan
	if plan == nil {
		plan = []byte{}
	}
	return s.write(ctx, "save preview "+p.Handle, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO previews (handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (handle) DO NOTHING`,
			p.Handle, string(p.Kind), p.Scope, plan, core.PlanDigest(plan), micros(p.CreatedAt), micros(p.ExpiresAt),
			nullMicros(p.ConsumedAt), sql.NullString{String: p.ConsumedBy, Valid: p.ConsumedBy != ""})
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storeerr.DuplicateHandle(p.Handle)
		}
		return nil
	})
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	if s.closed.Load() {
		return core.Preview{}, storeerr.Closed(what)
	}
	p, err := loadPreview(ctx, s.db, handle)
	return p, s.fault(err, "load preview "+handle)
}

func loadPreview(ctx context.Context, q queryer, handle string) (core.Preview, error) {
	var (
		p                core.Preview
		kind, dig        string
		created, expires int64
		consumed         sql.NullInt64
		consumedBy       sql.NullString
	)
	err := q.QueryRowContext(ctx, `SELECT handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by
		FROM previews WHERE handle = ?`, handle).
		Scan(&p.Handle, &kind, &p.Scope, &p.Plan, &dig, &created, &expires, &consumed, &consumedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Preview{}, storeerr.PreviewNotFound(handle)
	}
	if err != nil {
		return core.Preview{}, err
	}
	if p.Plan == nil {
		p.Plan = []byte{}
	}
	if core.PlanDigest(p.Plan) != dig {
		return core.Preview{}, storeerr.PreviewTampered(handle)
	}
	p.Kind, p.Digest = core.PreviewKind(kind), dig
	p.CreatedAt, p.ExpiresAt = fromMicros(created), fromMicros(expires)
	p.ConsumedAt, p.ConsumedBy = fromNullMicros(consumed), consumedBy.String
	return p, nil
}

// StartRun implements core.Store.
func (s *Store) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	var (
		run     core.Run
		started bool
	)
	err := s.write(ctx, "start the run for preview "+req.Handle, func(tx *sql.Tx) error {
		r, found, err := getRun(ctx, tx, req.Key)
		if err != nil {
			return err
		}
		if found {
			if r.Handle != req.Handle {
				return storeerr.KeyReused(req.Key, r.Handle, req.Handle)
			}
			run = r
			return nil
		}
		var (
			expires    int64
			consumed   sql.NullInt64
			consumedBy sql.NullString
			dig        string
		)
		err = tx.QueryRowContext(ctx, `SELECT expires_at, consumed_at, consumed_by, plan_digest FROM previews WHERE handle = ?`, req.Handle).
			Scan(&expires, &consumed, &consumedBy, &dig)
		if errors.Is(err, sql.ErrNoRows) {
			return storeerr.PreviewNotFound(req.Handle)
		}
		if err != nil {
			return err
		}
		now := micros(req.Now)
		if consumed.Valid {
			var runID string
			if err := tx.QueryRowContext(ctx, `SELECT run_id FROM runs WHERE idempotency_key = ?`, consumedBy.String).Scan(&runID); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return storeerr.PreviewConsumed(req.Handle, runID, fromMicros(consumed.Int64))
		}
		if now >= expires {
			return storeerr.PreviewExpired(req.Handle, fromMicros(expires))
		}
		if req.PlanDigest != "" && req.PlanDigest != dig {
			return storeerr.PlanChanged(req.Handle, req.PlanDigest, dig)
		}
		res, err := tx.ExecContext(ctx, `UPDATE previews SET consumed_at = ?, consumed_by = ? WHERE handle = ? AND consumed_at IS NULL`, now, req.Key, req.Handle)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("consume preview %s: %d rows changed", req.Handle, n)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO runs (idempotency_key, run_id, handle, state, started_at) VALUES (?, ?, ?, ?, ?)`,
			req.Key, req.RunID, req.Handle, string(core.RunInProgress), now); err != nil {
			return err
		}
		run = core.Run{ID: req.RunID, Key: req.Key, Handle: req.Handle, State: core.RunInProgress, StartedAt: fromMicros(now)}
		started = true
		return nil
	})
	if err != nil {
		return core.Run{}, false, err
	}
	return run, started, nil
}

// getRun reads a run and its outcomes in one statement (one snapshot).
func getRun(ctx context.Context, q queryer, key string) (core.Run, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT r.run_id, r.handle, r.state, r.started_at, r.finished_at, r.result,
			o.seq, o.reference, o.action, o.issue_key, o.outcome, o.code, o.message
		FROM runs r LEFT JOIN run_outcomes o ON o.idempotency_key = r.idempotency_key
		WHERE r.idempotency_key = ? ORDER BY o.seq`, key)
	if err != nil {
		return core.Run{}, false, err
	}
	defer rows.Close()
	var (
		run   core.Run
		found bool
	)
	for rows.Next() {
		var (
			state                                      string
			started                                    int64
			finished                                   sql.NullInt64
			result                                     []byte
			seq                                        sql.NullInt64
			ref, action, issueKey, outcome, code, mesg sql.NullString
		)
		if err := rows.Scan(&run.ID, &run.Handle, &state, &started, &finished, &result,
			&seq, &ref, &action, &issueKey, &outcome, &code, &mesg); err != nil {
			return core.Run{}, false, err
		}
		if !found {
			found = true
			run.Key, run.State = key, core.RunState(state)
			run.StartedAt, run.FinishedAt = fromMicros(started), fromNullMicros(finished)
			run.Result = result
		}
		if seq.Valid {
			run.Outcomes = append(run.Outcomes, core.ItemOutcome{
				Reference: core.Reference(ref.String), Action: core.Action(action.String), Key: issueKey.String,
				Outcome: outcome.String, Code: core.Code(code.String), Message: mesg.String,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return core.Run{}, false, err
	}
	return run, found, nil
}

// runState reads the state of the run with key inside tx.
func runState(ctx context.Context, tx *sql.Tx, key string) (core.RunState, error) {
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM runs WHERE idempotency_key = ?`, key).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", storeerr.RunNotFound(key)
	}
	return core.RunState(state), err
}

// RecordOutcome implements core.Store.
func (s *Store) RecordOutcome(ctx context.Context, key string, o core.ItemOutcome) error {
	return s.write(ctx, "record an outcome of run "+key, func(tx *sql.Tx) error {
		state, err := runState(ctx, tx, key)
		if err != nil {
			return err
		}
		if state != core.RunInProgress {
			return storeerr.RunFinished(key, state)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO run_outcomes (idempotency_key, reference, action, issue_key, outcome, code, message)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, key, string(o.Reference), string(o.Action), o.Key, o.Outcome, string(o.Code), o.Message)
		return err
	})
}

// FinishRun implements core.Store.
func (s *Store) FinishRun(ctx context.Context, key string, state core.RunState, result []byte, now time.Time) error {
	if err := storeerr.CheckFinalState(state); err != nil {
		return err
	}
	if result == nil {
		result = []byte{}
	}
	return s.write(ctx, "finish run "+key, func(tx *sql.Tx) error {
		cur, err := runState(ctx, tx, key)
		if err != nil {
			return err
		}
		if cur != core.RunInProgress {
			return storeerr.RunFinished(key, cur)
		}
		_, err = tx.ExecContext(ctx, `UPDATE runs SET state = ?, result = ?, finished_at = ? WHERE idempotency_key = ? AND state = 'in_progress'`,
			string(state), result, micros(now), key)
		return err
	})
}

// GetRun implements core.Store.
func (s *Store) GetRun(ctx context.Context, key string) (core.Run, bool, error) {
	if s.closed.Load() {
		return core.Run{}, false, storeerr.Closed(what)
	}
	r, found, err := getRun(ctx, s.db, key)
	if err != nil {
		return core.Run{}, false, s.fault(err, "read run "+key)
	}
	return r, found, nil
}

// UpsertIndex implements core.Store.
func (s *Store) UpsertIndex(ctx context.Context, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	return s.write(ctx, "update the dedup index", func(tx *sql.Tx) error { return upsertIndex(ctx, tx, entries) })
}

func upsertIndex(ctx context.Context, tx *sql.Tx, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO dedup_index (scope, reference, issue_key, digest, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (scope, reference) DO UPDATE SET issue_key = excluded.issue_key, digest = excluded.digest, updated_at = excluded.updated_at`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, e := range entries {
		if _, err := st.ExecContext(ctx, e.Scope, string(e.Reference), e.Key, e.Digest, micros(e.UpdatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// LookupIndex implements core.Store.
func (s *Store) LookupIndex(ctx context.Context, scope string, refs []core.Reference) (map[core.Reference]core.IndexEntry, error) {
	if s.closed.Load() {
		return nil, storeerr.Closed(what)
	}
	out := make(map[core.Reference]core.IndexEntry, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	list, err := json.Marshal(refs)
	if err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT reference, issue_key, digest, updated_at FROM dedup_index
		WHERE scope = ? AND reference IN (SELECT value FROM json_each(?))`, scope, string(list))
	if err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			e       = core.IndexEntry{Scope: scope}
			ref     string
			updated int64
		)
		if err := rows.Scan(&ref, &e.Key, &e.Digest, &updated); err != nil {
			return nil, s.fault(err, "look up the dedup index")
		}
		e.Reference, e.UpdatedAt = core.Reference(ref), fromMicros(updated)
		out[e.Reference] = e
	}
	if err := rows.Err(); err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	return out, nil
}

// PruneExpired implements core.Store.
func (s *Store) PruneExpired(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, "prune expired previews", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM previews WHERE expires_at < ?`, micros(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// AcquireLock implements core.Store: a row in locks (name, owner,
// expires_at, generation), read and written in one BEGIN IMMEDIATE
// transaction, so processes sharing the file cannot both take it. The
// lease is measured on the process clock (Options.Now): every process
// sharing the file runs on the same machine. A released lock keeps its
// row (owner ”) so its generation keeps counting.
func (s *Store) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	if err := storeerr.CheckLock(name, owner, lease); err != nil {
		return core.Lock{}, err
	}
	now := micros(s.now())
	var gen int64
	err := s.write(ctx, "take lock "+name, func(tx *sql.Tx) error {
		holder, expires, cur, err := lockRow(ctx, tx, name)
		if err != nil {
			return err
		}
		switch {
		case holder == owner:
			gen = cur
		case holder == "" || now >= expires:
			gen = cur + 1
		default:
			return storeerr.LockHeld(name, holder, fromMicros(expires))
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO locks (name, owner, expires_at, generation) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, generation = excluded.generation`,
			name, owner, now+lease.Microseconds(), gen)
		return err
	})
	if err != nil {
		return core.Lock{}, err
	}
	release := func(ctx context.Context) error {
		return s.write(ctx, "release lock "+name, func(tx *sql.Tx) error {
			if err := checkHolder(ctx, tx, name, owner, gen); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE locks SET owner = '', expires_at = 0 WHERE name = ?`, name)
			return err
		})
	}
	return core.Lock{Name: name, Owner: owner, Generation: gen, Expires: fromMicros(now + lease.Microseconds()), Release: release}, nil
}

// lockRow reads a lock inside tx; a lock never taken is free at
// generation 0.
func lockRow(ctx context.Context, tx *sql.Tx, name string) (owner string, expires, gen int64, err error) {
	err = tx.QueryRowContext(ctx, `SELECT owner, expires_at, generation FROM locks WHERE name = ?`, name).Scan(&owner, &expires, &gen)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, 0, nil
	}
	return owner, expires, gen, err
}

// checkHolder fails with LockLost unless owner holds name at gen.
func checkHolder(ctx context.Context, tx *sql.Tx, name, owner string, gen int64) error {
	holder, _, cur, err := lockRow(ctx, tx, name)
	if err != nil {
		return err
	}
	if holder != owner || cur != gen {
		return storeerr.LockLost(name, owner, gen, holder, cur)
	}
	return nil
}

// Fence implements core.Store: the holder check and the markers in one
// BEGIN IMMEDIATE transaction, which AcquireLock's transaction cannot
// interleave with.
func (s *Store) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	if err := storeerr.CheckFence(name, owner, generation); err != nil {
		return err
	}
	return s.write(ctx, "fence lock "+name, func(tx *sql.Tx) error {
		if err := checkHolder(ctx, tx, name, owner, generation); err != nil {
			return err
		}
		return upsertIndex(ctx, tx, markers)
	})
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok"
// when the file is sound).
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return "", s.fault(err, "check integrity")
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", s.fault(err, "check integrity")
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), s.fault(rows.Err(), "check integrity")
}

// Close implements core.Store.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return storeerr.Fault(err, what, "close")
	}
	return nil
}
