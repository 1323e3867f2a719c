package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

var benchSeq atomic.Int64

// RunBenchmarks is the suite's benchmark entry point (a store calls it
// from one Benchmark function, e.g. BenchmarkStore). On a fresh harness
// from newHarness, with the store on its own clocks, it runs:
//
//	SaveLoadConsume/clients=1,16: the gate's store round trip —
//	    SavePreview, LoadPreview, StartRun on the handle;
//	LockCycle/clients=1,16: an uncontended commit-lock cycle —
//	    AcquireLock and Release on a name of its own.
//
// clients concurrent callers share b.N cycles; each reports cycles/s.
func RunBenchmarks(b *testing.B, newHarness HarnessMaker) {
	for _, bm := range []struct {
		name  string
		cycle func(ctx context.Context, s core.Store, prefix string, i int64, now time.Time) error
	}{{"SaveLoadConsume", saveLoadConsume}, {"LockCycle", lockCycle}} {
		b.Run(bm.name, func(b *testing.B) {
			for _, clients := range []int{1, 16} {
				b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
					benchCycles(b, newEnv(b, newHarness).openReal(), clients, bm.cycle)
				})
			}
		})
	}
}

// plan is a benchmark plan of a few dozen items.
var benchPlan = func() []byte {
	plan := make([]byte, 4096)
	for i := range plan {
		plan[i] = byte('a' + i%26)
	}
	return plan
}()

func saveLoadConsume(ctx context.Context, s core.Store, prefix string, i int64, now time.Time) error {
	h := fmt.Sprintf("%s-%d", prefix, i)
	err := s.SavePreview(ctx, core.Preview{Handle: h, Kind: core.PreviewImport, Scope: "bench",
		Plan: benchPlan, CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err == nil {
		_, err = s.LoadPreview(ctx, h)
	}
	if err == nil {
		var started bool
		_, started, err = s.StartRun(ctx, core.StartRunRequest{Key: "k-" + h, Handle: h, RunID: "r-" + h, Now: now})
		if err == nil && !started {
			err = fmt.Errorf("StartRun(%s) did not start", h)
		}
	}
	return err
}

func lockCycle(ctx context.Context, s core.Store, prefix string, i int64, _ time.Time) error {
	lk, err := s.AcquireLock(ctx, fmt.Sprintf("%s-%d", prefix, i), "owner", time.Minute)
	if err == nil {
		err = lk.Release(ctx)
	}
	return err
}

// benchCycles runs b.N cycles over clients concurrent callers.
func benchCycles(b *testing.B, s core.Store, clients int, cycle func(ctx context.Context, s core.Store, prefix string, i int64, now time.Time) error) {
	ctx := b.Context()
	prefix := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), benchSeq.Add(1))
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	now := time.Now()
	b.ResetTimer()
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := cycle(ctx, s, prefix, i, now); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}
