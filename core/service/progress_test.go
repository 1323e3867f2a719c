package service_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

func progressPreview(t *testing.T, e *env, in service.ProgressPreviewInput) service.ProgressPreviewResult {
	t.Helper()
	e.p.ForbidWrites(t)
	defer e.p.AllowWrites()
	res, err := e.svc.ProgressPreview(e.ctx, in)
	if err != nil {
		t.Fatalf("ProgressPreview: %v", err)
	}
	return res
}

func TestProgressPreviewAndCommit(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-1"].Key
	for _, item := range []string{key, "checkout/s-1"} {
		t.Run(item, func(t *testing.T) {
			pre := progressPreview(t, e, service.ProgressPreviewInput{Item: item, Status: core.StatusInProgress, Comment: "Started: **API** first."})
			if pre.ResultType != service.ResultPreview || !regexp.MustCompile(`^prg_[0-9a-f]{32}$`).MatchString(pre.PreviewHandle) || pre.RunID == "" {
				t.Fatalf("result %+v", pre)
			}
			if pre.Item.Key != key || pre.Item.Reference != "checkout/s-1" || pre.Item.Title != "Pay without an account" ||
				pre.CurrentStatus != core.StatusTodo || pre.TargetStatus != core.StatusInProgress || pre.Transition != "Start progress" || pre.Comment != "Started: **API** first." {
				t.Errorf("preview %+v", pre)
			}
			writes := e.p.Writes()
			res, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "p-" + item})
			if err != nil {
				t.Fatal(err)
			}
			if res.ResultType != service.ResultCommitted || !res.Transitioned || !res.CommentAdded || res.Status != core.StatusInProgress || res.Item.Key != key {
				t.Errorf("commit %+v", res)
			}
			if e.p.Writes()-writes != 2 {
				t.Errorf("%d writes; want 2 (transition + comment)", e.p.Writes()-writes)
			}
			// Replay: same key, same handle.
			e.p.ForbidWrites(t)
			again, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "p-" + item})
			e.p.AllowWrites()
			if err != nil || !again.Replayed || again.RunID != res.RunID {
				t.Errorf("replay %+v %v", again, err)
			}
			// Put it back for the next subtest.
			_ = e.p.SetStatus(key, core.StatusTodo)
		})
	}
	if c := e.p.Comments(key); len(c) != 2 || c[0] != "Started: **API** first." {
		t.Errorf("comments %q", c)
	}
}

func TestProgressCommentOnly(t *testing.T) {
	e := checkoutEnv(t)
	pre := progressPreview(t, e, service.ProgressPreviewInput{Item: "checkout/e-1", Comment: "Half way."})
	if pre.TargetStatus != "" || pre.Transition != "" {
		t.Errorf("preview %+v", pre)
	}
	res, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	if err != nil || res.Transitioned || !res.CommentAdded || res.Status != core.StatusTodo {
		t.Fatalf("commit %+v %v", res, err)
	}
	if e.p.Stats().Calls[fakeprovider.OpTransition] != 0 {
		t.Error("a comment-only commit transitioned")
	}
}

func TestProgressPreviewErrors(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-1"].Key
	e.p.RemoveTransitionTo(core.StatusDone)
	e.p.ForbidWrites(t)
	cases := []refusal[service.ProgressPreviewInput]{
		{"no transition", service.ProgressPreviewInput{Item: key, Status: core.StatusDone}, core.CodeValidationFailed,
			[]string{"No workflow transition", key, "done", `"Start progress" → in_progress`}},
		{"bad status", service.ProgressPreviewInput{Item: key, Status: "finished"}, core.CodeValidationFailed, []string{`"finished"`, "todo, in_progress or done"}},
		{"nothing to do", service.ProgressPreviewInput{Item: key}, core.CodeValidationFailed, []string{"status, a comment, or both"}},
		{"already there", service.ProgressPreviewInput{Item: key, Status: core.StatusTodo}, core.CodeValidationFailed, []string{"already todo"}},
		{"unknown key", service.ProgressPreviewInput{Item: "DEMO-999", Status: core.StatusInProgress}, core.CodeWorkItemNotFound, []string{"DEMO-999"}},
		{"unknown reference", service.ProgressPreviewInput{Item: "checkout/s-99", Comment: "x"}, core.CodeWorkItemNotFound, []string{"checkout/s-99"}},
		{"malformed reference", service.ProgressPreviewInput{Item: "checkout/", Comment: "x"}, core.CodeValidationFailed, []string{"<document id>/<item id>"}},
		{"no item", service.ProgressPreviewInput{Comment: "x"}, core.CodeValidationFailed, []string{"No work item given"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.ProgressPreview(e.ctx, tc.in)
			wantErr(t, err, tc.code, tc.frags...)
		})
	}
}

func TestProgressCommitGate(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-2"].Key
	pre := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "Done."})

	// A person moved it meanwhile: stale, nothing written.
	_ = e.p.SetStatus(key, core.StatusInProgress)
	e.p.ForbidWrites(t)
	_, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale, "moved from todo to in_progress", "progress preview again")
	e.p.AllowWrites()

	// Fingerprint-only change (an edit) is stale too.
	pre = progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone})
	_ = e.p.EditTitle(key, "Renamed")
	_, err = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale, "changed in the tracker")

	// Key reuse across handles.
	pre = progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone})
	if _, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "pk"}); err != nil {
		t.Fatal(err)
	}
	other := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Comment: "more"})
	_, err = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: other.PreviewHandle, Confirmed: true, IdempotencyKey: "pk"})
	wantErr(t, err, core.CodeIdempotencyKeyReused, `"pk"`)
}

func TestProgressCommitFailures(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-3"].Key

	// The transition fails: nothing written, the tracker's code surfaces.
	pre := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "c"})
	e.p.FailCall(fakeprovider.OpTransition, 1, core.Errorf(core.CodeJiraPermissionDenied, "You may not transition issues in DEMO."))
	_, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	ce := wantErr(t, err, core.CodeJiraPermissionDenied, "Nothing was written", "may not transition")
	if len(ce.Details) != 2 || ce.Details[1].Outcome != core.OutcomeUntried {
		t.Errorf("details %+v", ce.Details)
	}

	// The comment is refused after the transition: partial.
	pre = progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "c"})
	e.p.FailCall(fakeprovider.OpComment, 1, core.Errorf(core.CodeJiraPermissionDenied, "You may not comment on issues in DEMO."))
	_, err = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "half"})
	ce = wantErr(t, err, core.CodeCommitPartial, "moved to done", "comment failed")
	if len(ce.Details) != 2 || ce.Details[0].Outcome != core.OutcomeCommitted || ce.Details[1].Outcome != core.OutcomeFailed {
		t.Errorf("details %+v", ce.Details)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "half"); run.State != core.RunPartial || len(run.Outcomes) != 2 {
		t.Errorf("run %+v", run)
	}
}

// A transition or comment whose answer was lost (JIRA_UNAVAILABLE: it may
// have been applied) is reported as unknown and the commit as
// COMMIT_PARTIAL, never "Nothing was written"; a refusal (4xx, 429) still
// writes nothing.
func TestProgressWriteOfUnclearOutcomeIsUnknown(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-3"].Key
	commit := func(in service.ProgressPreviewInput, k string) error {
		t.Helper()
		pre := progressPreview(t, e, in)
		_, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: k})
		return err
	}
	wantRun := func(k string, state core.RunState, outcomes ...string) {
		t.Helper()
		run, _, _ := e.st.GetRun(e.ctx, k)
		var got []string
		for _, o := range run.Outcomes {
			got = append(got, o.Outcome)
		}
		if run.State != state || strings.Join(got, ",") != strings.Join(outcomes, ",") {
			t.Errorf("run %s: state %s, outcomes %v; want %s, %v", k, run.State, got, state, outcomes)
		}
	}

	// The transition was applied, its answer lost.
	e.p.LoseResponse(fakeprovider.OpTransition, 1, nil)
	err := commit(service.ProgressPreviewInput{Item: key, Status: core.StatusInProgress, Comment: "started"}, "t")
	ce := wantErr(t, err, core.CodeCommitPartial, "may or may not have happened", "may have been written", "comment was not attempted", "Check "+key+"'s status")
	if strings.Contains(ce.Message, "Nothing was written") || len(ce.Details) != 2 || ce.Details[0].Outcome != core.OutcomeUnknown || ce.Details[0].Code != core.CodeJiraUnavailable || ce.Details[1].Outcome != core.OutcomeUntried {
		t.Errorf("message %q, details %+v", ce.Message, ce.Details)
	}
	wantRun("t", core.RunPartial, core.OutcomeUnknown)
	if w, _ := e.p.Get(e.ctx, key); w.Status != core.StatusInProgress || len(e.p.Comments(key)) != 0 {
		t.Fatalf("tracker: status %s, %d comments; want in_progress, 0", w.Status, len(e.p.Comments(key)))
	}

	// The comment alone, applied, its answer lost.
	e.p.LoseResponse(fakeprovider.OpComment, 1, nil)
	err = commit(service.ProgressPreviewInput{Item: key, Comment: "note"}, "c")
	ce = wantErr(t, err, core.CodeCommitPartial, "may or may not have been added", "may have been written", "before adding it again")
	if len(ce.Details) != 1 || ce.Details[0].Outcome != core.OutcomeUnknown {
		t.Errorf("details %+v", ce.Details)
	}
	wantRun("c", core.RunPartial, core.OutcomeUnknown)

	// After a transition, the comment's answer lost.
	e.p.LoseResponse(fakeprovider.OpComment, 1, nil)
	err = commit(service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "finished"}, "tc")
	ce = wantErr(t, err, core.CodeCommitPartial, "moved to done", "may or may not have been added")
	if len(ce.Details) != 2 || ce.Details[0].Outcome != core.OutcomeCommitted || ce.Details[1].Outcome != core.OutcomeUnknown {
		t.Errorf("details %+v", ce.Details)
	}
	wantRun("tc", core.RunPartial, core.OutcomeCommitted, core.OutcomeUnknown)

	// Refusals write nothing: the tracker's own code, "Nothing was written".
	for _, c := range []*core.Error{
		core.Errorf(core.CodeJiraRateLimited, "Jira is rate limiting."),
		core.Errorf(core.CodeValidationFailed, "The transition is no longer available."),
		core.Errorf(core.CodeWorkItemNotFound, "Gone."),
	} {
		e.p.FailCall(fakeprovider.OpTransition, 1, c)
		err = commit(service.ProgressPreviewInput{Item: key, Status: core.StatusTodo}, "r-"+string(c.Code))
		ce = wantErr(t, err, c.Code, "Nothing was written")
		if len(ce.Details) != 1 || ce.Details[0].Outcome != core.OutcomeFailed {
			t.Errorf("%s: details %+v", c.Code, ce.Details)
		}
		wantRun("r-"+string(c.Code), core.RunFailed, core.OutcomeFailed)
	}
}

func TestProgressInterrupted(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-4"].Key
	pre := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "c"})
	e.p.CrashAt(fakeprovider.OpComment, 1, false)
	crash(t, func() {
		_, _ = e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "dead"})
	})
	e.svc = e.service(e.p)
	e.p.ForbidWrites(t)
	_, err := e.svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "dead"})
	ce := wantErr(t, err, core.CodeCommitInterrupted, "1 item outcome(s)", "progress preview again")
	if len(ce.Details) != 1 || !strings.Contains(ce.Details[0].Message, "moved to done") {
		t.Errorf("details %+v", ce.Details)
	}
}

// A progress commit whose transition the state store cannot record stops
// there: the comment is not sent (a replay of the key could not tell the
// transition was made), and the result says the transition was written.
func TestProgressStopsWhenItsRecordFails(t *testing.T) {
	e := checkoutEnv(t)
	key := e.byRef()["checkout/s-1"].Key
	pre := progressPreview(t, e, service.ProgressPreviewInput{Item: key, Status: core.StatusInProgress, Comment: "Started."})
	svc := e.serviceWith(service.ServiceOptions{Store: &flakyStore{Store: e.st, failFrom: 1}})
	_, err := svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "rec"})
	ce := wantErr(t, err, core.CodeCommitPartial, "transition of "+key+" was written", "state store could not record it", "comment was not sent")
	if c := e.p.Comments(key); len(c) != 0 {
		t.Errorf("comments %q sent after the store failed; want none", c)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpComment]; n != 0 {
		t.Errorf("%d comment calls after the store failed; want 0", n)
	}
	if w := e.byRef()["checkout/s-1"]; w.Status != core.StatusInProgress {
		t.Errorf("status %s; want the transition made (in_progress)", w.Status)
	}
	want := []core.Detail{
		{Item: "checkout/s-1", Key: key, Outcome: core.OutcomeCommitted, Message: "transition: moved to in_progress"},
		{Item: "checkout/s-1", Key: key, Outcome: core.OutcomeUntried, Message: "comment: not attempted"},
	}
	if len(ce.Details) != len(want) || ce.Details[0] != want[0] || ce.Details[1] != want[1] {
		t.Errorf("details %+v; want %+v", ce.Details, want)
	}
}
