package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
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

// Defaults of ServiceOptions.
const (
	// DefaultPreviewTTL is how long a preview handle can be committed.
	DefaultPreviewTTL      = 30 * time.Minute
	DefaultSearchLagWindow = 10 * time.Minute
	DefaultCommitLockLease = 30 * time.Second
	DefaultCommitLockWait  = 45 * time.Second
	DefaultWritesInFlight  = 16
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
	fields    FieldOptions
	lockLease time.Duration
	lockWait  time.Duration
	writes    int // WritesInFlight
	rank      bool
}

// NewWorkItemService returns a service over a provider and a store.
func NewWorkItemService(o ServiceOptions) *WorkItemService {
	s := &WorkItemService{p: o.Provider, st: o.Store, log: o.Logger, now: o.Now, rank: o.Rank, fields: o.Fields,
		ttl:       positiveOr(o.PreviewTTL, DefaultPreviewTTL),
		lagWindow: DefaultSearchLagWindow,
		lockLease: positiveOr(o.CommitLockLease, DefaultCommitLockLease),
		lockWait:  positiveOr(o.CommitLockWait, DefaultCommitLockWait),
		writes:    positiveOr(o.WritesInFlight, DefaultWritesInFlight),
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
	return s
}

// positiveOr is v, or def when v is zero or negative (an option left
// unset, or one that means nothing).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
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

// NewRunID returns a new run id ("run_" and 96 random bits). The service
// mints one per operation; a front door mints one only for an invocation
// that fails before reaching the service (configuration, usage, a panic).
func NewRunID() string { return "run_" + randomHex(12) }

// NewIdempotencyKey returns a new idempotency key ("idk_" and 128 random
// bits): the key of one confirmed commit, for a front door that commits on
// a person's behalf (the service mints one itself when a commit has none).
func NewIdempotencyKey() string { return "idk_" + randomHex(16) }

func newHandle(k PreviewKind) string { return handlePrefix(k) + randomHex(16) } // 128 bits

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
	id := NewRunID()
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

// previewName names a kind's preview for people, in no front door's
// words: each front door adds its own next step (a command, a tool).
// A kind of "" (not known) is "preview".
func previewName(k PreviewKind) string {
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

// logItem logs one item's outcome: committed items at debug level (the
// store keeps the full trail), failed and unknown ones as warnings.
func logItem(ctx context.Context, o *op, rec ItemOutcome) {
	level := slog.LevelDebug
	if rec.Outcome != OutcomeCommitted {
		level = slog.LevelWarn
	}
	o.log.Log(ctx, level, "item "+rec.Outcome, "reference", rec.Reference, "action", rec.Action, "key", rec.Key, "outcome", rec.Outcome, "code", rec.Code)
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
