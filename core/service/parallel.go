package service

import (
	"context"
	"slices"
	"sync"

	"github.com/devworkwire/devworkwire/core"
)

// Writes in flight together. A commit's writes form a small
// graph: a story's create needs its epic's key, a rank or sprint move
// needs its items' keys, a link both ends'. The commit lists every write
// as a step with what it waits for, and schedule sends each as soon as
// that has ended, at most WritesInFlight at a time: a ready structure
// write (link, sprint or rank move) first, else the first ready step in
// the list's order (epics, stories, sub-tasks, the duplicate check, then
// the structure writes). So rank, sprint and link writes go out while
// later stories are still being created, and a story batch waits only for
// its own epics; with one write at a time, a structure write goes right
// after the last write it waits for. Every write
// still passes its own fence first (with its write-ahead markers), and
// records its outcome as it ends. Fail-fast and cancellation work as with
// one write at a time: once a write has failed (or the run stopped for any
// reason) or the context ended, no new write starts; the writes already in
// flight finish and are recorded, and the report shows them as committed,
// failed or unknown, and the rest as untried. A plan touches each issue
// once, and a structure write waits for its items' own writes, so two
// writes to one issue are never in flight together.

// step is one write of a commit (a create batch, an update, a structure
// write) and what it waits for.
type step struct {
	write func(context.Context)
	after []*step // steps that must have ended first
	// afterSent are steps whose request must have left first (or that
	// must have ended, when the provider does not say: sendorder.go).
	afterSent []*step
	needs     []core.Reference // items this commit writes that must be written (committed) first
	// writes are the items the step writes: once it ends, each whose
	// outcome is committed is ready for the steps that need it.
	writes []core.Reference
	create bool // a create batch
	// structure writes (links, sprint and rank moves) go before item
	// writes that are ready too: theirs are written, and under Jira's
	// burst limit their own endpoint's budget runs from their first send.
	structure bool
	order     int // its position in the plan (sendorder.go)
	started   bool
	sent      bool // its provider said its request left (sendorder.go)
	ended     bool
}

// readyStep reports whether s may start: x.mu held.
func (x *execution) readyStep(s *step) bool {
	for _, a := range s.after {
		if !a.ended {
			return false
		}
	}
	for _, a := range s.afterSent {
		if !a.sent && !a.ended {
			return false
		}
	}
	for _, r := range s.needs {
		if !x.written[r] {
			return false
		}
	}
	return true
}

// schedule runs steps, at most s.writes at a time, each once what it
// waits for has ended, and returns when every step that started has ended.
// Steps that never start (the run stopped, or what they wait for failed)
// are left untried.
func (x *execution) schedule(ctx context.Context, steps []*step) {
	var (
		ended    = make(chan *step)
		sent     = make(chan *step, len(steps)) // never blocks a write
		running  int
		first    int // steps before it have all started
		panicked any
		pmu      sync.Mutex
	)
	for i, s := range steps {
		s.order = i
	}
	start := func(s *step) {
		s.started = true
		running++
		go func() {
			defer func() { ended <- s }()
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
						x.stop, x.why = core.Errorf(core.CodeInternal, "a write panicked"), "a write panicked"
					}
					x.mu.Unlock()
				}
			}()
			var once sync.Once
			wctx := core.WithSent(core.WithSendOrder(ctx, s.order), func() { once.Do(func() { sent <- s }) }) // sendorder.go
			s.write(wctx)
		}()
	}
	for {
		for running < x.s.writes && !x.stopped() && !x.cancelled(ctx) {
			for first < len(steps) && steps[first].started {
				first++
			}
			var next *step
			x.mu.Lock()
			for _, s := range steps[first:] {
				if !s.started && (next == nil || s.structure && !next.structure) && x.readyStep(s) {
					next = s
					if s.structure {
						break
					}
				}
			}
			x.mu.Unlock()
			if next == nil {
				break
			}
			start(next)
		}
		if running == 0 {
			break
		}
		var s *step
		select {
		case s = <-sent:
			x.mu.Lock()
			s.sent = true
			x.mu.Unlock()
			continue
		case s = <-ended:
		}
		running--
		x.mu.Lock()
		s.ended = true
		for _, r := range s.writes {
			if oc, ok := x.outcome[r]; ok && oc.Outcome == core.OutcomeCommitted {
				x.written[r] = true
			}
		}
		x.mu.Unlock()
	}
	if panicked != nil {
		panic(panicked)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stop == nil && slices.ContainsFunc(steps, func(s *step) bool { return !s.started }) {
		// Not expected: a step waits only for writes that end written or
		// stop the run. Never a commit that silently leaves writes out.
		x.stop, x.why = core.Errorf(core.CodeInternal, "a planned write was never sent: what it waits for was not written"), "a planned write was never sent"
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
		x.stop, x.why = core.Wrap(err, core.CodeInternal, "the commit was cancelled"), "the commit was cancelled"
	}
	return true
}

// clearMarkers clears the write-ahead markers of a batch that was fenced
// but not sent: its items are certainly not created.
func (x *execution) clearMarkers(ctx context.Context, batch []*planEntry) {
	now := core.UTCSecond(x.s.now())
	index := make([]core.IndexEntry, len(batch))
	for i, e := range batch {
		index[i] = core.IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, UpdatedAt: now}
	}
	if err := x.s.st.UpsertIndex(context.WithoutCancel(ctx), index); err != nil {
		x.o.log.Error("could not clear the write-ahead markers of a batch not sent", "code", core.ErrorCode(err), "items", len(index))
	}
}
