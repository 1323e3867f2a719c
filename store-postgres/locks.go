package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
)

// leaseNow is the lease clock's reading for a statement: nil means the
// statement uses the server's now().
func (s *Store) leaseNow() *time.Time {
	if s.leaseClock == nil {
		return nil
	}
	t := dbTime(s.leaseClock())
	return &t
}

// AcquireLock implements core.Store: a row in locks (name, owner,
// expires_at, generation, and the heartbeat: renewed_at with the
// generation it was recorded at) taken by one conditional upsert. Concurrent
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
		err := s.db.QueryRow(ctx, s.q(`INSERT INTO {schema}.locks AS l (name, owner, expires_at, generation, renewed_at, renewed_generation)
			VALUES ($1, $2, coalesce($3::timestamptz, now()) + $4::bigint * interval '1 microsecond', 1, coalesce($3::timestamptz, now()), 1)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
				generation = CASE WHEN l.owner = excluded.owner THEN l.generation ELSE l.generation + 1 END,
				renewed_at = excluded.renewed_at,
				renewed_generation = CASE WHEN l.owner = excluded.owner THEN l.generation ELSE l.generation + 1 END
			WHERE l.owner = excluded.owner OR l.owner = '' OR l.expires_at <= coalesce($3::timestamptz, now())
			RETURNING generation, expires_at`), name, owner, now, lease.Microseconds()).Scan(&gen, &expires)
		if err == nil {
			return core.Lock{Name: name, Owner: owner, Generation: gen, Expires: expires.UTC(), Release: s.releaser(name, owner, gen)}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return core.Lock{}, s.fault(err, op)
		}
		var (
			holder     string
			live       bool
			renewed    *time.Time // nil: not recorded at the holder's generation
			serverTime time.Time
		)
		err = s.db.QueryRow(ctx, s.q(`SELECT owner, expires_at, expires_at > coalesce($2::timestamptz, now()),
				CASE WHEN renewed_generation = generation THEN renewed_at END, coalesce($2::timestamptz, now())
			FROM {schema}.locks WHERE name = $1`), name, now).
			Scan(&holder, &expires, &live, &renewed, &serverTime)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // gone meanwhile: try again
		}
		if err != nil {
			return core.Lock{}, s.fault(err, op)
		}
		if holder != owner && holder != "" && live {
			var at time.Time
			if renewed != nil {
				at = *renewed
			}
			return core.Lock{}, storeerr.LockHeld(name, holder, expires.UTC(), at, serverTime)
		}
	}
	return core.Lock{}, core.Errorf(core.CodeInternal, "Could not %s: it kept changing hands. Try again.", op)
}

// checkHolder locks the lock row (FOR UPDATE: a concurrent takeover waits
// for tx) and fails with LockLost unless l's owner holds it at its
// generation.
func (s *Store) checkHolder(ctx context.Context, tx pgx.Tx, l sqlrows.Lock) error {
	return s.holderIs(ctx, tx, ` FOR UPDATE`, l)
}

// holderIs fails with LockLost unless l's owner holds it at its
// generation, reading the lock row through q with the row-lock clause
// lock ("" for a plain read).
func (s *Store) holderIs(ctx context.Context, q querier, lock string, l sqlrows.Lock) error {
	var (
		holder string
		cur    int64
	)
	err := q.QueryRow(ctx, s.q(`SELECT owner, generation FROM {schema}.locks WHERE name = $1`+lock), l.Name).Scan(&holder, &cur)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if holder != l.Owner || cur != l.Generation {
		return storeerr.LockLost(l.Name, l.Owner, l.Generation, holder, cur)
	}
	return nil
}

func (s *Store) releaser(name, owner string, gen int64) func(context.Context) error {
	return func(ctx context.Context) error {
		return s.write(ctx, "release lock "+name, func(tx pgx.Tx) error {
			if err := s.checkHolder(ctx, tx, sqlrows.Lock{Name: name, Owner: owner, Generation: gen}); err != nil {
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
// after the markers (and the taker-over sees them). A fence without
// markers writes nothing: a plain read of the lock row, which waits for no
// other fence's row lock.
func (s *Store) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	return s.kit().Fence(ctx, sqlrows.Lock{Name: name, Owner: owner, Generation: generation}, markers)
}
