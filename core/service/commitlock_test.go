package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// importLock is the commit lock of import commits of document doc.
func importLock(doc string) string { return "import|" + fakeprovider.DefaultScope + "|" + doc }

// wantLockFree fails the test unless the commit lock of doc is free: it
// takes the lock and releases it again.
func (e *env) wantLockFree(doc string) {
	e.t.Helper()
	lk, err := e.st.AcquireLock(e.ctx, importLock(doc), "after", time.Minute)
	if err != nil {
		e.t.Fatalf("the commit lock was not released: %v", err)
	}
	_ = lk.Release(e.ctx)
}

// commitResult is what one of commitsAtOnce's commits returned.
type commitResult struct {
	r   service.ImportCommitResult
	err error
}

// commitsAtOnce runs one ImportCommit per input at the same moment and
// returns the results as they arrive.
func commitsAtOnce(ctx context.Context, svc *service.WorkItemService, ins ...service.CommitInput) []commitResult {
	out := make(chan commitResult, len(ins))
	for _, in := range ins {
		go func() {
			r, err := svc.ImportCommit(ctx, in)
			out <- commitResult{r, err}
		}()
	}
	res := make([]commitResult, 0, len(ins))
	for range ins {
		res = append(res, <-out)
	}
	return res
}

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
		err = storeerr.LockHeld(name, "run_dead", time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC), time.Time{}, time.Time{})
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
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: gp, Store: spy, Now: e.clock.Now})
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
	var ok, stale int
	for _, r := range commitsAtOnce(e.ctx, svc, service.CommitInput{PreviewHandle: preA.PreviewHandle, Confirmed: true}, service.CommitInput{PreviewHandle: preB.PreviewHandle, Confirmed: true}) {
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
	e.wantLockFree("checkout") // the lock is free again
}

// A commit lock held by a dead process (until its lease lapses): the
// commit waits a bounded time, then refuses with PREVIEW_STALE, writing
// nothing and leaving the handle unconsumed.
func TestCommitLockBusyTimesOut(t *testing.T) {
	e := newEnv(t)
	spy := newLockSpy(e.st)
	spy.held = true
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: spy, Now: e.clock.Now, CommitLockWait: 30 * time.Millisecond})
	pre := e.preview(checkoutDoc())
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
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
	if res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"}); err != nil || res.Counts.Created != 6 {
		t.Fatalf("commit after the lock was freed: %+v, %v", res.Counts, err)
	}
	// Progress commits take the item's lock the same way.
	pp, err := e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: "checkout/s-1", Status: core.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	spy.mu.Lock()
	spy.held = true
	spy.mu.Unlock()
	writes := e.p.Writes()
	_, err = svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pp.PreviewHandle, Confirmed: true})
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
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: gp, Store: spy, Now: e.clock.Now, CommitLockLease: 3 * time.Millisecond})
	pre := e.preview(checkoutDoc())
	errc := make(chan error, 1)
	go func() {
		_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
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
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: spy, Now: e.clock.Now})
	pre := e.preview(checkoutDoc())
	res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
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
	dying := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: deadProcessStore{e.st}, Now: e.clock.Now})
	e.p.CrashAt(fakeprovider.OpLookup, 1, false) // the stale check's re-read
	crash(t, func() {
		_, _ = dying.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	})
	if _, found, _ := e.st.GetRun(e.ctx, "k"); found {
		t.Fatal("the killed commit started its run; the scenario needs a kill before StartRun")
	}
	if _, err := e.st.AcquireLock(e.ctx, importLock("checkout"), "probe", time.Minute); err == nil {
		t.Fatal("the killed commit left no lock; the scenario needs one")
	}
	// A new process. Its lock wait is short, so a commit that has to wait
	// for the dead holder fails fast instead of after 45 s.
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: e.st, Now: e.clock.Now, CommitLockWait: 50 * time.Millisecond})
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: other.PreviewHandle, Confirmed: true, IdempotencyKey: "k2"})
	ce := wantErr(t, err, core.CodePreviewStale, "Another commit of document checkout", "idempotency key k,", pre.PreviewHandle, "Nothing was written")
	// The detail keeps the shape "commit lock held by run … until <time>"
	// that callers parse to wait the lock out.
	if len(ce.Details) != 1 || !strings.HasPrefix(ce.Details[0].Message, "commit lock held by run of idempotency key k, preview "+pre.PreviewHandle+" until 2026-") {
		t.Errorf("details %+v", ce.Details)
	}
	if e.p.Writes() != 0 {
		t.Fatalf("%d writes behind the dead commit's lock", e.p.Writes())
	}
	res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	if err != nil || res.Counts.Created != 6 || res.Replayed {
		t.Fatalf("retry with the same key and handle: %+v, %v; want 6 created", res.Counts, err)
	}
	if got := e.byRef(); len(got) != 6 {
		t.Errorf("%d items; want 6", len(got))
	}
	e.wantLockFree("checkout") // the retry released the lock when its run finished
}

// Concurrent commits of one handle under one key share the lock's owner:
// exactly one executes, nothing is duplicated, and the lock is free
// afterwards (a call that did not start the run never releases the lock
// of the one that did while it writes).
func TestConcurrentCommitsOfOneKeyShareTheLock(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("c", 2, 10))
	in := service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "same"}
	executed := 0
	for _, r := range commitsAtOnce(e.ctx, e.svc, in, in, in, in) {
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
	e.wantLockFree("c")
}

// A committer paused past its commit lock's lease (before its second batch
// of story creates: a closed laptop lid, Ctrl-Z) while a second process
// takes the lock over, previews and commits; then the first resumes. Every
// reference ends up as exactly one issue: the second process holds back
// the batch the first had fenced (its write-ahead markers), and the first,
// on resuming, sends only the request already in flight and is fenced out
// at its next batch, reporting that it stopped.
func TestPausedCommitterIsFencedOut(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime()              // "its next batch": batches in plan order, one at a time
	doc := bigDoc("big", 3, 49) // 150 items: 3 epics (1 batch), 147 stories (batches of 50, 50, 47)
	pa := e.preview(doc)
	reached, resume := e.p.Hold(fakeprovider.OpCreate, 3) // A's second story batch
	waitA := e.commitAsync(e.svc, pa.PreviewHandle, "A")
	<-reached
	e.clock.Advance(core.DefaultCommitLockLease + time.Second) // A's lease runs out

	b := e.service(e.p) // another process on the same store
	pre, err := b.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if pre.Counts.Blocked != 50 || pre.Counts.Create != 47 {
		t.Fatalf("B's preview: %+v; want the 50 items of A's fenced batch held back and 47 to create", pre.Counts)
	}
	// B writes the rest; the 50 held back make its commit COMMIT_PARTIAL.
	_, err = b.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "B"})
	wantErr(t, err, core.CodeCommitPartial, "47 item(s) committed, 50 held back")

	resume()
	ce := wantErr(t, waitA(), core.CodeCommitPartial, "lost the commit lock of document big", "stopped before sending anything more", "103 item(s) committed", "47 untried")
	if ce.Err == nil || core.ErrorCode(ce.Err) != core.CodeCommitInterrupted {
		t.Errorf("cause %v; want COMMIT_INTERRUPTED", ce.Err)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "A"); run.State != core.RunPartial {
		t.Errorf("A's run is %s; want partial", run.State)
	}
	if got := e.byRef(); len(got) != 150 || len(e.p.Items()) != 150 {
		t.Errorf("%d references, %d issues; want 150 and 150 (one issue per reference)", len(got), len(e.p.Items()))
	}
	// The next import finds everything.
	if again := e.preview(doc); again.Counts.Unchanged != 150 {
		t.Errorf("re-preview %+v; want all 150 unchanged", again.Counts)
	}
}

// takeoverStore lets another owner take the commit lock over (its lease
// having run out) just before the commit's first fence (of the lock named
// only, when set).
type takeoverStore struct {
	*memstore.Store
	clock *storetest.Clock
	once  sync.Once
	only  string
}

func (s *takeoverStore) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	if s.only != "" && name != s.only {
		return s.Store.Fence(ctx, name, owner, generation, markers)
	}
	s.once.Do(func() {
		s.clock.Advance(core.DefaultCommitLockLease + time.Second)
		if _, err := s.Store.AcquireLock(ctx, name, "intruder|imp_x", time.Minute); err != nil {
			panic(err)
		}
	})
	return s.Store.Fence(ctx, name, owner, generation, markers)
}

// Every write, not only a create batch, is fenced: an update, a transition
// and a comment are not sent once the lock was taken over; the commit
// stops with COMMIT_INTERRUPTED and nothing written.
func TestEveryWriteIsFenced(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-3"].Key // not the updated item
	items := append([]docItem(nil), checkoutItems...)
	items[1].title = "Pay as a guest"
	upd := e.preview(markdown("checkout", items...))
	prog := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "shipped"})
	for _, c := range []struct {
		name   string
		commit func(svc *service.WorkItemService) error
	}{
		{"update", func(svc *service.WorkItemService) error {
			_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: upd.PreviewHandle, Confirmed: true})
			return err
		}},
		{"transition and comment", func(svc *service.WorkItemService) error {
			_, err := svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: prog.PreviewHandle, Confirmed: true})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: &takeoverStore{Store: e.st, clock: e.clock}, Now: e.clock.Now})
			before := e.p.Writes()
			ce := wantErr(t, c.commit(svc), core.CodeCommitInterrupted, "Nothing was written", "lost the commit lock", "intruder")
			if e.p.Writes() != before {
				t.Errorf("%d writes after the lock was taken over", e.p.Writes()-before)
			}
			if !strings.Contains(ce.Message, "stopped before sending anything more") {
				t.Errorf("message %q", ce.Message)
			}
		})
	}
}

// A second call with the idempotency key of a commit that is still
// running is told so — another commit with this key is running now — not
// that the process probably died; once the first finished, the same call
// replays its result. (A call after a crash still hears "died".)
func TestSameKeyWhileTheFirstIsRunning(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	reached, resume := e.p.Hold(fakeprovider.OpCreate, 2) // the stories, after the epics were recorded
	first := e.commitAsync(e.svc, pre.PreviewHandle, "K")
	<-reached
	other := e.service(e.p) // another process, same key and handle
	_, err := other.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, "is running now", "holds the commit lock of document checkout", "2 item outcome(s)", "repeat this call")
	if strings.Contains(ce.Message, "probably died") {
		t.Errorf("a running commit is reported dead: %q", ce.Message)
	}
	if len(ce.Details) != 2 {
		t.Errorf("details %+v; want the 2 outcomes recorded so far", ce.Details)
	}
	// Long after it started, it is still running: its heartbeat says so.
	e.clock.Advance(2 * silence)
	e.waitRenewed(importLock("checkout"))
	_, err = other.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	wantErr(t, err, core.CodeCommitInterrupted, "is running now", "renewed just now")
	resume()
	if err := first(); err != nil {
		t.Fatal(err)
	}
	res, err := other.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	if err != nil || !res.Replayed || res.Counts.Created != 6 {
		t.Errorf("repeat after it finished: %+v, %v; want the replayed result", res.Counts, err)
	}
}

// lateLockStore holds the first commit-lock take of its service until
// release closes, saying on at when it got there: a call that passed the
// gate (its key had no run yet) and reaches the lock late.
type lateLockStore struct {
	core.Store
	once    sync.Once
	at      chan struct{}
	release chan struct{}
}

func (s *lateLockStore) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	if !strings.HasPrefix(owner, "probe|") {
		s.once.Do(func() {
			close(s.at)
			<-s.release
		})
	}
	return s.Store.AcquireLock(ctx, name, owner, lease)
}

// Two calls with one idempotency key and handle at the same moment: the
// one that reaches the (shared) commit lock after the other started the
// run and wrote finds the tracker changed since the preview — by its own
// key's writes. It answers as a repeat of the key does: "running now"
// while the first works, the replayed result once it finished; never
// PREVIEW_STALE, which would say nothing was written.
func TestSameKeyAtOnceIsNeverStale(t *testing.T) {
	for _, finished := range []bool{false, true} {
		t.Run(fmt.Sprintf("first finished %v", finished), func(t *testing.T) {
			e := newEnv(t)
			pre := e.preview(checkoutDoc())
			late := &lateLockStore{Store: e.st, at: make(chan struct{}), release: make(chan struct{})}
			other := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: late, Now: e.clock.Now})
			done := make(chan error, 1)
			go func() {
				_, err := other.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
				done <- err
			}()
			<-late.at
			reached, resume := e.p.Hold(fakeprovider.OpCreate, 2) // the epics are written
			first := e.commitAsync(e.svc, pre.PreviewHandle, "K")
			<-reached
			if finished {
				resume()
				if err := first(); err != nil {
					t.Fatal(err)
				}
			}
			close(late.release)
			err := <-done
			if finished {
				if err != nil {
					t.Fatalf("the late call after the first finished: %v; want its result replayed", err)
				}
			} else {
				wantErr(t, err, core.CodeCommitInterrupted, "is running now")
				resume()
				if err := first(); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(e.p.Items()); n != 6 {
				t.Errorf("%d issues; want the 6 of the plan, once", n)
			}
		})
	}
}

// rendezvousStore holds the first AcquireLock of each of two commits
// until both commits asked for one: the moment two commits that took
// their locks in file order would each hold one document the other
// waits for.
type rendezvousStore struct {
	*memstore.Store
	mu    sync.Mutex
	seen  map[string]bool
	both  chan struct{}
	names []string // the lock each commit asked for first
}

func (s *rendezvousStore) AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	s.mu.Lock()
	first := !strings.HasPrefix(owner, "probe|") && !s.seen[owner] && len(s.seen) < 2
	if first {
		s.seen[owner] = true
		s.names = append(s.names, name)
		if len(s.seen) == 2 {
			close(s.both)
		}
	}
	s.mu.Unlock()
	if first {
		select {
		case <-s.both:
		case <-ctx.Done():
			return core.Lock{}, ctx.Err()
		}
	}
	return s.Store.AcquireLock(ctx, name, owner, lease)
}

// Two directory commits sharing their documents, listed in the opposite
// file order, started at the same moment: both take the locks in sorted
// order, so neither waits for the other in a cycle. One commits, the
// other then finds the items it planned to create in the tracker
// (PREVIEW_STALE), and every item exists exactly once.
func TestDirectoryCommitsTakeLocksInSortedOrder(t *testing.T) {
	e := newEnv(t)
	zeta := markdown("zeta", epic("e-1", "Zeta"), story("s-1", "Zeta story", "alpha/e-1"))
	alpha := markdown("alpha", epic("e-1", "Alpha"), story("s-1", "Alpha story", "zeta/e-1"))
	x := writeTree(t, map[string]string{"1.md": zeta, "2.md": alpha})
	y := writeTree(t, map[string]string{"1.md": alpha, "2.md": zeta})
	var handles []string // x's, then y's
	for _, dir := range []string{x, y} {
		pre, err := e.previewDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, pre.PreviewHandle)
	}
	st := &rendezvousStore{Store: e.st, seen: map[string]bool{}, both: make(chan struct{})}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: st, Now: e.clock.Now, CommitLockWait: 3 * time.Second})
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute) // only guards against a hang
	defer cancel()
	results := commitsAtOnce(ctx, svc,
		service.CommitInput{PreviewHandle: handles[0], Confirmed: true, IdempotencyKey: "x"},
		service.CommitInput{PreviewHandle: handles[1], Confirmed: true, IdempotencyKey: "y"})
	committed := 0
	for _, r := range results {
		switch {
		case r.err == nil:
			committed++
		case core.ErrorCode(r.err) == core.CodePreviewStale:
			ce := core.AsError(r.err)
			if len(ce.Details) != 4 || !strings.Contains(ce.Details[0].Message, "now exists in the tracker") {
				t.Errorf("stale details %+v; want the 4 items, now in the tracker", ce.Details)
			}
		default:
			t.Errorf("commit: %v", r.err)
		}
	}
	if committed != 1 {
		t.Errorf("%d commits committed; want 1", committed)
	}
	if st.names[0] != st.names[1] || !strings.HasSuffix(st.names[0], "|alpha") {
		t.Errorf("first locks asked for %q; want alpha's by both", st.names)
	}
	if got := e.byRef(); len(got) != 4 || len(e.p.Items()) != 4 {
		t.Errorf("%d references, %d issues; want 4 and 4", len(got), len(e.p.Items()))
	}
	e.wantLockFree("alpha")
	e.wantLockFree("zeta")
}

// Every write of a directory commit is fenced against every document's
// lock: losing the lock of any one of them (here the second in order)
// stops the commit before it sends anything.
func TestDirectoryCommitIsFencedByEveryLock(t *testing.T) {
	e := newEnv(t)
	dir := writeTree(t, map[string]string{"a.md": markdown("alpha", epic("e-1", "A")), "b.md": markdown("beta", epic("e-1", "B"))})
	pre, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := &takeoverStore{Store: e.st, clock: e.clock, only: importLock("beta")}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: st, Now: e.clock.Now})
	_, err = svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitInterrupted, "lost the commit lock of document beta")
	if e.p.Writes() != 0 {
		t.Errorf("%d writes after the lock was lost", e.p.Writes())
	}
}

// A directory commit killed after its epics were created (their outcome
// not recorded), leaving both documents' locks behind: repeating it with
// its key is COMMIT_INTERRUPTED and writes nothing (running while the dead
// locks are live, interrupted once they lapsed); a new process's preview
// finds the epic and its commit creates the stories under it: every item
// exactly once, both locks free at the end.
func TestDirectoryCommitRetriedAfterACrash(t *testing.T) {
	e := newEnv(t)
	dir := writeTree(t, map[string]string{
		"a.md": markdown("alpha", epic("e-1", "A"), story("s-1", "A story", "e-1")),
		"b.md": markdown("beta", story("s-1", "B story", "alpha/e-1")),
	})
	pre, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	dying := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: deadProcessStore{e.st}, Now: e.clock.Now, WritesInFlight: 1})
	e.p.CrashAt(fakeprovider.OpCreate, 1, true) // the epic is created, the process dies before recording it
	crash(t, func() {
		_, _ = dying.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	})
	e.p.ClearFaults()
	writes := e.p.Writes()
	repeat := func(want string) {
		t.Helper()
		_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
		wantErr(t, err, core.CodeCommitInterrupted, want)
		if e.p.Writes() != writes {
			t.Errorf("the repeated commit wrote %d times", e.p.Writes()-writes)
		}
	}
	repeat("is running now") // the dead process's locks are live, held by this key and handle
	e.clock.Advance(core.DefaultCommitLockLease + time.Second)
	repeat("did not finish") // lapsed: the run is reported as interrupted
	e.svc = e.service(e.p)   // a new process
	again, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Counts.Create != 2 || again.Counts.Unchanged != 1 {
		t.Fatalf("re-preview %+v; want the epic unchanged and both stories to create", again.Counts)
	}
	e.commit(again.PreviewHandle, "k2")
	got := e.byRef()
	if len(got) != 3 || len(e.p.Items()) != 3 || got["beta/s-1"].ParentKey != got["alpha/e-1"].Key {
		t.Errorf("%d references, %d issues, beta/s-1 under %q; want 3, 3 and alpha/e-1's key", len(got), len(e.p.Items()), got["beta/s-1"].ParentKey)
	}
	e.wantLockFree("alpha")
	e.wantLockFree("beta")
}

// silence is how long a commit's lock may go unrenewed before a repeat of
// its key takes it as not running (the default lease's heartbeat).
const silence = core.CommitLockSilentBeats * core.CommitLockBeat

// A repeat of the key of a commit whose process died (SIGKILL: its lock
// stays until its 30-second lease lapses) is told the commit is not
// running as soon as the lock's heartbeat has been silent for a few
// seconds: interrupted, with the outcomes recorded and the next step —
// never "running now" for the rest of the lease.
func TestRepeatOfADeadCommitIsNotRunning(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	dying := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: deadProcessStore{e.st}, Now: e.clock.Now, WritesInFlight: 1})
	e.p.CrashAt(fakeprovider.OpCreate, 2, true) // the epics are recorded; the stories' create goes through, then the process dies
	crash(t, func() {
		_, _ = dying.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	})
	e.p.ClearFaults()
	writes := e.p.Writes()
	e.clock.Advance(silence + time.Second) // well inside the dead holder's lease
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, "is not running",
		"stopped renewing its commit lock of document checkout 6 seconds ago", "did not finish",
		"2 item outcome(s) were recorded", "Run the import preview again", "Its lock lapses at")
	if strings.Contains(ce.Message, "running now") {
		t.Errorf("a dead commit is reported running: %q", ce.Message)
	}
	if len(ce.Details) != 2 {
		t.Errorf("details %+v; want the 2 outcomes recorded", ce.Details)
	}
	if e.p.Writes() != writes {
		t.Errorf("the repeat wrote %d times", e.p.Writes()-writes)
	}
}

// waitRenewed polls (with a deadline) until the holder of name has
// renewed its lock at the clock's current time: a running commit's
// heartbeat after the clock moved.
func (e *env) waitRenewed(name string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := e.st.AcquireLock(e.ctx, name, "probe|test", time.Minute)
		var held *core.LockHeldError
		if errors.As(err, &held) && held.Silent == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the running commit did not renew %s: %v", name, err)
		}
		<-time.After(20 * time.Millisecond) // poll interval
	}
}

// earlyReadStore answers the first GetRun as it read just before the
// run finished: in progress. The run's lock is already released.
type earlyReadStore struct {
	core.Store
	once sync.Once
}

func (s *earlyReadStore) GetRun(ctx context.Context, key string) (core.Run, bool, error) {
	run, found, err := s.Store.GetRun(ctx, key)
	s.once.Do(func() { run.State = core.RunInProgress })
	return run, found, err
}

// A repeat of a key that read its run in progress just before the run
// finished (and released its lock) answers as a repeat of a finished run
// does — the replayed result — not "did not finish: the process probably
// died", which it read as when it found the lock free.
func TestRepeatAsTheRunFinishesIsReplayed(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.commit(pre.PreviewHandle, "K")
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: &earlyReadStore{Store: e.st}, Now: e.clock.Now})
	res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	if err != nil || !res.Replayed || res.Counts.Created != 6 {
		t.Fatalf("a repeat as the run finished: %+v, %v; want the replayed result", res.Counts, err)
	}
}
