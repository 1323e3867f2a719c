package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

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
	if err := s.check(); err != nil {
		return nil, false, err
	}
	q, args := sqlrows.AuditQuery("audit", "?", f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err == nil {
		defer rows.Close()
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
	err := s.db.QueryRowContext(ctx, `SELECT body FROM policy WHERE name = ?`, sqlrows.PolicyName).Scan(&body)
	p, err := sqlrows.Policy(body, err, func(err error) bool { return errors.Is(err, sql.ErrNoRows) })
	return p, s.fault(err, "load the gate policy")
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
