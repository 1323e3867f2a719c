package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Harness gives the suite access to one underlying store (a fresh,
// empty one per subtest). The shape is the one core/providertest uses
// too: a HarnessMaker makes a Harness per subtest, optional capabilities
// are further interfaces a Harness may implement (ProcessHarness), and
// benchmarks have their own entry point (RunBenchmarks).
type Harness interface {
	// Open opens the store. Every call opens the same underlying data, so
	// closing a store and opening it again simulates a process restart (or
	// a crash: the suite never relies on anything Close does beyond
	// releasing resources). now is the clock the store uses for pruning on
	// open and for lock leases; nil means the store's own clocks, as in
	// production (the process clock; for Postgres the server's now() for
	// leases), which the cross-process cases use since their children
	// cannot share an injected clock.
	Open(ctx context.Context, now func() time.Time) (core.Store, error)
	// TamperPlan overwrites the stored plan bytes of handle behind the
	// store's back, leaving its digest as it was.
	TamperPlan(ctx context.Context, handle string) error
	// Close releases the harness (and the underlying data).
	Close() error
}

// ProcessHarness is the optional capability of a Harness whose store
// outlives a process and can be shared by several at once (SQLite,
// Postgres). With it, Run also runs the cross-process cases: StartRun,
// AcquireLock and Fence races between OS processes, and a process killed
// in the middle of a run. Their children are the test binary itself,
// re-executed: the package's TestMain must call RunChildIfRequested first,
// with an opener that opens the store ChildEnv describes.
type ProcessHarness interface {
	Harness
	// ChildEnv is the environment (KEY=value entries) under which the
	// opener given to RunChildIfRequested, in a child process, opens this
	// harness's underlying store.
	ChildEnv() []string
}

// HarnessMaker makes a harness over a fresh, empty underlying store. It
// may register cleanups with t.
type HarnessMaker func(ctx context.Context, t testing.TB) (Harness, error)

// Options tune Run.
type Options struct {
	// Goroutines and Handles size the concurrent StartRun race
	// (defaults 32 and 200).
	Goroutines int
	Handles    int
	// ModelChecks is the number of random call sequences checked against
	// the model (default 100; the -rapid.checks flag overrides it).
	ModelChecks int
}

// Epoch is the suite's starting time: microsecond precision, UTC.
var Epoch = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

type testCase struct {
	name string
	fn   func(t *testing.T, e *env)
}

// Run runs the Store contract suite: every case on a fresh harness from
// newHarness, and the cross-process cases too when the harness is a
// ProcessHarness.
func Run(t *testing.T, newHarness HarnessMaker, opts ...Options) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Goroutines == 0 {
		o.Goroutines = 32
	}
	if o.Handles == 0 {
		o.Handles = 200
	}
	if o.ModelChecks == 0 {
		o.ModelChecks = 100
	}
	tests := []testCase{
		{"PreviewRoundTrip", testPreviewRoundTrip},
		{"PreviewKindAndScope", testPreviewKindAndScope},
		{"PreviewDuplicateHandle", testPreviewDuplicateHandle},
		{"PreviewInvalid", testPreviewInvalid},
		{"PreviewUnknownHandle", testPreviewUnknownHandle},
		{"PreviewTampered", testPreviewTampered},
		{"PreviewSurvivesReopen", testPreviewSurvivesReopen},
		{"LoadReturnsExpiredAndConsumed", testLoadReturnsExpiredAndConsumed},
		{"PruneExpired", testPruneExpired},
		{"PruneOnOpen", testPruneOnOpen},
		{"PruneTombstones", testPruneTombstones},
		{"PruneRuns", testPruneRuns},
		{"StartRunConsumes", testStartRunConsumes},
		{"StartRunSameKeySameHandle", testStartRunSameKeySameHandle},
		{"StartRunKeyReused", testStartRunKeyReused},
		{"StartRunConsumedByOtherKey", testStartRunConsumedByOtherKey},
		{"StartRunUnknownHandle", testStartRunUnknownHandle},
		{"StartRunExpired", testStartRunExpired},
		{"StartRunAfterPrune", testStartRunAfterPrune},
		{"OutcomesSurviveCrash", testOutcomesSurviveCrash},
		{"FinishRunReplay", testFinishRunReplay},
		{"FinishRunInvalid", testFinishRunInvalid},
		{"RecordOutcomesInvalid", testRecordOutcomesInvalid},
		{"RecordOutcomesBatch", testRecordOutcomesBatch},
		{"GetRunUnknown", testGetRunUnknown},
		{"IndexUpsertLookup", testIndexUpsertLookup},
		{"IndexBulk", testIndexBulk},
		{"IndexSurvivesReopen", testIndexSurvivesReopen},
		{"ClosedStore", testClosedStore},
		{"ConcurrentStartRun", func(t *testing.T, e *env) { testConcurrentStartRun(t, e, o.Goroutines, o.Handles) }},
		{"ConcurrentSameKeyOtherHandles", testConcurrentSameKeyOtherHandles},
		{"ConcurrentOutcomes", testConcurrentOutcomes},
		{"OutcomeBatchesAtomic", testOutcomeBatchesAtomic},
		{"LockExclusive", testLockExclusive},
		{"LockLeaseExpiry", testLockLeaseExpiry},
		{"LockSurvivesReopen", testLockSurvivesReopen},
		{"LockSameOwnerReacquires", testLockSameOwnerReacquires},
		{"LockHeartbeat", testLockHeartbeat},
		{"LockInvalid", testLockInvalid},
		{"ConcurrentLocks", testConcurrentLocks},
		{"LockGeneration", testLockGeneration},
		{"FenceHolder", testFenceHolder},
		{"FenceAfterTakeover", testFenceAfterTakeover},
		{"FenceInvalid", testFenceInvalid},
		{"ConcurrentFenceTakeover", testConcurrentFenceTakeover},
		{"PreviewDigest", testPreviewDigest},
		{"StartRunPlanDigest", testStartRunPlanDigest},
		{"TwoPreviewsOfOneDocument", testTwoPreviewsOfOneDocument},
		{"PendingPreviews", testPendingPreviews},
		{"ListIndex", testListIndex},
		{"Documents", testDocuments}, // documents.go
		{"Audit", testAudit},         // audit.go
		{"Policy", testPolicy},       // audit.go
		{"Pace", testPace},           // pace.go
		{"PacePrune", testPacePrune}, // pace.go
		{"Model", func(t *testing.T, e *env) { testModel(t, e, o.ModelChecks) }},
	}
	if sharesProcesses(t, newHarness) {
		tests = append(tests, processCases...)
	} else {
		t.Log("the harness is no ProcessHarness: the cross-process cases do not apply")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, newHarness)
			e.s = e.open()
			tc.fn(t, e)
		})
	}
}

// sharesProcesses reports whether newHarness makes ProcessHarnesses.
func sharesProcesses(t *testing.T, newHarness HarnessMaker) bool {
	h, err := newHarness(t.Context(), t)
	if err != nil {
		t.Fatalf("new harness: %v", err)
	}
	_, ok := h.(ProcessHarness)
	if err := h.Close(); err != nil {
		t.Fatalf("close harness: %v", err)
	}
	return ok
}

// newEnv makes a harness for one test (closed when it ends).
func newEnv(t testing.TB, newHarness HarnessMaker) *env {
	h, err := newHarness(t.Context(), t)
	if err != nil {
		t.Fatalf("new harness: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("close harness: %v", err)
		}
	})
	return &env{t: t, h: h, clock: NewClock(Epoch)}
}

type env struct {
	t     testing.TB
	h     Harness
	clock *Clock
	s     core.Store // the currently open store
}

// open opens the underlying store on the suite's clock and registers it
// for closing.
func (e *env) open() core.Store { return e.openClock(e.clock.Now) }

// openReal opens the underlying store on its own clocks (as the children
// of the cross-process cases do) and registers it for closing.
func (e *env) openReal() core.Store { return e.openClock(nil) }

func (e *env) openClock(now func() time.Time) core.Store {
	e.t.Helper()
	s, err := e.h.Open(e.t.Context(), now)
	if err != nil {
		e.t.Fatalf("open store: %v", err)
	}
	e.t.Cleanup(func() { _ = s.Close() })
	return s
}

// reopen closes the current store and opens the same data again.
func (e *env) reopen() {
	e.t.Helper()
	if err := e.s.Close(); err != nil {
		e.t.Fatalf("close store: %v", err)
	}
	e.s = e.open()
}

var handleSeq atomic.Int64

func (e *env) preview(kind core.PreviewKind, ttl time.Duration) core.Preview {
	n := handleSeq.Add(1)
	now := e.clock.Now()
	return core.Preview{
		Handle:    fmt.Sprintf("h-%s-%d", strings.ReplaceAll(e.t.Name(), "/", "-"), n),
		Kind:      kind,
		Scope:     "https://example.atlassian.net/DEMO",
		Plan:      []byte(fmt.Sprintf(`{"plan":%d,"bytes":"\u00e9 \x00 trailing  "}`+"\n", n)),
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
	}
}

func (e *env) save(p core.Preview) core.Preview {
	e.t.Helper()
	if err := e.s.SavePreview(e.t.Context(), p); err != nil {
		e.t.Fatalf("SavePreview(%s): %v", p.Handle, err)
	}
	return p
}

func (e *env) load(handle string) core.Preview {
	e.t.Helper()
	p, err := e.s.LoadPreview(e.t.Context(), handle)
	if err != nil {
		e.t.Fatalf("LoadPreview(%s): %v", handle, err)
	}
	return p
}

func (e *env) start(key, handle string) (core.Run, bool, error) {
	return e.s.StartRun(e.t.Context(), core.StartRunRequest{Key: key, Handle: handle, RunID: "run-" + key, Now: e.clock.Now()})
}

// refuseStart expects StartRun(key, handle) to start nothing and fail
// with code; what names the case in failures.
func (e *env) refuseStart(key, handle string, code core.Code, what string) *core.Error {
	e.t.Helper()
	_, started, err := e.start(key, handle)
	if started {
		e.t.Fatalf("%s started a run", what)
	}
	return wantCode(e.t, err, code, what)
}

func (e *env) mustStart(key, handle string) core.Run {
	e.t.Helper()
	r, started, err := e.start(key, handle)
	if err != nil {
		e.t.Fatalf("StartRun(%s, %s): %v", key, handle, err)
	}
	if !started {
		e.t.Fatalf("StartRun(%s, %s): started=false, want true", key, handle)
	}
	return r
}

func (e *env) getRun(key string) core.Run {
	e.t.Helper()
	r, found, err := e.s.GetRun(e.t.Context(), key)
	if err != nil {
		e.t.Fatalf("GetRun(%s): %v", key, err)
	}
	if !found {
		e.t.Fatalf("GetRun(%s): not found", key)
	}
	return r
}

// wantCode fails unless err is a *core.Error with code.
func wantCode(t testing.TB, err error, code core.Code, what string) *core.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: err = nil, want %s", what, code)
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: err = %T %v, want *core.Error %s", what, err, err, code)
	}
	if ce.Code != code {
		t.Fatalf("%s: code = %s (%v), want %s", what, ce.Code, err, code)
	}
	if ce.Message == "" {
		t.Fatalf("%s: %s error has an empty message", what, code)
	}
	return ce
}

func equalPreview(t testing.TB, got, want core.Preview) {
	t.Helper()
	if got.Handle != want.Handle || got.Kind != want.Kind || got.Scope != want.Scope ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
		!got.ConsumedAt.Equal(want.ConsumedAt) || got.ConsumedBy != want.ConsumedBy {
		t.Fatalf("preview mismatch:\n got %+v\nwant %+v", summary(got), summary(want))
	}
	if !bytes.Equal(got.Plan, want.Plan) {
		t.Fatalf("plan not returned byte-for-byte:\n got %q\nwant %q", got.Plan, want.Plan)
	}
	if got.Digest != core.PlanDigest(want.Plan) {
		t.Fatalf("preview %s: digest %q, want %q", got.Handle, got.Digest, core.PlanDigest(want.Plan))
	}
}

func summary(p core.Preview) core.Preview { p.Plan = nil; return p }

func outcome(i int) core.ItemOutcome {
	o := core.ItemOutcome{
		Reference: core.NewReference("doc", fmt.Sprintf("s-%d", i)),
		Action:    core.ActionCreate,
		Key:       fmt.Sprintf("DEMO-%d", i),
		Outcome:   core.OutcomeCommitted,
	}
	if i%3 == 2 {
		o.Action = core.ActionUpdate
		o.Key = ""
		o.Outcome = core.OutcomeFailed
		o.Code = core.CodeValidationFailed
		o.Message = fmt.Sprintf("item %d: summary too long — ünïcode", i)
	}
	return o
}

func equalOutcomes(t testing.TB, got, want []core.ItemOutcome) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("outcomes: got %d %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("outcome %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
