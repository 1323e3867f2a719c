package memstore

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.AuditStore = (*Store)(nil)

// auditTrail is the store's audit trail (stored encoded, as the SQL
// stores keep it, so a record read back never shares memory with the one
// appended) and its gate policy.
type auditTrail struct {
	seq     int64
	records []auditRow // in sequence order
	policy  *core.GatePolicy
}

type auditRow struct {
	seq  int64
	at   int64 // Unix microseconds, for retention
	body []byte
}

// AppendAudit implements core.AuditStore.
func (s *Store) AppendAudit(_ context.Context, r core.AuditRecord) (int64, error) {
	b, err := core.EncodeAudit(r)
	if err != nil {
		return 0, core.Wrap(err, core.CodeInternal, "The audit record cannot be stored.")
	}
	d, err := s.lock()
	if err != nil {
		return 0, err
	}
	defer d.mu.Unlock()
	d.audit.seq++
	d.audit.records = append(d.audit.records, auditRow{seq: d.audit.seq, at: ts(r.At).UnixMicro(), body: b})
	return d.audit.seq, nil
}

// ListAudit implements core.AuditStore.
func (s *Store) ListAudit(_ context.Context, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	d, err := s.lock()
	if err != nil {
		return nil, false, err
	}
	rows := append([]auditRow(nil), d.audit.records...)
	d.mu.Unlock()
	var out []core.AuditRecord
	for i := len(rows) - 1; i >= 0; i-- {
		var more bool
		if out, more, err = core.AppendAudit(out, rows[i].seq, rows[i].body, f, limit); err != nil {
			return nil, false, err
		} else if more {
			return out, true, nil
		}
	}
	return out, false, nil
}

// LoadPolicy implements core.AuditStore.
func (s *Store) LoadPolicy(context.Context) (core.GatePolicy, error) {
	d, err := s.lock()
	if err != nil {
		return core.GatePolicy{}, err
	}
	defer d.mu.Unlock()
	if d.audit.policy == nil {
		return core.DefaultGatePolicy, nil
	}
	p := *d.audit.policy
	if p.SetBy != nil {
		a := *p.SetBy
		p.SetBy = &a
	}
	return p, nil
}

// SavePolicy implements core.AuditStore.
func (s *Store) SavePolicy(_ context.Context, p core.GatePolicy) error {
	if err := core.CheckPolicy(p); err != nil {
		return err
	}
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	p.SetAt = ts(p.SetAt)
	if p.SetBy != nil {
		a := *p.SetBy
		p.SetBy = &a
	}
	d.audit.policy = &p
	return nil
}

// pruneAudit deletes the records older than cut.
func (d *data) pruneAudit(cut int64) int {
	kept := d.audit.records[:0]
	for _, r := range d.audit.records {
		if r.at >= cut {
			kept = append(kept, r)
		}
	}
	n := len(d.audit.records) - len(kept)
	d.audit.records = kept
	return n
}
