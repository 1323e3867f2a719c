package sqlrows

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
)

// WriteValue runs fn in one of the store's write transactions (write is
// the store's: it runs fn, commits, and translates errors for op) and
// returns what fn computed once the transaction committed; on an error,
// the zero value.
func WriteValue[Tx, T any](ctx context.Context, op string, write func(ctx context.Context, op string, fn func(tx Tx) error) error, fn func(tx Tx) (T, error)) (T, error) {
	var v T
	err := write(ctx, op, func(tx Tx) (err error) {
		v, err = fn(tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// Lock is the commit lock a fence checks: Owner must hold Name at
// Generation.
type Lock struct {
	Name       string
	Owner      string
	Generation int64
}

// Fence is core.Store's Fence in both SQL stores: l checked
// (storeerr.CheckFence); then, with no markers, Held (after Check, its
// error translated by Fault); else one write transaction in which HeldIn
// passes before the markers are upserted.
func (f Store[T, Tx]) Fence(ctx context.Context, l Lock, markers []core.IndexEntry) error {
	if err := storeerr.CheckFence(l.Name, l.Owner, l.Generation); err != nil {
		return err
	}
	op := "fence lock " + l.Name
	if len(markers) == 0 {
		if err := f.Check(); err != nil {
			return err
		}
		return f.Fault(f.Held(ctx, l), op)
	}
	return f.Write(ctx, op, func(tx Tx) error {
		if err := f.HeldIn(ctx, tx, l); err != nil {
			return err
		}
		return f.UpsertIndex(ctx, tx, markers)
	})
}
