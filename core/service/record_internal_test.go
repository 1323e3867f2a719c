package service

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Calls made while a flush runs are flushed together, once, after it (group
// commit); every call returns only once its own group was flushed, and
// with that flush's error.
func TestGroupedFlushesConcurrentCallsTogether(t *testing.T) {
	var (
		mu      sync.Mutex
		flushed [][]int
	)
	started, release := make(chan struct{}), make(chan struct{})
	g := &grouped[int]{flush: func(_ context.Context, items []int) error {
		mu.Lock()
		first := len(flushed) == 0
		flushed = append(flushed, slices.Clone(items))
		mu.Unlock()
		if first {
			close(started)
			<-release // the first flush is slow: the others wait and group
			return nil
		}
		return core.Errorf(core.CodeInternal, "second flush failed")
	}}
	ctx := t.Context()
	firstDone := make(chan error, 1)
	go func() { firstDone <- g.do(ctx, 0) }()
	<-started

	const others = 5
	errs := make(chan error, others)
	for i := 1; i <= others; i++ {
		go func() { errs <- g.do(ctx, i, i*10) }()
	}
	// Poll (with a deadline) until all of them have joined the open group.
	deadline := time.After(10 * time.Second)
	for joined := 0; joined < 2*others; {
		select {
		case <-deadline:
			t.Fatalf("only %d of %d items joined the next group", joined, 2*others)
		case <-time.After(time.Millisecond):
		}
		g.mu.Lock()
		if g.open != nil {
			joined = len(g.open.items)
		}
		g.mu.Unlock()
	}
	select {
	case err := <-errs:
		t.Fatalf("a call returned before its group was flushed: %v", err)
	default:
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatalf("first call: %v", err)
	}
	for range others {
		if err := <-errs; core.ErrorCode(err) != core.CodeInternal {
			t.Fatalf("a call of the second group returned %v, want its flush's error", err)
		}
	}
	if len(flushed) != 2 || len(flushed[1]) != 2*others {
		t.Fatalf("flushes %v; want [0] and one group of the other %d calls", flushed, others)
	}
	for i := 0; i < len(flushed[1]); i += 2 {
		if flushed[1][i+1] != 10*flushed[1][i] {
			t.Fatalf("second group %v: a call's items were split", flushed[1])
		}
	}
	// A call alone is flushed at once.
	if err := g.do(ctx, 7); core.ErrorCode(err) != core.CodeInternal || len(flushed) != 3 || !slices.Equal(flushed[2], []int{7}) {
		t.Fatalf("a call alone: %v, flushes %v", err, flushed)
	}
}

// A flush that panics still ends its group: its callers get an error
// instead of waiting forever, and the next call flushes again.
func TestGroupedPanickingFlushEndsTheGroup(t *testing.T) {
	calls := 0
	g := &grouped[int]{flush: func(context.Context, []int) error {
		calls++
		if calls == 1 {
			panic("store died")
		}
		return nil
	}}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		_ = g.do(t.Context(), 1)
	}()
	if err := g.do(t.Context(), 2); err != nil || calls != 2 {
		t.Fatalf("after a panicking flush: %v, %d flushes", err, calls)
	}
}
