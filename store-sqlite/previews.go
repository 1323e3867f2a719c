package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

// SavePreview implements core.Store.
func (s *Store) SavePreview(ctx context.Context, p core.Preview) error {
	return sqlrows.Save(p, func(p core.Preview) (int64, error) {
		return sqlrows.WriteValue(ctx, "save preview "+p.Handle, s.write, func(tx *sql.Tx) (int64, error) {
			res, err := tx.ExecContext(ctx, `INSERT INTO previews (`+sqlrows.PreviewColumns+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (handle) DO NOTHING`,
				p.Handle, string(p.Kind), p.Scope, p.Plan, p.Digest, dbTime(p.CreatedAt), dbTime(p.ExpiresAt),
				dbNullTime(p.ConsumedAt), sql.NullString{String: p.ConsumedBy, Valid: p.ConsumedBy != ""})
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		})
	})
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	if err := s.check(); err != nil {
		return core.Preview{}, err
	}
	p, err := loadPreview(ctx, s.db, handle)
	return p, s.fault(err, "load preview "+handle)
}

func loadPreview(ctx context.Context, q querier, handle string) (core.Preview, error) {
	p, err := sqlrows.Preview(q.QueryRowContext(ctx, `SELECT `+sqlrows.PreviewColumns+` FROM previews WHERE handle = ?`, handle), handle, fromDBTime)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Preview{}, notFound(ctx, q, handle)
	}
	return p, err
}

// notFound is the error for a handle without a preview: PREVIEW_EXPIRED
// while its tombstone is kept, else PREVIEW_NOT_FOUND.
func notFound(ctx context.Context, q querier, handle string) error {
	return sqlrows.Missing(q.QueryRowContext(ctx, `SELECT `+sqlrows.TombstoneColumns+` FROM preview_tombstones WHERE handle = ?`, handle), handle, sql.ErrNoRows, fromDBTime)
}

// pruneSQL are Prune's statements.
var pruneSQL = sqlrows.PruneSQL{
	Tombstone: `INSERT INTO preview_tombstones (handle, kind, expired_at) SELECT handle, kind, expires_at FROM previews WHERE expires_at < ?
		ON CONFLICT (handle) DO UPDATE SET kind = excluded.kind, expired_at = excluded.expired_at`,
	Previews:   `DELETE FROM previews WHERE expires_at < ?`,
	Tombstones: `DELETE FROM preview_tombstones WHERE expired_at < ?`,
	Outcomes:   `DELETE FROM run_outcomes WHERE idempotency_key IN (SELECT idempotency_key FROM runs WHERE state <> 'in_progress' AND finished_at < ?)`,
	Runs:       `DELETE FROM runs WHERE state <> 'in_progress' AND finished_at < ?`,
	Audit:      `DELETE FROM audit WHERE at < ?`,
}

// Prune implements core.Store: one transaction. Pacing states unused for
// Retention.Pace go too, measured on the store's clock (pace.go).
func (s *Store) Prune(ctx context.Context, now time.Time, r core.Retention) (core.Pruned, error) {
	return sqlrows.WriteValue(ctx, "prune expired previews and old runs", s.write, func(tx *sql.Tx) (core.Pruned, error) {
		n, err := sqlrows.Prune(r, pruneSQL, func(query string, age time.Duration) (int64, error) {
			res, err := tx.ExecContext(ctx, query, dbTime(now)-age.Microseconds())
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		})
		if err != nil {
			return n, err
		}
		n.Pace, err = s.prunePace(ctx, tx, r.OrDefault().Pace)
		return n, err
	})
}

var _ core.PreviewLister = (*Store)(nil)

// PendingPreviews implements core.PreviewLister.
func (s *Store) PendingPreviews(ctx context.Context, scope string, now time.Time, limit int) ([]core.Preview, bool, error) {
	return s.kit().Pending(ctx, limit, func(h string) (core.Preview, error) { return s.LoadPreview(ctx, h) },
		`SELECT `+sqlrows.PendingColumns+` FROM previews
		WHERE scope = ? AND consumed_at IS NULL AND expires_at > ?
		ORDER BY created_at DESC, handle`, scope, dbTime(now))
}
