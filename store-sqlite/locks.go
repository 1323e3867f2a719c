package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

// AcquireLock implements core.Store: a row in locks (name, owner,
// expires_at, generation, and the heartbeat: renewed_at with the
// generation it was recorded at), read and written in one BEGIN IMMEDIATE
// transaction, so processes sharing the file cannot both take it. The
// lease is measured on the process clock (Options.Now): every process
// sharing the file runs on the same machine. A released lock keeps its
// row (owner ”) so its generation keeps counting.
func (s *Store) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	if err := storeerr.CheckLock(name, owner, lease); err != nil {
		return core.Lock{}, err
	}
	now := dbTime(s.now())
	var gen int64
	err := s.write(ctx, "take lock "+name, func(tx *sql.Tx) error {
		row, err := lockRow(ctx, tx, name)
		if err != nil {
			return err
		}
		switch {
		case row.owner == owner:
			gen = row.generation
		case row.owner == "" || now >= row.expires:
			gen = row.generation + 1
		default:
			return storeerr.LockHeld(name, row.owner, fromDBTime(row.expires), row.renewed(), fromDBTime(now))
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO locks (name, owner, expires_at, generation, renewed_at, renewed_generation) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, generation = excluded.generation,
				renewed_at = excluded.renewed_at, renewed_generation = excluded.renewed_generation`,
			name, owner, now+lease.Microseconds(), gen, now, gen)
		return err
	})
	if err != nil {
		return core.Lock{}, err
	}
	return core.Lock{Name: name, Owner: owner, Generation: gen, Expires: fromDBTime(now + lease.Microseconds()), Release: s.releaser(name, owner, gen)}, nil
}

// releaser is Lock.Release: it frees the lock if owner holds it at gen,
// keeping the row (owner ”) so the generation keeps counting.
func (s *Store) releaser(name, owner string, gen int64) func(context.Context) error {
	return func(ctx context.Context) error {
		return s.write(ctx, "release lock "+name, func(tx *sql.Tx) error {
			if err := checkHolder(ctx, tx, sqlrows.Lock{Name: name, Owner: owner, Generation: gen}); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE locks SET owner = '', expires_at = 0 WHERE name = ?`, name)
			return err
		})
	}
}

// lockState is a lock's row.
type lockState struct {
	owner                 string
	expires, generation   int64
	renewedAt, renewedGen int64
}

// renewed is when the holder last took or renewed the lock; zero when
// the row's heartbeat was not recorded at its generation (an earlier
// version took it).
func (l lockState) renewed() time.Time {
	if l.renewedGen != l.generation || l.renewedAt == 0 {
		return time.Time{}
	}
	return fromDBTime(l.renewedAt)
}

// lockRow reads a lock inside tx; a lock never taken is free at
// generation 0.
func lockRow(ctx context.Context, tx querier, name string) (lockState, error) {
	var l lockState
	err := tx.QueryRowContext(ctx, `SELECT owner, expires_at, generation, renewed_at, renewed_generation FROM locks WHERE name = ?`, name).
		Scan(&l.owner, &l.expires, &l.generation, &l.renewedAt, &l.renewedGen)
	if errors.Is(err, sql.ErrNoRows) {
		return lockState{}, nil
	}
	return l, err
}

// checkHolder fails with LockLost unless l's owner holds it at its
// generation.
func checkHolder(ctx context.Context, tx querier, l sqlrows.Lock) error {
	row, err := lockRow(ctx, tx, l.Name)
	if err != nil {
		return err
	}
	if row.owner != l.Owner || row.generation != l.Generation {
		return storeerr.LockLost(l.Name, l.Owner, l.Generation, row.owner, row.generation)
	}
	return nil
}

// Fence implements core.Store: the holder check and the markers in one
// BEGIN IMMEDIATE transaction, which AcquireLock's transaction cannot
// interleave with. A fence without markers writes nothing: it is a read of
// the lock row, which waits for no write in progress (WAL).
func (s *Store) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	return s.kit().Fence(ctx, sqlrows.Lock{Name: name, Owner: owner, Generation: generation}, markers)
}
