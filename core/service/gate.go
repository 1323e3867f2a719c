package service

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The gate: every commit, of any kind, passes the same steps in the same
// order (commitGated), and only the kind-specific parts differ (a
// plannedCommit: the lock's name, the stale check, the execution).
//
//  1. openGate: confirmation first; the handle (given, known, kind,
//     scope); the idempotency key (replay a finished run, refuse reuse,
//     report an interrupted run); expiry; consumption.
//  2. decode the stored plan (storedplan.go: one codec, versioned).
//  3. take the commit lock, owned by key|handle (commitlock.go); it is
//     released when the commit returns.
//  4. the stale check: one re-read of the tracker, PREVIEW_STALE on change.
//  5. start the run: the store consumes the handle atomically; a
//     concurrent call of the same key and handle that started first is
//     replayed.
//  6. execute the plan (import.go, progress.go), recording every outcome.

// gate is the outcome of the checks every commit passes before it may
// touch the tracker.
type gate struct {
	preview core.Preview
	key     string
	// replay is set when a finished run with this key and handle exists:
	// the caller returns it without writing.
	replay *core.Run
	// digest is the plan digest the confirmer saw (CommitInput.PlanDigest),
	// or "" when the caller gave none.
	digest string
	// running is the run found under the key when it is not finished.
	running *core.Run
}

// plannedCommit is one kind's part of a commit: a decoded stored plan and
// what to do with it.
type plannedCommit[R any] interface {
	// lock names the commit locks (one, or one per document of an import
	// of several) and, for people, what each protects.
	lock() []lockName
	// stale re-reads what the plan touches and refuses (PREVIEW_STALE) a
	// plan the tracker no longer matches.
	stale(ctx context.Context) error
	// execute carries out the started run and records how it ended.
	execute(ctx context.Context, r *commitRun) (R, error)
}

// commitRun is a started run, as its execution sees it.
type commitRun struct {
	s        *WorkItemService
	o        *op
	key      string // idempotency key
	handle   string
	progress func(done, total int)
	// lock is the commit lock (or the locks of a plan of several
	// documents); every write is preceded by lock.fence.
	lock commitLocks
	// trails records outcomes in groups (record.go).
	trails *grouped[trail]
	// unfinished is why the store could not record the run's end (finish),
	// which the commit's answer then says (unrecorded).
	unfinished error
}

// commitKind is what commitGated needs to know of a kind of commit.
type commitKind[R any] struct {
	kind core.PreviewKind
	// plan decodes the stored plan of a preview of this kind.
	plan func(p core.Preview) (plannedCommit[R], error)
	// marks are the result's fields the gate sets: Replayed, on a result
	// decoded from a finished run, and Warnings, which get what the store
	// could not record of a commit that did what it was asked
	// (unrecordedWarning, lockKept).
	marks func(r *R) (replayed *bool, warnings *[]string)
}

// warn adds a warning to r.
func (k commitKind[R]) warn(r *R, warning string) {
	_, ws := k.marks(r)
	*ws = append(*ws, warning)
}

// staleCheck is the stale check of the commit k would make of the stored
// preview p (plannedCommit.stale), for a check before anyone is asked.
func staleCheck[R any](k commitKind[R], p core.Preview) (func(context.Context) error, error) {
	c, err := k.plan(p)
	if err != nil {
		return nil, err
	}
	return c.stale, nil
}

// replay decodes a finished run's stored result, marked replayed, or
// returns its stored error.
func (k commitKind[R]) replay(run *core.Run) (R, error) {
	var r R
	if err := replayed(run, &r); err != nil {
		var zero R
		return zero, err
	}
	mark, _ := k.marks(&r)
	*mark = true
	return r, nil
}

// commitGated is the one commit skeleton of every kind.
func commitGated[R any](ctx context.Context, s *WorkItemService, o *op, k commitKind[R], in CommitInput) (res R, err error) {
	var zero R
	g, err := s.openGate(ctx, o, k.kind, in)
	if err != nil {
		return inProgress(ctx, s, k, g, err)
	}
	if g.replay != nil {
		return k.replay(g.replay)
	}
	pl, err := k.plan(g.preview)
	if err != nil {
		return zero, err
	}
	lock, err := s.lockCommits(ctx, o, k.kind, pl.lock(), lockOwner(g.key, g.preview.Handle), in.Waiting)
	if err != nil {
		return zero, err
	}
	// A commit that did not start its run leaves the lock to a concurrent
	// commit of the same key that did (the same owner).
	started := false
	defer func() {
		uerr := lock.unlock(ctx, !started && s.keepSharedLock(ctx, o, g.key))
		switch {
		case uerr == nil:
		case err != nil:
			err = s.lockKept(err, uerr)
		case started:
			k.warn(&res, s.lockKeptWarning(uerr))
		}
	}()
	if err := pl.stale(ctx); err != nil {
		// A concurrent call with this key and handle (the lock's same
		// owner, so it did not wait) may have started the run and written
		// since: its writes are what look stale. This call answers as a
		// repeat of the key does, never as a failed commit.
		if run, found, gerr := s.st.GetRun(ctx, g.key); gerr == nil && found && run.ID != o.runID {
			if rerr := s.existingRun(k.kind, g.preview.Handle, run); rerr != nil {
				g.running = &run
				return inProgress(ctx, s, k, g, rerr)
			}
			return k.replay(&run)
		}
		err = s.whyStale(ctx, g, err)
		if core.ErrorCode(err) == core.CodePreviewStale {
			s.auditStale(ctx, k.kind, g.preview.Handle)
		}
		return zero, err
	}
	account, err := s.account(ctx)
	if err != nil {
		return zero, err
	}
	started, err = s.startRun(ctx, o, k.kind, g)
	if err != nil {
		return inProgress(ctx, s, k, g, err)
	}
	if !started {
		return k.replay(g.replay)
	}
	o.log.Info("run started", "idempotency_key", g.key, "handle", g.preview.Handle)
	r := &commitRun{s: s, o: o, key: g.key, handle: g.preview.Handle, progress: in.Progress, lock: lock, trails: newRecorder(s.st, g.key)}
	// The attempt is in the audit trail before the first write, or there
	// is no write.
	if err := s.auditStarted(ctx, o, g, account); err != nil {
		e := *core.AsError(err)
		e.RunID = o.runID
		r.finish(ctx, core.RunFailed, &e)
		return zero, &e
	}
	res, err = pl.execute(ctx, r)
	s.auditFinished(ctx, o, g, account, err)
	if err == nil && r.unfinished != nil {
		k.warn(&res, r.unrecordedWarning())
	}
	return res, r.unrecorded(err)
}

// unrecorded adds to a commit's error what the store could not keep of
// the run's end (finish): a repeat of its key then finds the run in
// progress, and says it is not running once the lock's heartbeat stopped.
func (r *commitRun) unrecorded(err error) error {
	if r.unfinished == nil || err == nil {
		return err
	}
	return withSentence(err, fmt.Sprintf("The state store could not record how this commit ended (%s), so a repeat of idempotency key %s finds it unfinished: it reports it interrupted (not running) once %s passed without its commit lock being renewed, with the outcomes recorded before the store failed.",
		clause(r.unfinished), r.key, core.Ago(r.s.lockSilence())))
}

// unrecordedWarning is the warning of a commit that did everything its
// plan asked and whose end the store could not record (finish): its
// result stands, and a repeat of its key does not replay it.
func (r *commitRun) unrecordedWarning() string {
	return fmt.Sprintf("Everything above was written, but the state store could not record that this commit finished (%s). A repeat of idempotency key %s will not replay this result: it reports the commit interrupted, with the outcomes recorded. Nothing is lost: a new preview finds what this commit wrote and plans nothing twice.",
		clause(r.unfinished), r.key)
}

// lockKept adds to a commit's error that its commit lock could not be
// released: the next commit of the same document or item waits for its
// lease to lapse.
func (s *WorkItemService) lockKept(err, release error) error {
	return withSentence(err, s.lockKeptWarning(release))
}

// lockKeptWarning says that a commit's lock could not be released.
func (s *WorkItemService) lockKeptWarning(release error) string {
	return fmt.Sprintf("The commit lock could not be released (%s): the next commit of the same document or item waits until the lock's lease lapses, at most %s from now.",
		clause(release), core.Ago(s.lockLease))
}

// withSentence is a copy of err (as a *core.Error) with sentence added to
// its message.
func withSentence(err error, sentence string) error {
	e := *core.AsError(err)
	e.Message = strings.TrimSpace(e.Message) + " " + sentence
	return &e
}

// clause is err's message as a clause inside another sentence: without
// its final period.
func clause(err error) string { return strings.TrimSuffix(core.AsError(err).Message, ".") }

// openGate applies the gate rules that need no tracker read, in order:
// confirmation (first, before anything else), the handle (known, kind,
// scope), the idempotency key (replay, reuse, interrupted run), expiry and
// consumption.
func (s *WorkItemService) openGate(ctx context.Context, o *op, kind core.PreviewKind, in CommitInput) (*gate, error) {
	if !in.Confirmed {
		return nil, core.Errorf(core.CodeConfirmationRequired,
			"%s commit writes to the tracker only when confirmed (confirmed: true). Show the preview to the person, and commit with confirmed: true only once they agreed; nothing was written.", capitalize(aKind(kind)))
	}
	if err := s.checkPolicy(ctx, o, kind, strings.TrimSpace(in.PreviewHandle)); err != nil {
		return nil, err
	}
	handle := strings.TrimSpace(in.PreviewHandle)
	if handle == "" {
		return nil, core.Errorf(core.CodePreviewNotFound, "%s commit needs the handle of a stored %s (preview_handle); none was given. Run the %s first and commit its handle.", capitalize(aKind(kind)), core.PreviewName(kind), core.PreviewName(kind)).
			WithDetails(core.Detail{Field: "preview_handle", Message: "missing"})
	}
	p, err := s.loadPreview(ctx, handle, kind)
	if err != nil {
		return nil, err
	}
	if p.Kind != kind {
		return nil, refuseKind(handle, p.Kind, kind)
	}
	if err := s.checkScope(p); err != nil {
		return nil, err
	}
	g := &gate{preview: p, key: strings.TrimSpace(in.IdempotencyKey)}
	if g.key == "" {
		g.key = NewIdempotencyKey()
	} else if run, found, err := s.st.GetRun(ctx, g.key); err != nil {
		return nil, err
	} else if found {
		if err := s.existingRun(kind, handle, run); err != nil {
			g.running = &run
			return g, err
		}
		g.replay = &run
		return g, nil
	}
	if now := s.now(); !now.Before(p.ExpiresAt) {
		return nil, core.RefuseExpiredPreview(handle, kind, p.ExpiresAt, p.ExpiresAt.Sub(p.CreatedAt), now)
	}
	if err := consumedErr(p, g.key); err != nil {
		return nil, err
	}
	// What was confirmed is what is executed: the stored plan must still
	// be the one shown (checked again, atomically, by StartRun).
	g.digest = strings.TrimSpace(in.PlanDigest)
	if err := core.CheckPlanDigest(handle, kind, g.digest, p.Digest); err != nil {
		return nil, err
	}
	return g, nil
}

// loadPreview loads the preview of a handle.
func (s *WorkItemService) loadPreview(ctx context.Context, handle string, kind core.PreviewKind) (core.Preview, error) {
	p, err := s.st.LoadPreview(ctx, handle)
	if err != nil {
		var pruned *core.PrunedPreviewError
		switch {
		case errors.As(err, &pruned): // expired and pruned: say how long ago
			e := core.RefuseExpiredPreview(handle, kind, pruned.ExpiredAt, 0, s.now())
			e.Err = err
			return core.Preview{}, e
		case core.ErrorCode(err) == core.CodePreviewNotFound:
			e := core.RefuseUnknownPreview(handle, kind)
			e.Err = err
			return core.Preview{}, e
		}
		return core.Preview{}, err
	}
	return p, nil
}

// checkScope refuses a preview made for another tracker scope.
func (s *WorkItemService) checkScope(p core.Preview) error {
	if scope := s.p.Scope(); p.Scope != scope {
		return core.Errorf(core.CodePreviewNotFound, "Handle %q was made for another project (%s); this configuration works with %s. Run the preview here to get a handle for this project.",
			p.Handle, p.Scope, scope).
			WithDetails(core.Detail{Field: "preview_handle", Message: "made for " + p.Scope})
	}
	return nil
}

// The refusals of a preview handle, worded once: the service and every
// Store implementation (through core/storeerr) return these.

// refuseKind refuses a handle of kind got where one of kind want is
// needed (PREVIEW_NOT_FOUND).
func refuseKind(handle string, got, want core.PreviewKind) *core.Error {
	return core.Errorf(core.CodePreviewNotFound, "Handle %q is %s preview handle, not %s one: commit it as %s commit, or run the %s for %s handle.",
		handle, aKind(got), aKind(want), aKind(got), core.PreviewName(want), aKind(want)).
		WithDetails(core.Detail{Field: "preview_handle", Message: "wrong kind: " + string(got)})
}

// consumedErr reports a handle already consumed by a run under another key.
func consumedErr(p core.Preview, key string) error {
	if p.ConsumedAt.IsZero() || p.ConsumedBy == key {
		return nil
	}
	return core.RefuseConsumedPreview(p.Handle, p.Kind, p.ConsumedAt, "the commit with idempotency key "+p.ConsumedBy)
}

// whyStale explains a stale plan: when the handle was meanwhile consumed
// by a concurrent commit, that is the reason the tracker changed.
func (s *WorkItemService) whyStale(ctx context.Context, g *gate, stale error) error {
	if p, err := s.st.LoadPreview(ctx, g.preview.Handle); err == nil {
		if err := consumedErr(p, g.key); err != nil {
			return err
		}
	}
	return stale
}

// existingRun decides what a run found under the caller's key means: nil
// for a finished run of this handle (replay), else the error to return.
func (s *WorkItemService) existingRun(kind core.PreviewKind, handle string, run core.Run) error {
	if run.Handle != handle {
		return core.Errorf(core.CodeIdempotencyKeyReused, "Idempotency key %q was already used with another preview (%s). Use a new key for a new plan; a key belongs to one preview.", run.Key, run.Handle).
			WithDetails(core.Detail{Field: "idempotency_key", Message: "used with " + run.Handle})
	}
	if run.State == core.RunInProgress {
		e := core.Errorf(core.CodeCommitInterrupted, "The commit with idempotency key %q (run %s, started %s) did not finish: the process probably died mid-commit. %d item outcome(s) were recorded (see details). %s: items already written are found and not written twice (items whose create was in flight are held back until search can show them or the search-lag window has passed). The dead commit's lock may keep the %s locked for up to %s after the crash; a commit of the new preview waits for it.",
			run.Key, run.ID, core.UTCSecond(run.StartedAt).Format(time.RFC3339), len(run.Outcomes), core.Rerun(kind), lockedWhat(kind), core.Ago(s.lockLease)).WithRerun(core.Rerun(kind))
		for _, oc := range run.Outcomes {
			e.Details = append(e.Details, core.Detail{Item: string(oc.Reference), Key: oc.Key, Outcome: oc.Outcome, Code: oc.Code, Message: oc.Message})
		}
		return e
	}
	return nil
}

// inProgress is the answer of a call whose key's run was found in
// progress (err, COMMIT_INTERRUPTED): whyInProgress's, unless the run
// finished since it was read — its lock was released at its end, between
// that read and whyInProgress's look at the lock — and is then replayed,
// as any repeat of a finished run is.
func inProgress[R any](ctx context.Context, s *WorkItemService, k commitKind[R], g *gate, err error) (R, error) {
	err = whyInProgress(ctx, s, k, g, err)
	if core.ErrorCode(err) == core.CodeCommitInterrupted && g != nil && g.running != nil {
		if run, found, gerr := s.st.GetRun(context.WithoutCancel(ctx), g.key); gerr == nil && found && run.State != core.RunInProgress && run.Handle == g.preview.Handle {
			return k.replay(&run)
		}
	}
	var zero R
	return zero, err
}

// whyInProgress tells a commit whose key's run is still in progress
// (COMMIT_INTERRUPTED) apart from one whose earlier call died. The run's
// commit lock says which: held by this key and handle and renewed within
// lockSilence (the running commit's heartbeat), another call with this
// key is running now, and the error says so; held but silent for longer,
// the call that started it died or lost the store (kill -9, a full disk
// that kept its end and its lock from being recorded), and the error says
// it is not running, how many outcomes were recorded, and when its lock
// lapses; not held, it died. Any other error is returned as it is.
func whyInProgress[R any](ctx context.Context, s *WorkItemService, k commitKind[R], g *gate, err error) error {
	if core.ErrorCode(err) != core.CodeCommitInterrupted || g == nil || g.running == nil {
		return err
	}
	pl, derr := k.plan(g.preview)
	if derr != nil {
		return err
	}
	first := sortedLocks(pl.lock())[0] // every lock of a commit has its owner; the first is taken first
	name, what := first.name, first.what
	owner := lockOwner(g.key, g.preview.Handle)
	holder, held := s.lockHolder(ctx, name)
	if held == nil || holder != owner {
		return err // nobody holds its lock: the call that started it died (or it just finished: inProgress)
	}
	run := g.running
	until := core.UTCSecond(held.Expires).Format(time.RFC3339)
	var e *core.Error
	if !held.Renewed.IsZero() && held.Silent > s.lockSilence() {
		e = core.Errorf(core.CodeCommitInterrupted, "The commit with idempotency key %q (run %s, started %s) is not running: it stopped renewing its commit lock of %s %s ago (a running commit renews it every %s), so its process died or lost the state store, and it did not finish. %d item outcome(s) were recorded (see details). %s: items already written are found and not written twice (items whose create was in flight are held back until search can show them or the search-lag window has passed). Its lock lapses at %s; a commit of the new preview waits for it until then.",
			run.Key, run.ID, core.UTCSecond(run.StartedAt).Format(time.RFC3339), what, core.Ago(held.Silent), every(s.lockBeat()), len(run.Outcomes), core.Rerun(k.kind), until).WithRerun(core.Rerun(k.kind))
	} else {
		heard := "renewed while it works"
		if !held.Renewed.IsZero() {
			heard = fmt.Sprintf("renewed %s; it renews it every %s while it works", ago(held.Silent), every(s.lockBeat()))
		}
		e = core.Errorf(core.CodeCommitInterrupted, "The commit with idempotency key %q (run %s, started %s) is running now: another call with this key and handle holds the commit lock of %s (until %s, %s). This call wrote nothing. %d item outcome(s) were recorded so far (see details). Wait for it to finish, then repeat this call to see its result (the same key replays it); if that commit's process died, a repeat reports it as interrupted within %s.",
			run.Key, run.ID, core.UTCSecond(run.StartedAt).Format(time.RFC3339), what, until, heard, len(run.Outcomes), core.Ago(s.lockSilence()))
	}
	e.Details = core.AsError(err).Details
	e.Err = err
	return e
}

// every words a heartbeat's period: "second", "3 seconds", "300 ms".
func every(d time.Duration) string {
	switch {
	case d == time.Second:
		return "second"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return core.Ago(d)
}

// ago words how long ago something was heard from: "just now" under a
// second, else "N seconds ago".
func ago(d time.Duration) string {
	if d < time.Second {
		return "just now"
	}
	return core.Ago(d) + " ago"
}

// lockHolder reports who holds the named lock with a live lease, with
// the store's answer (its lease, its heartbeat); held is nil when nobody
// does. It asks the store by trying to take the lock under a one-off
// owner that gives it back at once if it was free (or lapsed: its holder
// is then fenced out, as by any taker-over).
func (s *WorkItemService) lockHolder(ctx context.Context, name string) (owner string, held *core.LockHeldError) {
	lk, err := s.st.AcquireLock(context.WithoutCancel(ctx), name, "probe|"+NewRunID(), time.Second)
	if err == nil {
		_ = lk.Release(context.WithoutCancel(ctx))
		return "", nil
	}
	if errors.As(err, &held) {
		return held.Owner, held
	}
	return "", nil
}

// startRun consumes the handle and starts the run. A concurrent commit of
// the same handle under the same key finds the run already there.
func (s *WorkItemService) startRun(ctx context.Context, o *op, kind core.PreviewKind, g *gate) (started bool, err error) {
	// The run executes the plan loaded by openGate: StartRun refuses, in
	// the step that consumes the handle, a stored plan that is no longer
	// that one (or, given one, the one the confirmer saw).
	want := cmp.Or(g.digest, g.preview.Digest)
	run, started, err := s.st.StartRun(ctx, core.StartRunRequest{Key: g.key, Handle: g.preview.Handle, RunID: o.runID, Now: core.UTCSecond(s.now()), PlanDigest: want})
	var changed *core.PlanChangedError
	if errors.As(err, &changed) {
		e := core.RefusePlanChanged(g.preview.Handle, kind, want, changed.Stored)
		e.Err = err
		return false, e
	}
	if err != nil {
		return false, err
	}
	if !started {
		if err := s.existingRun(kind, g.preview.Handle, run); err != nil {
			g.running = &run
			return false, err
		}
		g.replay = &run
	}
	return started, nil
}

// replayed decodes a finished run's stored result: a result to return
// (with Replayed set by the caller) or the stored error.
func replayed(run *core.Run, into any) error {
	if run.State != core.RunCommitted {
		var e core.Error
		if err := json.Unmarshal(run.Result, &e); err != nil || !e.Code.Known() {
			return core.Errorf(core.CodeInternal, "The stored result of run %s cannot be read.", run.ID)
		}
		e.Message = "(replayed) " + e.Message
		return &e
	}
	if err := json.Unmarshal(run.Result, into); err != nil {
		return core.Wrap(err, core.CodeInternal, "The stored result of run %s cannot be read.", run.ID)
	}
	return nil
}

// storedResult is a run's result as it is stored: an error keeps the
// words a front door replaces with its own next step (core.Error.Rerun),
// so that a replay reads as the first answer did.
func storedResult(result any) ([]byte, error) {
	if e, ok := result.(*core.Error); ok {
		return e.MarshalStored()
	}
	return json.Marshal(result)
}

// finish records a run's end state. A store fault here is logged and kept
// for the commit's answer (unrecorded): the tracker writes already
// happened and their outcomes are recorded.
func (r *commitRun) finish(ctx context.Context, state core.RunState, result any) {
	b, err := storedResult(result)
	if err == nil {
		err = r.s.st.FinishRun(context.WithoutCancel(ctx), r.key, state, b, core.UTCSecond(r.s.now()))
	}
	if err != nil {
		r.o.log.Error("could not record the run's final state", "state", state, "code", core.ErrorCode(err))
		r.unfinished = err
	}
}

// record records outcomes of the run, after the dedup index entries of
// the writes they report, durably (together with those of concurrent
// calls: record.go), and logs them; it returns the store's error (the
// caller decides whether that stops the run).
func (r *commitRun) record(ctx context.Context, index []core.IndexEntry, recs ...core.ItemOutcome) error {
	err := r.trails.do(ctx, trail{index: index, outcomes: recs})
	if err != nil {
		r.o.log.Error("could not record item outcomes", "code", core.ErrorCode(err), "outcomes", len(recs), "index_entries", len(index))
	}
	for _, rec := range recs {
		logItem(ctx, r.o, rec)
	}
	return err
}

// storePreview ends a preview: it refuses, before anyone is asked to
// confirm, a plan the account could not write (perms: checkPermissions),
// stores plan as a preview of kind (savePreview) and returns what the
// caller sees, built by result from what was stored.
func storePreview[R any](ctx context.Context, s *WorkItemService, dryRun bool, perms []core.Permission, kind core.PreviewKind, plan any, result func(core.Preview) R) (R, error) {
	if err := s.checkPermissions(ctx, dryRun, perms...); err != nil {
		var none R
		return none, err
	}
	p, err := s.savePreview(ctx, kind, plan)
	if err != nil {
		var none R
		return none, err
	}
	return result(p), nil
}

// savePreview stores an encoded plan under a new handle.
func (s *WorkItemService) savePreview(ctx context.Context, kind core.PreviewKind, plan any) (core.Preview, error) {
	b, err := encodePlan(plan)
	if err != nil {
		return core.Preview{}, err
	}
	now := core.UTCSecond(s.now())
	p := core.Preview{Handle: newHandle(kind), Kind: kind, Scope: s.p.Scope(), Plan: b, Digest: core.PlanDigest(b), CreatedAt: now, ExpiresAt: now.Add(s.ttl)}
	if err := s.st.SavePreview(ctx, p); err != nil {
		return core.Preview{}, err
	}
	s.lastMu.Lock()
	s.last = savedPreview{p.Handle, p.Kind}
	s.lastMu.Unlock()
	s.auditPreview(ctx, p, plan)
	return p, nil
}

// StoredPreview shows a stored import or progress preview again by its
// handle, for a person who reviews (and may then commit) a plan someone
// else made: the plan as stored, decoded by the same codec the commit
// uses. It writes nothing. Errors: PREVIEW_NOT_FOUND (unknown handle,
// another scope, a pull's handle: StoredPull shows those),
// PREVIEW_EXPIRED (expired and not committed), INTERNAL_ERROR (unreadable
// plan).
func (s *WorkItemService) StoredPreview(ctx context.Context, handle string) (PreviewInfo, error) {
	return s.showStored(ctx, "preview.show", handle, func(k core.PreviewKind) error {
		if k == core.PreviewPull {
			return refuseKind(handle, k, core.PreviewImport)
		}
		return nil
	})
}

// ShowPreview shows a stored preview of any kind again by its handle
// (Kind says which; Import, Progress or Pull holds it), decoded by its
// kind's codec: what a reviewer is asked to confirm before the kind's
// commit. It writes nothing. Errors: as StoredPreview's, a pull's handle
// included.
func (s *WorkItemService) ShowPreview(ctx context.Context, handle string) (PreviewInfo, error) {
	return s.showStored(ctx, "preview.show", handle, func(core.PreviewKind) error { return nil })
}

// showStored is StoredPreview, StoredPull and ShowPreview: the stored
// preview loaded once, its kind checked by accept, its plan decoded by its
// kind's codec.
func (s *WorkItemService) showStored(ctx context.Context, name, handle string, accept func(core.PreviewKind) error) (PreviewInfo, error) {
	handle = strings.TrimSpace(handle)
	ctx, o := s.begin(ctx, name)
	info, err := s.storedPreview(ctx, handle, accept)
	if err != nil {
		return PreviewInfo{}, o.fail(err)
	}
	o.done("preview shown", "handle", handle, "kind", info.Kind)
	return info, nil
}

func (s *WorkItemService) storedPreview(ctx context.Context, handle string, accept func(core.PreviewKind) error) (PreviewInfo, error) {
	p, err := s.loadPreview(ctx, handle, "")
	if err != nil {
		return PreviewInfo{}, err
	}
	if err := s.checkScope(p); err != nil {
		return PreviewInfo{}, err
	}
	if err := accept(p.Kind); err != nil {
		return PreviewInfo{}, err
	}
	var pl shownPlan
	switch p.Kind {
	case core.PreviewImport:
		pl, err = decodeImportPlan(p)
	case core.PreviewProgress:
		pl, err = decodeProgressPlan(p)
	case core.PreviewPull:
		pl, err = decodePullPlan(p)
	default:
		err = core.Errorf(core.CodeInternal, "Preview %q has an unknown kind %q.", handle, p.Kind)
	}
	if err != nil {
		return PreviewInfo{}, err
	}
	info := PreviewInfo{Kind: p.Kind, ConsumedBy: p.ConsumedBy, ConsumedAt: core.UTCSecond(p.ConsumedAt), CreatedAt: core.UTCSecond(p.CreatedAt)}
	total := pl.show(p, &info) // the writes the plan makes
	// Shown again by this call: its run id is this call's, not that of
	// the call that made the preview (each review is its own run).
	switch runID := core.RunIDFrom(ctx); {
	case runID == "":
	case info.Import != nil:
		info.Import.RunID = runID
	case info.Progress != nil:
		info.Progress.RunID = runID
	case info.Pull != nil:
		info.Pull.RunID = runID
	}
	if now := s.now(); !now.Before(p.ExpiresAt) && p.ConsumedAt.IsZero() {
		return PreviewInfo{}, core.RefuseExpiredPreview(handle, p.Kind, p.ExpiresAt, p.ExpiresAt.Sub(p.CreatedAt), now)
	}
	if info.Commit, err = s.commitSummary(ctx, p, total); err != nil {
		return PreviewInfo{}, err
	}
	return info, nil
}

// aKind is the kind with its indefinite article: "an import", "a progress".
func aKind(k core.PreviewKind) string {
	if k == core.PreviewImport {
		return "an import"
	}
	return "a " + string(k)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
