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
		err = s.notFound(ctx, s.pool, handle)
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
	p.CreatedAt, p.ExpiresAt, p.ConsumedAt = created.UTC(), expires.UTC(), fromDBNullTime(consumed)
	if consumedBy != nil {
		p.ConsumedBy = *consumedBy
	}
	return p, nil
}

// notFound is the error for a handle without a preview: PREVIEW_EXPIRED
// while its tombstone is kept, else PREVIEW_NOT_FOUND.
func (s *Store) notFound(ctx context.Context, q querier, handle string) error {
	var (
		kind    string
		expired time.Time
	)
	err := q.QueryRow(ctx, s.q(`SELECT kind, expired_at FROM {schema}.preview_tombstones WHERE handle = $1`), handle).Scan(&kind, &expired)
	if errors.Is(err, pgx.ErrNoRows) {
		return storeerr.PreviewNotFound(handle)
	}
	if err != nil {
		return err
	}
	return storeerr.PreviewPruned(handle, core.PreviewKind(kind), fromDBTime(expired))
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
	if err := s.check(); err != nil {
		return nil, false, err
	}
	rows, err := s.pool.Query(ctx, s.q(`SELECT `+sqlrows.PendingColumns+` FROM {schema}.previews
		WHERE scope = $1 AND consumed_at IS NULL AND expires_at > $2
		ORDER BY created_at DESC, handle`), scope, dbTime(now))
	if err != nil {
		return nil, false, s.fault(err, "list pending previews")
	}
	handles, truncated, err := sqlrows.Pending(rows, limit)
	rows.Close()
	if err != nil {
		return nil, false, s.fault(err, "list pending previews")
	}
	out, err := sqlrows.LoadAll(handles, func(h string) (core.Preview, error) { return s.LoadPreview(ctx, h) })
	return out, truncated, err
}
