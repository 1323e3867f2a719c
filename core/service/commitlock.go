package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The commit lock serialises commits of one document (or, for progress,
// one item), so two previews of it committed at the same moment cannot
// both pass the stale check: the second one checks only once the first has
// finished, and then sees what it wrote.
//
// Its owner is the commit's idempotency key and handle (lockOwner), not its
// run id: a process killed after taking the lock and before starting its
// run leaves the lock behind with no run, and a retry with the same key and
// handle takes that lock over at once (the store's locks are re-entrant by
// owner) instead of waiting out the lease and failing.

// The lock is also a fence (a lease alone is not): it carries a
// generation (Lock.Generation, the fencing token), and before every write
// the commit calls fence, one atomic store step (Store.Fence) that checks
// the lock is still held at that generation and, for a create batch,
// records the batch's write-ahead markers. A holder paused past its lease
// (a closed laptop lid, Ctrl-Z, a GC pause) whose lock another commit took
// over meanwhile is refused there and stops before sending anything more;
// the taker-over sees every marker of a fence that succeeded, so items the
// paused holder may still be creating are held back, never taken as absent.

// A commit of several documents (an import of a directory) takes the lock
// of each of them, in sorted order of their names, so two such commits
// sharing documents never wait for each other in a cycle; it releases
// them all when it returns. Its fence checks every lock, each in its own
// store step that records the write-ahead markers of that lock's
// document: a taker-over of any of the documents sees the markers of that
// document's items.

// lockName names one commit lock: name is the store's, what is for people
// ("document checkout-v2"); document, for an import lock, is the document
// whose items' markers the lock's fence records ("" records all).
type lockName struct {
	name, what, document string
}

// sortedLocks are names sorted and without repeats: the order locks are
// taken in.
func sortedLocks(names []lockName) []lockName {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b lockName) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(out, func(a, b lockName) bool { return a.name == b.name })
}

// commitLocks are the commit locks a commit holds, in the order taken.
type commitLocks []*commitLock

// lockCommits takes the named locks for owner in sorted order (each as
// lockCommit does); when one cannot be taken, those already taken are
// released and its error is returned.
func (s *WorkItemService) lockCommits(ctx context.Context, o *op, kind core.PreviewKind, names []lockName, owner string, waiting func(CommitWait)) (commitLocks, error) {
	var held commitLocks
	for _, n := range sortedLocks(names) {
		l, err := s.lockCommit(ctx, o, kind, n.name, owner, n.what, waiting)
		if err != nil {
			_ = held.unlock(ctx, false) // logged; the refusal is what this commit answers
			return nil, err
		}
		l.document = n.document
		held = append(held, l)
	}
	return held, nil
}

// fence fences a write against every lock (commitLock.fence, in the order
// taken): each lock's step records the markers of its document. The first
// refusal stops it and is returned.
func (ls commitLocks) fence(ctx context.Context, markers []core.IndexEntry) error {
	if len(ls) == 1 {
		return ls[0].fence(ctx, markers)
	}
	for _, l := range ls {
		var mine []core.IndexEntry
		for _, m := range markers {
			if l.document == "" || m.Reference.Document() == l.document {
				mine = append(mine, m)
			}
		}
		if err := l.fence(ctx, mine); err != nil {
			return err
		}
	}
	return nil
}

// unlock unlocks every lock (commitLock.unlock), the last taken first,
// and returns the first release that failed.
func (ls commitLocks) unlock(ctx context.Context, keep bool) error {
	var first error
	for i := len(ls) - 1; i >= 0; i-- {
		if err := ls[i].unlock(ctx, keep); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// commitLock is a held commit lock, renewed while the commit runs.
type commitLock struct {
	s     *WorkItemService
	o     *op
	name  string
	owner string
	what  string // the locked document or item, for people
	// document is the document whose markers this lock's fence records
	// (lockName.document).
	document string
	lock     core.Lock
	stop     chan struct{}
	done     chan struct{}
	// lost is set once the lock was seen in other hands.
	lost atomic.Bool
	// fences runs the fences of writes that go out together as one store
	// step (record.go's group commit); checks those without markers (a
	// read in the store: they wait for no marker being written).
	fences, checks *grouped[core.IndexEntry]
}

// lockCommit takes the named commit lock for owner. It waits up to
// lockWait for a busy lock (polling the store), then refuses with
// PREVIEW_STALE; while held, the lease is renewed every beat (lockBeat). what
// names the locked document or item for people. waiting (may be nil) is
// told what the commit waits for, when it starts waiting, whenever the
// lock passes to another holder, and when its holder falls silent (not
// running: CommitWait.Silent).
func (s *WorkItemService) lockCommit(ctx context.Context, o *op, kind core.PreviewKind, name, owner, what string, waiting func(CommitWait)) (*commitLock, error) {
	deadline := time.Now().Add(s.lockWait)
	pause := 20 * time.Millisecond
	told := ""
	var lk core.Lock
	for {
		var err error
		lk, err = s.st.AcquireLock(ctx, name, owner, s.lockLease)
		if err == nil {
			break
		}
		var held *core.LockHeldError
		if !errors.As(err, &held) {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			until := core.UTCSecond(held.Expires).Format(time.RFC3339)
			rerun := core.RerunInSentence(kind) + " and commit the new handle"
			return nil, core.Errorf(core.CodePreviewStale, "Another commit of %s (%s) is writing to the tracker right now, and did not finish within %s. This preview was made before that commit's writes, so it cannot be trusted to match the tracker. Nothing was written. Once that commit is done (if its process died, its lock lapses by %s), %s.",
				what, describeHolder(held.Owner), core.Ago(s.lockWait), until, rerun).WithRerun(rerun).
				WithDetails(core.Detail{Item: what, Message: fmt.Sprintf("commit lock held by run of %s until %s", describeHolder(held.Owner), until)})
		}
		o.log.Info("waiting for another commit of the same document", "lock", name, "holder", held.Owner)
		w := CommitWait{What: what, Holder: describeHolder(held.Owner), Until: core.UTCSecond(held.Expires), GiveUp: core.UTCSecond(s.now().Add(left))}
		if !held.Renewed.IsZero() && held.Silent > s.lockSilence() {
			w.Silent = held.Silent
		}
		// Told once per holder, and again when it falls silent.
		if state := fmt.Sprint(held.Owner, w.Silent > 0); waiting != nil && told != state {
			told = state
			waiting(w)
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, core.Wrap(ctx.Err(), core.CodeInternal, "The commit was cancelled while it waited for another commit of %s to finish. Nothing was written.", what)
		case <-t.C:
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
	l := &commitLock{s: s, o: o, name: name, owner: owner, what: what, lock: lk, stop: make(chan struct{}), done: make(chan struct{})}
	flush := func(ctx context.Context, markers []core.IndexEntry) error {
		return s.st.Fence(ctx, name, owner, lk.Generation, markers)
	}
	l.fences, l.checks = &grouped[core.IndexEntry]{flush: flush}, &grouped[core.IndexEntry]{flush: flush}
	go l.renew(context.WithoutCancel(ctx))
	return l, nil
}

// renew renews the lease every beat (lockBeat: the heartbeat a repeat of
// the commit's key reads, lockHolder) until unlock, or until it sees the
// lock in other hands (the next fence then stops the commit).
func (l *commitLock) renew(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(l.s.lockBeat())
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			lk, err := l.s.st.AcquireLock(ctx, l.name, l.owner, l.s.lockLease)
			var held *core.LockHeldError
			switch {
			case err == nil && lk.Generation != l.lock.Generation:
				// Someone took the lock over and released it since: this is
				// a new lock, not ours. Give it back; the commit is fenced.
				if rerr := lk.Release(ctx); rerr != nil {
					l.o.log.Warn("could not release a lock taken back by renewal", "lock", l.name, "code", core.ErrorCode(rerr))
				}
				l.lose()
				return
			case errors.As(err, &held):
				l.lose()
				return
			case err != nil:
				l.o.log.Error("could not renew the commit lock", "lock", l.name, "code", core.ErrorCode(err))
			}
		}
	}
}

func (l *commitLock) lose() {
	if !l.lost.Swap(true) {
		l.o.log.Warn("the commit lock was taken over by another commit; this commit stops at its next write", "lock", l.name, "generation", l.lock.Generation)
	}
}

// fence is the atomic store step before a write: it verifies the lock is
// still held at its generation and records markers (the write-ahead
// markers of a create batch; none before an update, transition or
// comment). When the lock was taken over it returns COMMIT_INTERRUPTED
// (lockLostError) and nothing is written; other store faults are returned
// as they are. Fences asked for while another one runs are one store step
// (one Fence with all their markers) once it ended: each of them still
// verifies the lock after its caller asked, before that caller sends.
func (l *commitLock) fence(ctx context.Context, markers []core.IndexEntry) error {
	g := l.fences
	if len(markers) == 0 {
		g = l.checks
	}
	err := g.do(ctx, markers...)
	var lost *core.LockLostError
	if errors.As(err, &lost) {
		l.lose()
		return lockLostError(l.what, lost, err)
	}
	return err
}

// lockLostError is why a fenced-out commit stopped: COMMIT_INTERRUPTED,
// its run interrupted by the loss of its lock. (A commit that wrote
// something before ends COMMIT_PARTIAL, with this as the cause.)
func lockLostError(what string, lost *core.LockLostError, cause error) *core.Error {
	holder := "nobody holds it now"
	if lost.Holder != "" {
		holder = fmt.Sprintf("another commit (%s) holds it now", describeHolder(lost.Holder))
	}
	return core.Wrap(cause, core.CodeCommitInterrupted, "this commit lost the commit lock of %s: its lease ran out while the commit was paused or cut off, and %s (lock generation %d; this commit had %d), so it stopped before sending anything more",
		what, holder, lost.HolderGeneration, lost.Generation)
}

// unlock stops renewing and releases the lock unless keep is set: a commit
// that found its key's run started by a concurrent call of the same key and
// handle leaves the lock to that call.
func (l *commitLock) unlock(ctx context.Context, keep bool) error {
	close(l.stop)
	<-l.done
	if keep {
		l.o.log.Info("commit lock left to the concurrent commit with the same idempotency key", "lock", l.name)
		return nil
	}
	err := l.lock.Release(context.WithoutCancel(ctx))
	var lost *core.LockLostError
	if errors.As(err, &lost) {
		return nil // another commit holds it now: nothing left to release
	}
	if err != nil {
		l.o.log.Warn("could not release the commit lock; it lapses with its lease", "lock", l.name, "code", core.ErrorCode(err))
	}
	return err
}

// lockBeat is how often a commit renews its lock: every
// core.CommitLockBeat, or every third of a shorter lease.
func (s *WorkItemService) lockBeat() time.Duration {
	return max(min(s.lockLease/3, core.CommitLockBeat), time.Millisecond)
}

// lockSilence is how long a holder may go without renewing its lock and
// still be taken as running: core.CommitLockSilentBeats beats, at most
// the lease.
func (s *WorkItemService) lockSilence() time.Duration {
	return min(core.CommitLockSilentBeats*s.lockBeat(), s.lockLease)
}

// lockOwner is the owner of a commit's lock: its idempotency key and
// handle. A retry of the same commit (same key, same handle) is the same
// owner, so it takes over a lock its killed predecessor left behind.
func lockOwner(key, handle string) string { return key + "|" + handle }

// describeHolder names a commit lock's holder for people.
func describeHolder(owner string) string {
	if key, handle, ok := strings.Cut(owner, "|"); ok {
		return fmt.Sprintf("idempotency key %s, preview %s", key, handle)
	}
	return owner
}

// keepSharedLock reports whether a commit that did not start its run must
// leave the commit lock alone: a run under its key (the same owner) is in
// progress, started by a concurrent call of the same key and handle, which
// holds the lock for its writes.
func (s *WorkItemService) keepSharedLock(ctx context.Context, o *op, key string) bool {
	run, found, err := s.st.GetRun(context.WithoutCancel(ctx), key)
	return err == nil && found && run.State == core.RunInProgress && run.ID != o.runID
}

// lockedWhat names what a kind's commit lock protects.
func lockedWhat(k core.PreviewKind) string {
	if k == core.PreviewProgress {
		return "item"
	}
	return "document"
}
