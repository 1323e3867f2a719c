package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// checkDuplicates asks the provider (DuplicateChecker) whether any item
// this commit created is now held by another item too, and keeps the
// answer in x.dups for the result. A check that fails is logged and
// changes nothing: what was written stays written, and the next preview
// warns of any reference held twice.
func (x *execution) checkDuplicates(ctx context.Context) {
	x.mu.Lock()
	checked := x.checked
	x.checked = true
	x.mu.Unlock()
	dc, ok := x.s.p.(core.DuplicateChecker)
	if checked {
		return
	}
	if !ok || ctx.Err() != nil {
		return // (a cancelled commit is not held up: the next preview warns of any duplicate)
	}
	created := map[core.Reference]string{}
	x.mu.Lock()
	for ref, oc := range x.outcome {
		if oc.Action == core.ActionCreate && oc.Outcome == core.OutcomeCommitted && oc.Key != "" {
			created[ref] = oc.Key
		}
	}
	x.mu.Unlock()
	if len(created) == 0 {
		return
	}
	dups, err := dc.Duplicates(ctx, created)
	if err != nil {
		x.o.log.Warn("could not check the created items for duplicates made at the same moment", "code", core.ErrorCode(err), "items", len(created))
		return
	}
	for ref, keys := range dups {
		if len(keys) < 2 {
			delete(dups, ref)
		}
	}
	if len(dups) > 0 {
		x.dups = dups
		x.o.log.Error("items created by this commit are held by another issue too", "references", len(dups))
	}
}

// duplicated ends a commit that wrote everything but whose created items
// another import holds too (x.dups): COMMIT_PARTIAL (run partial; exit 4
// at the CLI) naming every such reference and its issues, and what to do.
// nil when there are none.
func (x *execution) duplicated(ctx context.Context) error {
	if len(x.dups) == 0 {
		return nil
	}
	var details []core.Detail
	for _, e := range x.pl.Entries {
		ref := e.Spec.Reference
		if e.writes() { // creates, updates and closes (removed.go)
			details = append(details, core.Detail{Item: string(ref), Key: x.keys[ref], Outcome: core.OutcomeCommitted, Message: fmt.Sprintf("%sd as %s", e.Action, x.keys[ref])})
		}
	}
	e := core.Errorf(core.CodeCommitPartial, "Everything was written, but %s", x.dupSummary()).WithRerun(rerunImport)
	e.Retryable = false
	e.WithDetails(x.dupDetails(details)...)
	e.RunID = x.o.runID
	x.finish(ctx, core.RunPartial, e)
	return e
}

// noteDuplicates adds what checkDuplicates found to the error of a commit
// that ended partial for another reason: the message says it, and the
// details of the references concerned name their issues.
func (x *execution) noteDuplicates(e *core.Error) {
	if len(x.dups) == 0 {
		return
	}
	e.Message = strings.TrimSpace(e.Message) + " Also: " + x.dupSummary()
	e.Retryable = false
	e.Details = x.dupDetails(e.Details)
}

// dupSummary says what happened and what to do.
func (x *execution) dupSummary() string {
	refs := slices.Sorted(maps.Keys(x.dups))
	names := make([]string, 0, 3)
	for _, r := range refs[:min(3, len(refs))] {
		names = append(names, fmt.Sprintf("%s (%s)", r, strings.Join(x.dups[r], ", ")))
	}
	more := ""
	if len(refs) > 3 {
		more = fmt.Sprintf(" and %d more", len(refs)-3)
	}
	return fmt.Sprintf("%d reference(s) are now held by more than one issue in the tracker: %s%s (see details). Another import of this document, from a separate state store, created them at the same moment. For each reference keep its oldest issue (listed first) and delete the others in the tracker, then %s: it shows the document unchanged, or what is left to fix. Repeating this commit does not help. Imports that may run at once should share one state store: the second then waits for the first.",
		len(refs), strings.Join(names, ", "), more, rerunImport)
}

// dupDetails marks, in details, the entries of duplicated references (or
// adds one per reference without an entry): the issues holding it, and
// which to keep.
func (x *execution) dupDetails(details []core.Detail) []core.Detail {
	seen := map[string]bool{}
	for i, d := range details {
		if keys, ok := x.dups[core.Reference(d.Item)]; ok && !seen[d.Item] {
			seen[d.Item] = true
			details[i].Code = core.CodeCommitPartial
			details[i].Message = strings.TrimSpace(d.Message) + "; " + dupMessage(core.Reference(d.Item), keys)
		}
	}
	for _, ref := range slices.Sorted(maps.Keys(x.dups)) {
		if !seen[string(ref)] {
			details = append(details, core.Detail{Item: string(ref), Key: x.keys[ref], Outcome: core.OutcomeCommitted, Code: core.CodeCommitPartial, Message: dupMessage(ref, x.dups[ref])})
		}
	}
	return details
}

func dupMessage(ref core.Reference, keys []string) string {
	return fmt.Sprintf("DUPLICATE: reference %s is held by %d issues, %s; keep %s (the oldest) and delete %s", ref, len(keys), strings.Join(keys, ", "), keys[0], strings.Join(keys[1:], ", "))
}
