package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/devworkwire/devworkwire/core"
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
