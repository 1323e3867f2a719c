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

// Fence is the fence both SQL stores share (core.Store.Fence): the
// arguments checked, then, with no markers, read — a read of the lock row
// that writes nothing, so it waits for no write in progress — after the
// store's check, its error translated by the store's fault; else one of
// the store's write transactions (write) that runs holds on it and
// upserts the markers with upsert.
func Fence[Tx any](ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry,
	write func(ctx context.Context, op string, fn func(tx Tx) error) error,
	holds func(tx Tx) error, check func() error, fault func(err error, op string) error, read func() error, upsert func(tx Tx) error) error {
	if err := storeerr.CheckFence(name, owner, generation); err != nil {
		return err
	}
	op := "fence lock " + name
	if len(markers) == 0 {
		if err := check(); err != nil {
			return err
		}
		return fault(read(), op)
	}
	return write(ctx, op, func(tx Tx) error {
		if err := holds(tx); err != nil {
			return err
		}
		return upsert(tx)
	})
}
