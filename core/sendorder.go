package core

import "context"

// The send order of a commit's writes (issue 20). A commit starts every
// write that is ready at once (parallel.go), so writes to one endpoint
// reach a provider's rate limiter in no particular order; the order the
// plan lists them in is what lets later writes (a rank request waiting
// for its items' batch) follow early. So each write's context carries its
// position in the plan, and a provider holding several writes back may
// send the lowest first. It is a hint: a provider without a limit sends
// each at once.

type sendOrderKey struct{}

// WithSendOrder returns ctx carrying n, the position of the write in its
// commit's plan order (lower goes first).
func WithSendOrder(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, sendOrderKey{}, n)
}

// SendOrder is the position WithSendOrder put in ctx, and whether there
// is one.
func SendOrder(ctx context.Context) (int, bool) {
	n, ok := ctx.Value(sendOrderKey{}).(int)
	return n, ok
}
