package service

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
)

// One write of a commit, the same in every workflow (an import's creates,
// updates, structure writes and removals; a progress transition or
// comment; a pull's document and bases):
//
//  1. fence: the state store checks, in one step, that this commit still
//     holds its lock, and records the write's write-ahead markers
//     (commitlock.go);
//  2. send: the write itself;
//  3. outcome: what its result means, as dedup index entries and outcomes
//     (outcome.go: a write sent whose answer was lost is unknown, not
//     failed);
//  4. record: those, durably, before anything depends on them (record.go).
//
// A fence or record failure stops the run: nothing further is sent, since
// writing on without a record of what was written is how duplicates and
// lost outcomes happen. The run's result then says what was written.

// writeStep is one write of a commit.
type writeStep struct {
	// markers are recorded by the fence, in the store step that checks
	// the lock (write-ahead: a taker-over sees them).
	markers []core.IndexEntry
	// ready, when set, is asked once the fence has passed: false leaves
	// the write unsent, with no outcome (the run stopped meanwhile).
	ready func() bool
	// send makes the write.
	send func(ctx context.Context) error
	// outcome turns the write's end into what the store keeps. err is the
	// send's error or, when the write was not sent (sent false), the
	// fence's or the cancellation's. Nothing to keep: nil, nil.
	outcome func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome)
	// record records them; nil: the run's record (commitRun.record).
	record func(ctx context.Context, index []core.IndexEntry, recs []core.ItemOutcome) error
}

// stepEnd is how a writeStep ended.
type stepEnd struct {
	sent bool  // the write was sent
	err  error // the send's error, or why it was not sent; nil when written (or not ready)
	// fence is the fence's error: the lock was lost (COMMIT_INTERRUPTED)
	// or the store failed; nothing was sent.
	fence error
	// record is the store's error recording the outcome: the write
	// happened (or was tried), but nothing further may be sent.
	record error
}

// write runs one write: a cancelled context sends nothing; then the
// fence, the send, its outcome and the record of that outcome.
func (r *commitRun) write(ctx context.Context, w writeStep) stepEnd {
	var end stepEnd
	switch {
	case ctx.Err() != nil:
		end.err = core.Wrap(ctx.Err(), core.CodeInternal, "the commit was cancelled")
	default:
		if err := r.lock.fence(ctx, w.markers); err != nil {
			end.err, end.fence = err, err
		} else if w.ready != nil && !w.ready() {
			return end
		} else {
			end.err, end.sent = w.send(ctx), true
		}
	}
	index, recs := w.outcome(end.err, end.sent)
	if len(index) == 0 && len(recs) == 0 {
		return end
	}
	record := w.record
	if record == nil {
		record = func(ctx context.Context, index []core.IndexEntry, recs []core.ItemOutcome) error {
			return r.record(ctx, index, recs...)
		}
	}
	end.record = record(ctx, index, recs)
	return end
}
