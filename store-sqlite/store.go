package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
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
	// Retention applies to the prune on open (zero: core.DefaultRetention).
	Retention core.Retention
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
	// pace is the connection pool of the shared pacing (pace.go): the
	// same file without synchronous=FULL, since a pacing row lost to an
	// OS crash costs nothing and an fsync per purchase would slow every
	// request a commit sends.
	pace *sql.DB
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
	bt := o.BusyTimeout
	if bt <= 0 {
		bt = DefaultBusyTimeout
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if err := ensureStore(ctx, path, bt); err != nil {
		return nil, err
	}
	s, err := openDB(ctx, path, path, bt, now)
	if err != nil {
		return nil, err
	}
	n, err := s.Prune(ctx, now(), o.Retention)
	if err != nil {
		_ = s.db.Close()
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logger.DebugContext(ctx, "state store opened", "store", "sqlite", "path", path, "pruned_previews", n.Previews, "pruned_tombstones", n.Tombstones, "pruned_runs", n.Runs)
	return s, nil
}

// enableWAL switches the file to WAL mode, which then holds for every
// connection to it. When several connections make that switch on a new
// file at once, SQLite answers SQLITE_BUSY at once instead of calling its
// busy handler (waiting could deadlock), so the switch is retried, with
// short growing pauses, until the busy timeout has passed.
func (s *Store) enableWAL(ctx context.Context, busyTimeout time.Duration) error {
	const op = "switch the database to WAL mode"
	deadline := time.Now().Add(busyTimeout)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		var mode string
		err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil {
			return nil
		}
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return s.fault(err, op)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return s.fault(ctx.Err(), op)
		case <-t.C:
		}
	}
}

func invalidPath(path, why string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "The SQLite state store path %q is not usable: %s. Fix the store URL (field `store`, env DWIRE_STORE_URL), e.g. sqlite:///home/me/.local/state/devworkwire/state.db.", path, why).
		WithDetails(core.Detail{Field: "store", Message: why})
}

// openDB opens the database in file (named shown in messages) and brings
// its schema to the current version.
func openDB(ctx context.Context, file, shown string, bt time.Duration, now func() time.Time) (*Store, error) {
	// journal_mode is not in the DSN: WAL is a property of the file, set
	// once by enableWAL, which retries what SQLite refuses at once.
	dsn := fmt.Sprintf("%s?_txlock=immediate&_busy_timeout=%d&_synchronous=FULL&_foreign_keys=1", file, bt.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, storeerr.Fault(err, what, "open "+shown)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	s := &Store{db: db, path: shown, now: now}
	if err := s.enableWAL(ctx, bt); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	pace, err := sql.Open("sqlite", fmt.Sprintf("%s?_txlock=immediate&_busy_timeout=%d&_synchronous=OFF", file, bt.Milliseconds()))
	if err != nil {
		_ = db.Close()
		return nil, storeerr.Fault(err, what, "open "+shown)
	}
	pace.SetMaxOpenConns(1)
	s.pace = pace
	return s, nil
}

// newStorePattern names the files a new store is made in before it is
// linked into place (see ensureStore).
const newStorePattern = ".new-*"

// ensureStore makes sure path holds a state store, creating its directory
// (0700) when missing. A missing store is made whole under a temporary
// name (0600) in the same directory and then linked into place — link(2)
// never replaces a file — so no process ever opens a half-made store.
// That is what makes an empty file at path mean damage: SQLite would take
// it for a new database, and the record of which Jira issues earlier
// imports created (what keeps a re-import from creating duplicates) would
// be gone without a word.
func ensureStore(ctx context.Context, path string, bt time.Duration) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return invalidPath(path, fmt.Sprintf("its directory %s cannot be created (%s)", dir, core.FSReason(err)))
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return invalidPath(path, "it is a directory")
	case err == nil && st.Size() == 0:
		return emptyStore(path)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return invalidPath(path, fmt.Sprintf("it cannot be read (%s)", core.FSReason(err)))
	}
	sweepNewStores(path, time.Now())
	f, err := os.CreateTemp(dir, filepath.Base(path)+newStorePattern)
	if err != nil {
		return invalidPath(path, fmt.Sprintf("it cannot be created (%s)", core.FSReason(err)))
	}
	tmp := f.Name()
	_ = f.Close()
	defer removeStoreFiles(tmp)
	s, err := openDB(ctx, tmp, path, bt, time.Now)
	if err != nil {
		return err
	}
	// Everything into the main file before it is linked: the WAL stays
	// behind under the temporary name.
	_, err = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s.fault(err, "create the store")
	}
	err = os.Link(tmp, path)
	switch {
	case err == nil, errors.Is(err, fs.ErrExist):
		return nil // made here, or by another process a moment earlier
	case errors.Is(err, os.ErrPermission), errors.Is(err, errors.ErrUnsupported):
		// A file system without hard links: a rename, unless the store
		// appeared meanwhile (the window is this stat's).
		if _, serr := os.Stat(path); serr == nil {
			return nil
		}
		if err = os.Rename(tmp, path); err == nil {
			return nil
		}
	}
	return invalidPath(path, fmt.Sprintf("it cannot be created (%s)", core.FSReason(err)))
}

// emptyStore is the refusal of an empty store file: see ensureStore.
func emptyStore(path string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "The SQLite state store %s is an empty file. DevWorkWire never leaves a store empty, so it was truncated or made by something else, and with it went the record of which Jira issues earlier imports created: starting afresh could create duplicates on the next import. Nothing was written. Restore the file from a backup; if no import has ever used this store, delete the file and a new store is created.", path).
		WithDetails(core.Detail{Field: "store", Message: "empty file"})
}

// sweepNewStores removes what a process that died while making a new
// store left behind (older than a minute: a live maker takes
// milliseconds).
func sweepNewStores(path string, now time.Time) {
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globQuote(filepath.Base(path))+newStorePattern))
	for _, f := range left {
		if st, err := os.Stat(f); err == nil && now.Sub(st.ModTime()) > time.Minute {
			_ = os.Remove(f)
		}
	}
}

// globQuote escapes glob metacharacters in a file name.
func globQuote(name string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(name)
}

// removeStoreFiles removes a database file and its WAL and shared-memory
// files.
func removeStoreFiles(file string) {
	for _, f := range []string{file, file + "-wal", file + "-shm", file + "-journal"} {
		_ = os.Remove(f)
	}
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// DB returns the underlying database (for tests and diagnostics).
func (s *Store) DB() *sql.DB { return s.db }

// fault translates a driver error for operation op.
func (s *Store) fault(err error, op string) error {
	if known, ok := storeerr.Known(err); ok {
		return known
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
		case sqlite3.SQLITE_NOTADB:
			return core.Wrap(err, core.CodeConfigInvalid, "The file %s is not a DevWorkWire state database (while trying to %s). Point the store URL (field `store`) at the store, or move the file aside (a new store is then created).", s.path, op).
				WithDetails(core.Detail{Field: "store", Message: "not a state database"})
		case sqlite3.SQLITE_CORRUPT:
			return damaged(err, s.path, op, s.emptied("its pages do not add up: it was truncated or overwritten"))
		case sqlite3.SQLITE_IOERR:
			if s.indexTruncated() {
				return core.Wrap(err, core.CodeInternal, "The SQLite state store %s could not be read (while trying to %s): its shared-memory index %s-shm was truncated while in use. The store's data is not affected: stop every dwire process using this store (dwire mcp servers included) and start again; SQLite then rebuilds the index.", s.path, op, s.path)
			}
			return damaged(err, s.path, op, s.emptied("reading or writing it failed: it may have been truncated, moved or lost its disk while in use"))
		case sqlite3.SQLITE_ERROR:
			// The store was migrated when it was opened, so a table it
			// does not have means the file under it changed: a
			// connection opened since reads what is there now.
			if strings.Contains(se.Error(), "no such table") {
				return damaged(err, s.path, op, s.emptied("its tables are gone: the file was truncated, replaced or overwritten while this process used it"))
			}
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return core.Wrap(err, core.CodeInternal, "The SQLite state store operation %q was cancelled before it finished. Nothing was changed by it; try again.", op)
	}
	return storeerr.Fault(err, what, op)
}

// shmSize is the size of a WAL database's shared-memory index while it
// is in use: at least one 32 KiB region.
const shmSize = 32 << 10

// indexTruncated reports whether the store's shared-memory index (the
// -shm file, which only indexes the write-ahead log) is shorter than it
// can be while in use: truncated under the processes using it, which then
// fail to read it. Nothing of the data is lost.
func (s *Store) indexTruncated() bool {
	st, err := os.Stat(s.path + "-shm")
	return err == nil && st.Size() < shmSize
}

// emptied is why, for a damaged store: that its file is now empty (cut
// to nothing while this process used it) when it is, else why.
func (s *Store) emptied(why string) string {
	if st, err := os.Stat(s.path); err == nil && st.Size() == 0 {
		return "it is now an empty file: it was truncated while this process used it"
	}
	return why
}

// damaged is the refusal of a store file that is no longer whole. Moving
// it aside is not the advice: a new store does not know which Jira issues
// earlier imports created.
func damaged(err error, path, op, why string) *core.Error {
	return core.Wrap(err, core.CodeConfigInvalid, "The SQLite state store %s is damaged (while trying to %s): %s. Nothing more was written to it. Restore it from a backup: a new store would not know which Jira issues earlier imports created, and the next import could create duplicates.", path, op, why).
		WithDetails(core.Detail{Field: "store", Message: "damaged"})
}

func (s *Store) check() error {
	if s.closed.Load() {
		return storeerr.Closed(what)
	}
	return nil
}

// write runs fn in one BEGIN IMMEDIATE transaction.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	if err := s.check(); err != nil {
		return err
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

// kit is this store as the store kit's reads and fence, shared with the
// Postgres store, use it.
func (s *Store) kit() sqlrows.Store[int64, *sql.Tx] {
	return sqlrows.Store[int64, *sql.Tx]{
		Check: s.check, Fault: s.fault,
		Query: func(ctx context.Context, query string, args ...any) (sqlrows.Rows, func() error, error) {
			rows, err := s.db.QueryContext(ctx, query, args...)
			if err != nil {
				return nil, nil, err
			}
			return rows, rows.Close, nil
		},
		ToTime: fromDBTime,
		Write:  s.write, UpsertIndex: upsertIndex,
		HeldIn: func(ctx context.Context, tx *sql.Tx, l sqlrows.Lock) error { return checkHolder(ctx, tx, l) },
		Held:   func(ctx context.Context, l sqlrows.Lock) error { return checkHolder(ctx, s.db, l) },
	}
}

// querier is what reads take: the database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// dbTime and fromDBTime convert times to the stored form.
func dbTime(t time.Time) int64 { return t.UTC().Truncate(time.Microsecond).UnixMicro() }

func dbNullTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: dbTime(t), Valid: true}
}

func fromDBTime(v int64) time.Time { return time.UnixMicro(v).UTC() }

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
	if s.pace != nil {
		_ = s.pace.Close()
	}
	if err := s.db.Close(); err != nil {
		return storeerr.Fault(err, what, "close")
	}
	return nil
}
