package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/sqlrows"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/jackc/pgx/v5"
)

// SavePreview implements core.Store.
func (s *Store) SavePreview(ctx context.Context, p core.Preview) error {
	p, err := storeerr.CheckPreview(p)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	var consumedBy *string
	if p.ConsumedBy != "" {
		consumedBy = &p.ConsumedBy
	}
	tag, err := s.pool.Exec(ctx, s.q(`INSERT INTO {schema}.previews (handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (handle) DO NOTHING`),
		p.Handle, string(p.Kind), p.Scope, p.Plan, p.Digest, dbTime(p.CreatedAt), dbTime(p.ExpiresAt), dbNullTime(p.ConsumedAt), consumedBy)
	if err != nil {
		return s.fault(err, "save preview "+p.Handle)
	}
	if tag.RowsAffected() == 0 {
		return storeerr.DuplicateHandle(p.Handle)
	}
	return nil
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	if err := s.check(); err != nil {
		return core.Preview{}, err
	}
	p, err := sqlrows.Preview(s.pool.QueryRow(ctx, s.q(`SELECT `+sqlrows.PreviewColumns+` FROM {schema}.previews WHERE handle = $1`), handle), handle, fromDBTime)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.notFound(ctx, s.pool, handle)
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

// Prune implements core.Store: one transaction.
func (s *Store) Prune(ctx context.Context, now time.Time, r core.Retention) (core.Pruned, error) {
	r = r.OrDefault()
	var n core.Pruned
	err := s.write(ctx, "prune expired previews and old runs", func(tx pgx.Tx) error {
		cut := dbTime(now)
		steps := []struct {
			count *int
			sql   string
			arg   time.Time
		}{
			{nil, `INSERT INTO {schema}.preview_tombstones (handle, kind, expired_at) SELECT handle, kind, expires_at FROM {schema}.previews WHERE expires_at < $1
				ON CONFLICT (handle) DO UPDATE SET kind = excluded.kind, expired_at = excluded.expired_at`, cut},
			{&n.Previews, `DELETE FROM {schema}.previews WHERE expires_at < $1`, cut},
			{&n.Tombstones, `DELETE FROM {schema}.preview_tombstones WHERE expired_at < $1`, cut.Add(-r.Tombstones)},
			{nil, `DELETE FROM {schema}.run_outcomes WHERE idempotency_key IN (SELECT idempotency_key FROM {schema}.runs WHERE state <> 'in_progress' AND finished_at < $1)`, cut.Add(-r.Runs)},
			{&n.Runs, `DELETE FROM {schema}.runs WHERE state <> 'in_progress' AND finished_at < $1`, cut.Add(-r.Runs)},
		}
		for _, st := range steps {
			tag, err := tx.Exec(ctx, s.q(st.sql), st.arg)
			if err != nil {
				return err
			}
			if st.count != nil {
				*st.count = int(tag.RowsAffected())
			}
		}
		return nil
	})
	if err != nil {
		return core.Pruned{}, err
	}
	return n, nil
}

var _ core.PreviewLister = (*Store)(nil)

// PendingPreviews implements core.PreviewLister.
func (s *Store) PendingPreviews(ctx context.Context, scope string, now time.Time, limit int) ([]core.Preview, bool, error) {
	return s.reads().Pending(ctx, limit, func(h string) (core.Preview, error) { return s.LoadPreview(ctx, h) },
		s.q(`SELECT `+sqlrows.PendingColumns+` FROM {schema}.previews
		WHERE scope = $1 AND consumed_at IS NULL AND expires_at > $2
		ORDER BY created_at DESC, handle`), scope, dbTime(now))
}
