package pgstore

import (
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
	// MaxConns is the pool size (0 means pgxpool's default).
	MaxConns int32
}

// Store is a core.Store in a PostgreSQL schema. It is safe for concurrent
// use by goroutines, processes and machines.
type Store struct {
	pool       *pgxpool.Pool
	schema     string           // quoted
	name       string           // unquoted, for messages
	where      string           // host:port/db, for messages (never the password)
	leaseClock func() time.Time // nil: the server's now()
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
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "devworkwire"
	where := fmt.Sprintf("%s/%s", net.JoinHostPort(cfg.ConnConfig.Host, fmt.Sprint(cfg.ConnConfig.Port)), cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(err, where, cfg.ConnConfig.ConnectTimeout)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{pool: pool, schema: pgx.Identifier{schema}.Sanitize(), name: schema, where: where, leaseClock: o.LeaseClock}
	pingCtx, cancel := context.WithTimeout(ctx, cfg.ConnConfig.ConnectTimeout)
	err = pool.Ping(pingCtx)
	cancel()
	if err != nil {
		pool.Close()
		return nil, connectError(err, where, cfg.ConnConfig.ConnectTimeout)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	n, err := s.PruneExpired(ctx, now())
	if err != nil {
		pool.Close()
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logger.DebugContext(ctx, "state store opened", "store", "postgres", "server", where, "schema", schema, "pruned_previews", n)
	return s, nil
}

// connectError classifies a failure to connect.
func connectError(err error, where string, timeout time.Duration) error {
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
	e := core.Wrap(err, core.CodeInternal, "Cannot reach the Postgres state store at %s (gave up after at most %s). Check that the server is running and reachable, then try again.", where, timeout)
	e.Retryable = true
	return e
}

// q qualifies the {schema} placeholders of a statement.
func (s *Store) q(sql string) string { return strings.ReplaceAll(sql, "{schema}", s.schema) }

// Pool returns the underlying pool (for tests and diagnostics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema returns the schema name.
func (s *Store) Schema() string { return s.name }

// fault translates a driver error for operation op.
func (s *Store) fault(err error, op string) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
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
		case pe.Code == "40001" || pe.Code == "40P01" || strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "53300":
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

// tx runs fn in a READ COMMITTED transaction.
func (s *Store) tx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.fault(pgx.BeginFunc(ctx, s.pool, fn), op)
}

// ts truncates to the microseconds Postgres keeps (it would round).
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func nullTS(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := ts(t)
	return &u
}

func fromNullTS(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// SavePreview implements core.Store.
func (s *Store) SavePreview(ctx context.Context, p core.Preview) error {
	if err := storeerr.CheckPreview(p); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	plan := p.Plan
	if plan == nil {
		plan = []byte{}
	}
	var consumedBy *string
	if p.ConsumedBy != "" {
		consumedBy = &p.ConsumedBy
	}
	tag, err := s.pool.Exec(ctx, s.q(`INSERT INTO {schema}.previews (handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (handle) DO NOTHING`),
		p.Handle, string(p.Kind), p.Scope, plan, core.PlanDigest(plan), ts(p.CreatedAt), ts(p.ExpiresAt), nullTS(p.ConsumedAt), consumedBy)
	if err != nil {
		return s.fault(err, "save preview "+p.Handle)
	}
	if tag.RowsAffected() == 0 {
		return storeerr.DuplicateHandle(p.Handle)
	}
	return nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	if err := s.check(); err != nil {
		return core.Preview{}, err
	}
	var (
		p                core.Preview
		kind, dig        string
		created, expires time.Time
		consumed         *time.Time
		consumedBy       *string
	)
	err := s.pool.QueryRow(ctx, s.q(`SELECT handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by
		FROM {schema}.previews WHERE handle = $1`), handle).
		Scan(&p.Handle, &kind, &p.Scope, &p.Plan, &dig, &created, &expires, &consumed, &consumedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return core.Preview{}, storeerr.PreviewNotFound(handle)
	}
	if err != nil {
		return core.Preview{}, s.fault(err, "load preview "+handle)
	}
	if p.Plan == nil {
		p.Plan = []byte{}
	}
	if core.PlanDigest(p.Plan) != dig {
		return core.Preview{}, storeerr.PreviewTampered(handle)
	}
	p.Kind, p.Digest = core.PreviewKind(kind), dig
	p.CreatedAt, p.ExpiresAt, p.ConsumedAt = created.UTC(), expires.UTC(), fromNullTS(consumed)
	if consumedBy != nil {
		p.ConsumedBy = *consumedBy
	}
	return p, nil
}

// errRetry asks StartRun to run its transaction again: a concurrent
// transaction with the same key committed first.
var errRetry = errors.New("retry")

// StartRun implements core.Store.
//
// Under READ COMMITTED, the conditional UPDATE … WHERE consumed_at IS NULL
// waits for a concurrent consumer's row lock and then re-checks the row, so
// exactly one transaction consumes the handle. A loser with the winner's
// key, or a key inserted concurrently for another handle, retries and then
// sees the committed run.
func (s *Store) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	var (
		run     core.Run
		started bool
	)
	now := ts(req.Now)
	op := "start the run for preview " + req.Handle
	for range 5 {
		started = false
		err := s.tx(ctx, op, func(tx pgx.Tx) error {
			r, found, err := s.getRun(ctx, tx, req.Key)
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
			tag, err := tx.Exec(ctx, s.q(`UPDATE {schema}.previews SET consumed_at = $1, consumed_by = $2
				WHERE handle = $3 AND consumed_at IS NULL AND expires_at > $1 AND ($4 = '' OR plan_digest = $4)`), now, req.Key, req.Handle, req.PlanDigest)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return s.whyNotConsumed(ctx, tx, req)
			}
			tag, err = tx.Exec(ctx, s.q(`INSERT INTO {schema}.runs (idempotency_key, run_id, handle, state, started_at)
				VALUES ($1, $2, $3, 'in_progress', $4) ON CONFLICT (idempotency_key) DO NOTHING`), req.Key, req.RunID, req.Handle, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return errRetry // the key was taken meanwhile: roll back the consumption
			}
			run = core.Run{ID: req.RunID, Key: req.Key, Handle: req.Handle, State: core.RunInProgress, StartedAt: now}
			started = true
			return nil
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return core.Run{}, false, err
		}
		return run, started, nil
	}
	return core.Run{}, false, core.Errorf(core.CodeInternal, "Could not %s: it kept conflicting with concurrent commits. Try again.", op)
}

// whyNotConsumed explains a conditional UPDATE that changed nothing.
func (s *Store) whyNotConsumed(ctx context.Context, tx pgx.Tx, req core.StartRunRequest) error {
	var (
		expires    time.Time
		consumed   *time.Time
		consumedBy *string
		dig        string
	)
	err := tx.QueryRow(ctx, s.q(`SELECT expires_at, consumed_at, consumed_by, plan_digest FROM {schema}.previews WHERE handle = $1`), req.Handle).
		Scan(&expires, &consumed, &consumedBy, &dig)
	if errors.Is(err, pgx.ErrNoRows) {
		return storeerr.PreviewNotFound(req.Handle)
	}
	if err != nil {
		return err
	}
	if consumed != nil {
		by := ""
		if consumedBy != nil {
			by = *consumedBy
		}
		if by == req.Key {
			return errRetry // a concurrent call with our key won: read its run
		}
		var runID string
		err := tx.QueryRow(ctx, s.q(`SELECT run_id FROM {schema}.runs WHERE idempotency_key = $1`), by).Scan(&runID)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return storeerr.PreviewConsumed(req.Handle, runID, consumed.UTC())
	}
	if !ts(req.Now).Before(expires) {
		return storeerr.PreviewExpired(req.Handle, expires.UTC())
	}
	if req.PlanDigest != "" && req.PlanDigest != dig {
		return storeerr.PlanChanged(req.Handle, req.PlanDigest, dig)
	}
	// Neither consumed nor expired nor changed now: the row changed under
	// the UPDATE (a consumer rolled back). Try again.
	return errRetry
}

// getRun reads a run and its outcomes in one statement (one snapshot).
func (s *Store) getRun(ctx context.Context, q querier, key string) (core.Run, bool, error) {
	rows, err := q.Query(ctx, s.q(`SELECT r.run_id, r.handle, r.state, r.started_at, r.finished_at, r.result,
			o.seq, o.reference, o.action, o.issue_key, o.outcome, o.code, o.message
		FROM {schema}.runs r LEFT JOIN {schema}.run_outcomes o ON o.idempotency_key = r.idempotency_key
		WHERE r.idempotency_key = $1 ORDER BY o.seq`), key)
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
			started                                    time.Time
			finished                                   *time.Time
			result                                     []byte
			seq                                        *int64
			ref, action, issueKey, outcome, code, mesg *string
		)
		if err := rows.Scan(&run.ID, &run.Handle, &state, &started, &finished, &result,
			&seq, &ref, &action, &issueKey, &outcome, &code, &mesg); err != nil {
			return core.Run{}, false, err
		}
		if !found {
			found = true
			run.Key, run.State = key, core.RunState(state)
			run.StartedAt, run.FinishedAt = started.UTC(), fromNullTS(finished)
			run.Result = result
		}
		if seq != nil {
			run.Outcomes = append(run.Outcomes, core.ItemOutcome{
				Reference: core.Reference(*ref), Action: core.Action(*action), Key: *issueKey,
				Outcome: *outcome, Code: core.Code(*code), Message: *mesg,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return core.Run{}, false, err
	}
	return run, found, nil
}

// lockRun locks the run row (FOR UPDATE) and returns its state.
func (s *Store) lockRun(ctx context.Context, tx pgx.Tx, key string) (core.RunState, error) {
	var state string
	err := tx.QueryRow(ctx, s.q(`SELECT state FROM {schema}.runs WHERE idempotency_key = $1 FOR UPDATE`), key).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", storeerr.RunNotFound(key)
	}
	return core.RunState(state), err
}

// RecordOutcome implements core.Store.
func (s *Store) RecordOutcome(ctx context.Context, key string, o core.ItemOutcome) error {
	return s.tx(ctx, "record an outcome of run "+key, func(tx pgx.Tx) error {
		state, err := s.lockRun(ctx, tx, key)
		if err != nil {
			return err
		}
		if state != core.RunInProgress {
			return storeerr.RunFinished(key, state)
		}
		_, err = tx.Exec(ctx, s.q(`INSERT INTO {schema}.run_outcomes (idempotency_key, reference, action, issue_key, outcome, code, message)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`), key, string(o.Reference), string(o.Action), o.Key, o.Outcome, string(o.Code), o.Message)
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
	return s.tx(ctx, "finish run "+key, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, s.q(`UPDATE {schema}.runs SET state = $2, result = $3, finished_at = $4
			WHERE idempotency_key = $1 AND state = 'in_progress'`), key, string(state), result, ts(now))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		cur, err := s.lockRun(ctx, tx, key)
		if err != nil {
			return err
		}
		return storeerr.RunFinished(key, cur)
	})
}

// GetRun implements core.Store.
func (s *Store) GetRun(ctx context.Context, key string) (core.Run, bool, error) {
	if err := s.check(); err != nil {
		return core.Run{}, false, err
	}
	r, found, err := s.getRun(ctx, s.pool, key)
	if err != nil {
		return core.Run{}, false, s.fault(err, "read run "+key)
	}
	return r, found, nil
}

// UpsertIndex implements core.Store. Entries go in one statement (arrays
// unnested), the last of repeated references winning.
func (s *Store) UpsertIndex(ctx context.Context, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := s.check(); err != nil {
		return err
	}
	return s.fault(s.upsertIndex(ctx, s.pool, entries), "update the dedup index")
}

func (s *Store) upsertIndex(ctx context.Context, q querier, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	// ON CONFLICT cannot touch one row twice in a statement: keep the last
	// entry of each (scope, reference).
	type k struct {
		scope string
		ref   core.Reference
	}
	last := make(map[k]int, len(entries))
	for i, e := range entries {
		last[k{e.Scope, e.Reference}] = i
	}
	n := len(last)
	scopes, refs, keys, digests := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	times := make([]time.Time, 0, n)
	for i, e := range entries {
		if last[k{e.Scope, e.Reference}] != i {
			continue
		}
		scopes, refs, keys, digests = append(scopes, e.Scope), append(refs, string(e.Reference)), append(keys, e.Key), append(digests, e.Digest)
		times = append(times, ts(e.UpdatedAt))
	}
	_, err := q.Exec(ctx, s.q(`INSERT INTO {schema}.dedup_index (scope, reference, issue_key, digest, updated_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
		ON CONFLICT (scope, reference) DO UPDATE SET issue_key = excluded.issue_key, digest = excluded.digest, updated_at = excluded.updated_at`),
		scopes, refs, keys, digests, times)
	return err
}

// LookupIndex implements core.Store.
func (s *Store) LookupIndex(ctx context.Context, scope string, refs []core.Reference) (map[core.Reference]core.IndexEntry, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	out := make(map[core.Reference]core.IndexEntry, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	list := make([]string, len(refs))
	for i, r := range refs {
		list[i] = string(r)
	}
	rows, err := s.pool.Query(ctx, s.q(`SELECT reference, issue_key, digest, updated_at FROM {schema}.dedup_index
		WHERE scope = $1 AND reference = ANY($2::text[])`), scope, list)
	if err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			e       = core.IndexEntry{Scope: scope}
			ref     string
			updated time.Time
		)
		if err := rows.Scan(&ref, &e.Key, &e.Digest, &updated); err != nil {
			return nil, s.fault(err, "look up the dedup index")
		}
		e.Reference, e.UpdatedAt = core.Reference(ref), updated.UTC()
		out[e.Reference] = e
	}
	if err := rows.Err(); err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	return out, nil
}

// PruneExpired implements core.Store.
func (s *Store) PruneExpired(ctx context.Context, before time.Time) (int, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, s.q(`DELETE FROM {schema}.previews WHERE expires_at < $1`), ts(before))
	if err != nil {
		return 0, s.fault(err, "prune expired previews")
	}
	return int(tag.RowsAffected()), nil
}

// leaseNow is the lease clock's reading for a statement: nil means the
// statement uses the server's now().
func (s *Store) leaseNow() *time.Time {
	if s.leaseClock == nil {
		return nil
	}
	t := ts(s.leaseClock())
	return &t
}

// AcquireLock implements core.Store: a row in locks (name, owner,
// expires_at, generation) taken by one conditional upsert. Concurrent
// upserts of one name serialise on the row; each re-checks the condition
// on the latest version, so exactly one takes a free or lapsed lock. The
// lease is measured on the server's now() (Options.LeaseClock in tests),
// so hosts with skewed clocks agree on when it ends. Being a row, not a
// session advisory lock, it does not depend on which pooled connection
// takes or releases it, and it outlives a dead holder only until its lease
// ends. A released lock keeps its row (owner ”) so its generation keeps
// counting.
func (s *Store) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	if err := storeerr.CheckLock(name, owner, lease); err != nil {
		return core.Lock{}, err
	}
	if err := s.check(); err != nil {
		return core.Lock{}, err
	}
	op := "take lock " + name
	for range 5 {
		now := s.leaseNow()
		var (
			gen     int64
			expires time.Time
		)
		err := s.pool.QueryRow(ctx, s.q(`INSERT INTO {schema}.locks AS l (name, owner, expires_at, generation)
			VALUES ($1, $2, coalesce($3::timestamptz, now()) + $4::bigint * interval '1 microsecond', 1)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
				generation = CASE WHEN l.owner = excluded.owner THEN l.generation ELSE l.generation + 1 END
			WHERE l.owner = excluded.owner OR l.owner = '' OR l.expires_at <= coalesce($3::timestamptz, now())
			RETURNING generation, expires_at`), name, owner, now, lease.Microseconds()).Scan(&gen, &expires)
		if err == nil {
			return core.Lock{Name: name, Owner: owner, Generation: gen, Expires: expires.UTC(), Release: s.releaser(name, owner, gen)}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return core.Lock{}, s.fault(err, op)
		}
		var (
			holder string
			live   bool
		)
		err = s.pool.QueryRow(ctx, s.q(`SELECT owner, expires_at, expires_at > coalesce($2::timestamptz, now()) FROM {schema}.locks WHERE name = $1`), name, now).
			Scan(&holder, &expires, &live)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // gone meanwhile: try again
		}
		if err != nil {
			return core.Lock{}, s.fault(err, op)
		}
		if holder != owner && holder != "" && live {
			return core.Lock{}, storeerr.LockHeld(name, holder, expires.UTC())
		}
	}
	return core.Lock{}, core.Errorf(core.CodeInternal, "Could not %s: it kept changing hands. Try again.", op)
}

// checkHolder locks the lock row (FOR UPDATE: a concurrent takeover waits
// for tx) and fails with LockLost unless owner holds name at gen.
func (s *Store) checkHolder(ctx context.Context, tx pgx.Tx, name, owner string, gen int64) error {
	var (
		holder string
		cur    int64
	)
	err := tx.QueryRow(ctx, s.q(`SELECT owner, generation FROM {schema}.locks WHERE name = $1 FOR UPDATE`), name).Scan(&holder, &cur)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if holder != owner || cur != gen {
		return storeerr.LockLost(name, owner, gen, holder, cur)
	}
	return nil
}

func (s *Store) releaser(name, owner string, gen int64) func(context.Context) error {
	return func(ctx context.Context) error {
		return s.tx(ctx, "release lock "+name, func(tx pgx.Tx) error {
			if err := s.checkHolder(ctx, tx, name, owner, gen); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, s.q(`UPDATE {schema}.locks SET owner = '', expires_at = 'epoch' WHERE name = $1`), name)
			return err
		})
	}
}

// Fence implements core.Store: one transaction that locks the lock row,
// checks the holder and upserts the markers. A takeover's upsert waits for
// the row lock, so it either commits before (and the check fails) or
// after the markers (and the taker-over sees them).
func (s *Store) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	if err := storeerr.CheckFence(name, owner, generation); err != nil {
		return err
	}
	return s.tx(ctx, "fence lock "+name, func(tx pgx.Tx) error {
		if err := s.checkHolder(ctx, tx, name, owner, generation); err != nil {
			return err
		}
		return s.upsertIndex(ctx, tx, markers)
	})
}

// Close implements core.Store.
func (s *Store) Close() error {
	if !s.closed.Swap(true) {
		s.pool.Close()
	}
	return nil
}
