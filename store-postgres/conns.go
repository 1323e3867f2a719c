package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How many connections a process takes, and for how long.
//
// A team runs many processes on one store (an agent's `dwire mcp` each,
// people's CLI runs), and a server or a managed plan admits only so many
// connections (max_connections, a role's or a database's CONNECTION
// LIMIT). So a process holds connections only while it works: at most
// DefaultMaxConns at once, each closed once it has been idle for
// DefaultMaxConnIdleTime (checked every DefaultHealthCheckPeriod), none
// kept open in between. When the server refuses a connection because it
// has no slot left (SQLSTATE 53300, "too many connections"), the store
// waits for one, up to Options.ConnectionWait, before it answers with
// the retryable tooManyConnections error.
const (
	DefaultMaxConns          = 4
	DefaultMaxConnIdleTime   = 2 * time.Second
	DefaultHealthCheckPeriod = time.Second
	DefaultConnectionWait    = 30 * time.Second
)

// sqlTooManyConnections is PostgreSQL's SQLSTATE for a connection refused
// for lack of a slot (max_connections, or the role's or the database's
// CONNECTION LIMIT).
const sqlTooManyConnections = "53300"

// isTooManyConnections reports whether err is the server's "too many
// connections".
func isTooManyConnections(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == sqlTooManyConnections
}

// tooManyConnections is the answer when no connection slot came free
// within wait: retryable (other processes release theirs as they finish),
// and saying what to change when it keeps happening.
func tooManyConnections(err error, where string, wait time.Duration) *core.Error {
	e := core.Wrap(err, core.CodeInternal, "The Postgres state store at %s has no connection free: the server refused a new one with \"too many connections\" (SQLSTATE %s) for %s. Other processes of the team hold the server's connections; each dwire process takes at most %d, only while it works. Try again in a moment; if it keeps happening, raise the limit (the server's max_connections, or the CONNECTION LIMIT of the store URL's role or database) or run fewer agents at once.",
		where, sqlTooManyConnections, waited(wait), DefaultMaxConns).
		WithDetails(core.Detail{Field: "store", Message: "too many connections"})
	e.Retryable = true
	return e
}

func waited(d time.Duration) string {
	if d <= 0 {
		return "this call"
	}
	return fmt.Sprintf("%s of waiting", d.Round(time.Second))
}

// acquire takes a pooled connection, waiting up to s.connWait while the
// server has no connection slot free. Any other failure is returned at
// once.
func (s *Store) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	deadline := time.Now().Add(s.connWait)
	pause := 25 * time.Millisecond
	for {
		c, err := s.pool.Acquire(ctx)
		if err == nil || !isTooManyConnections(err) {
			return c, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, tooManyConnections(err, s.where, s.connWait)
		}
		// Jittered, so the processes waiting for a slot do not all ask at
		// the same instant.
		t := time.NewTimer(min(pause/2+rand.N(pause), left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// db runs statements each on a connection taken by acquire (so they wait
// for a free slot) and given back once the statement's rows are read or
// its transaction ends. It serves the store where a *pgxpool.Pool would.
type db struct{ s *Store }

func (d db) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c, err := d.s.acquire(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer c.Release()
	return c.Exec(ctx, sql, args...)
}

func (d db) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c, err := d.s.acquire(ctx)
	if err != nil {
		return errRow{err}
	}
	return &connRow{Row: c.QueryRow(ctx, sql, args...), c: c}
}

func (d db) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c, err := d.s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		c.Release()
		return nil, err
	}
	return &connRows{Rows: rows, held: held{c}}, nil
}

// Begin serves pgx.BeginFunc.
func (d db) Begin(ctx context.Context) (pgx.Tx, error) {
	c, err := d.s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		c.Release()
		return nil, err
	}
	return &connTx{Tx: tx, held: held{c}}, nil
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// connRow gives its connection back once scanned.
type connRow struct {
	pgx.Row
	c *pgxpool.Conn
}

func (r *connRow) Scan(dest ...any) error {
	defer r.c.Release()
	return r.Row.Scan(dest...)
}

// held is a connection to give back once.
type held struct{ c *pgxpool.Conn }

func (h *held) release() {
	if h.c != nil {
		h.c.Release()
		h.c = nil
	}
}

// connRows gives its connection back once read to the end or closed.
type connRows struct {
	pgx.Rows
	held
}

func (r *connRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *connRows) Close() {
	r.Rows.Close()
	r.release()
}

// connTx gives its connection back once committed or rolled back.
type connTx struct {
	pgx.Tx
	held
}

func (t *connTx) Commit(ctx context.Context) error {
	defer t.release()
	return t.Tx.Commit(ctx)
}

func (t *connTx) Rollback(ctx context.Context) error {
	defer t.release()
	return t.Tx.Rollback(ctx)
}
