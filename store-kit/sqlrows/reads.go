package sqlrows

import (
	"context"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// NoLimit is the limit of a list asked for without one (limit <= 0).
const NoLimit = 1 << 30

// Limit is limit, or NoLimit when limit <= 0 (the store ports' "no
// limit").
func Limit(limit int) int {
	if limit <= 0 {
		return NoLimit
	}
	return limit
}

// Store is one SQL store as the kit's shared reads and its fence use it,
// built once from the store's own methods: T is the type the store keeps
// times in, Tx its write transaction.
//
// The reads (Lookup, List, Pending, Audit, Documents, Policy) are the
// ones both SQL stores make the same way: the statements are each
// store's own (its placeholders and schema); running them, reading their
// rows and translating their errors are shared. Each refuses a closed
// store first (Check) and translates the driver's errors (Fault). The
// fence is Fence (write.go).
type Store[T, Tx any] struct {
	// Check refuses a call on a closed store.
	Check func() error
	// Fault translates a driver error of operation op.
	Fault func(err error, op string) error
	// Query runs one SELECT against the database (not a transaction);
	// done releases its rows.
	Query func(ctx context.Context, sql string, args ...any) (rows Rows, done func() error, err error)
	// ToTime converts a stored time.
	ToTime func(T) time.Time
	// Write runs fn in one of the store's write transactions and commits
	// it, its errors translated for op.
	Write func(ctx context.Context, op string, fn func(tx Tx) error) error
	// HeldIn fails with storeerr.LockLost unless l's owner holds it at
	// its generation, reading the lock row in tx so that no takeover
	// commits before tx does.
	HeldIn func(ctx context.Context, tx Tx, l Lock) error
	// Held is the same check as a plain read, which writes nothing and
	// so waits for no write in progress.
	Held func(ctx context.Context, l Lock) error
	// UpsertIndex writes entries into the dedup index in tx.
	UpsertIndex func(ctx context.Context, tx Tx, entries []core.IndexEntry) error
}

// Lookup is core.Store's LookupIndex: the entries of scope for refs, read
// by sql (selecting IndexColumns) with args.
func (r Store[T, Tx]) Lookup(ctx context.Context, scope string, refs []core.Reference, sql string, args ...any) (map[core.Reference]core.IndexEntry, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return map[core.Reference]core.IndexEntry{}, nil
	}
	return query(ctx, r, "look up the dedup index", func(rows Rows) (map[core.Reference]core.IndexEntry, error) {
		return Index(rows, scope, r.ToTime, len(refs))
	}, sql, args...)
}

// List is the entries of scope read by sql (selecting IndexColumns) with
// args, in no particular order; what names the read in a fault.
func (r Store[T, Tx]) List(ctx context.Context, scope, what, sql string, args ...any) ([]core.IndexEntry, error) {
	m, err := query(ctx, r, what, func(rows Rows) (map[core.Reference]core.IndexEntry, error) {
		return Index(rows, scope, r.ToTime, 0)
	}, sql, args...)
	if err != nil {
		return nil, err
	}
	return Entries(m), nil
}

// Pending is core.PreviewLister's PendingPreviews: the handles sql
// (selecting PendingColumns) lists with args, at most limit (see
// Pending), each loaded with load once the rows are released (see
// LoadAll).
func (r Store[T, Tx]) Pending(ctx context.Context, limit int, load func(handle string) (core.Preview, error), sql string, args ...any) ([]core.Preview, bool, error) {
	type page struct {
		handles   []string
		truncated bool
	}
	p, err := query(ctx, r, "list pending previews", func(rows Rows) (p page, err error) {
		p.handles, p.truncated, err = Pending(rows, limit)
		return p, err
	}, sql, args...)
	if err != nil {
		return nil, false, err
	}
	out, err := LoadAll(p.handles, load)
	return out, p.truncated, err
}

// query runs sql with args (refusing a closed store first) and reads its
// rows with read before they are released; the driver's errors are
// translated for what.
func query[T, Tx, V any](ctx context.Context, r Store[T, Tx], what string, read func(Rows) (V, error), sql string, args ...any) (V, error) {
	var zero V
	if err := r.Check(); err != nil {
		return zero, err
	}
	rows, done, err := r.Query(ctx, sql, args...)
	if err != nil {
		return zero, r.Fault(err, what)
	}
	v, err := read(rows)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return zero, r.Fault(err, what)
	}
	return v, nil
}

// Audit is core.AuditStore's ListAudit over table (the store's audit
// table as its SQL names it; placeholder is its first parameter): see
// AuditQuery and Audit.
func (r Store[T, Tx]) Audit(ctx context.Context, table, placeholder string, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	type page struct {
		records []core.AuditRecord
		more    bool
	}
	sql, args := AuditQuery(table, placeholder, f)
	p, err := query(ctx, r, "list the audit trail", func(rows Rows) (p page, err error) {
		p.records, p.more, err = Audit(rows, f, limit)
		return p, err
	}, sql, args...)
	return p.records, p.more, err
}

// Documents is core.DocumentStore's LoadDocuments: the records of scope
// read by sql (selecting DocumentColumns) with args.
func (r Store[T, Tx]) Documents(ctx context.Context, scope, sql string, args ...any) (map[string]core.DocumentRecord, error) {
	return query(ctx, r, "load documents", func(rows Rows) (map[string]core.DocumentRecord, error) {
		return Documents(rows, scope, r.ToTime)
	}, sql, args...)
}

// Policy is core.AuditStore's LoadPolicy: the policy read by sql
// (selecting PolicyColumns of the row PolicyName) with args, the default
// when none was stored.
func (r Store[T, Tx]) Policy(ctx context.Context, sql string, args ...any) (core.GatePolicy, error) {
	return query(ctx, r, "load the gate policy", Policy, sql, args...)
}
