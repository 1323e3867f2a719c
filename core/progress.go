package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// progressPlan is what a progress preview stores under its handle.
type progressPlan struct {
	Version        int                   `json:"version"`
	Result         ProgressPreviewResult `json:"result"`
	Key            string                `json:"key"`
	Reference      Reference             `json:"reference,omitempty"`
	Fingerprint    string                `json:"fingerprint"`
	Current        Status                `json:"current"`
	Target         Status                `json:"target,omitempty"`
	TransitionID   string                `json:"transition_id,omitempty"`
	TransitionName string                `json:"transition_name,omitempty"`
	Comment        string                `json:"comment,omitempty"`
}

const progressPlanVersion = 1

func statusList() string { return "todo, in_progress or done" }

// resolve finds one item by tracker key or by reference (doc/item).
func (s *WorkItemService) resolve(ctx context.Context, item string) (WorkItem, error) {
	item = strings.TrimSpace(item)
	if item == "" {
		return WorkItem{}, Errorf(CodeValidationFailed, "No work item given: pass a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1.").
			WithDetails(Detail{Field: "item", Message: "missing"})
	}
	if !strings.Contains(item, "/") {
		return s.p.Get(ctx, item)
	}
	ref := Reference(item)
	if d, i := ref.Split(); d == "" || i == "" {
		return WorkItem{}, Errorf(CodeValidationFailed, "%q is not a reference: write it as <document id>/<item id>, e.g. checkout-v2/s-1.", item).
			WithDetails(Detail{Field: "item", Message: "malformed reference"})
	}
	idx, err := s.st.LookupIndex(ctx, s.p.Scope(), []Reference{ref})
	if err != nil {
		return WorkItem{}, err
	}
	found, err := s.p.Lookup(ctx, []Reference{ref}, knownKeys(idx))
	if err != nil {
		return WorkItem{}, err
	}
	w, ok := found[ref]
	if !ok {
		return WorkItem{}, Errorf(CodeWorkItemNotFound, "No work item in %s has the reference %s. Check the document id and item id, or use the Jira key.", s.p.Scope(), ref).
			WithDetails(Detail{Item: item, Field: "item", Message: "reference not found"})
	}
	return w, nil
}

func itemRef(w WorkItem) ItemRef {
	return ItemRef{Key: w.Key, Reference: w.Reference, Title: w.Title, URL: w.URL}
}

// ProgressPreview plans a status change and/or a comment on one item and
// stores the plan under a new progress handle. It writes nothing.
func (s *WorkItemService) ProgressPreview(ctx context.Context, in ProgressPreviewInput) (ProgressPreviewResult, error) {
	ctx, o := s.begin(ctx, "progress.preview")
	res, err := s.progressPreview(ctx, o, in)
	if err != nil {
		return ProgressPreviewResult{}, o.fail(err)
	}
	o.done("preview stored", "handle", res.PreviewHandle, "key", res.Item.Key, "current", res.CurrentStatus, "target", res.TargetStatus, "comment", res.Comment != "")
	return res, nil
}

func (s *WorkItemService) progressPreview(ctx context.Context, o *op, in ProgressPreviewInput) (ProgressPreviewResult, error) {
	comment := strings.TrimSpace(in.Comment)
	var problems []Detail
	if in.Status != "" && !in.Status.Valid() {
		problems = append(problems, Detail{Field: "status", Message: fmt.Sprintf("%q is not a status; use %s", in.Status, statusList())})
	}
	if in.Status == "" && comment == "" {
		problems = append(problems, Detail{Field: "status", Message: "give a target status, a comment, or both"})
	}
	if len(problems) > 0 {
		return ProgressPreviewResult{}, Errorf(CodeValidationFailed, "Nothing valid to preview: %s.", problems[0].Message).WithDetails(problems...)
	}
	w, err := s.resolve(ctx, in.Item)
	if err != nil {
		return ProgressPreviewResult{}, err
	}
	pl := progressPlan{Version: progressPlanVersion, Key: w.Key, Reference: w.Reference, Fingerprint: w.Fingerprint, Current: w.Status, Comment: comment}
	res := ProgressPreviewResult{ResultType: ResultPreview, RunID: o.runID, Item: itemRef(w), CurrentStatus: w.Status, Comment: comment}
	if in.Status != "" {
		res.TargetStatus = in.Status
		if in.Status == w.Status {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is already %s; its status will not change.", w.Key, w.Status))
			if comment == "" {
				return ProgressPreviewResult{}, Errorf(CodeValidationFailed, "%s is already %s and no comment was given: there is nothing to do.", w.Key, w.Status).
					WithDetails(Detail{Item: w.Key, Field: "status", Message: "already " + string(w.Status)})
			}
		} else {
			ts, err := s.p.Transitions(ctx, w.Key)
			if err != nil {
				return ProgressPreviewResult{}, err
			}
			var avail []string
			for _, t := range ts {
				if t.To == in.Status {
					pl.Target, pl.TransitionID, pl.TransitionName = in.Status, t.ID, t.Name
					res.Transition = t.Name
					break
				}
				avail = append(avail, fmt.Sprintf("%q → %s", t.Name, t.To))
			}
			if pl.TransitionID == "" {
				have := "none"
				if len(avail) > 0 {
					have = strings.Join(avail, ", ")
				}
				return ProgressPreviewResult{}, Errorf(CodeValidationFailed, "No workflow transition takes %s from %s to %s; available transitions: %s. Pick one of those statuses, or change the workflow in Jira.",
					w.Key, w.Status, in.Status, have).
					WithDetails(Detail{Item: w.Key, Field: "status", Message: "no transition reaches " + string(in.Status)})
			}
		}
	}
	pl.Result = res
	p, err := s.savePreview(ctx, PreviewProgress, pl)
	if err != nil {
		return ProgressPreviewResult{}, err
	}
	res.PreviewHandle, res.ExpiresAt = p.Handle, p.ExpiresAt
	return res, nil
}

// ProgressCommit executes a stored progress plan behind the gate.
func (s *WorkItemService) ProgressCommit(ctx context.Context, in CommitInput) (ProgressCommitResult, error) {
	ctx, o := s.begin(ctx, "progress.commit")
	res, err := s.progressCommit(ctx, o, in)
	if err != nil {
		return ProgressCommitResult{}, o.fail(err)
	}
	o.done("commit finished", "handle", res.PreviewHandle, "idempotency_key", res.IdempotencyKey, "replayed", res.Replayed,
		"key", res.Item.Key, "status", res.Status, "transitioned", res.Transitioned, "comment_added", res.CommentAdded)
	return res, nil
}

func (s *WorkItemService) progressCommit(ctx context.Context, o *op, in CommitInput) (ProgressCommitResult, error) {
	g, err := s.openGate(ctx, o, PreviewProgress, in)
	if err != nil {
		return ProgressCommitResult{}, err
	}
	if g.replay != nil {
		return replayProgress(g.replay)
	}
	var pl progressPlan
	if err := json.Unmarshal(g.preview.Plan, &pl); err != nil || pl.Version != progressPlanVersion {
		return ProgressCommitResult{}, Errorf(CodeInternal, "The stored plan of preview %q cannot be read. Run progress.preview again.", g.preview.Handle)
	}
	// Stale check, under the item's commit lock: one re-read of the item
	// before the first write.
	unlock, err := s.commitLock(ctx, o, PreviewProgress, "progress|"+g.preview.Scope+"|"+pl.Key, lockOwner(g.key, g.preview.Handle), pl.Key)
	if err != nil {
		return ProgressCommitResult{}, err
	}
	// A commit that did not start its run leaves the lock to a concurrent
	// commit of the same key that did (the same owner).
	started := false
	defer func() { unlock(!started && s.keepSharedLock(ctx, o, g.key)) }()
	w, err := s.p.Get(ctx, pl.Key)
	if ErrorCode(err) == CodeWorkItemNotFound {
		return ProgressCommitResult{}, s.whyStale(ctx, g, Errorf(CodePreviewStale, "%s is no longer in the tracker. Nothing was written. Run progress.preview again.", pl.Key).
			WithDetails(Detail{Item: string(pl.Reference), Key: pl.Key, Message: "no longer exists"}))
	}
	if err != nil {
		return ProgressCommitResult{}, err
	}
	if w.Status != pl.Current || w.Fingerprint != pl.Fingerprint {
		msg := fmt.Sprintf("%s changed in the tracker since the preview", pl.Key)
		if w.Status != pl.Current {
			msg = fmt.Sprintf("%s moved from %s to %s since the preview", pl.Key, pl.Current, w.Status)
		}
		return ProgressCommitResult{}, s.whyStale(ctx, g, Errorf(CodePreviewStale, "%s, so the stored plan no longer matches it. Nothing was written. Run progress.preview again.", msg).
			WithDetails(Detail{Item: string(pl.Reference), Key: pl.Key, Message: msg}))
	}
	started, err = s.startRun(ctx, o, PreviewProgress, g)
	if err != nil {
		return ProgressCommitResult{}, err
	}
	if !started {
		return replayProgress(g.replay)
	}
	res := ProgressCommitResult{ResultType: ResultCommitted, RunID: o.runID, PreviewHandle: g.preview.Handle, IdempotencyKey: g.key,
		Item: pl.Result.Item, Status: pl.Current}
	ref := pl.Reference
	if ref == "" {
		ref = Reference(pl.Key)
	}
	var details []Detail
	// stop ends the run at a failed write; sent says the request was sent
	// (a failure before sending is never unclear).
	stop := func(action string, err error, sent bool) error {
		ae := AsError(err)
		// A write whose answer was lost may have been applied: unknown,
		// and the commit is partial ("may have been written").
		unclear := sent && writeMayHaveApplied(err)
		outcome, msg := OutcomeFailed, ae.Message
		if unclear {
			outcome, msg = OutcomeUnknown, "may or may not have been applied ("+string(ae.Code)+"): "+ae.Message
		}
		s.record(ctx, o, g.key, ItemOutcome{Reference: ref, Action: Action(action), Key: pl.Key, Outcome: outcome, Code: ae.Code, Message: msg})
		details = append(details, Detail{Item: string(ref), Key: pl.Key, Outcome: outcome, Code: ae.Code, Message: action + ": " + msg})
		if action == "transition" && pl.Comment != "" {
			details = append(details, Detail{Item: string(ref), Key: pl.Key, Outcome: OutcomeUntried, Message: "comment: not attempted"})
		}
		cause := fmt.Sprintf("%s: %s", ae.Code, strings.TrimSuffix(ae.Message, "."))
		var e *Error
		switch {
		case res.Transitioned && unclear:
			e = Errorf(CodeCommitPartial, "%s moved to %s, but the comment may or may not have been added (%s). It was not sent again: check %s's comments in the tracker before adding it again (sending it twice adds it twice).", pl.Key, pl.Target, cause, pl.Key)
			s.finishProgress(ctx, o, g.key, RunPartial, e, details)
		case res.Transitioned:
			e = Errorf(CodeCommitPartial, "%s moved to %s, but adding the comment failed (%s: %s). Run progress.preview again with only the comment.", pl.Key, pl.Target, ae.Code, ae.Message)
			s.finishProgress(ctx, o, g.key, RunPartial, e, details)
		case unclear && action == "transition":
			untried := ""
			if pl.Comment != "" {
				untried = " The comment was not attempted."
			}
			e = Errorf(CodeCommitPartial, "The move of %s to %s may or may not have happened (%s); it may have been written. It was not sent again.%s Check %s's status in the tracker, then run progress.preview again.", pl.Key, pl.Target, cause, untried, pl.Key)
			s.finishProgress(ctx, o, g.key, RunPartial, e, details)
		case unclear:
			e = Errorf(CodeCommitPartial, "The comment on %s may or may not have been added (%s); it may have been written. It was not sent again: check %s's comments in the tracker before adding it again (sending it twice adds it twice).", pl.Key, cause, pl.Key)
			s.finishProgress(ctx, o, g.key, RunPartial, e, details)
		default:
			e = Errorf(ae.Code, "Nothing was written to %s: the %s failed. %s", pl.Key, action, ae.Message)
			e.Retryable = ae.Retryable
			s.finishProgress(ctx, o, g.key, RunFailed, e, details)
		}
		e.Err = err
		return e.WithDetails(details...)
	}
	if pl.TransitionID != "" {
		if err := ctx.Err(); err != nil {
			return ProgressCommitResult{}, stop("transition", Wrap(err, CodeInternal, "the commit was cancelled"), false)
		}
		if err := s.p.Transition(ctx, pl.Key, pl.TransitionID); err != nil {
			return ProgressCommitResult{}, stop("transition", err, true)
		}
		res.Transitioned, res.Status = true, pl.Target
		s.record(ctx, o, g.key, ItemOutcome{Reference: ref, Action: "transition", Key: pl.Key, Outcome: OutcomeCommitted, Message: "moved to " + string(pl.Target)})
		details = append(details, Detail{Item: string(ref), Key: pl.Key, Outcome: OutcomeCommitted, Message: "transition: moved to " + string(pl.Target)})
		if in.Progress != nil {
			in.Progress(1, progressSteps(pl))
		}
	}
	if pl.Comment != "" {
		if err := ctx.Err(); err != nil {
			return ProgressCommitResult{}, stop("comment", Wrap(err, CodeInternal, "the commit was cancelled"), false)
		}
		if err := s.p.AddComment(ctx, pl.Key, pl.Comment); err != nil {
			return ProgressCommitResult{}, stop("comment", err, true)
		}
		res.CommentAdded = true
		s.record(ctx, o, g.key, ItemOutcome{Reference: ref, Action: "comment", Key: pl.Key, Outcome: OutcomeCommitted, Message: "comment added"})
		if in.Progress != nil {
			in.Progress(progressSteps(pl), progressSteps(pl))
		}
	}
	res.CommittedAt = utc(s.now())
	s.finish(ctx, o, g.key, RunCommitted, res)
	return res, nil
}

func progressSteps(pl progressPlan) int {
	n := 0
	if pl.TransitionID != "" {
		n++
	}
	if pl.Comment != "" {
		n++
	}
	return n
}

func (s *WorkItemService) record(ctx context.Context, o *op, key string, rec ItemOutcome) {
	if err := s.st.RecordOutcome(context.WithoutCancel(ctx), key, rec); err != nil {
		o.log.Error("could not record an outcome", "code", ErrorCode(err), "reference", rec.Reference, "outcome", rec.Outcome)
	}
	logItem(o, rec)
}

func (s *WorkItemService) finishProgress(ctx context.Context, o *op, key string, state RunState, e *Error, details []Detail) {
	c := *e
	c.Details = details
	c.RunID = o.runID
	s.finish(ctx, o, key, state, &c)
}

func replayProgress(run *Run) (ProgressCommitResult, error) {
	var r ProgressCommitResult
	if err := replayed(run, &r); err != nil {
		return ProgressCommitResult{}, err
	}
	r.Replayed = true
	return r, nil
}
