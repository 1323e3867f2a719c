package service

import (
	"errors"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// The outcome rules: what a failed write means, and what a stopped commit
// says about it.

// writeMayHaveApplied reports whether a tracker write (Update, Transition,
// AddComment) that returned err after its request was sent may nonetheless
// have taken effect, so its outcome is unknown rather than failed. Core
// does not guess this from the error's shape: the provider knows whether
// its request went out and no answer came back, and says so with
// MarkOutcomeUnknown (see WorkItemProvider). Every other error, whatever
// its code, is a refusal or a failure before sending: nothing was written.
// A write that was never sent (sent false) never has an unknown outcome.
func writeMayHaveApplied(err error, sent bool) bool {
	return sent && err != nil && core.IsOutcomeUnknown(err)
}

// unknownCreate marks, in the dedup index, a reference whose create had an
// unknown outcome (no key is known). Within the search-lag window after it,
// a preview that does not find the item plans no create for it (blocked),
// and a commit refuses to create it; once the item is found the marker is
// replaced by its key; after the window a still-missing item is taken as
// absent.
const unknownCreate = "unknown-create"

// unknownMarker reports whether ie marks an unknown create.
func unknownMarker(ie core.IndexEntry, ok bool) bool {
	return ok && ie.Key == "" && ie.Digest == unknownCreate
}

// unknownMessage explains an unknown create outcome: the provider's own
// explanation when it gives one.
func unknownMessage(ref core.Reference, err error) string {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code.Known() && ce.Message != "" {
		return ce.Message
	}
	return fmt.Sprintf("The create of %s may or may not have happened, and a search for it found nothing. It was not retried, to avoid a duplicate: check the tracker, then run the import preview again.", ref)
}

// tally counts planned writes by outcome.
type tally struct{ committed, failed, unknown, untried int }

func (t *tally) add(o string) {
	switch o {
	case core.OutcomeCommitted:
		t.committed++
	case core.OutcomeFailed:
		t.failed++
	case core.OutcomeUnknown:
		t.unknown++
	default:
		t.untried++
	}
}

func (t tally) total() int { return t.committed + t.failed + t.unknown + t.untried }

// importStop is the error of an import commit stopped at its first
// failure, and the run's final state, from the counts of planned writes by
// outcome: the items', and the structure writes' (dependencies, sprint
// moves, backlog order), which are not items and are counted apart. why
// says what stopped it; cause is that failure.
func importStop(why string, cause *core.Error, items, structure tally, unknownCreates int) (*core.Error, core.RunState) {
	counts := fmt.Sprintf("%d item(s) committed, %d failed, %d unknown, %d untried", items.committed, items.failed, items.unknown, items.untried)
	if structure.total() > 0 {
		counts += fmt.Sprintf("; structure changes (dependencies, sprint, backlog order): %d written, %d failed, %d unknown, %d untried", structure.committed, structure.failed, structure.unknown, structure.untried)
	}
	counts += " (see details)."
	committed, unknown := items.committed+structure.committed, items.unknown+structure.unknown
	if committed == 0 && unknown == 0 {
		// Nothing was written (and nothing may have been): this is not a
		// partial commit but the failure itself, with its own code and
		// retryable flag. The handle is used up either way.
		e := core.Errorf(cause.Code, "Nothing was written: the commit stopped at the first failure: %s. %s %s to get a new handle once the cause is dealt with.", why, counts, core.Rerun(core.PreviewImport)).WithRerun(core.Rerun(core.PreviewImport))
		e.Retryable = cause.Retryable
		return e, core.RunFailed
	}
	msg := fmt.Sprintf("The commit stopped at the first failure: %s. %s", why, counts)
	if committed == 0 {
		msg += " Nothing is known to have been written, but the writes with an unknown outcome may have been written."
	}
	switch {
	case unknownCreates > 0:
		msg += " Items with an unknown outcome were not retried, to avoid duplicates: check them in the tracker."
	case items.unknown > 0:
		msg += " Items with an unknown outcome were not sent again: check them in the tracker (a new preview shows whether they match the document)."
	}
	if structure.unknown > 0 {
		msg += " Structure changes with an unknown outcome were not sent again either: a new preview reads them back and plans only what is missing."
	}
	msg += " " + core.Rerun(core.PreviewImport) + ": committed items then show as unchanged and only the rest is planned."
	return core.Errorf(core.CodeCommitPartial, "%s", msg).WithRerun(core.Rerun(core.PreviewImport)), core.RunPartial
}

// progressStop is the error of a progress commit stopped by a failed step
// (action "transition" or "comment") and the run's final state.
// transitioned says the transition before a failed comment went through;
// unclear that the failed step may have been applied.
func progressStop(pl *progressPlan, action string, ae *core.Error, transitioned, unclear bool) (*core.Error, core.RunState) {
	cause := fmt.Sprintf("%s: %s", ae.Code, strings.TrimSuffix(ae.Message, "."))
	key := pl.Key
	switch {
	case transitioned && unclear:
		return core.Errorf(core.CodeCommitPartial, "%s moved to %s, but the comment may or may not have been added (%s). It was not sent again: check %s's comments in the tracker before adding it again (sending it twice adds it twice).", key, pl.Target, cause, key), core.RunPartial
	case transitioned:
		return core.Errorf(core.CodeCommitPartial, "%s moved to %s, but adding the comment failed (%s: %s). %s with only the comment.", key, pl.Target, ae.Code, ae.Message, core.Rerun(core.PreviewProgress)).WithRerun(core.Rerun(core.PreviewProgress)), core.RunPartial
	case unclear && action == "transition":
		untried := ""
		if pl.Comment != "" {
			untried = " The comment was not attempted."
		}
		return core.Errorf(core.CodeCommitPartial, "The move of %s to %s may or may not have happened (%s); it may have been written. It was not sent again.%s Check %s's status in the tracker, then %s.", key, pl.Target, cause, untried, key, core.RerunInSentence(core.PreviewProgress)).WithRerun(core.RerunInSentence(core.PreviewProgress)), core.RunPartial
	case unclear:
		return core.Errorf(core.CodeCommitPartial, "The comment on %s may or may not have been added (%s); it may have been written. It was not sent again: check %s's comments in the tracker before adding it again (sending it twice adds it twice).", key, cause, key), core.RunPartial
	}
	e := core.Errorf(ae.Code, "Nothing was written to %s: the %s failed. %s", key, action, ae.Message)
	e.Retryable = ae.Retryable
	return e, core.RunFailed
}

// progressUnrecorded is the error of a progress commit whose step st was
// written but whose outcome the state store could not record (err): the
// run stops there, since a replay of its key could not tell the step was
// done and would send it again. more says a step (the comment) was left.
func progressUnrecorded(pl *progressPlan, st progressStep, err error, more bool) *core.Error {
	ae := core.AsError(err)
	rest := ""
	if more {
		rest = " The comment was not sent."
	}
	return core.Errorf(core.CodeCommitPartial, "The %s of %s was written (%s), but the state store could not record it (%s: %s), so the commit stopped there.%s Check %s in the tracker, then %s for what is left.",
		st.action, pl.Key, st.done, ae.Code, strings.TrimSuffix(ae.Message, "."), rest, pl.Key, core.RerunInSentence(core.PreviewProgress)).WithRerun(core.RerunInSentence(core.PreviewProgress))
}
