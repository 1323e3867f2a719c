package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
)

// SavePreview implements core.Store.
func (s *Store) SavePreview(ctx context.Context, p core.Preview) error {
	return sqlrows.Save(p, func(p core.Preview) (int64, error) {
		if err := s.check(); err != nil {
			return 0, err
		}
		var consumedBy *string
		if p.ConsumedBy != "" {
			consumedBy = &p.ConsumedBy
		}
		tag, err := s.db.Exec(ctx, s.q(`INSERT INTO {schema}.previews (`+sqlrows.PreviewColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (handle) DO NOTHING`),
			p.Handle, string(p.Kind), p.Scope, p.Plan, p.Digest, dbTime(p.CreatedAt), dbTime(p.ExpiresAt), dbNullTime(p.ConsumedAt), consumedBy)
		return tag.RowsAffected(), s.fault(err, "save preview "+p.Handle)
	})
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	if err := s.check(); err != nil {
		return core.Preview{}, err
	}
	p, err := sqlrows.Preview(s.db.QueryRow(ctx, s.q(`SELECT `+sqlrows.PreviewColumns+` FROM {schema}.previews WHERE handle = $1`), handle), handle, fromDBTime)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.notFound(ctx, s.db, handle)
	}
	if err != nil {
		return core.Preview{}, s.fault(err, "load preview "+handle)
	}
	return p, nil
}

// notFound is the error for a handle without a preview: PREVIEW_EXPIRED
// while its tombstone is kept, else PREVIEW_NOT_FOUND.
func (s *Store) notFound(ctx context.Context, q querier, handle string) error {
	return sqlrows.Missing(q.QueryRow(ctx, s.q(`SELECT `+sqlrows.TombstoneColumns+` FROM {schema}.preview_tombstones WHERE handle = $1`), handle), handle, pgx.ErrNoRows, fromDBTime)
}

// pruneSQL are Prune's statements.
var pruneSQL = sqlrows.PruneSQL{
	Tombstone: `INSERT INTO {schema}.preview_tombstones (handle, kind, expired_at) SELECT handle, kind, expires_at FROM {schema}.previews WHERE expires_at < $1
		ON CONFLICT (handle) DO UPDATE SET kind = excluded.kind, expired_at = excluded.expired_at`,
	Previews:   `DELETE FROM {schema}.previews WHERE expires_at < $1`,
	Tombstones: `DELETE FROM {schema}.preview_tombstones WHERE expired_at < $1`,
	Outcomes:   `DELETE FROM {schema}.run_outcomes WHERE idempotency_key IN (SELECT idempotency_key FROM {schema}.runs WHERE state <> 'in_progress' AND finished_at < $1)`,
	Runs:       `DELETE FROM {schema}.runs WHERE state <> 'in_progress' AND finished_at < $1`,
	Audit:      `DELETE FROM {schema}.audit WHERE at < $1`,
}

// Prune implements core.Store: one transaction.
func (s *Store) Prune(ctx context.Context, now time.Time, r core.Retention) (core.Pruned, error) {
	return sqlrows.WriteValue(ctx, "prune expired previews and old runs", s.write, func(tx pgx.Tx) (core.Pruned, error) {
		n, err := sqlrows.Prune(r, pruneSQL, func(sql string, age time.Duration) (int64, error) {
			tag, err := tx.Exec(ctx, s.q(sql), dbTime(now).Add(-age))
			return tag.RowsAffected(), err
		})
		if err != nil {
			return n, err
		}
		n.Pace, err = s.prunePace(ctx, tx, r.OrDefault().Pace) // pace.go
		return n, err
	})
}

var _ core.PreviewLister = (*Store)(nil)

// PendingPreviews implements core.PreviewLister.
func (s *Store) PendingPreviews(ctx context.Context, scope string, now time.Time, limit int) ([]core.Preview, bool, error) {
	return s.kit().Pending(ctx, limit, func(h string) (core.Preview, error) { return s.LoadPreview(ctx, h) },
		s.q(`SELECT `+sqlrows.PendingColumns+` FROM {schema}.previews
		WHERE scope = $1 AND consumed_at IS NULL AND expires_at > $2
		ORDER BY created_at DESC, handle`), scope, dbTime(now))
}
