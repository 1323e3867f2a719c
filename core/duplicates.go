package core

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DuplicateChecker is an optional capability of a WorkItemProvider: right
// after a commit's creates, it reads what the tracker holds now — not its
// search index, which lags behind writes — and tells which of the
// references the commit created another item holds too.
//
// It closes what the commit's stale check cannot: two imports of one
// document from separate state stores whose commits start within the same
// moment both pass their stale checks (neither has written yet) and both
// create. The one whose creates land second then sees the other's items
// and reports them (COMMIT_PARTIAL, not retryable, details naming every
// reference and its issues). One shared state store makes the second
// commit wait for the first instead (the document's commit lock).
type DuplicateChecker interface {
	// Duplicates returns, for each reference of created (reference → the
	// key this commit created for it) that another item holds as well,
	// the keys of every item holding it, oldest first (the created one
	// included). References held once are absent. It reads only, and a
	// bounded number of requests: when nobody else wrote meanwhile, one.
	Duplicates(ctx context.Context, created map[Reference]string) (map[Reference][]string, error)
}

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
	dc, ok := x.s.p.(DuplicateChecker)
	if checked {
		return
	}
	if !ok || ctx.Err() != nil {
		return // (a cancelled commit is not held up: the next preview warns of any duplicate)
	}
	created := map[Reference]string{}
	x.mu.Lock()
	for ref, oc := range x.outcome {
		if oc.Action == ActionCreate && oc.Outcome == OutcomeCommitted && oc.Key != "" {
			created[ref] = oc.Key
		}
	}
	x.mu.Unlock()
	if len(created) == 0 {
		return
	}
	dups, err := dc.Duplicates(ctx, created)
	if err != nil {
		x.o.log.Warn("could not check the created items for duplicates made at the same moment", "code", ErrorCode(err), "items", len(created))
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
	var details []Detail
	for _, e := range x.pl.Entries {
		ref := e.Spec.Reference
		if e.writes() { // creates, updates and closes (removed.go)
			details = append(details, Detail{Item: string(ref), Key: x.keys[ref], Outcome: OutcomeCommitted, Message: fmt.Sprintf("%sd as %s", e.Action, x.keys[ref])})
		}
	}
	e := Errorf(CodeCommitPartial, "Everything was written, but %s", x.dupSummary())
	e.Retryable = false
	e.WithDetails(x.dupDetails(details)...)
	e.RunID = x.o.runID
	x.finish(ctx, RunPartial, e)
	return e
}

// noteDuplicates adds what checkDuplicates found to the error of a commit
// that ended partial for another reason: the message says it, and the
// details of the references concerned name their issues.
func (x *execution) noteDuplicates(e *Error) {
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
	return fmt.Sprintf("%d reference(s) are now held by more than one issue in the tracker: %s%s (see details). Another import of this document, from a separate state store, created them at the same moment. For each reference keep its oldest issue (listed first) and delete the others in the tracker, then run the import preview again: it shows the document unchanged, or what is left to fix. Repeating this commit does not help. Imports that may run at once should share one state store: the second then waits for the first.",
		len(refs), strings.Join(names, ", "), more)
}

// dupDetails marks, in details, the entries of duplicated references (or
// adds one per reference without an entry): the issues holding it, and
// which to keep.
func (x *execution) dupDetails(details []Detail) []Detail {
	seen := map[string]bool{}
	for i, d := range details {
		if keys, ok := x.dups[Reference(d.Item)]; ok && !seen[d.Item] {
			seen[d.Item] = true
			details[i].Code = CodeCommitPartial
			details[i].Message = strings.TrimSpace(d.Message) + "; " + dupMessage(Reference(d.Item), keys)
		}
	}
	for _, ref := range slices.Sorted(maps.Keys(x.dups)) {
		if !seen[string(ref)] {
			details = append(details, Detail{Item: string(ref), Key: x.keys[ref], Outcome: OutcomeCommitted, Code: CodeCommitPartial, Message: dupMessage(ref, x.dups[ref])})
		}
	}
	return details
}

func dupMessage(ref Reference, keys []string) string {
	return fmt.Sprintf("DUPLICATE: reference %s is held by %d issues, %s; keep %s (the oldest) and delete %s", ref, len(keys), strings.Join(keys, ", "), keys[0], strings.Join(keys[1:], ", "))
}
