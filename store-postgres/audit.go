package pgstore

import (
	"context"
	"errors"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
)

var _ core.AuditStore = (*Store)(nil)

// AppendAudit implements core.AuditStore: one INSERT, durable once it
// returns.
func (s *Store) AppendAudit(ctx context.Context, r core.AuditRecord) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	body, err := core.EncodeAudit(r)
	if err != nil {
		return 0, s.fault(err, "append an audit record")
	}
	var seq int64
	err = s.pool.QueryRow(ctx, s.q(`INSERT INTO {schema}.audit (at, handle, body) VALUES ($1, $2, $3) RETURNING seq`), dbTime(r.At), r.Handle, body).Scan(&seq)
	return seq, s.fault(err, "append an audit record")
}

// ListAudit implements core.AuditStore.
func (s *Store) ListAudit(ctx context.Context, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	if err := s.check(); err != nil {
		return nil, false, err
	}
	q, args := sqlrows.AuditQuery("{schema}.audit", "$1", f)
	rows, err := s.pool.Query(ctx, s.q(q), args...)
	if rows != nil {
		defer rows.Close() // (pgx: to be closed even after an error)
	}
	out, more, err := sqlrows.Audit(rows, err, f, limit)
	return out, more, s.fault(err, "list the audit trail")
}

// LoadPolicy implements core.AuditStore.
func (s *Store) LoadPolicy(ctx context.Context) (core.GatePolicy, error) {
	if err := s.check(); err != nil {
		return core.GatePolicy{}, err
	}
	var body []byte
	err := s.pool.QueryRow(ctx, s.q(`SELECT body FROM {schema}.policy WHERE name = $1`), sqlrows.PolicyName).Scan(&body)
	p, err := sqlrows.Policy(body, err, func(err error) bool { return errors.Is(err, pgx.ErrNoRows) })
	return p, s.fault(err, "load the gate policy")
}

// SavePolicy implements core.AuditStore.
func (s *Store) SavePolicy(ctx context.Context, p core.GatePolicy) error {
	if err := s.check(); err != nil {
		return err
	}
	body, err := sqlrows.PolicyBody(p)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, s.q(`INSERT INTO {schema}.policy (name, body) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET body = excluded.body`), sqlrows.PolicyName, body)
	return s.fault(err, "save the gate policy")
}
