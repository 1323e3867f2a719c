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

// BenchSaveLoadConsume measures the gate's store round trip — SavePreview,
// LoadPreview, StartRun on the handle — with clients concurrent callers
// sharing b.N cycles. It reports cycles/s.
func BenchSaveLoadConsume(b *testing.B, s core.Store, clients int) {
	ctx := context.Background()
	prefix := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), benchSeq.Add(1))
	plan := make([]byte, 4096) // a plan of a few dozen items
	for i := range plan {
		plan[i] = byte('a' + i%26)
	}
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
				h := fmt.Sprintf("%s-%d", prefix, i)
				err := s.SavePreview(ctx, core.Preview{Handle: h, Kind: core.PreviewImport, Scope: "bench",
					Plan: plan, CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
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
				if err != nil {
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

// BenchLockCycle measures an uncontended commit-lock cycle — AcquireLock
// and release on a name of its own — with clients concurrent callers
// sharing b.N cycles. It reports cycles/s.
func BenchLockCycle(b *testing.B, s core.Store, clients int) {
	ctx := context.Background()
	prefix := fmt.Sprintf("bench-lock-%d-%d", time.Now().UnixNano(), benchSeq.Add(1))
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	b.ResetTimer()
	for c := range clients {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				lk, err := s.AcquireLock(ctx, fmt.Sprintf("%s-%d", prefix, i), fmt.Sprint("owner-", c), time.Minute)
				if err == nil {
					err = lk.Release(ctx)
				}
				if err != nil {
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
