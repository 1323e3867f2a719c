package service

import (
	"context"
	"sync"

	"github.com/devworkwire/devworkwire/core"
)

// Outcome recording. Every outcome of a commit is recorded
// durably before anything depends on it: before the write's slot goes to
// the next write (parallel.go), before progress is reported, and before
// the run finishes. A store transaction is one flush to disk (SQLite's
// WAL under synchronous=FULL, a Postgres commit), and one transaction per
// item outcome made the store, not the tracker, the slowest part of a
// large commit. So a commit records in groups, each group one
// RecordOutcomes call (all or none of it):
//
//   - a create batch's outcomes (and its items' dedup index entries)
//     are one call;
//   - calls made while another group is being recorded wait and form the
//     next group (group commit): when that recording ends, one of them
//     records the whole group for all, and every caller returns once its
//     group is durable. Writes that end together (concurrent edits) so
//     share one transaction; a write that ends alone is recorded at once.
//
// Within a group the dedup index entries are upserted first (they are
// what keeps a later preview from creating an item again), then the
// outcomes are recorded. Groups are recorded in the order they formed,
// and a group's entries in the order its callers joined it.

// trail is what one write leaves in the state store: its dedup index
// entries and its outcomes.
type trail struct {
	index    []core.IndexEntry
	outcomes []core.ItemOutcome
}

// newRecorder returns the group recorder of the run with this
// idempotency key.
func newRecorder(st core.Store, key string) *grouped[trail] {
	return &grouped[trail]{flush: func(ctx context.Context, ts []trail) error {
		var index []core.IndexEntry
		var outcomes []core.ItemOutcome
		for _, t := range ts {
			index = append(index, t.index...)
			outcomes = append(outcomes, t.outcomes...)
		}
		var first error
		if len(index) > 0 {
			first = st.UpsertIndex(ctx, index)
		}
		// The outcomes are recorded even when the index could not be: the
		// run's record is what a retry reports.
		if err := st.RecordOutcomes(ctx, key, outcomes); first == nil {
			first = err
		}
		return first
	}}
}

// grouped hands the items of concurrent do calls to flush together: a
// call that finds no flush running flushes its group at once; calls made
// meanwhile join the next group, which one of them flushes when the
// running flush ends. Every call returns its group's flush error, once
// that flush has ended.
type grouped[T any] struct {
	flush func(ctx context.Context, items []T) error

	mu   sync.Mutex
	cond *sync.Cond
	busy bool             // a flush is running
	open *pendingGroup[T] // the group calls join now; nil: none yet
}

type pendingGroup[T any] struct {
	items []T
	done  bool
	err   error
}

// errFlushAborted is the error of a group whose flush panicked.
var errFlushAborted = core.Errorf(core.CodeInternal, "the state store step of this group did not finish")

// do adds items to the open group and returns once that group was
// flushed. ctx is the caller's; the flush runs without its cancellation
// (a write that happened is recorded even after a Ctrl-C).
func (g *grouped[T]) do(ctx context.Context, items ...T) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	if g.open == nil {
		g.open = &pendingGroup[T]{}
	}
	p := g.open
	p.items = append(p.items, items...)
	for g.busy && !p.done {
		g.cond.Wait()
	}
	if p.done {
		return p.err
	}
	// No flush runs and this group is still open: flush it, for everyone
	// in it.
	g.open, g.busy = nil, true
	g.mu.Unlock()
	p.err = errFlushAborted // unless the flush returns
	defer func() {
		g.mu.Lock() // released by the first defer
		p.done, g.busy = true, false
		g.cond.Broadcast()
	}()
	p.err = g.flush(context.WithoutCancel(ctx), p.items)
	return p.err
}
