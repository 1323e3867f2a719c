package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

var _ core.AuditStore = (*Store)(nil)

// AppendAudit implements core.AuditStore.
func (s *Store) AppendAudit(ctx context.Context, r core.AuditRecord) (int64, error) {
	body, err := core.EncodeAudit(r)
	if err != nil {
		return 0, s.fault(err, "append an audit record")
	}
	return sqlrows.WriteValue(ctx, "append an audit record", s.write, func(tx *sql.Tx) (seq int64, err error) {
		err = tx.QueryRowContext(ctx, `INSERT INTO audit (at, handle, body) VALUES (?, ?, ?) RETURNING seq`, dbTime(r.At), r.Handle, body).Scan(&seq)
		return seq, err
	})
}

// ListAudit implements core.AuditStore.
func (s *Store) ListAudit(ctx context.Context, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	return s.kit().Audit(ctx, "audit", "?", f, limit)
}

// LoadPolicy implements core.AuditStore.
func (s *Store) LoadPolicy(ctx context.Context) (core.GatePolicy, error) {
	return s.kit().Policy(ctx, `SELECT `+sqlrows.PolicyColumns+` FROM policy WHERE name = ?`, sqlrows.PolicyName)
}

// SavePolicy implements core.AuditStore.
func (s *Store) SavePolicy(ctx context.Context, p core.GatePolicy) error {
	body, err := sqlrows.PolicyBody(p)
	if err != nil {
		return err
	}
	return s.write(ctx, "save the gate policy", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO policy (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body`, sqlrows.PolicyName, body)
		return err
	})
}
