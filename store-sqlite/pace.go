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
// waits for it), on the store's clock.
func (s *Store) TakePace(ctx context.Context, key string, r core.PaceRequest) (core.PaceGrant, error) {
	var g core.PaceGrant
	err := s.write(ctx, "update the shared pacing", func(tx *sql.Tx) error {
		var body []byte
		if err := tx.QueryRowContext(ctx, `SELECT state FROM pace WHERE key = ?`, key).Scan(&body); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		st, err := core.DecodePace(body)
		if err != nil {
			return err
		}
		g = st.Take(s.now(), r)
		if body, err = core.EncodePace(st); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO pace (key, state) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET state = excluded.state`, key, body)
		return err
	})
	return g, err
}
