package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTransport makes the end of the input wait for the answers. The
// SDK's connection stops writing as soon as its reader reports the end of
// stdin, so `printf '<initialize>\n<initialized>\n<tools/list>\n' | dwire
// mcp` used to print nothing: the answers were computed and then dropped.
// Over this transport the end of input (or a read error) is passed on only
// once every request read so far has been answered.
//
// One exception keeps it from hanging: while the server waits for an
// answer from the client (a request it sent), the end of input is passed
// on at once, since that answer can no longer come.
type drainTransport struct {
	inner mcp.Transport

	mu sync.Mutex
	c  *drainConn
}

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	dc := &drainConn{Connection: c, pending: map[jsonrpc.ID]int{}, changed: make(chan struct{}), closed: make(chan struct{})}
	t.mu.Lock()
	t.c = dc
	t.mu.Unlock()
	return dc, nil
}

// conn is the connection made by Connect (nil before).
func (t *drainTransport) conn() *drainConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

type drainConn struct {
	mcp.Connection

	mu       sync.Mutex
	pending  map[jsonrpc.ID]int // requests read and not yet answered
	outgoing int                // requests sent and not yet answered
	changed  chan struct{}      // closed and replaced whenever the counts change
	closed   chan struct{}
	once     sync.Once
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		_ = c.waitAnswered(ctx)
		return nil, err
	}
	c.update(func() {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				c.pending[m.ID]++
			}
		case *jsonrpc.Response:
			if c.outgoing > 0 {
				c.outgoing--
			}
		}
	})
	return msg, nil
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			// Counted before writing: its answer may be read before
			// Write returns.
			c.update(func() { c.outgoing++ })
		}
	case *jsonrpc.Response:
		// Counted as answered once written, so the end of input is
		// passed on only after the answer is on its way.
		defer c.update(func() {
			if n := c.pending[m.ID]; n > 1 {
				c.pending[m.ID] = n - 1
			} else {
				delete(c.pending, m.ID)
			}
		})
	}
	return c.Connection.Write(ctx, msg)
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

func (c *drainConn) update(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitAnswered returns once every request read has been answered (true),
// or the server waits for the client, the connection is closed or ctx
// ends (false).
func (c *drainConn) waitAnswered(ctx context.Context) bool {
	for {
		c.mu.Lock()
		answered, waiting := len(c.pending) == 0, c.outgoing > 0
		ch := c.changed
		c.mu.Unlock()
		if answered || waiting {
			return answered
		}
		select {
		case <-ch:
		case <-c.closed:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
