package sqlrows

import "context"

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
