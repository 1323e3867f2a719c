package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// ServiceOptions configure a WorkItemService.
type ServiceOptions struct {
	Provider   core.WorkItemProvider
	Store      core.Store
	Logger     *slog.Logger     // nil → discard
	Now        func() time.Time // nil → time.Now
	PreviewTTL time.Duration    // 0 → DefaultPreviewTTL
	// SearchLagWindow is how long after a create with an unknown outcome
	// the item is still presumed to exist though search cannot find it
	// (nil → DefaultSearchLagWindow; a zero window holds nothing back).
	// Within it, such an item is never created again; after it, a
	// still-missing item is taken as absent. Negative is taken as zero.
	SearchLagWindow *time.Duration
	// CommitLockLease is the lease of the per-document commit lock, renewed
	// while the commit runs; a lock whose holder died lapses after it
	// (0 → DefaultCommitLockLease).
	CommitLockLease time.Duration
	// CommitLockWait bounds how long a commit waits for another commit of
	// the same document to finish (0 → DefaultCommitLockWait). Longer than
	// the lease, so a waiting commit outlasts the lock of a holder that
	// died and goes ahead on its own.
	CommitLockWait time.Duration
	// WritesInFlight bounds the tracker writes a commit has in flight at
	// once among those that do not depend on each other (create batches of
	// one kind, updates): 0 → DefaultWritesInFlight, 1 → one at a time.
	// The provider may send fewer at once (it paces by the tracker's
	// signals); epics are always written before the stories under them.
	WritesInFlight int
	// Rank makes the document's order the backlog order of its epics and
	// stories in the tracker (structure.go). Off in the zero value.
	Rank bool
	// Fields are the project's custom field names and field defaults
	// (fields.go).
	Fields FieldOptions
}

// WorkItemService is the one service both front doors wrap. It enforces
// the preview → confirm → commit gate: previews and reads never write to
// the tracker; a commit needs the handle of a stored, unexpired, unconsumed
// preview of the matching kind and scope plus confirmed: true, refuses a
// plan the tracker no longer matches, executes exactly the stored plan,
// and is idempotent by key.
type WorkItemService struct {
	p         core.WorkItemProvider
	st        core.Store
	log       *slog.Logger
	now       func() time.Time
	ttl       time.Duration
	lagWindow time.Duration
	fields    FieldOptions
	lockLease time.Duration
	lockWait  time.Duration
	writes    int // WritesInFlight
	rank      bool
	// last is the handle and kind of the preview this service stored last:
	// setting it aside (SetPreviewAside, right after a dry run) needs no
	// read of its plan back from the store.
	lastMu sync.Mutex
	last   savedPreview
}

// savedPreview names a preview this service stored.
type savedPreview struct {
	handle string
	kind   core.PreviewKind
}

// NewWorkItemService returns a service over a provider and a store.
func NewWorkItemService(o ServiceOptions) *WorkItemService {
	s := &WorkItemService{p: o.Provider, st: o.Store, log: o.Logger, now: o.Now, rank: o.Rank, fields: o.Fields,
		ttl:       core.PositiveOr(o.PreviewTTL, core.DefaultPreviewTTL),
		lagWindow: core.DefaultSearchLagWindow,
		lockLease: core.PositiveOr(o.CommitLockLease, core.DefaultCommitLockLease),
		lockWait:  core.PositiveOr(o.CommitLockWait, core.DefaultCommitLockWait),
		writes:    core.PositiveOr(o.WritesInFlight, core.DefaultWritesInFlight),
	}
	if o.SearchLagWindow != nil {
		s.lagWindow = max(*o.SearchLagWindow, 0)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	// Processes sharing the store share the tracker's pacing.
	if ps, ok := o.Store.(core.PaceStore); ok {
		if sh, ok := o.Provider.(core.PaceSharer); ok {
			sh.SharePacing(ps)
		}
	}
	return s
}

// Handle prefixes: the kind is visible in the handle itself, and stored
// with the preview (which is what is checked).
const (
	importHandlePrefix   = "imp_"
	progressHandlePrefix = "prg_"
	// pullHandlePrefix: pulls stored before pull had its own kind kept
	// imp_ handles, which still load (by the stored kind).
	pullHandlePrefix = "pul_"
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

// NewRunID returns a new run id ("run_" and 96 random bits). The service
// mints one per operation; a front door mints one only for an invocation
// that fails before reaching the service (configuration, usage, a panic).
func NewRunID() string { return "run_" + randomHex(12) }

// NewIdempotencyKey returns a new idempotency key ("idk_" and 128 random
// bits): the key of one confirmed commit, for a front door that commits on
// a person's behalf (the service mints one itself when a commit has none).
func NewIdempotencyKey() string { return "idk_" + randomHex(16) }

func newHandle(k core.PreviewKind) string { return handlePrefix(k) + randomHex(16) } // 128 bits

func handlePrefix(k core.PreviewKind) string {
	switch k {
	case core.PreviewProgress:
		return progressHandlePrefix
	case core.PreviewPull:
		return pullHandlePrefix
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
	id := NewRunID()
	o := &op{runID: id, name: name, log: s.log.With("run_id", id, "op", name), start: time.Now()}
	o.log.Info("started", "scope", s.p.Scope())
	return core.WithRunID(ctx, id), o
}

// fail turns err into a *Error carrying the run id, logs it and returns it.
func (o *op) fail(err error) error {
	e := core.AsError(err)
	// Copy so a shared *Error from a dependency is never mutated.
	c := *e
	c.RunID = o.runID
	attrs := []any{"code", c.Code, "retryable", c.Retryable, "details", len(c.Details), "elapsed_ms", time.Since(o.start).Milliseconds()}
	if c.Code == core.CodeInternal && c.Err != nil {
		attrs = append(attrs, "cause", c.Err.Error())
	}
	o.log.Warn("failed: "+c.Message, attrs...)
	return &c
}

// logItem logs one item's outcome: committed items at debug level (the
// store keeps the full trail), failed and unknown ones as warnings.
func logItem(ctx context.Context, o *op, rec core.ItemOutcome) {
	level := slog.LevelDebug
	if rec.Outcome != core.OutcomeCommitted {
		level = slog.LevelWarn
	}
	o.log.Log(ctx, level, "item "+rec.Outcome, "reference", rec.Reference, "action", rec.Action, "key", rec.Key, "outcome", rec.Outcome, "code", rec.Code)
}

func (o *op) done(msg string, attrs ...any) {
	o.log.Info(msg, append(attrs, "elapsed_ms", time.Since(o.start).Milliseconds())...)
}
