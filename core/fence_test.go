package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/fakeprovider"
	"github.com/devworkwire/devworkwire/core/memstore"
)

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
	pre, err := b.ImportPreview(e.ctx, core.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if pre.Counts.Blocked != 50 || pre.Counts.Create != 47 {
		t.Fatalf("B's preview: %+v; want the 50 items of A's fenced batch held back and 47 to create", pre.Counts)
	}
	// B writes the rest; the 50 held back make its commit COMMIT_PARTIAL.
	_, err = b.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "B"})
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
// having run out) just before the commit's first fence.
type takeoverStore struct {
	*memstore.Store
	clock *clock
	once  sync.Once
}

func (s *takeoverStore) Fence(ctx context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
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
	e := newEnv(t)
	e.importDoc(checkoutDoc())
	key := e.byRef()["checkout/s-3"].Key // not the updated item
	items := append([]docItem(nil), checkoutItems...)
	items[1].title = "Pay as a guest"
	upd := e.preview(markdown("checkout", items...))
	prog := progressPreview(t, e, core.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "shipped"})
	for _, c := range []struct {
		name   string
		commit func(svc *core.WorkItemService) error
	}{
		{"update", func(svc *core.WorkItemService) error {
			_, err := svc.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: upd.PreviewHandle, Confirmed: true})
			return err
		}},
		{"transition and comment", func(svc *core.WorkItemService) error {
			_, err := svc.ProgressCommit(e.ctx, core.CommitInput{PreviewHandle: prog.PreviewHandle, Confirmed: true})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: &takeoverStore{Store: e.st, clock: e.clock}, Now: e.clock.Now})
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
	_, err := other.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, "is running now", "holds the commit lock of document checkout", "2 item outcome(s)", "repeat this call")
	if strings.Contains(ce.Message, "probably died") {
		t.Errorf("a running commit is reported dead: %q", ce.Message)
	}
	if len(ce.Details) != 2 {
		t.Errorf("details %+v; want the 2 outcomes recorded so far", ce.Details)
	}
	resume()
	if err := first(); err != nil {
		t.Fatal(err)
	}
	res, err := other.ImportCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "K"})
	if err != nil || !res.Replayed || res.Counts.Created != 6 {
		t.Errorf("repeat after it finished: %+v, %v; want the replayed result", res.Counts, err)
	}
}
