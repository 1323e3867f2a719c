package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"
)

// ServiceOptions configure a WorkItemService.
type ServiceOptions struct {
	Provider   WorkItemProvider
	Store      Store
	Logger     *slog.Logger     // nil → discard
	Now        func() time.Time // nil → time.Now
	PreviewTTL time.Duration    // 0 → DefaultPreviewTTL
	// SearchLagWindow is how long after a create with an unknown outcome
	// the item is still presumed to exist though search cannot find it
	// (0 → DefaultSearchLagWindow). Within it, such an item is never
	// created again; after it, a still-missing item is taken as absent.
	SearchLagWindow time.Duration
	// CommitLockLease is the lease of the per-document commit lock, renewed
	// while the commit runs; a lock whose holder died lapses after it
	// (0 → DefaultCommitLockLease).
	CommitLockLease time.Duration
	// CommitLockWait bounds how long a commit waits for another commit of
	// the same document to finish (0 → DefaultCommitLockWait). Longer than
	// the lease, so a waiting commit outlasts the lock of a holder that
	// died and goes ahead on its own.
	CommitLockWait time.Duration
}

// Defaults of ServiceOptions.
const (
	// DefaultPreviewTTL is how long a preview handle can be committed.
	DefaultPreviewTTL      = 30 * time.Minute
	DefaultSearchLagWindow = 10 * time.Minute
	DefaultCommitLockLease = 30 * time.Second
	DefaultCommitLockWait  = 45 * time.Second
)

// WorkItemService is the one service both front doors wrap. It enforces
// the preview → confirm → commit gate: previews and reads never write to
// the tracker; a commit needs the handle of a stored, unexpired, unconsumed
// preview of the matching kind and scope plus confirmed: true, refuses a
// plan the tracker no longer matches, executes exactly the stored plan,
// and is idempotent by key.
type WorkItemService struct {
	p         WorkItemProvider
	st        Store
	log       *slog.Logger
	now       func() time.Time
	ttl       time.Duration
	lagWindow time.Duration
	lockLease time.Duration
	lockWait  time.Duration
}

// NewWorkItemService returns a service over a provider and a store.
func NewWorkItemService(o ServiceOptions) *WorkItemService {
	s := &WorkItemService{p: o.Provider, st: o.Store, log: o.Logger, now: o.Now, ttl: o.PreviewTTL,
		lagWindow: o.SearchLagWindow, lockLease: o.CommitLockLease, lockWait: o.CommitLockWait}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.ttl <= 0 {
		s.ttl = DefaultPreviewTTL
	}
	if s.lagWindow <= 0 {
		s.lagWindow = DefaultSearchLagWindow
	}
	if s.lockLease <= 0 {
		s.lockLease = DefaultCommitLockLease
	}
	if s.lockWait <= 0 {
		s.lockWait = DefaultCommitLockWait
	}
	return s
}

// Handle prefixes: the kind is visible in the handle itself, and stored
// with the preview (which is what is checked).
const (
	importHandlePrefix   = "imp_"
	progressHandlePrefix = "prg_"
)

// randomHex returns n random bytes, hex-encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand.Read does not fail on supported platforms.
		panic("core: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

func newRunID() string               { return "run_" + randomHex(12) }
func newHandle(k PreviewKind) string { return handlePrefix(k) + randomHex(16) } // 128 bits
func newIdempotencyKey() string      { return "idk_" + randomHex(16) }

func handlePrefix(k PreviewKind) string {
	if k == PreviewProgress {
		return progressHandlePrefix
	}
	return importHandlePrefix
}

// op is one service operation in flight: its run id and logger.
type op struct {
	runID string
	name  string
	log   *slog.Logger
	start time.Time
}

func (s *WorkItemService) begin(ctx context.Context, name string) (context.Context, *op) {
	id := newRunID()
	o := &op{runID: id, name: name, log: s.log.With("run_id", id, "op", name), start: time.Now()}
	o.log.Info("started", "scope", s.p.Scope())
	return context.WithValue(ctx, runIDKey{}, id), o
}

type runIDKey struct{}

// RunIDFrom returns the run id of the service operation ctx belongs to, or
// "" outside one. The service passes it to every provider and store call,
// so adapters can put it on their own log lines (retries, for instance).
func RunIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(runIDKey{}).(string)
	return id
}

// fail turns err into a *Error carrying the run id, logs it and returns it.
func (o *op) fail(err error) error {
	e := AsError(err)
	// Copy so a shared *Error from a dependency is never mutated.
	c := *e
	c.RunID = o.runID
	attrs := []any{"code", c.Code, "retryable", c.Retryable, "details", len(c.Details), "elapsed_ms", time.Since(o.start).Milliseconds()}
	if c.Code == CodeInternal && c.Err != nil {
		attrs = append(attrs, "cause", c.Err.Error())
	}
	o.log.Warn("failed: "+c.Message, attrs...)
	return &c
}

func (o *op) done(msg string, attrs ...any) {
	o.log.Info(msg, append(attrs, "elapsed_ms", time.Since(o.start).Milliseconds())...)
}

// utc returns t in UTC, truncated to seconds (the contract's time format).
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// ago renders a duration for people: "12 minutes", "1 hour 5 minutes".
func ago(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return plural(int(d.Seconds()), "second")
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute")
	case d < 48*time.Hour:
		h := int(d.Hours())
		m := int((d - time.Duration(h)*time.Hour).Minutes())
		if m == 0 {
			return plural(h, "hour")
		}
		return plural(h, "hour") + " " + plural(m, "minute")
	default:
		return plural(int(d.Hours()/24), "day")
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func previewTool(k PreviewKind) string {
	if k == PreviewProgress {
		return "progress.preview"
	}
	return "import.preview"
}

func commitTool(k PreviewKind) string {
	if k == PreviewProgress {
		return "progress.commit"
	}
	return "import.commit"
}

// gate is the outcome of the checks every commit passes before it may
// touch the tracker.
type gate struct {
	preview Preview
	key     string
	// replay is set when a finished run with this key and handle exists:
	// the caller returns it without writing.
	replay *Run
}

// openGate applies the gate rules that need no tracker read, in order:
// confirmation (first, before anything else), the handle (known, kind,
// scope), the idempotency key (replay, reuse, interrupted run), expiry and
// consumption.
func (s *WorkItemService) openGate(ctx context.Context, o *op, kind PreviewKind, in CommitInput) (*gate, error) {
	if !in.Confirmed {
		return nil, Errorf(CodeConfirmationRequired,
			"%s writes to the tracker only with confirmed: true. Show the preview to the person, and commit with confirmed: true only once they agreed; nothing was written.", commitTool(kind))
	}
	handle := strings.TrimSpace(in.PreviewHandle)
	if handle == "" {
		return nil, Errorf(CodePreviewNotFound, "%s needs the preview_handle returned by %s. Run %s first.", commitTool(kind), previewTool(kind), previewTool(kind)).
			WithDetails(Detail{Field: "preview_handle", Message: "missing"})
	}
	p, err := s.st.LoadPreview(ctx, handle)
	if err != nil {
		if ErrorCode(err) == CodePreviewNotFound {
			return nil, Wrap(err, CodePreviewNotFound, "No preview has the handle %q (it is unknown, or expired and pruned). Run %s to get a handle.", handle, previewTool(kind)).
				WithDetails(Detail{Field: "preview_handle", Message: "unknown handle"})
		}
		return nil, err
	}
	if p.Kind != kind {
		return nil, Errorf(CodePreviewNotFound, "Handle %q is a %s preview handle, not a %s one: commit it with %s, or run %s for a %s handle.",
			handle, p.Kind, kind, commitTool(p.Kind), previewTool(kind), kind).
			WithDetails(Detail{Field: "preview_handle", Message: "wrong kind: " + string(p.Kind)})
	}
	if scope := s.p.Scope(); p.Scope != scope {
		return nil, Errorf(CodePreviewNotFound, "Handle %q was made for another project (%s); this configuration writes to %s. Run %s here to get a handle for this project.",
			handle, p.Scope, scope, previewTool(kind)).
			WithDetails(Detail{Field: "preview_handle", Message: "made for " + p.Scope})
	}
	g := &gate{preview: p, key: strings.TrimSpace(in.IdempotencyKey)}
	if g.key == "" {
		g.key = newIdempotencyKey()
	} else if run, found, err := s.st.GetRun(ctx, g.key); err != nil {
		return nil, err
	} else if found {
		if err := s.existingRun(kind, handle, run); err != nil {
			return nil, err
		}
		g.replay = &run
		return g, nil
	}
	now := s.now()
	if !now.Before(p.ExpiresAt) {
		return nil, Errorf(CodePreviewExpired, "This preview expired %s ago (previews are valid for %s). Run %s again to get a current plan.",
			ago(now.Sub(p.ExpiresAt)), ago(p.ExpiresAt.Sub(p.CreatedAt)), previewTool(kind))
	}
	if err := consumedErr(p, g.key); err != nil {
		return nil, err
	}
	return g, nil
}

// consumedErr reports a handle already consumed by a run under another key.
func consumedErr(p Preview, key string) error {
	if p.ConsumedAt.IsZero() || p.ConsumedBy == key {
		return nil
	}
	return Errorf(CodePreviewNotFound, "Preview %q was already committed at %s by another commit (idempotency key %s); a handle is used once. Run %s again for a new plan.",
		p.Handle, utc(p.ConsumedAt).Format(time.RFC3339), p.ConsumedBy, previewTool(p.Kind)).
		WithDetails(Detail{Field: "preview_handle", Message: "consumed by " + p.ConsumedBy})
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
func (s *WorkItemService) existingRun(kind PreviewKind, handle string, run Run) error {
	if run.Handle != handle {
		return Errorf(CodeIdempotencyKeyReused, "Idempotency key %q was already used with another preview (%s). Use a new key for a new plan; a key belongs to one preview.", run.Key, run.Handle).
			WithDetails(Detail{Field: "idempotency_key", Message: "used with " + run.Handle})
	}
	if run.State == RunInProgress {
		e := Errorf(CodeCommitInterrupted, "The commit with idempotency key %q (run %s, started %s) did not finish: the process probably died mid-commit. %d item outcome(s) were recorded (see details). Run %s again: items already written are found and not written twice (items whose create was in flight are held back until search can show them or the search-lag window has passed). The dead commit's lock may keep the %s locked for up to %s after the crash; a commit of the new preview waits for it.",
			run.Key, run.ID, utc(run.StartedAt).Format(time.RFC3339), len(run.Outcomes), previewTool(kind), lockedWhat(kind), ago(s.lockLease))
		for _, oc := range run.Outcomes {
			e.Details = append(e.Details, Detail{Item: string(oc.Reference), Key: oc.Key, Outcome: oc.Outcome, Code: oc.Code, Message: oc.Message})
		}
		return e
	}
	return nil
}

// startRun consumes the handle and starts the run. A concurrent commit of
// the same handle under the same key finds the run already there.
func (s *WorkItemService) startRun(ctx context.Context, o *op, kind PreviewKind, g *gate) (started bool, err error) {
	run, started, err := s.st.StartRun(ctx, StartRunRequest{Key: g.key, Handle: g.preview.Handle, RunID: o.runID, Now: utc(s.now())})
	if err != nil {
		return false, err
	}
	if !started {
		if err := s.existingRun(kind, g.preview.Handle, run); err != nil {
			return false, err
		}
		g.replay = &run
	}
	return started, nil
}

// replayed decodes a finished run's stored result: a result to return
// (with Replayed set by the caller) or the stored error.
func replayed(run *Run, into any) error {
	if run.State != RunCommitted {
		var e Error
		if err := json.Unmarshal(run.Result, &e); err != nil || !e.Code.Known() {
			return Errorf(CodeInternal, "The stored result of run %s cannot be read.", run.ID)
		}
		e.Message = "(replayed) " + e.Message
		return &e
	}
	if err := json.Unmarshal(run.Result, into); err != nil {
		return Wrap(err, CodeInternal, "The stored result of run %s cannot be read.", run.ID)
	}
	return nil
}

// finish records a run's end state; a store fault here is logged, since
// the tracker writes already happened and the outcomes are recorded.
func (s *WorkItemService) finish(ctx context.Context, o *op, key string, state RunState, result any) {
	b, err := json.Marshal(result)
	if err == nil {
		err = s.st.FinishRun(context.WithoutCancel(ctx), key, state, b, utc(s.now()))
	}
	if err != nil {
		o.log.Error("could not record the run's final state", "state", state, "code", ErrorCode(err))
	}
}

// savePreview stores a plan under a new handle.
func (s *WorkItemService) savePreview(ctx context.Context, kind PreviewKind, plan any) (Preview, error) {
	b, err := json.Marshal(plan)
	if err != nil {
		return Preview{}, Wrap(err, CodeInternal, "The plan could not be stored.")
	}
	now := utc(s.now())
	p := Preview{Handle: newHandle(kind), Kind: kind, Scope: s.p.Scope(), Plan: b, CreatedAt: now, ExpiresAt: now.Add(s.ttl)}
	if err := s.st.SavePreview(ctx, p); err != nil {
		return Preview{}, err
	}
	return p, nil
}

// logItem logs one item's outcome: committed items at debug level (the
// store keeps the full trail), failed and unknown ones as warnings.
func logItem(o *op, rec ItemOutcome) {
	level := slog.LevelDebug
	if rec.Outcome != OutcomeCommitted {
		level = slog.LevelWarn
	}
	o.log.Log(context.Background(), level, "item "+rec.Outcome, "reference", rec.Reference, "action", rec.Action, "key", rec.Key, "outcome", rec.Outcome, "code", rec.Code)
}

// commitLock takes the lock that serialises commits of one document (or,
// for progress, one item), so two previews of it committed at the same
// moment cannot both pass the stale check: the second one checks only once
// the first has finished, and then sees what it wrote. It waits up to
// lockWait for a busy lock (polling the store), renews the lease while held,
// and returns the function that releases it.
//
// The lock's owner is the commit's idempotency key and handle (lockOwner),
// not its run id: a process killed after taking the lock and before
// starting its run leaves the lock behind with no run, and a retry with
// the same key and handle takes that lock over at once (the store's locks
// are re-entrant by owner) instead of waiting out the lease and failing.
// unlock(keep) releases the lock unless keep is set: a commit that found
// its key's run started by a concurrent call of the same key and handle
// leaves the lock to that call.
func (s *WorkItemService) commitLock(ctx context.Context, o *op, kind PreviewKind, name, owner, what string) (unlock func(keep bool), err error) {
	deadline := time.Now().Add(s.lockWait)
	pause := 20 * time.Millisecond
	var lk Lock
	for {
		lk, err = s.st.AcquireLock(ctx, name, owner, s.lockLease)
		if err == nil {
			break
		}
		var held *LockHeldError
		if !errors.As(err, &held) {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, Errorf(CodePreviewStale, "Another commit of %s (%s) is writing to the tracker right now, and did not finish within %s. This preview was made before that commit's writes, so it cannot be trusted to match the tracker. Nothing was written. Once that commit is done (if its process died, its lock lapses by %s), run %s again and commit the new handle.",
				what, describeHolder(held.Owner), ago(s.lockWait), held.Expires.UTC().Truncate(time.Second).Format(time.RFC3339), previewTool(kind)).
				WithDetails(Detail{Item: what, Message: fmt.Sprintf("commit lock held by run of %s until %s", describeHolder(held.Owner), held.Expires.UTC().Truncate(time.Second).Format(time.RFC3339))})
		}
		o.log.Info("waiting for another commit of the same document", "lock", name, "holder", held.Owner)
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, Wrap(ctx.Err(), CodeInternal, "The commit was cancelled while it waited for another commit of %s to finish. Nothing was written.", what)
		case <-t.C:
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // renew the lease while the commit runs
		defer close(done)
		tick := time.NewTicker(max(s.lockLease/3, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := s.st.AcquireLock(context.WithoutCancel(ctx), name, owner, s.lockLease); err != nil {
					o.log.Error("could not renew the commit lock", "lock", name, "code", ErrorCode(err))
				}
			}
		}
	}()
	return func(keep bool) {
		close(stop)
		<-done
		if keep {
			o.log.Info("commit lock left to the concurrent commit with the same idempotency key", "lock", name)
			return
		}
		if err := lk.Release(context.WithoutCancel(ctx)); err != nil {
			o.log.Warn("could not release the commit lock; it lapses with its lease", "lock", name, "code", ErrorCode(err))
		}
	}, nil
}

// lockOwner is the owner of a commit's lock: its idempotency key and
// handle. A retry of the same commit (same key, same handle) is the same
// owner, so it takes over a lock its killed predecessor left behind.
func lockOwner(key, handle string) string { return key + "|" + handle }

// describeHolder names a commit lock's holder for people.
func describeHolder(owner string) string {
	if key, handle, ok := strings.Cut(owner, "|"); ok {
		return fmt.Sprintf("idempotency key %s, preview %s", key, handle)
	}
	return owner
}

// keepSharedLock reports whether a commit that did not start its run must
// leave the commit lock alone: a run under its key (the same owner) is in
// progress, started by a concurrent call of the same key and handle, which
// holds the lock for its writes.
func (s *WorkItemService) keepSharedLock(ctx context.Context, o *op, key string) bool {
	run, found, err := s.st.GetRun(context.WithoutCancel(ctx), key)
	return err == nil && found && run.State == RunInProgress && run.ID != o.runID
}

func lockedWhat(k PreviewKind) string {
	if k == PreviewProgress {
		return "item"
	}
	return "document"
}

// writeMayHaveApplied reports whether a tracker write (Update, Transition,
// AddComment) that returned err may nonetheless have taken effect, so its
// outcome is unknown rather than failed. The provider port does not say,
// so the rule goes by the error:
//   - JIRA_UNAVAILABLE (a 5xx, a timeout, a dropped connection, after the
//     adapter's retries; also when flagged not retryable): the request may
//     have reached the tracker and been applied → true;
//   - an INTERNAL_ERROR caused by, or an error outside the taxonomy that
//     is, a network failure, a deadline or a cut-off response → true;
//   - every other code — JIRA_RATE_LIMITED (429: the tracker did nothing),
//     JIRA_PERMISSION_DENIED, JIRA_UNAUTHORIZED, VALIDATION_FAILED,
//     WORK_ITEM_NOT_FOUND (4xx answers: refused), INTERNAL_ERROR otherwise
//     → false: nothing was written.
func writeMayHaveApplied(err error) bool {
	if err == nil {
		return false
	}
	var ce *Error
	if errors.As(err, &ce) {
		switch ce.Code {
		case CodeJiraUnavailable:
			return true
		case CodeInternal:
			return transportFailure(ce.Err)
		}
		return false
	}
	return transportFailure(err)
}

// transportFailure reports an error of the connection rather than an
// answer: the request may have been delivered.
func transportFailure(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}
