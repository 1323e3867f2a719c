// Package storeerr holds the core.Error values every core.Store
// implementation returns, so the in-memory, SQLite and Postgres stores say
// the same thing in the same words, and the checks they share.
package storeerr

import (
	"errors"
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// CheckPreview validates a preview before it is stored and returns it as
// every store keeps it: a nil plan as an empty one, Digest set.
func CheckPreview(p core.Preview) (core.Preview, error) {
	switch {
	case p.Handle == "":
		return p, core.Errorf(core.CodeInternal, "Cannot store a preview without a handle. This is a bug in the caller.")
	case len(p.Handle) > 200:
		return p, core.Errorf(core.CodeInternal, "Cannot store a preview whose handle is %d bytes long (the limit is 200). This is a bug in the caller.", len(p.Handle))
	case p.Kind != core.PreviewImport && p.Kind != core.PreviewProgress && p.Kind != core.PreviewPull:
		return p, core.Errorf(core.CodeInternal, "Cannot store preview %q of kind %q: the kind must be %q, %q or %q. This is a bug in the caller.", p.Handle, p.Kind, core.PreviewImport, core.PreviewProgress, core.PreviewPull)
	}
	digest := core.PlanDigest(p.Plan) // (of a plan of megabytes: taken once)
	if p.Digest != "" && p.Digest != digest {
		return p, core.Errorf(core.CodeInternal, "Cannot store preview %q: its digest %s is not the digest of its plan. This is a bug in the caller.", p.Handle, p.Digest)
	}
	if p.Plan == nil {
		p.Plan = []byte{}
	}
	p.Digest = digest
	return p, nil
}

// CheckFinalState validates the state a run is finished with.
func CheckFinalState(s core.RunState) error {
	switch s {
	case core.RunCommitted, core.RunPartial, core.RunFailed:
		return nil
	}
	return core.Errorf(core.CodeInternal, "Cannot finish a run in state %q: the final state must be committed, partial or failed. This is a bug in the caller.", s)
}

// DuplicateHandle: SavePreview with a handle already stored.
func DuplicateHandle(handle string) *core.Error {
	return core.Errorf(core.CodeInternal, "A preview with handle %q is already stored; handles must be unique. Re-run the preview to get a new handle.", handle)
}

// PreviewNotFound: an unknown or pruned handle (worded by
// core.RefuseUnknownPreview, as the service words it).
func PreviewNotFound(handle string) *core.Error {
	return core.RefuseUnknownPreview(handle, "")
}

// PreviewConsumed: a handle another idempotency key already consumed.
// runID names the consuming run ("" when it is not known). Worded by
// core.RefuseConsumedPreview.
func PreviewConsumed(handle, runID string, at time.Time) *core.Error {
	by := "commit run " + runID
	if runID == "" {
		by = "an earlier commit run"
	}
	return core.RefuseConsumedPreview(handle, "", at, by)
}

// PreviewExpired: the handle's TTL has passed (worded by
// core.RefuseExpiredPreview).
func PreviewExpired(handle string, at time.Time) *core.Error {
	return core.RefuseExpiredPreview(handle, "", at, 0, time.Time{})
}

// PreviewPruned: a handle whose preview expired and was pruned, known by
// its tombstone (PREVIEW_EXPIRED, cause *core.PrunedPreviewError).
func PreviewPruned(handle string, kind core.PreviewKind, expiredAt time.Time) *core.Error {
	e := core.RefuseExpiredPreview(handle, kind, expiredAt, 0, time.Time{})
	e.Err = &core.PrunedPreviewError{Handle: handle, Kind: kind, ExpiredAt: expiredAt.UTC()}
	return e
}

// PreviewTampered: the stored plan does not match its digest.
func PreviewTampered(handle string) *core.Error {
	return core.Errorf(core.CodeInternal, "The stored plan of preview %q does not match its digest: the state store was changed outside DevWorkWire. Nothing was written; run the preview again.", handle)
}

// KeyReused: the idempotency key belongs to a run of another handle.
func KeyReused(key, runHandle, handle string) *core.Error {
	return core.Errorf(core.CodeIdempotencyKeyReused, "Idempotency key %q was already used to commit another preview. Use a new key for preview %q (or omit it to have one generated).", key, handle).
		WithDetails(core.Detail{Field: "idempotency_key", Message: fmt.Sprintf("already used with preview %q", runHandle)})
}

// RunNotFound: RecordOutcomes or FinishRun for a key without a run.
func RunNotFound(key string) *core.Error {
	return core.Errorf(core.CodeInternal, "No commit run with idempotency key %q exists; a run must be started before outcomes are recorded. This is a bug in the caller.", key)
}

// RunFinished: RecordOutcomes or FinishRun on a run that already finished.
func RunFinished(key string, state core.RunState) *core.Error {
	return core.Errorf(core.CodeInternal, "The commit run with idempotency key %q already finished (%s) and cannot change. This is a bug in the caller.", key, state)
}

// Closed: a call on a closed store.
func Closed(what string) *core.Error {
	return core.Errorf(core.CodeInternal, "The %s state store is closed. This is a bug in the caller: open the store again.", what)
}

// Known is err as it stands when a store's fault need not translate it:
// nil, or the *core.Error err is or wraps (ok is true). A driver's error
// is not known (ok is false).
func Known(err error) (known error, ok bool) {
	if err == nil {
		return nil, true
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce, true
	}
	return nil, false
}

// Fault wraps a driver error as INTERNAL_ERROR, naming the operation. The
// driver's text is kept only as the cause (for logs), never in the message.
func Fault(cause error, what, op string) *core.Error {
	return core.Wrap(cause, core.CodeInternal, "The %s state store failed to %s. Check that the store is reachable and not full, then try again.", what, op)
}

// CheckLock validates AcquireLock's arguments.
func CheckLock(name, owner string, lease time.Duration) error {
	switch {
	case name == "" || len(name) > 1000:
		return core.Errorf(core.CodeInternal, "Cannot take a lock with a name of %d bytes (1 to 1000). This is a bug in the caller.", len(name))
	case owner == "" || len(owner) > 200:
		return core.Errorf(core.CodeInternal, "Cannot take lock %q for an owner of %d bytes (1 to 200). This is a bug in the caller.", name, len(owner))
	case lease <= 0:
		return core.Errorf(core.CodeInternal, "Cannot take lock %q with a lease of %s: the lease must be positive. This is a bug in the caller.", name, lease)
	}
	return nil
}

// LockHeld: AcquireLock on a lock another owner holds. The cause is a
// *core.LockHeldError. renewed is when the holder last took or renewed
// it (zero: unknown) and now the store's clock at the answer, both on the
// store's clock.
func LockHeld(name, owner string, expires, renewed, now time.Time) *core.Error {
	held := &core.LockHeldError{Name: name, Owner: owner, Expires: expires.UTC()}
	if !renewed.IsZero() {
		held.Renewed, held.Silent = renewed.UTC(), max(now.Sub(renewed), 0)
	}
	e := core.Wrap(held, core.CodeInternal,
		"The lock %q is held by %s until %s (unless renewed). Try again once it is released.", name, owner, expires.UTC().Format(time.RFC3339))
	e.Retryable = true
	return e
}

// LockLost: Lock.Release or Store.Fence by an owner that no longer holds
// the lock at generation: its lease ran out and someone else took it, or
// it was released. holder is the current holder ("" when the lock is
// free) at holderGen. The cause is a *core.LockLostError.
func LockLost(name, owner string, generation int64, holder string, holderGen int64) *core.Error {
	now := "the lock is free now"
	if holder != "" {
		now = fmt.Sprintf("%s holds it now (generation %d)", holder, holderGen)
	}
	return core.Wrap(&core.LockLostError{Name: name, Owner: owner, Generation: generation, Holder: holder, HolderGeneration: holderGen}, core.CodeInternal,
		"The lock %q is no longer held by %s at generation %d: its lease ran out and another owner took it, or it was released; %s. Nothing was written under it; stop writing and start over.", name, owner, generation, now)
}

// CheckFence validates Fence's arguments.
func CheckFence(name, owner string, generation int64) error {
	if err := CheckLock(name, owner, 1); err != nil {
		return err
	}
	if generation <= 0 {
		return core.Errorf(core.CodeInternal, "Cannot fence lock %q at generation %d: generations start at 1. This is a bug in the caller.", name, generation)
	}
	return nil
}

// SchemaTooNew: a SQL store whose schema version cur is newer than the
// known version this build migrates to. store names the store for people
// ("The SQLite state store /path/state.db"); other says what else the
// person can do besides upgrading.
func SchemaTooNew(store string, cur, known int, other string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "%s has schema version %d, newer than this version of DevWorkWire understands (%d). Upgrade DevWorkWire, or %s.", store, cur, known, other).
		WithDetails(core.Detail{Field: "store", Message: fmt.Sprintf("schema version %d is newer than %d", cur, known)})
}
