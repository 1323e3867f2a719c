package service_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

var handleRe = regexp.MustCompile(`^imp_[0-9a-f]{32}$`)

func TestImportPreviewClassifiesAndWritesNothing(t *testing.T) {
	e := newEnv(t)
	res := e.preview(checkoutDoc())
	if res.ResultType != service.ResultPreview || !strings.HasPrefix(res.RunID, "run_") || !handleRe.MatchString(res.PreviewHandle) {
		t.Fatalf("result_type %q run_id %q handle %q", res.ResultType, res.RunID, res.PreviewHandle)
	}
	if want := e.clock.Now().UTC().Truncate(time.Second).Add(30 * time.Minute); !res.ExpiresAt.Equal(want) || res.ExpiresAt.Location() != time.UTC {
		t.Errorf("expires_at = %v; want %v (UTC, whole seconds)", res.ExpiresAt, want)
	}
	if res.Counts != (service.Counts{Create: 6}) || res.Document != "checkout" || res.Scope != e.p.Scope() {
		t.Errorf("counts %+v document %q scope %q", res.Counts, res.Document, res.Scope)
	}
	if got := res.Items[2]; got.Reference != "checkout/s-2" || got.Kind != core.KindStory || got.Parent != "checkout/e-1" || got.Action != core.ActionCreate || got.Title != "Save address" {
		t.Errorf("row 2 = %+v", got)
	}
	if got := res.Items[5]; got.Parent != "" {
		t.Errorf("loose story has parent %q", got.Parent)
	}
	if st := e.p.Stats(); st.Calls[fakeprovider.OpLookup] != 1 || st.Writes != 0 {
		t.Errorf("preview made %d lookups and %d writes; want 1 and 0", st.Calls[fakeprovider.OpLookup], st.Writes)
	}
	// Two previews never share a handle.
	if again := e.preview(checkoutDoc()); again.PreviewHandle == res.PreviewHandle {
		t.Error("two previews got the same handle")
	}
}

func TestImportPreviewBadDocuments(t *testing.T) {
	e := newEnv(t)
	e.p.ForbidWrites(t)
	cases := []refusal[service.ImportPreviewInput]{
		{"validation", service.ImportPreviewInput{Path: "p.md", Data: []byte(markdown("p", story("s-1", "A", "e-9"), story("s-1", "B", "")))},
			core.CodeValidationFailed, []string{}},
		{"missing file", service.ImportPreviewInput{Path: t.TempDir() + "/nope.md"}, core.CodeSourceNotFound, []string{"nope.md"}},
		{"no path", service.ImportPreviewInput{}, core.CodeSourceNotFound, []string{"path"}},
		{"extension", service.ImportPreviewInput{Path: "plan.txt", Data: []byte("hello")}, core.CodeSourceParseFailed, []string{".md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.ImportPreview(e.ctx, tc.in)
			ce := wantErr(t, err, tc.code, tc.frags...)
			if tc.code == core.CodeValidationFailed {
				if len(ce.Details) < 2 {
					t.Fatalf("details %+v; want every problem (unknown epic e-9, duplicate s-1)", ce.Details)
				}
				all := ""
				for _, d := range ce.Details {
					all += d.Item + " " + d.Message + "\n"
					if d.Line == 0 {
						t.Errorf("detail %+v has no line", d)
					}
				}
				if !strings.Contains(all, "e-9") || !strings.Contains(all, "s-1") {
					t.Errorf("details do not name e-9 and s-1:\n%s", all)
				}
			}
		})
	}
	if n := len(e.p.Stats().Calls); n != 0 {
		t.Errorf("bad documents reached the tracker: %v", e.p.Stats().Calls)
	}
}

func TestImportCommitEpicsFirstBatchedAndRecorded(t *testing.T) {
	e := newEnv(t)
	doc := bigDoc("big", 3, 40) // 3 epics, 120 stories
	pre := e.preview(doc)
	var progress [][2]int
	res, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k-1",
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultType != service.ResultCommitted || res.Counts != (service.CommitCounts{Created: 123}) || res.IdempotencyKey != "k-1" || res.PreviewHandle != pre.PreviewHandle {
		t.Fatalf("result %+v", res.Counts)
	}
	if res.RunID == "" || res.RunID == pre.RunID {
		t.Errorf("commit run id %q (preview's %q); want its own", res.RunID, pre.RunID)
	}
	st := e.p.Stats()
	if st.MaxBatch > core.MaxBatch || st.Calls[fakeprovider.OpCreate] != 4 {
		t.Errorf("create calls %d, largest %d; want 4 calls (1 for epics, 3 for 120 stories) of ≤ %d", st.Calls[fakeprovider.OpCreate], st.MaxBatch, core.MaxBatch)
	}
	items := e.byRef()
	for _, w := range e.p.Items()[:3] {
		if w.Kind != core.KindEpic {
			t.Fatalf("first items created: %s is a %s; epics must come first", w.Key, w.Kind)
		}
	}
	for ref, w := range items {
		if w.Kind != core.KindStory {
			continue
		}
		_, id := ref.Split()
		ep := items[core.NewReference("big", "e-"+strings.Split(id, "-")[1])]
		if w.ParentKey != ep.Key {
			t.Errorf("%s parent %q; want its epic %s", ref, w.ParentKey, ep.Key)
		}
	}
	if len(progress) != 123 || progress[122] != [2]int{123, 123} {
		t.Errorf("progress called %d times, last %v", len(progress), progress[len(progress)-1])
	}
	run, found, err := e.st.GetRun(e.ctx, "k-1")
	if err != nil || !found || run.State != core.RunCommitted || len(run.Outcomes) != 123 {
		t.Fatalf("run %+v found=%v err=%v", run.State, found, err)
	}
	for _, it := range res.Items {
		if it.Outcome != core.OutcomeCommitted || it.Key == "" || it.URL == "" {
			t.Errorf("item %+v", it)
		}
	}
}

func TestCommitWithoutConfirmationIsRefusedFirst(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.p.ForbidWrites(t)
	calls := e.p.Stats().Calls
	for _, h := range []string{pre.PreviewHandle, "no-such-handle", ""} {
		_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: h, IdempotencyKey: "k"})
		wantErr(t, err, core.CodeConfirmationRequired, "confirmed: true", "nothing was written")
		_, err = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: h})
		wantErr(t, err, core.CodeConfirmationRequired, "progress commit")
	}
	if got := e.p.Stats().Calls; len(got) != len(calls) || got[fakeprovider.OpLookup] != calls[fakeprovider.OpLookup] {
		t.Errorf("an unconfirmed commit reached the tracker: %v → %v", calls, got)
	}
	if _, found, _ := e.st.GetRun(e.ctx, "k"); found {
		t.Error("an unconfirmed commit started a run")
	}
	e.p.AllowWrites()
	// The handle is still good.
	if res := e.commit(pre.PreviewHandle, "k"); res.Counts.Created != 6 {
		t.Errorf("created %d", res.Counts.Created)
	}
}

func TestCommitUnknownHandle(t *testing.T) {
	e := newEnv(t)
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: "imp_00000000000000000000000000000000", Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "imp_00000000000000000000000000000000", "Run the import preview again")
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "preview_handle")
}

func TestCommitWrongKindOfHandle(t *testing.T) {
	e := checkoutEnv(t)
	imp := e.preview(markdown("other", epic("e-1", "Other")))
	prog, err := e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: "checkout/s-1", Status: core.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	e.p.ForbidWrites(t)
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: prog.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "progress preview handle", "progress commit")
	_, err = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: imp.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "import preview handle", "import commit")
}

func TestCommitHandleOfAnotherProject(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	other := fakeprovider.New(fakeprovider.Options{Scope: "https://other.example/OPS", Project: "OPS"})
	other.ForbidWrites(t)
	e.p.ForbidWrites(t)
	_, err := e.service(other).ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "another project", e.p.Scope(), "https://other.example/OPS")
}

func TestCommitExpiredPreview(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.clock.Advance(42 * time.Minute)
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewExpired, "expired 12 minutes ago", "Run the import preview again")
	if e.p.Stats().Calls[fakeprovider.OpLookup] != 1 {
		t.Error("an expired commit read the tracker")
	}
}

func TestCommitStalePlan(t *testing.T) {
	changes := map[string]func(e *env, keys map[core.Reference]core.WorkItem){
		"item edited by a person": func(e *env, k map[core.Reference]core.WorkItem) {
			_ = e.p.EditTitle(k["checkout/s-1"].Key, "Edited")
		},
		"status changed": func(e *env, k map[core.Reference]core.WorkItem) {
			_ = e.p.SetStatus(k["checkout/s-2"].Key, core.StatusDone)
		},
		"item deleted": func(e *env, k map[core.Reference]core.WorkItem) { e.p.Delete(k["checkout/e-2"].Key) },
		"item to create now exists": func(e *env, _ map[core.Reference]core.WorkItem) {
			e.p.AddAsPerson(core.WorkItem{Reference: "checkout/s-9", Kind: core.KindStory, Title: "Sneaky"})
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			e := checkoutEnv(t)
			items := append(slices.Clone(checkoutItems), story("s-9", "New one", "e-1"))
			items[1].title = "Pay as a guest" // s-1: update
			pre := e.preview(markdown("checkout", items...))
			if pre.Counts.Create != 1 || pre.Counts.Update != 1 {
				t.Fatalf("counts %+v", pre.Counts)
			}
			change(e, e.byRef())
			writes := e.p.Writes()
			_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "stale"})
			ce := wantErr(t, err, core.CodePreviewStale, "Nothing was written", "import preview again")
			if len(ce.Details) != 1 || ce.Details[0].Item == "" {
				t.Errorf("details %+v; want the one changed item", ce.Details)
			}
			if w := e.p.Writes(); w != writes {
				t.Errorf("a stale commit made %d writes", w-writes)
			}
			if _, found, _ := e.st.GetRun(e.ctx, "stale"); found {
				t.Error("a stale commit consumed the handle")
			}
		})
	}
}

func TestIdempotentReplay(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	first := e.commit(pre.PreviewHandle, "key-1")
	writes := e.p.Writes()
	e.p.ForbidWrites(t)
	again := e.commit(pre.PreviewHandle, "key-1")
	if !again.Replayed || first.Replayed {
		t.Errorf("replayed flags: first %v, again %v", first.Replayed, again.Replayed)
	}
	again.Replayed = false
	if again.RunID != first.RunID || again.Counts != first.Counts || !slices.Equal(again.Items, first.Items) || !again.CommittedAt.Equal(first.CommittedAt) {
		t.Errorf("replay differs:\n%+v\n%+v", again, first)
	}
	if e.p.Writes() != writes || len(e.byRef()) != 6 {
		t.Error("the replay wrote")
	}
	// Even once the preview expired, the same key still replays.
	e.clock.Advance(time.Hour)
	if r := e.commit(pre.PreviewHandle, "key-1"); !r.Replayed {
		t.Error("no replay after expiry")
	}
}

func TestIdempotencyKeyReusedWithAnotherHandle(t *testing.T) {
	e := newEnv(t)
	a := e.preview(checkoutDoc())
	e.commit(a.PreviewHandle, "shared")
	b := e.preview(markdown("other", epic("e-1", "Other")))
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: b.PreviewHandle, Confirmed: true, IdempotencyKey: "shared"})
	wantErr(t, err, core.CodeIdempotencyKeyReused, `"shared"`, a.PreviewHandle)
}

func TestHandleIsSingleUse(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.commit(pre.PreviewHandle, "first")
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "second"})
	wantErr(t, err, core.CodePreviewNotFound, "already committed", "first")
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "already committed")
}

func TestGeneratedIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	res := e.importDoc(checkoutDoc())
	if !regexp.MustCompile(`^idk_[0-9a-f]{32}$`).MatchString(res.IdempotencyKey) {
		t.Errorf("generated key %q", res.IdempotencyKey)
	}
	if run, found, _ := e.st.GetRun(e.ctx, res.IdempotencyKey); !found || run.State != core.RunCommitted {
		t.Error("no run under the generated key")
	}
}

func TestConcurrentCommitsOfOneHandleExecuteOnce(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("c", 2, 10))
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k" + string(rune('a'+i))})
			errs <- err
		}()
	}
	ok := 0
	for range 8 {
		if err := <-errs; err == nil {
			ok++
		} else if c := core.ErrorCode(err); c != core.CodePreviewNotFound {
			t.Errorf("losing commit: %v", err)
		}
	}
	if ok != 1 || len(e.p.Items()) != 22 {
		t.Errorf("%d commits succeeded, %d items; want 1 and 22", ok, len(e.p.Items()))
	}
}

// crash runs f and recovers the provider's simulated process death.
func crash(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != fakeprovider.ErrCrash {
			if r != nil {
				panic(r)
			}
			t.Fatal("the scripted crash did not happen")
		}
	}()
	f()
}

func TestCommitInterruptedThenRepreviewConverges(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime()                       // the crash is scripted by item number: batches in plan order
	pre := e.preview(bigDoc("d", 2, 60)) // 2 epics, 120 stories: 3 story batches
	// The process dies right after the 53rd story's create went through
	// (in the second story batch).
	e.p.FailItem(2+53, fakeprovider.ItemCrashAfter, nil)
	crash(t, func() { e.commit(pre.PreviewHandle, "dying") })
	if n := len(e.p.Items()); n != 2+53 {
		t.Fatalf("items after the crash: %d", n)
	}

	// A new process: the same key reports the interruption with what is known.
	e.svc = e.service(e.p)
	writes := e.p.Writes()
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "dying"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, `"dying"`, "did not finish", "52 item outcome(s)", "import preview again", "document locked for up to 30 seconds after the crash")
	if len(ce.Details) != 52 || ce.Details[0].Outcome != core.OutcomeCommitted || ce.Details[0].Key == "" {
		t.Errorf("details: %d, first %+v; want the 52 recorded outcomes (2 epics + the first story batch)", len(ce.Details), ce.Details[0])
	}
	if e.p.Writes() != writes {
		t.Error("COMMIT_INTERRUPTED wrote")
	}
	// A re-preview finds everything written and plans the third batch;
	// the rest of the batch in flight at the death is held back (its
	// items were marked as unknown creates before the request, and search
	// may simply not show them yet) until the search-lag window is over.
	again := e.preview(bigDoc("d", 2, 60))
	if again.Counts != (service.Counts{Create: 20, Unchanged: 2 + 53, Blocked: 50 - 3}) {
		t.Errorf("re-preview counts %+v", again.Counts)
	}
	// Not everything is written: COMMIT_PARTIAL, the 47 held back listed.
	var heldRefs []core.Reference
	for _, it := range again.Items {
		if it.BlockedReason != "" {
			heldRefs = append(heldRefs, it.Reference)
		}
	}
	e.commitHeld(again.PreviewHandle, "", 20, heldRefs...)
	e.clock.Advance(core.DefaultSearchLagWindow)
	last := e.preview(bigDoc("d", 2, 60))
	if last.Counts != (service.Counts{Create: 47, Unchanged: 75}) {
		t.Errorf("after the window: %+v", last.Counts)
	}
	e.commit(last.PreviewHandle, "")
	if got := e.byRef(); len(got) != 122 {
		t.Errorf("%d items; want 122, no duplicates", len(got))
	}
}

func TestCommitPartialFailFast(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.p.FailItem(4, fakeprovider.ItemFail, core.Errorf(core.CodeValidationFailed, "Field 'summary' is too long"))
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "p"})
	// Creates: epics e-1, e-2; stories s-1, s-2 (fails), s-3, s-4 in one batch.
	ce := wantErr(t, err, core.CodeCommitPartial, "5 item(s) committed, 1 failed, 0 unknown, 0 untried", "summary")
	outcomes := map[string]string{}
	for _, d := range ce.Details {
		outcomes[d.Item] = d.Outcome
	}
	if outcomes["checkout/s-2"] != core.OutcomeFailed || outcomes["checkout/s-3"] != core.OutcomeCommitted || len(outcomes) != 6 {
		t.Errorf("outcomes %v", outcomes)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "p"); run.State != core.RunPartial {
		t.Errorf("run state %s", run.State)
	}
	// The same key replays the stored error without writing.
	writes := e.p.Writes()
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "p"})
	wantErr(t, err, core.CodeCommitPartial, "replayed", "1 failed")
	if e.p.Writes() != writes {
		t.Error("replaying a partial commit wrote")
	}
	again := e.preview(checkoutDoc())
	if again.Counts != (service.Counts{Create: 1, Unchanged: 5}) {
		t.Errorf("re-preview counts %+v", again.Counts)
	}
	e.commit(again.PreviewHandle, "")
	if len(e.byRef()) != 6 {
		t.Error("not converged")
	}
}

func TestCommitPartialUntriedAfterEpicFailure(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.p.FailCall(fakeprovider.OpCreate, 1, core.Errorf(core.CodeJiraUnavailable, "Jira did not answer"))
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "none"})
	// Nothing was written: not COMMIT_PARTIAL but the failure's own code,
	// with the same split in the details.
	ce := wantErr(t, err, core.CodeJiraUnavailable, "Nothing was written", "0 item(s) committed", "6 untried", "JIRA_UNAVAILABLE", "import preview again")
	if !ce.Retryable || len(ce.Details) != 6 {
		t.Errorf("retryable %v, %d details; want true and 6", ce.Retryable, len(ce.Details))
	}
	for _, d := range ce.Details {
		if d.Outcome != core.OutcomeUntried {
			t.Errorf("detail %+v; want untried", d)
		}
	}
	if len(e.p.Items()) != 0 || e.p.Stats().Calls[fakeprovider.OpCreate] != 1 {
		t.Error("the commit went on after the first failure")
	}
	if run, _, _ := e.st.GetRun(e.ctx, "none"); run.State != core.RunFailed {
		t.Errorf("run state %s; want failed", run.State)
	}
	// The replay returns the same code.
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "none"})
	wantErr(t, err, core.CodeJiraUnavailable, "replayed", "Nothing was written")
}

// A fail-fast stop before anything was written returns the failing item's
// own code and retryable flag, never COMMIT_PARTIAL (exit 4 means "some of
// your items are now in Jira").
func TestNothingWrittenIsNotPartial(t *testing.T) {
	cases := []struct {
		name      string
		err       *core.Error
		retryable bool
	}{
		{"validation", core.Errorf(core.CodeValidationFailed, "Field 'summary' is too long"), false},
		{"rate limited", core.Errorf(core.CodeJiraRateLimited, "Jira is rate limiting"), true},
		{"permission", core.Errorf(core.CodeJiraPermissionDenied, "You may not create issues in DEMO"), false},
		{"unavailable but flagged not retryable", &core.Error{Code: core.CodeJiraUnavailable, Message: "Jira refused this item for good"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			pre := e.preview(markdown("one", epic("e-1", "Guest checkout"), story("s-1", "Pay", "e-1"), story("s-2", "Save", "e-1")))
			e.p.FailItem(1, fakeprovider.ItemFail, tc.err) // epic e-1, the only create of the first batch
			_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
			ce, ok := err.(*core.Error)
			if !ok || ce.Code != tc.err.Code || ce.Retryable != tc.retryable || !strings.Contains(ce.Message, "Nothing was written") || ce.RunID == "" {
				t.Fatalf("err %#v; want %s retryable=%v", err, tc.err.Code, tc.retryable)
			}
			n := map[string]int{}
			for _, d := range ce.Details {
				n[d.Outcome]++
			}
			if n[core.OutcomeCommitted] != 0 || n[core.OutcomeFailed] != 1 || n[core.OutcomeUntried] != 2 || len(e.p.Items()) != 0 {
				t.Errorf("details split %v", n)
			}
			if run, _, _ := e.st.GetRun(e.ctx, "k"); run.State != core.RunFailed {
				t.Errorf("run state %s; want failed", run.State)
			}
		})
	}
}

// An unknown create counts as possibly written: COMMIT_PARTIAL even when
// nothing is known to be committed.
func TestUnknownFirstCreateIsPartial(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(markdown("solo", epic("e-1", "Only epic")))
	e.p.FailItem(1, fakeprovider.ItemLost, nil)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "u"})
	wantErr(t, err, core.CodeCommitPartial, "0 item(s) committed", "1 unknown", "not retried")
	if run, _, _ := e.st.GetRun(e.ctx, "u"); run.State != core.RunPartial {
		t.Errorf("run state %s; want partial", run.State)
	}
}

func TestUnknownCreateIsReportedNotRetried(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	pre := e.preview(checkoutDoc())
	e.p.FailItem(3, fakeprovider.ItemLost, nil) // s-1: created, response lost
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeCommitPartial, "1 unknown", "not retried")
	unknown := itemsWith(ce.Details, core.OutcomeUnknown)
	if !slices.Equal(unknown, []string{"checkout/s-1"}) {
		t.Errorf("unknown items %v", unknown)
	}
	if st := e.p.Stats(); st.ItemsCreated != 6 {
		t.Errorf("%d create attempts; want 6 (no retry)", st.ItemsCreated)
	}
	// While search lags, a re-preview does not plan the create: the row is
	// blocked, says since when and when it can be retried.
	lagging := e.preview(checkoutDoc())
	if lagging.Counts != (service.Counts{Blocked: 1, Unchanged: 5}) || len(lagging.Warnings) != 1 ||
		!strings.Contains(lagging.Warnings[0], "s-1 will NOT be created") || !strings.Contains(lagging.Warnings[0], "duplicate") {
		t.Errorf("lagging re-preview: %+v %q", lagging.Counts, lagging.Warnings)
	}
	since := e.clock.Now().UTC().Truncate(time.Second)
	var row service.PlanItem
	for _, it := range lagging.Items {
		if it.Reference == "checkout/s-1" {
			row = it
		}
	}
	if row.Action != core.ActionCreate || !row.UnknownSince.Equal(since) || !row.RetryAfter.Equal(since.Add(core.DefaultSearchLagWindow)) ||
		!strings.Contains(row.BlockedReason, "not created by this plan") {
		t.Errorf("blocked row %+v", row)
	}
	// Committing that plan does not create it again: it is reported as
	// unknown, and the tracker still holds one item per reference.
	// Not everything in the plan is in the tracker, so the commit is not
	// "committed": COMMIT_PARTIAL (the CLI's exit 4) with the held item.
	writes := e.p.Writes()
	e.commitHeld(lagging.PreviewHandle, "lagging", 0, "checkout/s-1")
	if e.p.Writes() != writes {
		t.Errorf("commit of the lagging plan: %d writes", e.p.Writes()-writes)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "lagging"); run.State != core.RunPartial {
		t.Errorf("run state %s; want partial", run.State)
	}
	e.byRef()
	// Still within the window, still blocked.
	e.clock.Advance(core.DefaultSearchLagWindow - time.Second)
	if again := e.preview(checkoutDoc()); again.Counts.Blocked != 1 {
		t.Errorf("just inside the window: %+v", again.Counts)
	}
	// Once search has caught up, a re-preview finds it, and the marker is
	// replaced by the real key.
	e.p.Settle()
	again := e.preview(checkoutDoc())
	if again.Counts != (service.Counts{Unchanged: 6}) {
		t.Errorf("re-preview counts %+v", again.Counts)
	}
	idx, err := e.st.LookupIndex(e.ctx, fakeprovider.DefaultScope, []core.Reference{"checkout/s-1"})
	if ie := idx["checkout/s-1"]; err != nil || ie.Key == "" || ie.Key != e.byRef()["checkout/s-1"].Key {
		t.Errorf("index entry after the item was found: %+v, %v", ie, err)
	}
	e.byRef()
}

// After the search-lag window, an item whose create had an unknown outcome
// and that search still does not show is taken as absent: a normal create,
// with a warning.
func TestUnknownCreateAfterTheLagWindowIsPlannedAsCreate(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	e.svc = e.serviceWith(service.ServiceOptions{SearchLagWindow: new(3 * time.Minute)})
	pre := e.preview(markdown("w", epic("e-1", "Only")))
	e.p.FailItem(1, fakeprovider.ItemLost, nil)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitPartial, "1 unknown")
	e.p.Delete(e.p.Items()[0].Key) // it really is gone (say, a person deleted it)
	e.clock.Advance(2 * time.Minute)
	if got := e.preview(markdown("w", epic("e-1", "Only"))); got.Counts != (service.Counts{Blocked: 1}) {
		t.Errorf("inside the 3-minute window: %+v", got.Counts)
	}
	e.clock.Advance(time.Minute)
	got := e.preview(markdown("w", epic("e-1", "Only")))
	if got.Counts != (service.Counts{Create: 1}) || got.Items[0].BlockedReason != "" || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "taken as absent") {
		t.Fatalf("after the window: %+v %q", got.Counts, got.Warnings)
	}
	if res := e.commit(got.PreviewHandle, ""); res.Counts.Created != 1 {
		t.Errorf("commit after the window: %+v", res.Counts)
	}
	e.byRef()
}

// A search-lag window of zero (ServiceOptions.SearchLagWindow set to 0, as
// search_lag_window: 0s does) holds nothing back: it is zero, not the
// default; an unset window is the default.
func TestZeroSearchLagWindowHoldsNothingBack(t *testing.T) {
	for _, c := range []struct {
		name   string
		window *time.Duration
		want   service.Counts
	}{
		{"zero", new(time.Duration(0)), service.Counts{Create: 1}},
		{"unset (the default, 10 minutes)", nil, service.Counts{Blocked: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, fakeprovider.Options{SearchLag: true})
			e.svc = e.serviceWith(service.ServiceOptions{SearchLagWindow: c.window})
			pre := e.preview(markdown("w", epic("e-1", "Only")))
			e.p.FailItem(1, fakeprovider.ItemLost, nil)
			_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
			wantErr(t, err, core.CodeCommitPartial, "1 unknown")
			e.p.Delete(e.p.Items()[0].Key)
			e.clock.Advance(time.Second)
			if got := e.preview(markdown("w", epic("e-1", "Only"))); got.Counts != c.want {
				t.Errorf("a second after the unknown create: %+v; want %+v", got.Counts, c.want)
			}
		})
	}
}

// A plan made before another commit's create of one of its items had an
// unknown outcome must not create that item: PREVIEW_STALE, no writes.
func TestUnknownCreateSinceThePreviewMakesItStale(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	planA := e.preview(checkoutDoc())
	planB := e.preview(checkoutDoc())
	e.p.FailItem(3, fakeprovider.ItemLost, nil) // s-1
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: planB.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitPartial, "1 unknown")
	writes := e.p.Writes()
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: planA.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodePreviewStale, "Nothing was written")
	found := false
	for _, d := range ce.Details {
		if d.Item == "checkout/s-1" && strings.Contains(d.Message, "unknown outcome") {
			found = true
		}
	}
	if !found || e.p.Writes() != writes {
		t.Errorf("details %+v, %d writes", ce.Details, e.p.Writes()-writes)
	}
	e.byRef()
}

func TestCancellationStopsBetweenItems(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime() // between batches: one at a time (TestCancelStopsNewWrites has them together)
	pre := e.preview(bigDoc("x", 1, 120))
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	_, err := e.svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true,
		Progress: func(done, total int) {
			if done == 1+core.MaxBatch {
				cancel()
			}
		}})
	wantErr(t, err, core.CodeCommitPartial, "51 item(s) committed", "70 untried", "cancelled")
	if n := len(e.p.Items()); n != 51 {
		t.Errorf("%d items; want 51 (stopped between batches)", n)
	}
}

func TestUpdateOnlyWhatChanged(t *testing.T) {
	e := checkoutEnv(t)
	if again := e.preview(checkoutDoc()); again.Counts != (service.Counts{Unchanged: 6}) {
		t.Fatalf("unchanged re-import: %+v", again.Counts)
	}
	items := slices.Clone(checkoutItems)
	items[1].title = "Pay as a guest"               // s-1 title
	items[2].ac = []string{"Address is remembered"} // s-2 criteria
	items[4].epic = "e-1"                           // s-3 moves to e-1
	pre := e.preview(markdown("checkout", items...))
	if pre.Counts != (service.Counts{Update: 3, Unchanged: 3}) {
		t.Fatalf("counts %+v", pre.Counts)
	}
	changed := map[core.Reference][]string{}
	for _, it := range pre.Items {
		if it.Action == core.ActionUpdate {
			changed[it.Reference] = it.ChangedFields
		}
	}
	if !slices.Equal(changed["checkout/s-1"], []string{"title"}) || !slices.Equal(changed["checkout/s-2"], []string{"acceptance_criteria"}) || !slices.Equal(changed["checkout/s-3"], []string{"parent"}) {
		t.Errorf("changed fields %v", changed)
	}
	before := e.p.Stats()
	res := e.commit(pre.PreviewHandle, "")
	after := e.p.Stats()
	if res.Counts != (service.CommitCounts{Updated: 3, Unchanged: 3}) || after.Calls[fakeprovider.OpUpdate]-before.Calls[fakeprovider.OpUpdate] != 3 || after.Calls[fakeprovider.OpCreate] != before.Calls[fakeprovider.OpCreate] {
		t.Errorf("counts %+v; update calls %d", res.Counts, after.Calls[fakeprovider.OpUpdate])
	}
	got := e.byRef()
	if got["checkout/s-1"].Title != "Pay as a guest" || got["checkout/s-3"].ParentKey != got["checkout/e-1"].Key {
		t.Errorf("tracker: %+v", got["checkout/s-1"])
	}
}

func TestDriftIsLeftAloneUnlessTakeDocument(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-1"].Key
	// A person edits the title and the description; the document changes
	// the description too, differently: the description is in conflict
	// and the title kept, so nothing is written (contentmerge.go; a
	// person's edit of one part with the document changing another is
	// TestContentMergePerPart).
	if err := e.p.Edit(key, func(w *core.WorkItem) { w.Title, w.Description = "Edited in Jira", "Edited in Jira too." }); err != nil {
		t.Fatal(err)
	}
	items := slices.Clone(checkoutItems)
	items[1].desc = "A new description." // the document changed too
	pre := e.preview(markdown("checkout", items...))
	if pre.Counts != (service.Counts{Drift: 1, Unchanged: 5}) || pre.Items[1].Action != core.ActionDrift || pre.Items[1].Key != key {
		t.Fatalf("counts %+v row %+v", pre.Counts, pre.Items[1])
	}
	if len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "s-1") || !strings.Contains(pre.Warnings[0], "Drift: take-document") {
		t.Errorf("warnings %q", pre.Warnings)
	}
	res := e.commit(pre.PreviewHandle, "")
	if res.Counts != (service.CommitCounts{Drift: 1, Unchanged: 5}) || e.p.Stats().Calls[fakeprovider.OpUpdate] != 0 {
		t.Errorf("counts %+v", res.Counts)
	}
	if w := e.byRef()["checkout/s-1"]; w.Title != "Edited in Jira" || w.Description != "Edited in Jira too." {
		t.Errorf("drifted item overwritten: %q %q", w.Title, w.Description)
	}
	// The author takes the document's version deliberately: of what both
	// changed (the description); the person's title, which the document
	// did not change, is kept (TestTakeDocumentResolvesConflictsOnly).
	items[1].take = true
	pre = e.preview(markdown("checkout", items...))
	if row := pre.Items[1]; row.Action != core.ActionUpdate || !row.TakeDocument || !slices.Equal(row.ChangedFields, []string{"description"}) {
		t.Fatalf("row %+v", row)
	}
	e.commit(pre.PreviewHandle, "")
	w := e.byRef()["checkout/s-1"]
	if w.Title != "Edited in Jira" || w.Description != "A new description." {
		t.Errorf("after take-document: %+v", w)
	}
	// The document takes the person's title: nothing is left to take.
	items[1].title = "Edited in Jira"
	e.commit(e.preview(markdown("checkout", items...)).PreviewHandle, "")
	if w := e.byRef()["checkout/s-1"]; w.Title != "Edited in Jira" || w.EditedOutside {
		t.Errorf("after the document took the person's title: %+v", w)
	}
	// The marker with nothing to take is harmless and says so.
	if pre := e.preview(markdown("checkout", items...)); pre.Counts.Unchanged != 6 || len(pre.Warnings) != 1 || !strings.Contains(pre.Warnings[0], "no effect") {
		t.Errorf("counts %+v warnings %q", pre.Counts, pre.Warnings)
	}
}

func TestDedupIndexBridgesSearchLag(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	e.importDoc(checkoutDoc())
	// Search has not caught up: only the dedup index knows the keys.
	if again := e.preview(checkoutDoc()); again.Counts != (service.Counts{Unchanged: 6}) {
		t.Fatalf("re-preview under search lag: %+v (would duplicate)", again.Counts)
	}
}

func TestProviderErrorsCarryTheRunID(t *testing.T) {
	e := newEnv(t)
	e.p.FailCall(fakeprovider.OpLookup, 1, core.Errorf(core.CodeJiraRateLimited, "Jira is rate limiting; retry in a minute"))
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "p.md", Data: []byte(checkoutDoc())})
	ce := wantErr(t, err, core.CodeJiraRateLimited, "rate limiting")
	found := false
	for _, l := range e.logLines() {
		if l["run_id"] == ce.RunID && l["code"] == string(core.CodeJiraRateLimited) {
			found = true
		}
	}
	if !found {
		t.Errorf("no log line with run id %s and the code", ce.RunID)
	}
}

func TestEveryLogLineHasARunID(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	res := e.commit(pre.PreviewHandle, "")
	_, _ = e.svc.Query(e.ctx, service.QueryInput{})
	lines := e.logLines()
	var counts, outcomes bool
	for _, l := range lines {
		id, _ := l["run_id"].(string)
		if !strings.HasPrefix(id, "run_") {
			t.Errorf("log line without run id: %v", l)
		}
		if id == pre.RunID && l["create"] == float64(6) {
			counts = true
		}
		if id == res.RunID && l["outcome"] == core.OutcomeCommitted {
			outcomes = true
		}
	}
	if !counts || !outcomes {
		t.Errorf("logs lack classification counts (%v) or outcomes (%v)", counts, outcomes)
	}
}

func TestPreviewShowsAStoredPlan(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.p.ForbidWrites(t)
	info, err := e.svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != core.PreviewImport || info.Import == nil || info.Import.PreviewHandle != pre.PreviewHandle || info.Import.Counts != pre.Counts || len(info.Import.Items) != 6 || !info.Import.ExpiresAt.Equal(pre.ExpiresAt) {
		t.Errorf("info %+v", info)
	}
	_, err = e.svc.StoredPreview(e.ctx, "imp_nope")
	wantErr(t, err, core.CodePreviewNotFound, "imp_nope")
	e.clock.Advance(31 * time.Minute)
	_, err = e.svc.StoredPreview(e.ctx, pre.PreviewHandle)
	wantErr(t, err, core.CodePreviewExpired, "1 minute ago")
}

func TestTamperedPlanIsAnInternalError(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	if !e.st.TamperPlan(pre.PreviewHandle, []byte(`{"version":1,"entries":[]}`)) {
		t.Fatal("TamperPlan: no such handle")
	}
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeInternal)
}

func TestPreviewTTLOption(t *testing.T) {
	e := newEnv(t)
	e.svc = e.serviceWith(service.ServiceOptions{PreviewTTL: 5 * time.Minute})
	pre := e.preview(checkoutDoc())
	if want := e.clock.Now().UTC().Truncate(time.Second).Add(5 * time.Minute); !pre.ExpiresAt.Equal(want) {
		t.Errorf("expires_at %v; want %v", pre.ExpiresAt, want)
	}
	e.clock.Advance(5*time.Minute + 90*time.Second)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewExpired, "expired 1 minute ago", "valid for 5 minutes")
}

// runIDSpy records the run id each Lookup was called under.
type runIDSpy struct {
	*fakeprovider.Provider
	seen []string
}

func (r *runIDSpy) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	r.seen = append(r.seen, core.RunIDFrom(ctx))
	return r.Provider.Lookup(ctx, refs, known)
}

func TestProviderCallsCarryTheRunID(t *testing.T) {
	e := newEnv(t)
	spy := &runIDSpy{Provider: e.p}
	e.svc = e.service(spy)
	pre := e.preview(checkoutDoc())
	res := e.commit(pre.PreviewHandle, "")
	if !slices.Equal(spy.seen, []string{pre.RunID, res.RunID}) {
		t.Errorf("run ids seen by the provider %q; want the preview's and the commit's %q, %q", spy.seen, pre.RunID, res.RunID)
	}
	if core.RunIDFrom(e.ctx) != "" {
		t.Error("RunIDFrom outside an operation")
	}
}

func TestImportPreviewReadsThePath(t *testing.T) {
	e := newEnv(t)
	md := filepath.Join(t.TempDir(), "checkout-v2.md")
	if err := os.WriteFile(md, []byte(checkoutDoc()), 0o600); err != nil {
		t.Fatal(err)
	}
	e.p.ForbidWrites(t)
	res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: md})
	if err != nil || res.Document != "checkout" || res.Counts.Create != 6 {
		t.Fatalf("preview by path: %+v %v", res.Counts, err)
	}
}

func TestYAMLAndMarkdownFormsImportAlike(t *testing.T) {
	e := newEnv(t)
	yml := `id: checkout
epics:
  - id: e-1
    title: Guest checkout
    description: About Guest checkout.
    stories:
      - id: s-1
        title: Pay without an account
        description: Story Pay without an account.
        acceptance_criteria: [It works, It is tested]
`
	md := markdown("checkout", epic("e-1", "Guest checkout"), story("s-1", "Pay without an account", "e-1"))
	e.p.ForbidWrites(t)
	res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "checkout.yaml", Data: []byte(yml)})
	if err != nil || res.Counts.Create != 2 || res.Items[1].Parent != "checkout/e-1" {
		t.Fatalf("yaml preview %+v %v", res.Items, err)
	}
	e.p.AllowWrites()
	e.commit(res.PreviewHandle, "")
	// The same content in Markdown is unchanged: the digest is of the
	// content, not of the format.
	if again := e.preview(md); again.Counts != (service.Counts{Unchanged: 2}) {
		t.Errorf("markdown after yaml: %+v", again.Counts)
	}
}

func TestCommitResultLinksEveryItem(t *testing.T) {
	e := checkoutEnv(t)
	items := slices.Clone(checkoutItems)
	items[1].title = "Changed"
	res := e.importDoc(markdown("checkout", items...))
	for _, it := range res.Items {
		if it.Key == "" || !strings.HasSuffix(it.URL, "/browse/"+it.Key) {
			t.Errorf("item %+v lacks its key or URL", it)
		}
	}
}

// flakyStore fails recording outcomes from the n-th outcome on: the
// RecordOutcomes call that would record it, and every later one, fail
// (recording nothing).
type flakyStore struct {
	core.Store
	mu                 sync.Mutex
	outcomes, failFrom int
	// fault is the store's error ("" → a read-only store's).
	fault string
}

func (f *flakyStore) failure() error {
	return core.Errorf(core.CodeInternal, "%s", cmp.Or(f.fault, "the state store is read-only"))
}

// failing reports whether the store fails from now on.
func (f *flakyStore) failing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outcomes >= f.failFrom
}

func (f *flakyStore) RecordOutcomes(ctx context.Context, key string, outcomes []core.ItemOutcome) error {
	f.mu.Lock()
	f.outcomes += len(outcomes)
	fail := len(outcomes) > 0 && f.outcomes >= f.failFrom
	f.mu.Unlock()
	if fail {
		return f.failure()
	}
	return f.Store.RecordOutcomes(ctx, key, outcomes)
}

func TestStoreFaultStopsTheCommit(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("f", 2, 60)) // epics, then stories in batches of 50
	svc := e.serviceWith(service.ServiceOptions{Store: &flakyStore{Store: e.st, failFrom: 2}})
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitPartial, "state store failed", "2 item(s) committed", "120 untried")
	if n := len(e.p.Items()); n != 2 {
		t.Errorf("%d items written after the store failed; want only the epic batch (2)", n)
	}
}

// An update whose answer was lost (the PUT may have been applied: the
// e2e fault test saw drop-after-apply on every call) is reported as
// unknown and the commit as COMMIT_PARTIAL, never "Nothing was written";
// a refused update (4xx, 429) still returns its own code with "Nothing was
// written".
func TestUpdateOfUnclearOutcomeIsUnknown(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime() // the faults are scripted by call number: updates in plan order
	e.importDoc(checkoutDoc())
	items := slices.Clone(checkoutItems)
	items[1].title = "Pay as a guest"
	items[2].title = "Save the address"
	doc := markdown("checkout", items...)

	e.p.LoseResponse(fakeprovider.OpUpdate, 0, nil) // applied every time, the answer always lost
	pre := e.preview(doc)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "lost"})
	ce := wantErr(t, err, core.CodeCommitPartial, "0 item(s) committed, 0 failed, 1 unknown, 1 untried", "outcome of updating checkout/s-1", "may have been written", "were not sent again")
	if strings.Contains(ce.Message, "Nothing was written") {
		t.Errorf("message %q claims nothing was written", ce.Message)
	}
	if len(ce.Details) != 2 || ce.Details[0].Outcome != core.OutcomeUnknown || ce.Details[0].Code != core.CodeJiraUnavailable ||
		!strings.Contains(ce.Details[0].Message, "may or may not have been applied") || ce.Details[1].Outcome != core.OutcomeUntried {
		t.Errorf("details %+v", ce.Details)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "lost"); run.State != core.RunPartial {
		t.Errorf("run state %s; want partial", run.State)
	}
	e.p.ClearFaults()
	// The edit was applied: a re-preview shows s-1 unchanged, plans s-2.
	again := e.preview(doc)
	if again.Counts != (service.Counts{Update: 1, Unchanged: 5}) {
		t.Errorf("re-preview counts %+v; want the applied update unchanged", again.Counts)
	}

	// Refusals: nothing written, the failure's own code.
	for _, c := range []*core.Error{
		core.Errorf(core.CodeJiraRateLimited, "Jira is rate limiting."),
		core.Errorf(core.CodeJiraPermissionDenied, "You may not edit issues in DEMO."),
		core.Errorf(core.CodeValidationFailed, "Field 'summary' is too long."),
		core.Errorf(core.CodeWorkItemNotFound, "DEMO-2 does not exist."),
	} {
		pre := e.preview(doc)
		e.p.FailCall(fakeprovider.OpUpdate, 1, c)
		_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "r-" + string(c.Code)})
		ce := wantErr(t, err, c.Code, "Nothing was written")
		if len(ce.Details) != 1 || ce.Details[0].Outcome != core.OutcomeFailed {
			t.Errorf("%s: details %+v", c.Code, ce.Details)
		}
	}
}

// An issue the dedup index knows whose reference field a person edited,
// or that was deleted, is no longer silent: the preview warns, naming the
// issue, that the item will be created again (and why).
func TestPreviewWarnsOfEditedReferencesAndDeletedIssues(t *testing.T) {
	e := checkoutEnv(t)
	got := e.byRef()
	edited, deleted := got["checkout/s-1"].Key, got["checkout/s-2"].Key
	if err := e.p.SetReference(edited, "checkout/s-1-old"); err != nil {
		t.Fatal(err)
	}
	e.p.Delete(deleted)
	pre := e.preview(checkoutDoc())
	if pre.Counts.Create != 2 {
		t.Fatalf("counts %+v; want the 2 lost items planned as creates", pre.Counts)
	}
	want := map[string][]string{
		edited:  {"Story s-1 was created as " + edited, "reference checkout/s-1-old", "someone edited its reference field", "created again", "set its reference field back to checkout/s-1"},
		deleted: {"Story s-2 was created as " + deleted, "no longer in the tracker", "created again"},
	}
	for key, frags := range want {
		found := false
		for _, w := range pre.Warnings {
			if strings.Contains(w, frags[0]) {
				found = true
				for _, f := range frags[1:] {
					if !strings.Contains(w, f) {
						t.Errorf("warning %q lacks %q", w, f)
					}
				}
			}
		}
		if !found {
			t.Errorf("no warning names %s: %q", key, pre.Warnings)
		}
	}
}

// Two issues carrying one reference are no longer an arbitrary, silent
// pick: the preview names both and says which one DevWorkWire uses.
func TestPreviewWarnsOfTwoIssuesWithOneReference(t *testing.T) {
	e := checkoutEnv(t)
	mine := e.byRef()["checkout/s-3"].Key
	copyKey := e.p.AddAsPerson(core.WorkItem{Reference: "checkout/s-3", Kind: core.KindStory, Title: "A copy", Status: core.StatusTodo})
	pre := e.preview(checkoutDoc())
	found := false
	for _, w := range pre.Warnings {
		if strings.Contains(w, "checkout/s-3 is held by more than one issue") {
			found = true
			for _, f := range []string{mine + " and " + copyKey, "DevWorkWire uses " + mine, "leaves " + copyKey + " alone"} {
				if !strings.Contains(w, f) {
					t.Errorf("warning %q lacks %q", w, f)
				}
			}
		}
	}
	if !found {
		t.Errorf("no warning names the two issues of checkout/s-3: %q", pre.Warnings)
	}
	for _, it := range pre.Items {
		if it.Reference == "checkout/s-3" && it.Key != mine {
			t.Errorf("the plan uses %s for checkout/s-3; want %s, the one DevWorkWire created", it.Key, mine)
		}
	}
}
