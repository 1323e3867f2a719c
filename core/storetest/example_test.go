package storetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// memHarness runs the suite against memstore from the suite's own package,
// so `go test ./core/storetest` exercises the suite itself.
type memHarness struct{ s *memstore.Store }

func (h *memHarness) Open(_ context.Context, now func() time.Time) (core.Store, error) {
	if h.s == nil {
		h.s = memstore.New(memstore.Options{Now: now})
		return h.s, nil
	}
	return h.s.Reopen(memstore.Options{Now: now}), nil
}

func (h *memHarness) TamperPlan(_ context.Context, handle string) error {
	h.s.TamperPlan(handle, []byte("x"))
	return nil
}

func (h *memHarness) Close() error { return nil }

func newMemHarness(context.Context, testing.TB) (storetest.Harness, error) { return &memHarness{}, nil }

func TestSuiteOnMemstore(t *testing.T) {
	storetest.Run(t, newMemHarness, storetest.Options{Goroutines: 8, Handles: 50})
}

func BenchmarkSuiteOnMemstore(b *testing.B) { storetest.RunBenchmarks(b, newMemHarness) }

func TestClock(t *testing.T) {
	c := storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 1999, time.UTC))
	if got := c.Now(); got.Nanosecond() != 1000 {
		t.Fatalf("clock not truncated to microseconds: %v", got)
	}
	if got := c.Advance(time.Hour); !got.Equal(time.Date(2026, 1, 1, 1, 0, 0, 1000, time.UTC)) {
		t.Fatalf("Advance = %v", got)
	}
}
