package service

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Items the document no longer lists. A reference
// DevWorkWire created under the document's id (the dedup index knows it)
// that the tracker still holds but the document no longer lists is a
// removed row: shown, left alone, never deleted. With `removed: close`
// (the document's front matter, or ImportPreviewInput.Removed) the plan
// closes it instead: a transition to done and a comment saying why,
// confirmed like any write.

// The actions of items the document no longer lists.
const (
	ActionRemoved core.Action = "removed" // in the tracker, no longer in the document: left alone
	ActionClose   core.Action = "close"   // the same, closed by this plan (transition to done, comment)
)

// removedRefs are the references of the document's id the dedup index
// knows (with a key) and the document no longer lists, sorted. None when
// the store has no DocumentStore.
func (s *WorkItemService) removedRefs(ctx context.Context, scope string, doc *plan.Document) ([]core.Reference, error) {
	ds := s.documents()
	if ds == nil {
		return nil, nil
	}
	es, err := ds.ListDocumentIndex(ctx, scope, doc.ID)
	if err != nil {
		return nil, err
	}
	listed := make(map[core.Reference]bool, len(doc.Items)+len(doc.Subtasks))
	for _, items := range [][]plan.Item{doc.Items, doc.Subtasks} { // a sub-task the document lists is not removed either
		for i := range items {
			listed[core.NewReference(doc.ID, items[i].ID)] = true
		}
	}
	var out []core.Reference
	for _, e := range es {
		if !listed[e.Reference] && e.Reference.Document() == doc.ID {
			out = append(out, e.Reference)
		}
	}
	slices.Sort(out)
	return out, nil
}

// planRemoved appends an entry for each removed reference the tracker
// still holds (found): removed, or close when the document's `removed:`
// or the caller's choice (ImportPreviewInput.Removed) is close and the
// item is not done yet (its transition to done resolved now, one read per
// item).
func (s *WorkItemService) planRemoved(ctx context.Context, removed []core.Reference, found map[core.Reference]core.WorkItem, doc *plan.Document, choice string, entries []planEntry) ([]planEntry, []string, error) {
	switch strings.ToLower(strings.TrimSpace(choice)) {
	case "", plan.RemovedLeave, plan.RemovedClose:
	default:
		return nil, nil, core.Errorf(core.CodeValidationFailed, "removed %q is not a choice: use %q (close the items the document no longer lists, with a comment) or %q (show them and leave them alone, the default).",
			choice, plan.RemovedClose, plan.RemovedLeave).WithDetails(core.Detail{Field: "removed", Message: "must be close or leave"})
	}
	close := strings.EqualFold(strings.TrimSpace(choice), plan.RemovedClose) || (doc.Removed == plan.RemovedClose && !strings.EqualFold(strings.TrimSpace(choice), plan.RemovedLeave))
	byKey := map[string]core.Reference{}
	for ref, w := range found {
		byKey[w.Key] = ref
	}
	var warnings []string
	for _, ref := range removed {
		w, ok := found[ref]
		if !ok || w.Reference != ref {
			continue // no longer in the tracker under this reference: nothing to show or do
		}
		e := planEntry{
			Spec:   core.ItemSpec{Reference: ref, Kind: w.Kind, Title: w.Title},
			Parent: byKey[w.ParentKey], Action: ActionRemoved,
			Key: w.Key, URL: w.URL, Fingerprint: w.Fingerprint, Gone: &storedGone{Status: w.Status},
		}
		if close && w.Status != core.StatusDone {
			t, avail, err := s.transitionTo(ctx, w.Key, core.StatusDone)
			if err != nil {
				return nil, nil, err
			}
			if t.ID == "" {
				warnings = append(warnings, fmt.Sprintf("%s %s (%s) is no longer in the document, but no workflow transition takes it from %s to done (available: %s), so it is left alone. Close it in the tracker, or change the workflow.",
					w.Kind.Label(), ref, w.Key, w.Status, avail))
			} else {
				e.Action, e.Gone.TransitionID, e.Gone.TransitionName = ActionClose, t.ID, t.Name
				e.Gone.Comment = fmt.Sprintf("Closed by DevWorkWire: this item (reference %s) is no longer in the planning document %s, whose import closes the items it no longer lists.", ref, ref.Document())
			}
		}
		entries = append(entries, e)
	}
	return entries, warnings, nil
}

// transitionTo finds the workflow transition that takes key to status
// (zero when there is none) and lists the available ones for a message.
func (s *WorkItemService) transitionTo(ctx context.Context, key string, status core.Status) (core.Transition, string, error) {
	ts, err := s.p.Transitions(ctx, key)
	if err != nil {
		return core.Transition{}, "", err
	}
	var avail []string
	for _, t := range ts {
		if t.To == status {
			return t, "", nil
		}
		avail = append(avail, fmt.Sprintf("%q → %s", t.Name, t.To))
	}
	if len(avail) == 0 {
		return core.Transition{}, "none", nil
	}
	return core.Transition{}, strings.Join(avail, ", "), nil
}

// closeRemoved closes a removed item at commit: fenced, the transition,
// then the comment (the order of a progress commit).
func (x *execution) closeRemoved(ctx context.Context, e *planEntry) {
	step, transitioned := "transition", false
	x.write(ctx, "checking the commit lock before closing "+string(e.Spec.Reference), true, writeStep{
		send: func(ctx context.Context) error {
			err := x.s.p.Transition(ctx, e.Key, e.Gone.TransitionID)
			if err == nil {
				step, transitioned = "comment", true
				err = x.s.p.AddComment(ctx, e.Key, e.Gone.Comment)
			}
			return err
		},
		outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
			if !sent {
				return nil, nil
			}
			rec := core.ItemOutcome{Reference: e.Spec.Reference, Action: ActionClose, Key: e.Key}
			if err == nil {
				rec.Outcome = core.OutcomeCommitted
				return nil, []core.ItemOutcome{rec}
			}
			ae := core.AsError(err)
			what := fmt.Sprintf("closing %s (%s): the %s", e.Spec.Reference, e.Key, step)
			if writeMayHaveApplied(err, true) || transitioned {
				// The transition went through (or may have): the item may be
				// closed, so this is not "failed".
				rec.Outcome, rec.Code = core.OutcomeUnknown, ae.Code
				rec.Message = fmt.Sprintf("Closing %s (%s) may be done in part (%s failed with %s: %s). It was not sent again: run the import preview again, which shows the item as it is now.",
					e.Spec.Reference, e.Key, step, ae.Code, strings.TrimSuffix(ae.Message, "."))
			} else {
				rec.Outcome, rec.Code, rec.Message = core.OutcomeFailed, ae.Code, ae.Message
			}
			x.mu.Lock()
			if x.stop == nil {
				x.stop, x.why = err, fmt.Sprintf("%s failed (%s: %s)", what, ae.Code, strings.TrimSuffix(ae.Message, "."))
			}
			x.mu.Unlock()
			return nil, []core.ItemOutcome{rec}
		},
	})
}

// closePhase closes the removed items of the plan, after every create and
// update (a close depends on nothing, and nothing depends on it).
func (x *execution) closePhase(ctx context.Context, closes []*planEntry) {
	if x.stop != nil || len(closes) == 0 {
		return
	}
	steps := make([]*step, len(closes))
	for i, e := range closes {
		steps[i] = &step{write: func(ctx context.Context) { x.closeRemoved(ctx, e) }}
	}
	x.schedule(ctx, steps) // parallel.go: none waits for another
}

// writes reports whether the entry is a write of the plan (create, update,
// adopt or close).
func (e *planEntry) writes() bool {
	return e.Action == core.ActionCreate || e.Action == core.ActionUpdate || e.Action == ActionAdopt || e.Action == ActionClose
}

// markRemoved marks the items their planning document no longer lists, as
// of its last import (DocumentRecord.Items). One store read; a fault is
// logged and marks nothing.
func (s *WorkItemService) markRemoved(ctx context.Context, o *op, items []ItemView) {
	ds := s.documents()
	if ds == nil {
		return
	}
	var docs []string
	for _, v := range items {
		if d := v.Reference.Document(); v.Reference != "" && !slices.Contains(docs, d) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return
	}
	recs, err := ds.LoadDocuments(ctx, s.p.Scope(), docs)
	if err != nil {
		o.log.Warn("could not read the documents' last imports", "code", core.ErrorCode(err))
		return
	}
	for i := range items {
		doc, id := items[i].Reference.Split()
		if r, ok := recs[doc]; ok && id != "" && !slices.Contains(r.Items, id) {
			items[i].Removed = true
		}
	}
}
