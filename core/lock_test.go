package core_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/fakeprovider"
	"github.com/devworkwire/devworkwire/core/memstore"
	"github.com/devworkwire/devworkwire/core/storeerr"
)

// lockSpy is a store that reports what happens to AcquireLock, and can
// pretend a lock is held by a dead process.
type lockSpy struct {
	*memstore.Store
	mu       sync.Mutex
	held     bool // every AcquireLock is refused (a stuck holder)
	heldFor  int  // the next heldFor AcquireLock calls are refused (a holder whose lease then lapses)
	refused  chan struct{}
	renewals map[string]int // owner → successful acquisitions
	once     sync.Once
}

func newLockSpy(st *memstore.Store) *lockSpy {
	return &lockSpy{Store: st, refused: make(chan struct{}), renewals: map[string]int{}}
}

func (s *lockSpy) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	s.mu.Lock()
	held := s.held || s.heldFor > 0
	if s.heldFor > 0 {
		s.heldFor--
	}
	s.mu.Unlock()
	var (
		lk  core.Lock
		err error
	)
	if held {
		err = storeerr.LockHeld(name, "run_dead", time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC))
	} else {
		lk, err = s.Store.AcquireLock(ctx, name, owner, lease)
	}
	var lh *core.LockHeldError
	if errors.As(err, &lh) {
		s.once.Do(func() { close(s.refused) })
	}
	if err == nil {
		s.mu.Lock()
		s.renewals[owner]++
		s.mu.Unlock()
	}
	return lk, err
}

// gatedProvider holds the first commit's creates until release is closed.
type gatedProvider struct {
	*fakeprovider.Provider
	mu      sync.Mutex
	armed   bool
	lookups int
	second  chan struct{} // closed when a second stale-check lookup arrives
	release <-chan struct{}
	gated   bool
}

func (p *gatedProvider) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	p.mu.Lock()
	if p.armed {
		p.lookups++
		if p.lookups == 2 {
			close(p.second)
		}
	}
	p.mu.Unlock()
	return p.Provider.Lookup(ctx, refs, known)
}

func (p *gatedProvider) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	p.mu.Lock()
	first := !p.gated
	p.gated = true
	p.mu.Unlock()
	if first {
		<-p.release
	}
	return p.Provider.Create(ctx, specs)
}

// Two people preview the same document and commit their (different)
// previews at the same moment. Without the commit lock both pass the stale
// check (nothing exists yet) and both create: duplicates. With it, the
// second checks only after the first finished: PREVIEW_STALE, and the
// tracker holds each item once.
func TestConcurrentCommitsOfTwoPreviewsOfOneDocument(t *testing.T) {
	e := newEnv(t)
	spy := newLockSpy(e.st)
	go1 := make(chan struct{})
	gp := &gatedProvider{Provider: e.p, second: make(chan struct{}), release: go1}
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: gp, Store: spy, Now: e.clock.Now})
	preA := e.preview(checkoutDoc())
	preB := e.preview(checkoutDoc())
	gp.mu.Lock()
	gp.armed = true
	gp.mu.Unlock()
	// The first commit to create waits until the other one has either been
	// refused the lock (with the lock) or passed its own stale check
	// (without it).
	go func() {
		select {
		case <-spy.refused:
		case <-gp.second:
		}
		close(go1)
	}()
	type res struct {
		r   core.ImportCommitResult
		err error
	}
	out := make(chan res, 2)
	for _, h := range []string{preA.PreviewHandle, preB.PreviewHandle} {
		go func() {
			r, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: h, Confirmed: true})
			out <- res{r, err}
		}()
	}
	var ok, stale int
	for range 2 {
		r := <-out
		switch {
		case r.err == nil && r.r.Counts.Created == 6:
			ok++
		case core.ErrorCode(r.err) == core.CodePreviewStale:
			stale++
			wantErr(t, r.err, core.CodePreviewStale, "tracker changed", "Nothing was written")
		default:
			t.Errorf("commit: %+v, %v", r.r.Counts, r.err)
		}
	}
	if ok != 1 || stale != 1 {
		t.Errorf("%d commits succeeded, %d were stale; want 1 and 1", ok, stale)
	}
	if got := e.byRef(); len(got) != 6 || len(e.p.Items()) != 6 {
		t.Errorf("%d references, %d items; want 6 and 6 (no duplicates)", len(got), len(e.p.Items()))
	}
	// The lock is free again.
	lk, err := e.st.AcquireLock(e.ctx, "import|"+fakeprovider.DefaultScope+"|checkout", "after", time.Minute)
	if err != nil {
		t.Fatalf("the commit lock was not released: %v", err)
	}
	_ = lk.Release(e.ctx)
}

// A commit lock held by a dead process (until its lease lapses): the
// commit waits a bounded time, then refuses with PREVIEW_STALE, writing
// nothing and leaving the handle unconsumed.
func TestCommitLockBusyTimesOut(t *testing.T) {
	e := newEnv(t)
	spy := newLockSpy(e.st)
	spy.held = true
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: spy, Now: e.clock.Now, CommitLockWait: 30 * time.Millisecond})
	pre := e.preview(checkoutDoc())
	_, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	ce := wantErr(t, err, core.CodePreviewStale, "Another commit of document checkout", "run_dead", "lapses by 2026-03-14T10:00:00Z", "Nothing was written", "import preview again")
	if len(ce.Details) != 1 {
		t.Errorf("details %+v", ce.Details)
	}
	if e.p.Writes() != 0 {
		t.Errorf("%d writes while the lock was held", e.p.Writes())
	}
	// Once the lock is free, the same handle and key commit.
	spy.mu.Lock()
	spy.held = false
	spy.mu.Unlock()
	if res, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"}); err != nil || res.Counts.Created != 6 {
		t.Fatalf("commit after the lock was freed: %+v, %v", res.Counts, err)
	}
	// Progress commits take the item's lock the same way.
	pp, err := e.svc.ProgressPreview(e.ctx, core.ProgressPreviewInput{Item: "checkout/s-1", Status: core.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	spy.mu.Lock()
	spy.held = true
	spy.mu.Unlock()
	writes := e.p.Writes()
	_, err = svc.ProgressCommit(e.ctx, core.CommitInput{PreviewHandle: pp.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale, "Another commit of", "progress preview again")
	if e.p.Writes() != writes {
		t.Error("a progress commit wrote while the lock was held")
	}
}

// The lease is renewed while a commit runs, so a long commit keeps its
// lock.
func TestCommitLockLeaseIsRenewed(t *testing.T) {
	e := newEnv(t)
	spy := newLockSpy(e.st)
	renewed := make(chan struct{})
	gp := &gatedProvider{Provider: e.p, second: make(chan struct{}), release: renewed}
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: gp, Store: spy, Now: e.clock.Now, CommitLockLease: 3 * time.Millisecond})
	pre := e.preview(checkoutDoc())
	errc := make(chan error, 1)
	go func() {
		_, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
		errc <- err
	}()
	// The first create waits until the lock was taken and renewed at least
	// once by the same run (polling the spy; the deadline only guards
	// against a hang).
	deadline := time.Now().Add(10 * time.Second)
	for {
		spy.mu.Lock()
		n := 0
		for _, c := range spy.renewals {
			n = max(n, c)
		}
		spy.mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the commit lock was never renewed")
		}
		time.Sleep(time.Millisecond)
	}
	close(renewed)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// A commit behind a holder that died waits (polling) until the holder's
// lease lapses, then goes ahead: no error.
func TestCommitWaitsForALapsingLock(t *testing.T) {
	e := newEnv(t)
	spy := newLockSpy(e.st)
	spy.heldFor = 3
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: spy, Now: e.clock.Now})
	pre := e.preview(checkoutDoc())
	res, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	if err != nil || res.Counts.Created != 6 {
		t.Fatalf("commit behind a lapsing lock: %+v, %v", res.Counts, err)
	}
	if spy.heldFor != 0 {
		t.Errorf("%d refusals left; the commit did not wait them out", spy.heldFor)
	}
}

// deadProcessStore never releases a lock: the process holding it was
// killed (SIGKILL runs no deferred code), so the lock stays until its
// lease lapses.
type deadProcessStore struct{ *memstore.Store }

func (s deadProcessStore) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	lk, err := s.Store.AcquireLock(ctx, name, owner, lease)
	if err != nil {
		return core.Lock{}, err
	}
	lk.Release = func(context.Context) error { return nil }
	return lk, nil
}

// A process killed after taking the document's commit lock and before
// starting its run (here: during the stale check's re-read) leaves a lock
// and no run. A retry with the same idempotency key and handle is the
// lock's owner: it takes the lock over at once and commits, instead of
// waiting out the lease and failing with PREVIEW_STALE. Any other commit
// of the document still waits for the lease.
func TestRetryTakesOverTheLockOfACommitKilledBeforeItsRun(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	other := e.preview(checkoutDoc())
	dying := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: deadProcessStore{e.st}, Now: e.clock.Now})
	e.p.CrashAt(fakeprovider.OpLookup, 1, false) // the stale check's re-read
	crash(t, func() {
		_, _ = dying.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	})
	if _, found, _ := e.st.GetRun(e.ctx, "k"); found {
		t.Fatal("the killed commit started its run; the scenario needs a kill before StartRun")
	}
	lock := "import|" + fakeprovider.DefaultScope + "|checkout"
	if _, err := e.st.AcquireLock(e.ctx, lock, "probe", time.Minute); err == nil {
		t.Fatal("the killed commit left no lock; the scenario needs one")
	}
	// A new process. Its lock wait is short, so a commit that has to wait
	// for the dead holder fails fast instead of after 45 s.
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: e.st, Now: e.clock.Now, CommitLockWait: 50 * time.Millisecond})
	_, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: other.PreviewHandle, Confirmed: true, IdempotencyKey: "k2"})
	ce := wantErr(t, err, core.CodePreviewStale, "Another commit of document checkout", "idempotency key k,", pre.PreviewHandle, "Nothing was written")
	// The detail keeps the shape "commit lock held by run … until <time>"
	// that callers parse to wait the lock out.
	if len(ce.Details) != 1 || !strings.HasPrefix(ce.Details[0].Message, "commit lock held by run of idempotency key k, preview "+pre.PreviewHandle+" until 2026-") {
		t.Errorf("details %+v", ce.Details)
	}
	if e.p.Writes() != 0 {
		t.Fatalf("%d writes behind the dead commit's lock", e.p.Writes())
	}
	res, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	if err != nil || res.Counts.Created != 6 || res.Replayed {
		t.Fatalf("retry with the same key and handle: %+v, %v; want 6 created", res.Counts, err)
	}
	if got := e.byRef(); len(got) != 6 {
		t.Errorf("%d items; want 6", len(got))
	}
	// The retry released the lock when its run finished.
	lk, err := e.st.AcquireLock(e.ctx, lock, "after", time.Minute)
	if err != nil {
		t.Fatalf("the commit lock was not released: %v", err)
	}
	_ = lk.Release(e.ctx)
}

// Concurrent commits of one handle under one key share the lock's owner:
// exactly one executes, nothing is duplicated, and the lock is free
// afterwards (a call that did not start the run never releases the lock
// of the one that did while it writes).
func TestConcurrentCommitsOfOneKeyShareTheLock(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("c", 2, 10))
	type res struct {
		r   core.ImportCommitResult
		err error
	}
	out := make(chan res, 4)
	for range 4 {
		go func() {
			r, err := e.svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "same"})
			out <- res{r, err}
		}()
	}
	executed := 0
	for range 4 {
		r := <-out
		switch c := core.ErrorCode(r.err); {
		case r.err == nil && !r.r.Replayed:
			executed++
		case r.err == nil, c == core.CodeCommitInterrupted, c == core.CodePreviewStale:
		default:
			t.Errorf("commit: %v", r.err)
		}
	}
	if executed != 1 || len(e.p.Items()) != 22 {
		t.Errorf("%d commits executed, %d items; want 1 and 22", executed, len(e.p.Items()))
	}
	lk, err := e.st.AcquireLock(e.ctx, "import|"+fakeprovider.DefaultScope+"|c", "after", time.Minute)
	if err != nil {
		t.Fatalf("the commit lock was not released: %v", err)
	}
	_ = lk.Release(e.ctx)
}
