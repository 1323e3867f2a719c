package pgstore

import (
	"context"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
)

var _ core.PaceStore = (*Store)(nil)

// TakePace implements core.PaceStore: the key's row taken with its lock
// (a no-op upsert, so a new key needs no second statement), the state
// stepped on the server's clock (Options.LeaseClock in tests: processes
// on hosts with skewed clocks agree) and written back, in one
// transaction.
func (s *Store) TakePace(ctx context.Context, key string, r core.PaceRequest) (core.PaceGrant, error) {
	var g core.PaceGrant
	err := s.write(ctx, "update the shared pacing", func(tx pgx.Tx) error {
		var (
			body []byte
			now  time.Time
		)
		if err := tx.QueryRow(ctx, s.q(`INSERT INTO {schema}.pace AS p (key, state) VALUES ($1, ''::bytea)
			ON CONFLICT (key) DO UPDATE SET key = p.key
			RETURNING p.state, coalesce($2::timestamptz, clock_timestamp())`), key, s.leaseNow()).Scan(&body, &now); err != nil {
			return err
		}
		var err error
		if body, g, err = core.StepPace(body, now.UTC(), r); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, s.q(`UPDATE {schema}.pace SET state = $2 WHERE key = $1`), key, body)
		return err
	})
	return g, err
}

// prunePace deletes, in tx, the pacing states last used more than unused
// ago on the server's clock (the one TakePace stamps them with;
// Options.LeaseClock in tests), each only while it is still what was
// read, and returns how many.
func (s *Store) prunePace(ctx context.Context, tx pgx.Tx, unused time.Duration) (int, error) {
	var now time.Time
	if err := tx.QueryRow(ctx, `SELECT coalesce($1::timestamptz, clock_timestamp())`, s.leaseNow()).Scan(&now); err != nil {
		return 0, err
	}
	rows, err := tx.Query(ctx, s.q(`SELECT `+sqlrows.PaceColumns+` FROM {schema}.pace`))
	if err != nil {
		return 0, err
	}
	old, err := sqlrows.UnusedPace(rows, now.UTC().Add(-unused))
	rows.Close()
	if err != nil {
		return 0, err
	}
	n := 0
	for key, body := range old {
		tag, err := tx.Exec(ctx, s.q(`DELETE FROM {schema}.pace WHERE key = $1 AND state = $2`), key, body)
		if err != nil {
			return n, err
		}
		n += int(tag.RowsAffected())
	}
	return n, nil
}
