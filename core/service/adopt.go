package service

import (
	"context"
	"fmt"
	"sync"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Adopting existing issues. An item with a "Key: PROJ-12"
// line takes over that issue: the preview reads it by key, refuses what
// cannot be adopted (every problem at once, VALIDATION_FAILED, nothing
// stored) and plans it as an update with action adopt; the commit writes
// the item's reference, digest and fields to it with the same fenced,
// recorded edit as any update (execution.update), and records it in the
// dedup index. With no base yet (DevWorkWire never wrote the issue), the
// three-way rules take the document's value of every field that differs.
//
// Once the reference is written, the issue is found by it: a re-import
// (the Key line may stay) is a plain update or unchanged, and a commit
// that died mid-way and is previewed again adopts once — an issue whose
// reference is already this item's is taken as found, even while search
// does not show it yet.
//
// Refused: the key does not exist, is not visible or is of another
// project (the provider's WORK_ITEM_NOT_FOUND); the issue carries another
// reference (another item, or another document's); the item's reference is
// already held by another issue; a kind mismatch (an epic item adopting a
// non-epic issue or the reverse, a sub-task item adopting an issue that is
// not a sub-task, or a sub-task of another story than the item's story:
// the tracker changes neither an issue's type nor a sub-task's parent).
// One issue adopted by two items is refused by the parser (plan.Parse in
// one document, plan.ParseSet across a directory's).

// ActionAdopt is an existing issue the commit takes over: it writes the
// item's reference (and the document's content and fields) to it.
const ActionAdopt core.Action = "adopt"

// adoptIssues resolves the document's Key lines against the tracker. It
// adds every issue to adopt to found (as an issue DevWorkWire never wrote:
// no bases, not edited outside, so the document's values are planned) and
// returns their references. Reads only: one Get per keyed item whose
// reference the lookup did not find.
func (s *WorkItemService) adoptIssues(ctx context.Context, doc *plan.Document, found map[core.Reference]core.WorkItem) (map[core.Reference]bool, error) {
	type read struct {
		w   core.WorkItem
		err error
	}
	var keyed []plan.Item
	for _, it := range doc.Items {
		if it.Key != "" {
			keyed = append(keyed, it)
		}
	}
	if len(keyed) == 0 {
		return nil, nil
	}
	reads := make([]read, len(keyed))
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(s.writes, 1))
	for i, it := range keyed {
		if w, ok := found[core.NewReference(doc.ID, it.ID)]; ok && w.Key == it.Key {
			continue // adopted before: a plain update or unchanged
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			reads[i].w, reads[i].err = s.p.Get(ctx, it.Key)
		}()
	}
	wg.Wait()
	adopted := map[core.Reference]bool{}
	var problems []core.Detail
	bad := func(it plan.Item, format string, args ...any) {
		problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "key", Line: it.KeyLine, Key: it.Key,
			Message: fmt.Sprintf("%s %s (Key: %s at line %d) ", core.Kind(it.Kind).Label(), it.ID, it.Key, it.KeyLine) + fmt.Sprintf(format, args...)})
	}
	for i, it := range keyed {
		ref := core.NewReference(doc.ID, it.ID)
		if w, ok := found[ref]; ok {
			if w.Key != it.Key {
				bad(it, "cannot adopt %s: its reference %s is already held by %s in the tracker. Remove the Key line to keep %s, or clear the reference field of %s first", it.Key, ref, w.Key, w.Key, w.Key)
			}
			continue
		}
		w, err := reads[i].w, reads[i].err
		switch {
		case core.ErrorCode(err) == core.CodeWorkItemNotFound:
			bad(it, "cannot adopt %s: %s Correct the key or remove the line", it.Key, core.AsError(err).Message)
			continue
		case err != nil:
			return nil, err
		case w.Reference == ref:
			found[ref] = w // adopted by an earlier commit; search may not show it yet
			continue
		case w.Reference != "":
			bad(it, "cannot adopt %s: it already carries the reference %s (item %s of document %s). An issue belongs to one item; remove the Key line, or clear the reference field of %s in the tracker first", w.Key, w.Reference, refItem(w.Reference), w.Reference.Document(), w.Key)
			continue
		}
		if why := kindMismatch(doc, it, w, found); why != "" {
			bad(it, "cannot adopt %s: %s", w.Key, why)
			continue
		}
		w.LastWritten, w.EditedOutside, w.ContentChanged, w.FieldBases = "", false, nil, nil
		found[ref], adopted[ref] = w, true
	}
	if len(problems) > 0 {
		return nil, core.Errorf(core.CodeValidationFailed, "%d item(s) cannot adopt the issue their Key line names (see details); nothing was stored. The first: %s.", len(problems), problems[0].Message).
			WithDetails(problems...)
	}
	return adopted, nil
}

// kindMismatch says why issue w cannot be item it ("" when it can).
func kindMismatch(doc *plan.Document, it plan.Item, w core.WorkItem, found map[core.Reference]core.WorkItem) string {
	kind := core.Kind(it.Kind)
	switch {
	case kind == core.KindEpic && w.Kind != core.KindEpic, kind != core.KindEpic && w.Kind == core.KindEpic:
		return fmt.Sprintf("it is %s in the tracker and the item is %s; DevWorkWire does not change an issue's type. Adopt an issue of the item's kind, or change the item's kind", aWord(w.Kind), aWord(kind))
	case kind == core.KindSubtask && w.Kind != core.KindSubtask:
		return fmt.Sprintf("it is %s in the tracker, not a sub-task; DevWorkWire does not change an issue's type. Adopt a sub-task, or make the item a story", aWord(w.Kind))
	case kind != core.KindSubtask && w.Kind == core.KindSubtask:
		return fmt.Sprintf("it is a sub-task in the tracker and the item is %s; write it as a \"Sub-task\" under its story", aWord(kind))
	case kind == core.KindSubtask:
		story := found[parentOf(doc.ID, it)].Key
		if w.ParentKey != story {
			under := "a story this plan creates"
			if story != "" {
				under = story
			}
			return fmt.Sprintf("it is a sub-task of %s in the tracker, but the item sits under story %s (%s); the tracker does not move a sub-task to another story. Put the item under the story of %s", w.ParentKey, it.Story, under, w.ParentKey)
		}
	}
	return ""
}

func aWord(k core.Kind) string {
	switch k {
	case core.KindEpic:
		return "an epic"
	case core.KindSubtask:
		return "a sub-task"
	}
	return "a story"
}

func refItem(r core.Reference) string { _, id := r.Split(); return id }

// markAdopted turns the planned updates of adopted issues into adopt rows
// (after the field changes are described: an adopt shows the same diff).
func markAdopted(entries []planEntry, adopted map[core.Reference]bool) {
	for i := range entries {
		if e := &entries[i]; adopted[e.Spec.Reference] && (e.Action == core.ActionUpdate || e.Action == core.ActionUnchanged) {
			e.Action = ActionAdopt // the reference is written even when nothing else differs
		}
	}
}

// staleAdopt checks an adopt entry at commit: the issue is re-read by key
// and must be unchanged since the preview (same fingerprint) and still
// carry no reference. A detail when it changed.
func (s *WorkItemService) staleAdopt(ctx context.Context, e planEntry, now map[core.Reference]core.WorkItem) (*core.Detail, error) {
	ref := string(e.Spec.Reference)
	if w, ok := now[e.Spec.Reference]; ok && w.Key != e.Key {
		return &core.Detail{Item: ref, Key: w.Key, Message: fmt.Sprintf("%s is now held by %s in the tracker; the plan would adopt %s as well", ref, w.Key, e.Key)}, nil
	}
	w, err := s.p.Get(ctx, e.Key)
	switch {
	case core.ErrorCode(err) == core.CodeWorkItemNotFound:
		return &core.Detail{Item: ref, Key: e.Key, Message: fmt.Sprintf("%s, which the plan adopts as %s, is no longer in the tracker", e.Key, ref)}, nil
	case err != nil:
		return nil, err
	case w.Reference != "" || w.Fingerprint != e.Fingerprint:
		return &core.Detail{Item: ref, Key: e.Key, Message: fmt.Sprintf("%s, which the plan adopts as %s, changed in the tracker since the preview", e.Key, ref)}, nil
	}
	return nil, nil
}

// pastTense is an action as done ("created", "adopted").
func pastTense(a core.Action) string {
	if a == ActionAdopt {
		return "adopted"
	}
	return string(a) + "d"
}
