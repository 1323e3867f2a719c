package core

import "context"

// The send order of a commit's writes. A commit starts every
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

// A write may also say when its request has left. A commit holds some
// writes until an earlier one is on its way, not done: the batch creating
// a long rank run's heads goes out ahead of the other story batches (so
// building their bodies and fencing them does not delay it, and the rank
// can start once it is answered), but the others need not wait for its
// answer. So that write's context carries a function the provider calls
// once the request is handed to the tracker (past its rate limiter). A
// provider that does not call it makes the others wait for the write to
// end, as without the hint.

type sentKey struct{}

// WithSent returns ctx carrying f, to be called once the write's request
// has left. f may be called more than once and from any goroutine.
func WithSent(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, sentKey{}, f)
}

// Sent calls the function WithSent put in ctx, if there is one: a
// provider calls it when the write's (first) request leaves.
func Sent(ctx context.Context) {
	if f, ok := ctx.Value(sentKey{}).(func()); ok {
		f()
	}
}

// The run id of the service operation a call belongs to.

type runIDKey struct{}

// WithRunID returns ctx carrying the run id of a service operation
// (RunIDFrom reads it).
func WithRunID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, runIDKey{}, id)
}

// RunIDFrom returns the run id of the service operation ctx belongs to, or
// "" outside one. The service passes it to every provider and store call,
// so adapters can put it on their own log lines (retries, for instance).
func RunIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(runIDKey{}).(string)
	return id
}
