package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// MaxBatch is the most items one bulk create request may carry.
const MaxBatch = 50

// WorkItemProvider is the tracker port. No Jira vocabulary crosses it;
// paging stays inside the implementation, which returns complete result
// sets. Every method may also return JIRA_UNAUTHORIZED,
// JIRA_PERMISSION_DENIED, JIRA_RATE_LIMITED or JIRA_UNAVAILABLE (after the
// implementation's own bounded retries), and INTERNAL_ERROR.
type WorkItemProvider interface {
	// Scope identifies the tracker site and project this provider writes
	// to, e.g. "https://example.atlassian.net/PROJ". Preview handles are
	// bound to it.
	Scope() string

	// Check verifies the configuration against the tracker: credentials,
	// project, issue types and the reference field.
	// Errors: REFERENCE_FIELD_MISSING, CONFIG_INVALID.
	Check(ctx context.Context) error

	// Lookup finds the items holding the given references. known maps a
	// reference to the key the dedup index recorded for it: since tracker
	// search is eventually consistent, a known reference missing from search
	// is fetched by key (and kept only if its reference still matches). The
	// result holds only references found. When several items hold one
	// reference, the result keeps the one known, else the oldest, and lists
	// the others' keys in its Duplicates. Reads only.
	Lookup(ctx context.Context, refs []Reference, known map[Reference]string) (map[Reference]WorkItem, error)

	// Get returns one item by key. Errors: WORK_ITEM_NOT_FOUND. Reads only.
	Get(ctx context.Context, key string) (WorkItem, error)

	// Query returns up to f.Limit items matching f, and whether more
	// matched, in backlog order (WorkItem.Rank; an import ranks its items
	// in the document's order) where the tracker ranks items, then by key.
	// Reads only.
	Query(ctx context.Context, f Filter) (items []WorkItem, truncated bool, err error)

	// Create creates items, batching them (at most MaxBatch per request),
	// and returns one outcome per spec in input order. A create is never
	// blindly retried: an unknown outcome is resolved by searching for the
	// reference, and reported as Unknown when not found. A non-nil error
	// means the call as a whole failed (e.g. auth); outcomes then hold what
	// is known, and specs without an outcome were not tried.
	Create(ctx context.Context, specs []ItemSpec) ([]CreateOutcome, error)

	// Update rewrites the item's content (title, description, acceptance
	// criteria, parent) and its stored digest in one request.
	// Errors: WORK_ITEM_NOT_FOUND. Like Transition and AddComment, a write
	// whose request was sent but whose answer never came (so it may have
	// been applied: a dropped connection, a timeout, a 5xx after the
	// retries) returns its error marked with MarkOutcomeUnknown; the
	// service reports it as outcome unknown, not failed, and never sends it
	// again. Any unmarked error means the write was not applied.
	Update(ctx context.Context, key string, spec ItemSpec) error

	// Transitions lists the workflow transitions available on the item now.
	// Errors: WORK_ITEM_NOT_FOUND. Reads only.
	Transitions(ctx context.Context, key string) ([]Transition, error)

	// Transition moves the item through the transition with the given id.
	// Errors: WORK_ITEM_NOT_FOUND, VALIDATION_FAILED (no longer available);
	// an unanswered request is marked with MarkOutcomeUnknown (see Update).
	Transition(ctx context.Context, key, transitionID string) error

	// AddComment adds a Markdown comment to the item.
	// Errors: WORK_ITEM_NOT_FOUND; an unanswered request is marked with
	// MarkOutcomeUnknown (see Update).
	AddComment(ctx context.Context, key, markdown string) error
}

// Store is the state-store port: previews, commit runs, the dedup index
// and the commit locks. Implementations: core/storetest/memstore (tests), SQLite,
// Postgres; all pass core/storetest. Every method may return
// INTERNAL_ERROR for a store fault.
//
// Clocks. Preview and run times come from the caller (req.Now, the now
// arguments). Lock leases are measured on the store's own clock instead:
// Postgres uses the database server's now(), because the machines sharing
// one Postgres store each have their own clock, and a skew between them
// would shorten or lengthen every lease by that much (a host running 30 s
// ahead would take over a live 30 s lease at once); one clock for all
// holders makes "the lease ran out" mean the same to everyone. SQLite and
// the in-memory store are used by processes of one machine, so the process
// clock is that one clock; both accept an injected clock for tests (as
// Postgres does, for tests only).
type Store interface {
	// SavePreview stores a new preview. The plan is kept byte-for-byte
	// together with its digest (PlanDigest), which LoadPreview checks and
	// returns as Preview.Digest. p.Digest may be empty; a non-empty one
	// that does not match the plan is refused (INTERNAL_ERROR).
	SavePreview(ctx context.Context, p Preview) error

	// LoadPreview returns a preview as stored, including expired or
	// consumed ones (the caller decides what to do with them), with
	// Digest set.
	// Errors: PREVIEW_NOT_FOUND (unknown handle, or pruned longer ago than
	// the tombstone retention); PREVIEW_EXPIRED with a *PrunedPreviewError
	// cause (pruned, tombstone kept); INTERNAL_ERROR
	// when the stored plan no longer matches its digest (tampered).
	LoadPreview(ctx context.Context, handle string) (Preview, error)

	// StartRun atomically consumes a preview and starts its run:
	//   - a run with req.Key exists for req.Handle → that run, started=false
	//     (the caller replays a finished run or reports COMMIT_INTERRUPTED);
	//   - a run with req.Key exists for another handle → IDEMPOTENCY_KEY_REUSED;
	//   - the handle is unknown → PREVIEW_NOT_FOUND; pruned (tombstone
	//     kept) → PREVIEW_EXPIRED (cause *PrunedPreviewError); already consumed by
	//     another key → PREVIEW_NOT_FOUND (details name the consuming run);
	//     expired at req.Now → PREVIEW_EXPIRED;
	//   - req.PlanDigest is set and differs from the stored plan's digest →
	//     PREVIEW_STALE whose cause is a *PlanChangedError (errors.As);
	//   - otherwise the handle is consumed and a run in_progress is created →
	//     that run, started=true.
	// Every refusal leaves the handle unconsumed. Of any number of
	// concurrent calls on one handle, exactly one starts.
	StartRun(ctx context.Context, req StartRunRequest) (run Run, started bool, err error)

	// RecordOutcomes appends outcomes, in order, to the in_progress run
	// with this idempotency key, in one atomic step (all of them or none,
	// also when the process or the machine dies meanwhile), durably before
	// returning. A commit records a batch's outcomes together, and the
	// outcomes of writes that ended together, in one call: one durable
	// store transaction, not one per item. An empty outcomes changes
	// nothing and returns nil.
	// Errors (INTERNAL_ERROR, nothing recorded): no run has this key, or
	// the run has finished.
	RecordOutcomes(ctx context.Context, key string, outcomes []ItemOutcome) error

	// FinishRun moves an in_progress run to its final state and stores the
	// result for replay.
	FinishRun(ctx context.Context, key string, state RunState, result []byte, now time.Time) error

	// GetRun returns the run with this idempotency key; found is false
	// when there is none.
	GetRun(ctx context.Context, key string) (run Run, found bool, err error)

	// UpsertIndex records references → keys and last-written digests.
	UpsertIndex(ctx context.Context, entries []IndexEntry) error

	// LookupIndex returns the index entries of the given references within
	// scope; references without an entry are absent from the map.
	LookupIndex(ctx context.Context, scope string, refs []Reference) (map[Reference]IndexEntry, error)

	// Prune is the retention job (every store also runs it when opened,
	// with its Options' Retention): previews that expired before now are
	// deleted, each leaving a tombstone (handle, kind, expiry) so that a
	// pruned handle still answers PREVIEW_EXPIRED (LoadPreview and
	// StartRun, cause *PrunedPreviewError) instead of PREVIEW_NOT_FOUND;
	// tombstones of previews that expired more than r.Tombstones before
	// now are deleted; finished runs (committed, partial, failed) that
	// finished more than r.Runs before now are deleted with their
	// outcomes; audit records (AuditStore) older than r.Audit are deleted.
	// Runs in progress are kept. Zero fields of r take the
	// defaults (DefaultRetention).
	Prune(ctx context.Context, now time.Time, r Retention) (Pruned, error)

	// AcquireLock takes the named lock for owner, with a lease measured on
	// the store's clock (see the clocks note above), without waiting:
	//   - free (never taken, or released), or held by another owner whose
	//     lease has run out → taken, with the next Generation;
	//   - held by owner (its lease live or lapsed, but nobody took it
	//     meanwhile) → its lease is renewed (now + lease), Generation kept;
	//   - held by another owner with a live lease → an INTERNAL_ERROR with
	//     Retryable set whose cause is a *LockHeldError (errors.As) naming
	//     the holder, when its lease ends and when the holder last took or
	//     renewed it (LockHeldError.Renewed, Silent: the heartbeat a
	//     running holder keeps, which tells it from a dead one long before
	//     its lease runs out). Nothing changes.
	// Every take and renewal records when it happened (on the store's
	// clock) with the generation it was made at.
	// Generations of one name only ever increase (a released lock keeps
	// its counter). Lock.Release gives the lock up if owner still holds it
	// at that generation; once the lease ran out and someone else took it,
	// Release changes nothing and returns an INTERNAL_ERROR whose cause is
	// a *LockLostError. Of any number of concurrent calls by different
	// owners (goroutines, processes, machines) on one free name, exactly
	// one takes it. The lease is what frees a lock whose holder died
	// (SIGKILL): the holder renews it while it works. The service holds
	// one per document while it commits.
	AcquireLock(ctx context.Context, name, owner string, lease time.Duration) (Lock, error)

	// Fence is the fencing step before a batch of writes: in one atomic
	// store step it verifies that the lock name is still held by owner at
	// generation (a lapsed lease nobody took over still counts) and
	// upserts markers into the dedup index, as UpsertIndex would (markers
	// may be empty: verification only, which writes nothing and so should
	// wait for no write in progress). The step is ordered against
	// AcquireLock: an owner taking the lock over after a successful Fence
	// sees its markers; a Fence after the takeover fails. On failure
	// nothing is written and the error is an INTERNAL_ERROR whose cause is
	// a *LockLostError naming the current holder (errors.As).
	Fence(ctx context.Context, name, owner string, generation int64, markers []IndexEntry) error

	// Close releases the store.
	Close() error
}

// Retention is how long a store keeps what Prune leaves behind. A zero
// field means its DefaultRetention value.
type Retention struct {
	// Tombstones is how long after its expiry a pruned preview's handle
	// still answers PREVIEW_EXPIRED.
	Tombstones time.Duration
	// Runs is how long after it finished a run (its outcomes and its
	// result, replayed for a repeat of its idempotency key) is kept.
	Runs time.Duration
	// Audit is how long an audit record (AuditStore) is kept.
	Audit time.Duration
	// Pace is how long a key's pacing state (PaceStore) is kept after its
	// last use, on the clock the store stamps it with (TakePace's).
	Pace time.Duration
}

// DefaultRetention is the retention every store uses unless configured.
var DefaultRetention = Retention{Tombstones: 30 * 24 * time.Hour, Runs: 90 * 24 * time.Hour, Audit: 365 * 24 * time.Hour, Pace: 30 * 24 * time.Hour}

// OrDefault returns r with zero (or negative) fields replaced by
// DefaultRetention's.
func (r Retention) OrDefault() Retention {
	return Retention{Tombstones: PositiveOr(r.Tombstones, DefaultRetention.Tombstones), Runs: PositiveOr(r.Runs, DefaultRetention.Runs), Audit: PositiveOr(r.Audit, DefaultRetention.Audit), Pace: PositiveOr(r.Pace, DefaultRetention.Pace)}
}

// Pruned counts what Store.Prune deleted.
type Pruned struct {
	Previews   int // expired previews (each now a tombstone)
	Tombstones int // tombstones past retention
	Runs       int // finished runs past retention
	Audit      int // audit records past retention
	Pace       int // pacing states unused past retention (PaceStore)
}

// PrunedPreviewError is the cause of the PREVIEW_EXPIRED error a store
// returns for a handle whose preview expired and was pruned (its tombstone
// is kept for Retention.Tombstones).
type PrunedPreviewError struct {
	Handle    string
	Kind      PreviewKind
	ExpiredAt time.Time
}

func (e *PrunedPreviewError) Error() string {
	return "preview " + e.Handle + " (" + string(e.Kind) + ") expired at " + e.ExpiredAt.UTC().Format(time.RFC3339) + " and was pruned"
}

// PlanDigest is the digest every store keeps with a preview's plan:
// "sha256:" and the hex SHA-256 of the plan bytes.
func PlanDigest(plan []byte) string {
	sum := sha256.Sum256(plan)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LockHeldError is the cause of the error Store.AcquireLock returns while
// another owner holds the lock.
type LockHeldError struct {
	Name    string
	Owner   string    // the holder
	Expires time.Time // when its lease ends unless renewed
	// Renewed is when the holder last took or renewed the lock, on the
	// store's clock; zero when the store does not know (a holder of an
	// earlier version, which did not record it).
	Renewed time.Time
	// Silent is how long before the store's answer that was, on the
	// store's clock (0 when Renewed is zero): a holder that renews every
	// second and has been silent for several is dead or stalled, even
	// though its lease still runs.
	Silent time.Duration
}

func (e *LockHeldError) Error() string {
	return "lock " + e.Name + " is held by " + e.Owner + " until " + e.Expires.UTC().Format(time.RFC3339)
}

// LockLostError is the cause of the error Store.Fence and Lock.Release
// return when Owner no longer holds the lock at Generation: another owner
// took it over after the lease ran out (Holder, HolderGeneration), or it
// was released (Holder empty).
type LockLostError struct {
	Name             string
	Owner            string // who asked
	Generation       int64  // the generation it asked for
	Holder           string // the current holder; "" when the lock is free
	HolderGeneration int64  // the lock's current generation (0: never taken)
}

func (e *LockLostError) Error() string {
	s := fmt.Sprintf("lock %s is no longer held by %s at generation %d: ", e.Name, e.Owner, e.Generation)
	if e.Holder == "" {
		return s + fmt.Sprintf("it is free (generation %d)", e.HolderGeneration)
	}
	return s + fmt.Sprintf("%s holds it at generation %d", e.Holder, e.HolderGeneration)
}

// PlanChangedError is the cause of the PREVIEW_STALE error StartRun
// returns when the stored plan's digest is not the one the confirmer saw
// (StartRunRequest.PlanDigest): someone rewrote the stored plan after it
// was shown.
type PlanChangedError struct {
	Handle string
	Want   string // the digest the confirmer saw
	Stored string // the stored plan's digest
}

func (e *PlanChangedError) Error() string {
	return "the stored plan of preview " + e.Handle + " has digest " + e.Stored + ", not the confirmed " + e.Want
}
