package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// fullStore is a flakyStore whose disk is full: every write from the
// failing outcome on fails the way the SQLite store words a full disk,
// and so do finishing the run and releasing a lock.
type fullStore struct{ flakyStore }

func newFullStore(st core.Store, failFrom int) *fullStore {
	return &fullStore{flakyStore{Store: st, failFrom: failFrom, fault: "The disk holding the SQLite state store /home/me/state.db is full (while trying to record outcomes). Free some space and try again."}}
}

func (f *fullStore) FinishRun(ctx context.Context, key string, state core.RunState, result []byte, at time.Time) error {
	if f.failing() {
		return f.failure()
	}
	return f.Store.FinishRun(ctx, key, state, result, at)
}

func (f *fullStore) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	lk, err := f.Store.AcquireLock(ctx, name, owner, lease)
	if err != nil {
		return lk, err
	}
	release := lk.Release
	lk.Release = func(ctx context.Context) error {
		if f.failing() {
			return f.failure()
		}
		return release(ctx)
	}
	return lk, nil
}

// A commit stopped by a full disk says so (not only "INTERNAL_ERROR"),
// and says what it could not record of its end and that its lock is
// kept, so a repeat's "running" and the next commit's wait are explained.
func TestFullDiskIsNamedInTheCommit(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("f", 2, 60)) // epics, then stories in batches of 50
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: newFullStore(e.st, 2), Now: e.clock.Now})
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "full"})
	wantErr(t, err, core.CodeCommitPartial,
		"is full",
		"could not record how this commit ended",
		"a repeat of idempotency key full finds it unfinished",
		"commit lock could not be released")
	// Its lock is kept (the disk is full) but nobody renews it: a repeat
	// of its key a few seconds later is told it is not running.
	e.clock.Advance(silence + time.Second)
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "full"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, "is not running", "did not finish", "0 item outcome(s) were recorded")
	if strings.Contains(ce.Message, "running now") {
		t.Errorf("a commit that ended is reported running: %q", ce.Message)
	}
}

// endlessStore records every outcome, but not the run's end, and cannot
// release a lock: the disk filled up right after the last write.
type endlessStore struct{ fullStore }

func (s *endlessStore) RecordOutcomes(ctx context.Context, key string, outcomes []core.ItemOutcome) error {
	return s.Store.RecordOutcomes(ctx, key, outcomes)
}

// A commit that wrote everything but whose end the store could not
// record (nor its lock's release) returns its result, and the result
// says so: a repeat of its key will not replay it, and the next commit
// waits for the lock.
func TestCommitWhoseEndWasNotRecordedSaysSo(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	st := &endlessStore{*newFullStore(e.st, 0)}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: st, Now: e.clock.Now})
	res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "unrecorded"})
	if err != nil {
		t.Fatalf("commit: %v; want its result", err)
	}
	if res.Counts.Created != 6 || len(res.Warnings) != 2 {
		t.Fatalf("created %d, warnings %q; want 6 and two warnings", res.Counts.Created, res.Warnings)
	}
	for i, want := range [][]string{
		{"Everything above was written", "could not record that this commit finished", "is full", "idempotency key unrecorded will not replay"},
		{"commit lock could not be released", "waits until the lock's lease lapses"},
	} {
		for _, w := range want {
			if !strings.Contains(res.Warnings[i], w) {
				t.Errorf("warning %d %q lacks %q", i, res.Warnings[i], w)
			}
		}
	}
}

// A commit that waits for another commit of the same document is told
// what it waits for, who holds it and until when, once, as it starts
// waiting; it goes on as soon as the lock is free.
func TestWaitingCommitSaysWhatItWaitsFor(t *testing.T) {
	e := newEnv(t)
	waits, other := commitBehind(e, "other-key|imp_other", 0)
	if len(waits) != 1 {
		t.Fatalf("told of %d waits, want 1: %+v", len(waits), waits)
	}
	w := waits[0]
	if w.What != "document w" || !strings.Contains(w.Holder, "other-key") || !w.Until.Equal(other.Expires.UTC().Truncate(time.Second)) || !w.GiveUp.After(e.clock.Now()) {
		t.Errorf("wait %+v; want document w, held by other-key until %s, given up later", w, other.Expires)
	}
}

// A commit that waits for a lock whose holder stopped renewing it (its
// process was killed) is told that holder is not running, and that the
// wait lasts until the lock lapses.
func TestWaitingForADeadHolderSaysSo(t *testing.T) {
	e := newEnv(t)
	// nobody renews the other lock: its process was killed
	waits, _ := commitBehind(e, "dead-key|imp_dead", silence+time.Second)
	if len(waits) != 1 || waits[0].Silent != silence+time.Second {
		t.Fatalf("told of waits %+v; want one, its holder silent for %s", waits, silence+time.Second)
	}
	msg := waits[0].String()
	for _, want := range []string{"held by a commit that is not running", "dead-key", "has not renewed the lock for 6 seconds", "lapses at"} {
		if !strings.Contains(msg, want) {
			t.Errorf("wait message %q lacks %q", msg, want)
		}
	}
}

// commitBehind previews document w, takes its commit lock as another
// commit (owner), lets that holder be silent for so long (0: it is
// renewing), then commits. The commit waits; its first wait releases the
// other lock (the other commit ending, or its lease lapsing, sooner). It
// returns the waits the commit was told of and the other commit's lock;
// the commit must succeed after its wait.
func commitBehind(e *env, owner string, silent time.Duration) ([]service.CommitWait, core.Lock) {
	e.t.Helper()
	pre := e.preview(bigDoc("w", 1, 2))
	other, err := e.st.AcquireLock(e.ctx, "import|"+e.p.Scope()+"|w", owner, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	if silent > 0 {
		e.clock.Advance(silent)
	}
	var waits []service.CommitWait
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: e.st, Now: e.clock.Now, CommitLockWait: time.Minute})
	_, err = svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, Waiting: func(w service.CommitWait) {
		waits = append(waits, w)
		if err := other.Release(e.ctx); err != nil {
			e.t.Errorf("releasing the other commit's lock: %v", err)
		}
	}})
	if err != nil {
		e.t.Fatalf("commit after the wait: %v", err)
	}
	return waits, other
}
