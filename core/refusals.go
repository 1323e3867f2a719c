// The gate's refusals of a handle, in the error taxonomy: the service and
// every store refuse an unknown, expired, consumed or changed preview with
// the same words.

package core

import (
	"fmt"
	"strings"
	"time"
)

// RefuseUnknownPreview refuses a handle no stored preview has
// (PREVIEW_NOT_FOUND). kind is the kind of handle expected ("" when the
// caller does not know).
func RefuseUnknownPreview(handle string, kind PreviewKind) *Error {
	rerun := Rerun(kind) + " and commit the new handle"
	return Errorf(CodePreviewNotFound, "No preview has the handle %q (it is unknown, or expired and pruned). %s.", handle, rerun).
		WithRerun(rerun).WithDetails(Detail{Field: "preview_handle", Message: "unknown or pruned handle"})
}

// RefuseExpiredPreview refuses a handle of kind past its expiry
// (PREVIEW_EXPIRED). kind ("" when not known), validFor (the preview's TTL)
// and now are optional (zero): with now the message says how long ago it
// expired.
func RefuseExpiredPreview(handle string, kind PreviewKind, expiredAt time.Time, validFor time.Duration, now time.Time) *Error {
	when := "at " + UTCSecond(expiredAt).Format(time.RFC3339)
	if !now.IsZero() {
		when = Ago(now.Sub(expiredAt)) + " ago"
	}
	if validFor > 0 {
		when += fmt.Sprintf(" (previews are valid for %s)", Ago(validFor))
	}
	rerun := Rerun(kind) + " to get a current plan"
	return Errorf(CodePreviewExpired, "This preview expired %s. %s.", when, rerun).WithRerun(rerun).
		WithDetails(Detail{Field: "preview_handle", Message: fmt.Sprintf("%s expired at %s", handle, UTCSecond(expiredAt).Format(time.RFC3339))})
}

// RefuseConsumedPreview refuses a handle of kind ("" when not known) a
// commit already consumed (PREVIEW_NOT_FOUND: a handle is used once); by
// names that commit, e.g. "the commit with idempotency key K" or "commit
// run R".
func RefuseConsumedPreview(handle string, kind PreviewKind, at time.Time, by string) *Error {
	rerun := Rerun(kind) + " for a new plan, or repeat that commit's idempotency key to see its result"
	return Errorf(CodePreviewNotFound, "Preview %q was already committed at %s, by %s; a handle is used once. %s.",
		handle, UTCSecond(at).Format(time.RFC3339), by, rerun).WithRerun(rerun).
		WithDetails(Detail{Field: "preview_handle", Message: fmt.Sprintf("consumed at %s by %s", UTCSecond(at).Format(time.RFC3339), by)})
}

// RefusePlanChanged refuses a commit whose stored plan is not the one
// that was shown to whoever confirmed it (PREVIEW_STALE, nothing written,
// the handle left unused): want is the digest confirmed, stored the one
// the store now holds. kind is "" when not known.
func RefusePlanChanged(handle string, kind PreviewKind, want, stored string) *Error {
	rerun := Rerun(kind) + " and confirm the new plan"
	return Wrap(&PlanChangedError{Handle: handle, Want: want, Stored: stored}, CodePreviewStale,
		"The stored plan of preview %q is not the plan that was shown for confirmation: it was changed in the state store after the preview (stored digest %s, confirmed %s). Nothing was written and the handle was not used. %s.", handle, stored, want, rerun).WithRerun(rerun).
		WithDetails(Detail{Field: "plan_digest", Message: "stored plan digest " + stored + " differs from the confirmed " + want})
}

// CheckPlanDigest is the one check that what is committed is the plan
// whose digest the confirmer saw: confirmed (spaces around it dropped; ""
// when none was given: nothing to check) against the stored plan's digest;
// RefusePlanChanged when they differ. The gate, the MCP server before it
// asks a person, and every store's StartRun use it.
func CheckPlanDigest(handle string, kind PreviewKind, confirmed, stored string) error {
	if c := strings.TrimSpace(confirmed); c != "" && c != stored {
		return RefusePlanChanged(handle, kind, c, stored)
	}
	return nil
}

// Rerun is the advice, beginning a sentence, to run kind's preview again,
// in no front door's words: what a refusal marks (Error.WithRerun) for a
// front door to say its own next step in place of.
func Rerun(kind PreviewKind) string { return "Run the " + PreviewName(kind) + " again" }

// RerunInSentence is Rerun inside a sentence.
func RerunInSentence(kind PreviewKind) string { return "run the " + PreviewName(kind) + " again" }

// PreviewName names a kind's preview for people, in no front door's
// words: each front door adds its own next step (a command, a tool).
// A kind of "" (not known) is "preview".
func PreviewName(k PreviewKind) string {
	switch k {
	case PreviewProgress:
		return "progress preview"
	case PreviewImport:
		return "import preview"
	case PreviewPull:
		return "pull preview"
	}
	return "preview"
}

// UTCSecond returns t in UTC, truncated to seconds (the contract's time format).
func UTCSecond(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// Ago renders a duration for people: "12 minutes", "1 hour 5 minutes".
func Ago(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return Plural(int(d.Seconds()), "second", "seconds")
	case d < time.Hour:
		return Plural(int(d.Minutes()), "minute", "minutes")
	case d < 48*time.Hour:
		h := int(d.Hours())
		m := int((d - time.Duration(h)*time.Hour).Minutes())
		if m == 0 {
			return Plural(h, "hour", "hours")
		}
		return Plural(h, "hour", "hours") + " " + Plural(m, "minute", "minutes")
	default:
		return Plural(int(d.Hours()/24), "day", "days")
	}
}

// AsksForNewPreview reports whether an error of code c is one of the
// gate's refusals that ask for a new preview (its message says so in no
// front door's words): each front door adds its own next step to them
// (Error.WithNextStep).
func AsksForNewPreview(c Code) bool {
	switch c {
	case CodePreviewStale, CodePreviewExpired, CodePreviewNotFound, CodeCommitInterrupted, CodeCommitPartial:
		return true
	}
	return false
}
