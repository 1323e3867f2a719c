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

// Reads are the reads both SQL stores make the same way: the statements
// are each store's own (its placeholders and schema); running them,
// reading their rows and translating their errors are shared. T is the
// type the store keeps times in.
type Reads[T any] struct {
	// Query runs one SELECT against the database (not a transaction);
	// done releases its rows.
	Query func(ctx context.Context, sql string, args ...any) (rows Rows, done func() error, err error)
	// ToTime converts a stored time.
	ToTime func(T) time.Time
	// Check refuses a call on a closed store.
	Check func() error
	// Fault translates a driver error of operation op.
	Fault func(err error, op string) error
}

// Lookup is core.Store's LookupIndex: the entries of scope for refs, read
// by sql (selecting IndexColumns) with args.
func (r Reads[T]) Lookup(ctx context.Context, scope string, refs []core.Reference, sql string, args ...any) (map[core.Reference]core.IndexEntry, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return map[core.Reference]core.IndexEntry{}, nil
	}
	return r.index(ctx, scope, "look up the dedup index", len(refs), sql, args...)
}

// List is the entries of scope read by sql (selecting IndexColumns) with
// args, in no particular order; what names the read in a fault.
func (r Reads[T]) List(ctx context.Context, scope, what, sql string, args ...any) ([]core.IndexEntry, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	m, err := r.index(ctx, scope, what, 0, sql, args...)
	if err != nil {
		return nil, err
	}
	return Entries(m), nil
}

func (r Reads[T]) index(ctx context.Context, scope, what string, n int, sql string, args ...any) (map[core.Reference]core.IndexEntry, error) {
	rows, done, err := r.Query(ctx, sql, args...)
	if err != nil {
		return nil, r.Fault(err, what)
	}
	defer done()
	out, err := Index(rows, scope, r.ToTime, n)
	if err != nil {
		return nil, r.Fault(err, what)
	}
	return out, nil
}

// Pending is core.PreviewLister's PendingPreviews: the handles sql
// (selecting PendingColumns) lists with args, at most limit (see
// Pending), each loaded with load once the rows are released (see
// LoadAll).
func (r Reads[T]) Pending(ctx context.Context, limit int, load func(handle string) (core.Preview, error), sql string, args ...any) ([]core.Preview, bool, error) {
	const what = "list pending previews"
	if err := r.Check(); err != nil {
		return nil, false, err
	}
	rows, done, err := r.Query(ctx, sql, args...)
	if err != nil {
		return nil, false, r.Fault(err, what)
	}
	handles, truncated, err := Pending(rows, limit)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return nil, false, r.Fault(err, what)
	}
	out, err := LoadAll(handles, load)
	return out, truncated, err
}
