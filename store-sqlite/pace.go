package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

var _ core.PaceStore = (*Store)(nil)

// TakePace implements core.PaceStore: the key's row read and written back
// in one BEGIN IMMEDIATE transaction (every process writing this file
// waits for it), on the store's clock, on the store's pacing connection
// (no fsync: see Store.pace).
func (s *Store) TakePace(ctx context.Context, key string, r core.PaceRequest) (core.PaceGrant, error) {
	if err := s.check(); err != nil {
		return core.PaceGrant{}, err
	}
	var grant core.PaceGrant
	err := func() error {
		tx, err := s.pace.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		var body []byte
		if err := tx.QueryRowContext(ctx, `SELECT state FROM pace WHERE key = ?`, key).Scan(&body); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		body, g, err := core.StepPace(body, s.now(), r)
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO pace (key, state) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET state = excluded.state`, key, body); err != nil {
			return err
		}
		grant = g
		return tx.Commit()
	}()
	return grant, s.fault(err, "update the shared pacing")
}

// prunePace deletes, in tx, the pacing states last used more than unused
// ago on the store's clock (the one TakePace stamps them with), each only
// while it is still what was read, and returns how many.
func (s *Store) prunePace(ctx context.Context, tx *sql.Tx, unused time.Duration) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+sqlrows.PaceColumns+` FROM pace`)
	if err != nil {
		return 0, err
	}
	old, err := sqlrows.UnusedPace(rows, s.now().Add(-unused))
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for key, body := range old {
		res, err := tx.ExecContext(ctx, `DELETE FROM pace WHERE key = ? AND state = ?`, key, body)
		if err != nil {
			return n, err
		}
		k, err := res.RowsAffected()
		if err != nil {
			return n, err
		}
		n += int(k)
	}
	return n, nil
}
