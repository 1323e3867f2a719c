package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

func statusList() string { return "todo, in_progress or done" }

// resolve finds one item by tracker key or by reference (doc/item).
func (s *WorkItemService) resolve(ctx context.Context, item string) (core.WorkItem, error) {
	item = strings.TrimSpace(item)
	if item == "" {
		return core.WorkItem{}, core.Errorf(core.CodeValidationFailed, "No work item given: pass a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1.").
			WithDetails(core.Detail{Field: "item", Message: "missing"})
	}
	if !strings.Contains(item, "/") {
		return s.p.Get(ctx, item)
	}
	ref := core.Reference(item)
	if d, i := ref.Split(); d == "" || i == "" {
		return core.WorkItem{}, core.Errorf(core.CodeValidationFailed, "%q is not a reference: write it as <document id>/<item id>, e.g. checkout-v2/s-1.", item).
			WithDetails(core.Detail{Field: "item", Message: "malformed reference"})
	}
	idx, err := s.st.LookupIndex(ctx, s.p.Scope(), []core.Reference{ref})
	if err != nil {
		return core.WorkItem{}, err
	}
	found, err := s.p.Lookup(ctx, []core.Reference{ref}, knownKeys(idx))
	if err != nil {
		return core.WorkItem{}, err
	}
	w, ok := found[ref]
	if !ok {
		return core.WorkItem{}, core.Errorf(core.CodeWorkItemNotFound, "No work item in %s has the reference %s. Check the document id and item id, or use the Jira key.", s.p.Scope(), ref).
			WithDetails(core.Detail{Item: item, Field: "item", Message: "reference not found"})
	}
	return w, nil
}

func itemRef(w core.WorkItem) ItemRef {
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
	var problems []core.Detail
	if in.Status != "" && !in.Status.Valid() {
		problems = append(problems, core.Detail{Field: "status", Message: fmt.Sprintf("%q is not a status; use %s", in.Status, statusList())})
	}
	if in.Status == "" && comment == "" {
		problems = append(problems, core.Detail{Field: "status", Message: "give a target status, a comment, or both"})
	}
	if len(problems) > 0 {
		return ProgressPreviewResult{}, core.Errorf(core.CodeValidationFailed, "Nothing valid to preview: %s.", problems[0].Message).WithDetails(problems...)
	}
	w, err := s.resolve(ctx, in.Item)
	if err != nil {
		return ProgressPreviewResult{}, err
	}
	pl := progressPlan{Version: progressPlanVersion, Key: w.Key, Reference: w.Reference, Fingerprint: w.Fingerprint, Current: w.Status, Comment: comment,
		Head: progressHead{RunID: o.runID, Item: storedItemRef{Key: w.Key, Reference: w.Reference, Title: w.Title, URL: w.URL}, MadeBy: madeByFrom(ctx)}}
	if in.Status != "" {
		pl.Head.Requested = in.Status
		if in.Status == w.Status {
			pl.Head.Warnings = append(pl.Head.Warnings, fmt.Sprintf("%s is already %s; its status will not change.", w.Key, w.Status))
			if comment == "" {
				return ProgressPreviewResult{}, core.Errorf(core.CodeValidationFailed, "%s is already %s and no comment was given: there is nothing to do.", w.Key, w.Status).
					WithDetails(core.Detail{Item: w.Key, Field: "status", Message: "already " + string(w.Status)})
			}
		} else {
			ts, err := s.p.Transitions(ctx, w.Key)
			if err != nil {
				return ProgressPreviewResult{}, err
			}
			var avail []string
			for _, t := range ts {
				if t.To == in.Status && t.Blocked != "" {
					return ProgressPreviewResult{}, core.Errorf(core.CodeValidationFailed, "Transition %q would take %s to %s, but %s. Make that field optional on the transition's screen in Jira, or move the item there in Jira.", t.Name, w.Key, in.Status, t.Blocked).
						WithDetails(core.Detail{Item: w.Key, Field: "status", Message: t.Blocked})
				}
				if t.To == in.Status {
					pl.Target, pl.TransitionID, pl.TransitionName, pl.TransitionSets = in.Status, t.ID, t.Name, t.Sets
					break
				}
				avail = append(avail, fmt.Sprintf("%q → %s", t.Name, t.To))
			}
			if pl.TransitionID == "" {
				have := "none"
				if len(avail) > 0 {
					have = strings.Join(avail, ", ")
				}
				return ProgressPreviewResult{}, core.Errorf(core.CodeValidationFailed, "No workflow transition takes %s from %s to %s; available transitions: %s. Pick one of those statuses, or change the workflow in Jira.",
					w.Key, w.Status, in.Status, have).
					WithDetails(core.Detail{Item: w.Key, Field: "status", Message: "no transition reaches " + string(in.Status)})
			}
		}
	}
	return storePreview(ctx, s, in.DryRun, progressPermissions(&pl), core.PreviewProgress, pl, pl.result)
}

// ProgressCommit executes a stored progress plan behind the gate.
func (s *WorkItemService) ProgressCommit(ctx context.Context, in CommitInput) (ProgressCommitResult, error) {
	ctx, o := s.begin(ctx, "progress.commit")
	res, err := commitGated(ctx, s, o, s.progressKind(), in)
	if err != nil {
		return ProgressCommitResult{}, o.fail(err)
	}
	o.done("commit finished", "handle", res.PreviewHandle, "idempotency_key", res.IdempotencyKey, "replayed", res.Replayed,
		"key", res.Item.Key, "status", res.Status, "transitioned", res.Transitioned, "comment_added", res.CommentAdded)
	return res, nil
}

// progressKind is the progress update's part of the gate (its plan
// decoded into a progressCommit).
func (s *WorkItemService) progressKind() commitKind[ProgressCommitResult] {
	return commitKind[ProgressCommitResult]{
		kind: core.PreviewProgress,
		plan: func(p core.Preview) (plannedCommit[ProgressCommitResult], error) {
			pl, err := decodeProgressPlan(p)
			if err != nil {
				return nil, err
			}
			return &progressCommit{s: s, scope: p.Scope, pl: pl}, nil
		},
		marks: func(r *ProgressCommitResult) (*bool, *[]string) { return &r.Replayed, &r.Warnings },
	}
}

// progressCommit is the progress part of a commit (see commitGated).
type progressCommit struct {
	s     *WorkItemService
	scope string
	pl    *progressPlan
}

// lock: the item's commit lock.
func (c *progressCommit) lock() []lockName {
	return []lockName{{name: "progress|" + c.scope + "|" + c.pl.Key, what: c.pl.Key}}
}

// stale re-reads the item once before the first write.
func (c *progressCommit) stale(ctx context.Context) error {
	pl := c.pl
	w, err := c.s.p.Get(ctx, pl.Key)
	found := core.ErrorCode(err) != core.CodeWorkItemNotFound
	if err != nil && found {
		return err
	}
	d := (seen{pl.Reference, pl.Key, pl.Fingerprint}).changedSince(w, found)
	if found && w.Status != pl.Current {
		d = &core.Detail{Item: string(pl.Reference), Key: pl.Key, Message: fmt.Sprintf("%s (%s) moved from %s to %s since the preview", pl.Reference, pl.Key, pl.Current, w.Status)}
	}
	if d != nil {
		return refuseStale(d.Message, "Run the progress preview again.", *d)
	}
	return nil
}

// progressStep is one write of a progress plan.
type progressStep struct {
	action string // "transition" or "comment"
	write  func(ctx context.Context) error
	done   string // the outcome's message once written
}

func (c *progressCommit) steps() []progressStep {
	pl, p := c.pl, c.s.p
	var steps []progressStep
	if pl.TransitionID != "" {
		steps = append(steps, progressStep{"transition", func(ctx context.Context) error { return p.Transition(ctx, pl.Key, pl.TransitionID) }, "moved to " + string(pl.Target)})
	}
	if pl.Comment != "" {
		steps = append(steps, progressStep{"comment", func(ctx context.Context) error { return p.AddComment(ctx, pl.Key, pl.Comment) }, "comment added"})
	}
	return steps
}

// execute runs the steps in order (transition, then comment), fail-fast.
// Unlike an import's edits they never go out together: both write the one
// item, and two writes to one issue are never in flight at once (Jira's
// per-issue write limit; the comment follows the status it reports on).
// Each step is one write (writestep.go): fenced, sent, its outcome
// recorded before the next one starts; a cancelled context or a store
// that cannot record starts no further step.
func (c *progressCommit) execute(ctx context.Context, r *commitRun) (ProgressCommitResult, error) {
	pl := c.pl
	res := ProgressCommitResult{ResultType: ResultCommitted, RunID: r.o.runID, PreviewHandle: r.handle, IdempotencyKey: r.key,
		Item: pl.Head.Item.api(), Status: pl.Current}
	ref := pl.Reference
	if ref == "" {
		ref = core.Reference(pl.Key)
	}
	steps := c.steps()
	var details []core.Detail
	untried := func(from int) {
		for _, rest := range steps[from:] {
			details = append(details, core.Detail{Item: string(ref), Key: pl.Key, Outcome: core.OutcomeUntried, Message: rest.action + ": not attempted"})
		}
	}
	for i, st := range steps {
		unclear := false
		end := r.write(ctx, writeStep{send: st.write, outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
			if err == nil {
				return nil, []core.ItemOutcome{{Reference: ref, Action: core.Action(st.action), Key: pl.Key, Outcome: core.OutcomeCommitted, Message: st.done}}
			}
			ae := core.AsError(err)
			// A write whose answer was lost may have been applied: unknown,
			// and the commit is partial ("may have been written").
			unclear = writeMayHaveApplied(err, sent)
			outcome, msg := core.OutcomeFailed, ae.Message
			if unclear {
				outcome, msg = core.OutcomeUnknown, "may or may not have been applied ("+string(ae.Code)+"): "+ae.Message
			}
			details = append(details, core.Detail{Item: string(ref), Key: pl.Key, Outcome: outcome, Code: ae.Code, Message: st.action + ": " + msg})
			return nil, []core.ItemOutcome{{Reference: ref, Action: core.Action(st.action), Key: pl.Key, Outcome: outcome, Code: ae.Code, Message: msg}}
		}})
		if end.err != nil {
			untried(i + 1)
			ae := core.AsError(end.err)
			e, state := progressStop(pl, st.action, ae, res.Transitioned, unclear)
			e.Details, e.RunID, e.Err = details, r.o.runID, end.err
			r.finish(ctx, state, e)
			return ProgressCommitResult{}, e
		}
		if st.action == "transition" {
			res.Transitioned, res.Status = true, pl.Target
			details = append(details, core.Detail{Item: string(ref), Key: pl.Key, Outcome: core.OutcomeCommitted, Message: "transition: " + st.done})
		} else {
			res.CommentAdded = true
		}
		if end.record != nil {
			// Written, but not recorded: a replay of this key could not
			// tell, so nothing further is sent.
			untried(i + 1)
			e := progressUnrecorded(pl, st, end.record, i+1 < len(steps))
			e.Details, e.RunID, e.Err = details, r.o.runID, end.record
			r.finish(ctx, core.RunPartial, e)
			return ProgressCommitResult{}, e
		}
		if r.progress != nil {
			r.progress(i+1, len(steps))
		}
	}
	res.CommittedAt = core.UTCSecond(r.s.now())
	r.finish(ctx, core.RunCommitted, res)
	return res, nil
}
