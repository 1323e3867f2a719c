package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults.
const (
	DefaultSchema         = "devworkwire"
	DefaultConnectTimeout = 10 * time.Second
)

// Options configure Open.
type Options struct {
	// URL is a libpq connection URL or keyword/value string
	// (postgres://user:pass@host:5432/db?sslmode=require).
	URL string
	// Schema holds the tables ("" means DefaultSchema). It is created when
	// missing. Teams sharing a database use one schema each.
	Schema string
	// Now is the clock used to prune expired previews on open; nil means
	// time.Now.
	Now func() time.Time
	// Retention applies to the prune on open (zero: core.DefaultRetention).
	Retention core.Retention
	// LeaseClock, for tests only, replaces the database server's now() as
	// the clock lock leases are measured on. Leave it nil: the machines
	// sharing a database each have their own clock, and only the server's
	// is the same for all of them (see core.Store).
	LeaseClock func() time.Time
	// Logger receives one line per open (nil discards).
	Logger *slog.Logger
	// ConnectTimeout bounds each connection attempt (0 means
	// DefaultConnectTimeout, unless the URL sets connect_timeout).
	ConnectTimeout time.Duration
	// MaxConns bounds the connections the process holds at once (0 means
	// DefaultMaxConns).
	MaxConns int32
	// MaxConnIdleTime closes a connection once it has been idle that long
	// (0 means DefaultMaxConnIdleTime), so an idle process holds none.
	MaxConnIdleTime time.Duration
	// ConnectionWait is how long a call waits for a connection while the
	// server refuses new ones with "too many connections" (0 means
	// DefaultConnectionWait; negative: not at all).
	ConnectionWait time.Duration
	// IdleInTransactionTimeout is the server-side
	// idle_in_transaction_session_timeout of every session (0 means
	// DefaultIdleInTransactionTimeout; negative leaves the server's
	// setting). A process paused inside one of the store's transactions
	// (SIGSTOP, a closed laptop lid, during Fence's row lock) would
	// otherwise block every other process of the team for as long as it
	// stays paused; with it the server ends that session after the
	// timeout, its transaction rolls back (nothing half-written) and its
	// locks are freed. The store's transactions never wait on anything
	// but the database, so a healthy one is never idle that long.
	IdleInTransactionTimeout time.Duration
}

// DefaultIdleInTransactionTimeout is Options.IdleInTransactionTimeout's
// default: the commit lock's lease (core.DefaultCommitLockLease), after
// which a paused holder has lost its lock anyway.
const DefaultIdleInTransactionTimeout = core.DefaultCommitLockLease

// Store is a core.Store in a PostgreSQL schema. It is safe for concurrent
// use by goroutines, processes and machines.
type Store struct {
	pool       *pgxpool.Pool
	schema     string           // quoted
	name       string           // unquoted, for messages
	where      string           // host:port/db, for messages (never the password)
	leaseClock func() time.Time // nil: the server's now()
	connWait   time.Duration    // see Options.ConnectionWait
	db         db               // statements on connections taken by acquire
	closed     atomic.Bool
}

var _ core.Store = (*Store)(nil)

const what = "Postgres"

var schemaRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// ValidSchema reports whether name is an acceptable schema name: lower-case
// letters, digits and underscores, not starting with a digit, at most 63
// bytes, and not reserved by PostgreSQL (pg_*, information_schema).
func ValidSchema(name string) bool {
	return schemaRE.MatchString(name) && !strings.HasPrefix(name, "pg_") && name != "information_schema"
}

func configInvalid(why, fix string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "The Postgres state store is misconfigured: %s. %s", why, fix).
		WithDetails(core.Detail{Field: "store", Message: why})
}

// Open connects, creates the schema and applies pending migrations (under
// an advisory lock, so processes starting at once are safe), and prunes
// expired previews. It never waits longer than the connect timeout for an
// unreachable server.
func Open(ctx context.Context, o Options) (*Store, error) {
	schema := o.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if !ValidSchema(schema) {
		return nil, configInvalid(fmt.Sprintf("schema name %q is not allowed", schema),
			"Use lower-case letters, digits and underscores (not starting with a digit or pg_), e.g. ?schema=team_alpha.")
	}
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		// The parse error may quote the URL, password included: keep it
		// out of the message.
		return nil, configInvalid("the connection URL cannot be parsed",
			"Use postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=... in the store URL (field `store`, env DWIRE_STORE_URL).")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
		if cfg.ConnConfig.ConnectTimeout <= 0 {
			cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
		}
	}
	// Connections only while working (see DefaultMaxConns), unless the
	// URL's pool settings say otherwise.
	if !inURL(o.URL, "pool_min_conns") {
		cfg.MinConns = 0
	}
	if !inURL(o.URL, "pool_max_conns") {
		cfg.MaxConns = cmp.Or(max(o.MaxConns, 0), DefaultMaxConns)
	}
	if !inURL(o.URL, "pool_max_conn_idle_time") {
		cfg.MaxConnIdleTime = cmp.Or(max(o.MaxConnIdleTime, 0), DefaultMaxConnIdleTime)
	}
	if !inURL(o.URL, "pool_health_check_period") {
		cfg.HealthCheckPeriod = min(DefaultHealthCheckPeriod, cfg.MaxConnIdleTime)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "devworkwire"
	if _, inURL := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !inURL && cmp.Or(o.IdleInTransactionTimeout, DefaultIdleInTransactionTimeout) > 0 {
		idle := cmp.Or(o.IdleInTransactionTimeout, DefaultIdleInTransactionTimeout)
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = fmt.Sprint(max(idle.Milliseconds(), 1))
	}
	where := fmt.Sprintf("%s/%s", net.JoinHostPort(cfg.ConnConfig.Host, fmt.Sprint(cfg.ConnConfig.Port)), cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(ctx, err, where, cfg.ConnConfig.ConnectTimeout)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{pool: pool, schema: pgx.Identifier{schema}.Sanitize(), name: schema, where: where, leaseClock: o.LeaseClock,
		connWait: cmp.Or(o.ConnectionWait, DefaultConnectionWait)}
	s.db = db{s}
	// The first connection: each attempt within the connect timeout, and
	// a refusal for lack of a slot waited out as every call waits it out.
	err = func() error {
		c, err := s.acquire(ctx)
		if err != nil {
			return err
		}
		defer c.Release()
		pingCtx, cancel := context.WithTimeout(ctx, cfg.ConnConfig.ConnectTimeout)
		defer cancel()
		return c.Ping(pingCtx)
	}()
	if err != nil {
		pool.Close()
		return nil, connectError(ctx, err, where, cfg.ConnConfig.ConnectTimeout)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	n, err := s.Prune(ctx, now(), o.Retention)
	if err != nil {
		pool.Close()
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logger.DebugContext(ctx, "state store opened", "store", "postgres", "server", where, "schema", schema, "pruned_previews", n.Previews, "pruned_tombstones", n.Tombstones, "pruned_runs", n.Runs)
	return s, nil
}

// inURL reports whether the connection URL (or keyword/value string)
// sets the parameter name.
func inURL(url, name string) bool { return strings.Contains(url, name+"=") }

// connectError classifies a failure to connect: unless ctx was cancelled,
// every one is CONFIG_INVALID naming the field `store` (where is
// host:port/database, never the password).
func connectError(ctx context.Context, err error, where string, timeout time.Duration) error {
	if known, ok := storeerr.Known(err); ok { // no slot came free
		return known
	}
	if ctx.Err() != nil { // the caller gave up (e.g. Ctrl-C), not the server
		return core.Wrap(err, core.CodeInternal, "Opening the Postgres state store at %s was cancelled before it connected.", where)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return core.Wrap(err, core.CodeConfigInvalid, "Postgres at %s refused the credentials in the store URL. Fix the user and password in the store URL (field `store`, env DWIRE_STORE_URL).", where).
				WithDetails(core.Detail{Field: "store", Message: "authentication failed"})
		case "3D000":
			return core.Wrap(err, core.CodeConfigInvalid, "The database in the store URL does not exist on %s. Create it, or fix the database name in the store URL (field `store`).", where).
				WithDetails(core.Detail{Field: "store", Message: "database does not exist"})
		case "42501":
			return core.Wrap(err, core.CodeConfigInvalid, "The Postgres user in the store URL may not connect to %s. Grant CONNECT, or use another user in the store URL (field `store`).", where).
				WithDetails(core.Detail{Field: "store", Message: "permission denied"})
		}
	}
	// Not reachable (refused, no route, unknown host, no answer within the
	// connect timeout): an environment problem the person fixes — the
	// server is down or the store URL names the wrong host or port — so
	// CONFIG_INVALID (exit 2, not retryable as the contract's table says),
	// naming host and port.
	return core.Wrap(err, core.CodeConfigInvalid, "Cannot reach the Postgres state store at %s (gave up after at most %s). Check that the server is running and reachable from this machine, or fix the host and port in the store URL (field `store`, env DWIRE_STORE_URL).", where, timeout).
		WithDetails(core.Detail{Field: "store", Message: "cannot connect to " + where})
}

// q qualifies the {schema} placeholders of a statement.
func (s *Store) q(sql string) string { return strings.ReplaceAll(sql, "{schema}", s.schema) }

// Pool returns the underlying pool (for tests and diagnostics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema returns the schema name.
func (s *Store) Schema() string { return s.name }

// fault translates a driver error for operation op.
func (s *Store) fault(err error, op string) error {
	if known, ok := storeerr.Known(err); ok {
		return known
	}
	if s.closed.Load() {
		return storeerr.Closed(what)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return core.Wrap(err, core.CodeInternal, "The Postgres state store operation %q was cancelled or timed out before it finished; its transaction was rolled back. Try again.", op)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "42501":
			return core.Wrap(err, core.CodeConfigInvalid, "The Postgres user in the store URL lacks a privilege on schema %s (while trying to %s). Grant it, or choose another schema with ?schema=NAME.", s.name, op).
				WithDetails(core.Detail{Field: "store", Message: "permission denied"})
		case pe.Code == sqlTooManyConnections:
			return tooManyConnections(err, s.where, 0)
		case pe.Code == "40001" || pe.Code == "40P01" || strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01":
			e := core.Wrap(err, core.CodeInternal, "The Postgres state store at %s could not %s just now (%s). Try again.", s.where, op, pe.Code)
			e.Retryable = true
			return e
		}
	}
	if pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		e := core.Wrap(err, core.CodeInternal, "Lost the connection to the Postgres state store at %s while trying to %s. Try again.", s.where, op)
		e.Retryable = true
		return e
	}
	return storeerr.Fault(err, what, op)
}

func (s *Store) check() error {
	if s.closed.Load() {
		return storeerr.Closed(what)
	}
	return nil
}

// write runs fn in a READ COMMITTED transaction.
func (s *Store) write(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.fault(pgx.BeginFunc(ctx, s.db, fn), op)
}

// ts truncates to the microseconds Postgres keeps (it would round).
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func fromDBTime(t time.Time) time.Time { return t.UTC() }

func dbNullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := dbTime(t)
	return &u
}

// kit is this store as the store kit's reads and fence, shared with the
// SQLite store, use it.
func (s *Store) kit() sqlrows.Store[time.Time, pgx.Tx] {
	return sqlrows.Store[time.Time, pgx.Tx]{
		Check: s.check, Fault: s.fault,
		Query: func(ctx context.Context, sql string, args ...any) (sqlrows.Rows, func() error, error) {
			rows, err := s.db.Query(ctx, sql, args...)
			if err != nil {
				return nil, nil, err
			}
			return rows, func() error { rows.Close(); return nil }, nil
		},
		ToTime: fromDBTime,
		Write:  s.write, HeldIn: s.checkHolder,
		Held: func(ctx context.Context, l sqlrows.Lock) error { return s.holderIs(ctx, s.db, "", l) },
		UpsertIndex: func(ctx context.Context, tx pgx.Tx, markers []core.IndexEntry) error {
			return s.upsertIndex(ctx, tx, markers)
		},
	}
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Close implements core.Store.
func (s *Store) Close() error {
	if !s.closed.Swap(true) {
		s.pool.Close()
	}
	return nil
}
