package pgstore

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
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
	err = s.db.QueryRow(ctx, s.q(`INSERT INTO {schema}.audit (at, handle, body) VALUES ($1, $2, $3) RETURNING seq`), dbTime(r.At), r.Handle, body).Scan(&seq)
	return seq, s.fault(err, "append an audit record")
}

// ListAudit implements core.AuditStore.
func (s *Store) ListAudit(ctx context.Context, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	return s.kit().Audit(ctx, s.q("{schema}.audit"), "$1", f, limit)
}

// LoadPolicy implements core.AuditStore.
func (s *Store) LoadPolicy(ctx context.Context) (core.GatePolicy, error) {
	return s.kit().Policy(ctx, s.q(`SELECT `+sqlrows.PolicyColumns+` FROM {schema}.policy WHERE name = $1`), sqlrows.PolicyName)
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
	_, err = s.db.Exec(ctx, s.q(`INSERT INTO {schema}.policy (name, body) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET body = excluded.body`), sqlrows.PolicyName, body)
	return s.fault(err, "save the gate policy")
}
