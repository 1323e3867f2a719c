package core

import (
	"context"
	"sync"
)

// Writes in flight together (issue 20). Within one phase of an import
// commit (the epics, then the stories under them) no write depends on
// another, so parallel sends them together, at most WritesInFlight at a
// time, in plan order. Every write still passes its own fence first (with
// its write-ahead markers), and records its outcome as it ends. Fail-fast
// and cancellation work as with one write at a time: once a write has
// failed (or the run stopped for any reason) or the context ended, no new
// write starts; the writes already in flight finish and are recorded, and
// the report shows them as committed, failed or unknown, and the rest as
// untried. A plan touches each issue once, so two writes to one issue are
// never in flight together.

// parallel runs writes, at most s.writes at a time, and returns when all
// that started have ended.
func (x *execution) parallel(ctx context.Context, writes []func(context.Context)) {
	slots := make(chan struct{}, x.s.writes)
	var (
		wg       sync.WaitGroup
		panicked any
		pmu      sync.Mutex
	)
	for _, write := range writes {
		slots <- struct{}{} // a slot: a write in flight has ended
		if x.stopped() || x.cancelled(ctx) {
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer func() {
				// A panic (a test's simulated process death) is re-raised
				// in the caller's goroutine once the others have ended.
				if r := recover(); r != nil {
					pmu.Lock()
					if panicked == nil {
						panicked = r
					}
					pmu.Unlock()
					x.mu.Lock()
					if x.stop == nil {
						x.stop, x.why = Errorf(CodeInternal, "a write panicked"), "a write panicked"
					}
					x.mu.Unlock()
				}
			}()
			write(ctx)
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// stopped reports whether the run has stopped.
func (x *execution) stopped() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stop != nil
}

// cancelled stops the run when ctx has ended and reports whether it did.
func (x *execution) cancelled(ctx context.Context) bool {
	err := ctx.Err()
	if err == nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stop == nil {
		x.stop, x.why = Wrap(err, CodeInternal, "the commit was cancelled"), "the commit was cancelled"
	}
	return true
}

// clearMarkers clears the write-ahead markers of a batch that was fenced
// but not sent: its items are certainly not created.
func (x *execution) clearMarkers(ctx context.Context, batch []*planEntry) {
	now := utc(x.s.now())
	index := make([]IndexEntry, len(batch))
	for i, e := range batch {
		index[i] = IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, UpdatedAt: now}
	}
	if err := x.s.st.UpsertIndex(context.WithoutCancel(ctx), index); err != nil {
		x.o.log.Error("could not clear the write-ahead markers of a batch not sent", "code", ErrorCode(err), "items", len(index))
	}
}
