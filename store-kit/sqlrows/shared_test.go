package sqlrows

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// errNoRows stands for a driver's "no rows" error.
var errNoRows = errors.New("no rows in result set")

// row is one fakeRows row as a driver's single-row result; err (the
// driver's "no rows" among them) is what Scan returns instead.
func row(err error, values ...any) Row {
	if err != nil {
		return errRow{err}
	}
	f := &fakeRows{rows: [][]any{values}}
	f.Next()
	return f
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func TestPreview(t *testing.T) {
	plan := []byte(`{"v":1}`)
	p, err := Preview(row(nil, "imp_1", "import", "DEMO", plan, core.PlanDigest(plan), int64(10), int64(20), int64(15), "key-1"), "imp_1", micros)
	if err != nil {
		t.Fatal(err)
	}
	if p.Handle != "imp_1" || p.Kind != core.PreviewImport || p.Scope != "DEMO" || p.Digest != core.PlanDigest(plan) ||
		!p.CreatedAt.Equal(micros(10)) || !p.ExpiresAt.Equal(micros(20)) || !p.ConsumedAt.Equal(micros(15)) || p.ConsumedBy != "key-1" {
		t.Fatalf("Preview = %+v", p)
	}
	// Not consumed (NULLs), and a NULL plan reads as an empty one.
	p, err = Preview(row(nil, "imp_2", "import", "DEMO", nil, core.PlanDigest(nil), int64(10), int64(20), nil, nil), "imp_2", micros)
	if err != nil || !p.ConsumedAt.IsZero() || p.ConsumedBy != "" || p.Plan == nil || len(p.Plan) != 0 {
		t.Fatalf("unconsumed Preview = %+v, %v", p, err)
	}
	if _, err := Preview(row(nil, "imp_3", "import", "DEMO", plan, "sha256:other", int64(10), int64(20), nil, nil), "imp_3", micros); core.ErrorCode(err) != core.CodeInternal {
		t.Fatalf("tampered plan: %v, want INTERNAL_ERROR", err)
	}
	if _, err := Preview(row(errNoRows), "imp_4", micros); !errors.Is(err, errNoRows) {
		t.Fatalf("no row: %v, want the driver's error as it is", err)
	}
}

func TestMissing(t *testing.T) {
	if err := Missing(row(errNoRows), "imp_1", errNoRows, micros); core.ErrorCode(err) != core.CodePreviewNotFound {
		t.Fatalf("no tombstone: %v, want PREVIEW_NOT_FOUND", err)
	}
	err := Missing(row(nil, "import", int64(30)), "imp_1", errNoRows, micros)
	var pruned *core.PrunedPreviewError
	if core.ErrorCode(err) != core.CodePreviewExpired || !errors.As(err, &pruned) || !pruned.ExpiredAt.Equal(micros(30)) || pruned.Kind != core.PreviewImport {
		t.Fatalf("tombstone: %v, want PREVIEW_EXPIRED from the tombstone", err)
	}
	boom := errors.New("boom")
	if err := Missing(row(boom), "imp_1", errNoRows, micros); !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
}

// Refusal's order: no preview, then consumed before expired before
// another plan.
func TestRefusal(t *testing.T) {
	req := core.StartRunRequest{Key: "k", Handle: "imp_1", PlanDigest: "sha256:a", Now: micros(100)}
	missing := errors.New("the store's notFound")
	c := Consume{NoRows: errNoRows, Missing: func() error { return missing },
		RunOf: func(by string) (string, error) { return "run-of-" + by, nil }}
	for _, tc := range []struct {
		name   string
		values []any
		code   core.Code
	}{
		{"consumable", []any{int64(200), nil, nil, "sha256:a"}, ""},
		{"consumed, expired and changed", []any{int64(50), int64(40), "other", "sha256:b"}, core.CodePreviewNotFound}, // a handle is used once
		{"expired and changed", []any{int64(50), nil, nil, "sha256:b"}, core.CodePreviewExpired},
		{"expires now", []any{int64(100), nil, nil, "sha256:a"}, core.CodePreviewExpired},
		{"changed", []any{int64(200), nil, nil, "sha256:b"}, core.CodePreviewStale},
	} {
		err := Refusal(row(nil, tc.values...), req, micros, c)
		if (tc.code == "") != (err == nil) || (err != nil && core.ErrorCode(err) != tc.code) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.code)
		}
		if tc.code == core.CodePreviewNotFound && !strings.Contains(err.Error(), "run-of-other") {
			t.Errorf("%s: %v, want the consuming key's run named", tc.name, err)
		}
	}
	unchecked := req
	unchecked.PlanDigest = ""
	if err := Refusal(row(nil, int64(200), nil, nil, "sha256:b"), unchecked, micros, c); err != nil {
		t.Errorf("no digest asked for: %v, want nil", err)
	}
	retry := errors.New("retry")
	failing := c
	failing.RunOf = func(string) (string, error) { return "", retry }
	if err := Refusal(row(nil, int64(200), int64(40), "k", "sha256:a"), req, micros, failing); !errors.Is(err, retry) {
		t.Errorf("RunOf's error: %v, want it as it is", err)
	}
	if err := Refusal(row(errNoRows), req, micros, c); !errors.Is(err, missing) {
		t.Errorf("no row: %v, want Missing's error", err)
	}
	boom := errors.New("boom")
	if err := Refusal(row(boom), req, micros, c); !errors.Is(err, boom) {
		t.Errorf("read error: %v, want it as it is", err)
	}
}

func TestRunID(t *testing.T) {
	if id, err := RunID(row(nil, "run-1"), errNoRows); id != "run-1" || err != nil {
		t.Fatalf("RunID = %q, %v", id, err)
	}
	if id, err := RunID(row(errNoRows), errNoRows); id != "" || err != nil {
		t.Fatalf("RunID of no run = %q, %v; want none", id, err)
	}
	boom := errors.New("boom")
	if _, err := RunID(row(boom), errNoRows); !errors.Is(err, boom) {
		t.Fatalf("RunID with a read error: %v", err)
	}
}

func TestStartRun(t *testing.T) {
	req := core.StartRunRequest{Key: "k", Handle: "imp_1", RunID: "run-1", Now: micros(100)}
	stored := core.Run{ID: "run-0", Key: "k", Handle: "imp_1", State: core.RunCommitted}
	none := func() (core.Run, bool, error) { return core.Run{}, false, nil }
	startedAt := func() (time.Time, error) { return micros(100), nil }
	notCalled := func() (time.Time, error) { t.Fatal("start called for a key with a run"); return time.Time{}, nil }

	run, started, err := StartRun(req, none, startedAt)
	if err != nil || !started || !reflect.DeepEqual(run, core.Run{ID: "run-1", Key: "k", Handle: "imp_1", State: core.RunInProgress, StartedAt: micros(100)}) {
		t.Fatalf("new run = %+v, %v, %v", run, started, err)
	}
	run, started, err = StartRun(req, func() (core.Run, bool, error) { return stored, true, nil }, notCalled)
	if err != nil || started || run.ID != "run-0" {
		t.Fatalf("replay = %+v, %v, %v", run, started, err)
	}
	other := stored
	other.Handle = "imp_2"
	if _, started, err := StartRun(req, func() (core.Run, bool, error) { return other, true, nil }, notCalled); started || core.ErrorCode(err) != core.CodeIdempotencyKeyReused {
		t.Fatalf("key of another handle: %v, %v", started, err)
	}
	boom := errors.New("boom")
	if _, started, err := StartRun(req, none, func() (time.Time, error) { return time.Time{}, boom }); started || !errors.Is(err, boom) {
		t.Fatalf("start fails: %v, %v", started, err)
	}
}

func TestRunState(t *testing.T) {
	if st, err := RunState(row(nil, "committed"), "k", errNoRows); err != nil || st != core.RunCommitted {
		t.Fatalf("RunState = %q, %v", st, err)
	}
	if _, err := RunState(row(errNoRows), "k", errNoRows); core.ErrorCode(err) != core.CodeInternal {
		t.Fatalf("RunState of no run: %v", err)
	}
	if err := InProgress(row(nil, "in_progress"), "k", errNoRows); err != nil {
		t.Fatalf("InProgress of a run in progress: %v", err)
	}
	if err := InProgress(row(nil, "partial"), "k", errNoRows); core.ErrorCode(err) != core.CodeInternal {
		t.Fatalf("InProgress of a finished run: %v", err)
	}
}

// A Store's reads run the store's statement, translate its errors, and for Pending
// release the rows before loading the previews.
func TestReads(t *testing.T) {
	var released bool
	var queries int
	rows := &fakeRows{}
	r := Store[int64, string]{
		Query: func(_ context.Context, sql string, args ...any) (Rows, func() error, error) {
			queries++
			if sql == "fail" {
				return nil, nil, errors.New("driver")
			}
			return rows, func() error { released = true; return nil }, nil
		},
		ToTime: micros,
		Check:  func() error { return nil },
		Fault:  func(err error, op string) error { return core.Wrap(err, core.CodeInternal, "could not %s", op) },
	}
	if m, err := r.Lookup(t.Context(), "scope", nil, "SELECT"); err != nil || len(m) != 0 || m == nil || queries != 0 {
		t.Fatalf("Lookup of no references = %v, %v after %d queries; want an empty map and no query", m, err, queries)
	}
	if _, err := r.List(t.Context(), "scope", "list the dedup index", "fail"); err == nil || err.Error() != "INTERNAL_ERROR: could not list the dedup index" {
		t.Fatalf("List with a driver error: %v", err)
	}
	*rows = fakeRows{rows: [][]any{{"a", []byte("a"), core.PlanDigest([]byte("a"))}}}
	load := func(h string) (core.Preview, error) {
		if !released {
			t.Fatal("a preview loaded while the list's rows are held")
		}
		return core.Preview{Handle: h}, nil
	}
	ps, truncated, err := r.Pending(t.Context(), 0, load, "SELECT")
	if err != nil || truncated || len(ps) != 1 || ps[0].Handle != "a" {
		t.Fatalf("Pending = %+v, %v, %v", ps, truncated, err)
	}
	closed := errors.New("closed")
	r.Check = func() error { return closed }
	if _, _, err := r.Pending(t.Context(), 0, load, "SELECT"); !errors.Is(err, closed) {
		t.Fatalf("Pending on a closed store: %v", err)
	}
}

func TestLimit(t *testing.T) {
	if Limit(0) != NoLimit || Limit(-1) != NoLimit || Limit(5) != 5 {
		t.Fatalf("Limit: %d %d %d", Limit(0), Limit(-1), Limit(5))
	}
}

func TestSave(t *testing.T) {
	p := core.Preview{Handle: "imp_1", Kind: core.PreviewImport, Scope: "DEMO", Plan: []byte("{}"), CreatedAt: micros(1), ExpiresAt: micros(2)}
	var inserted []core.Preview
	insert := func(n int64) func(core.Preview) (int64, error) {
		return func(p core.Preview) (int64, error) { inserted = append(inserted, p); return n, nil }
	}
	if err := Save(p, insert(1)); err != nil || len(inserted) != 1 || inserted[0].Digest != core.PlanDigest(p.Plan) {
		t.Fatalf("Save = %v, inserted %+v; want the checked preview (digest filled in) inserted", err, inserted)
	}
	if err := Save(p, insert(0)); err == nil || !strings.Contains(err.Error(), "already stored") {
		t.Fatalf("Save of a stored handle: %v", err)
	}
	inserted = nil
	if err := Save(core.Preview{Kind: core.PreviewImport}, insert(1)); err == nil || len(inserted) != 0 {
		t.Fatalf("Save of an invalid preview: %v, inserted %d", err, len(inserted))
	}
}

// Prune runs its statements in order, each with its cut's age, counting
// the previews, tombstones, runs and audit records deleted.
func TestPrune(t *testing.T) {
	q := PruneSQL{Tombstone: "tombstone", Previews: "previews", Tombstones: "tombstones", Outcomes: "outcomes", Runs: "runs", Audit: "audit"}
	var ran []string
	changed := map[string]int64{"tombstone": 3, "previews": 3, "tombstones": 2, "outcomes": 9, "runs": 4, "audit": 7}
	r := core.Retention{Runs: time.Hour}
	n, err := Prune(r, q, func(sql string, age time.Duration) (int64, error) {
		ran = append(ran, fmt.Sprintf("%s %v", sql, age))
		return changed[sql], nil
	})
	want := []string{"tombstone 0s", "previews 0s", fmt.Sprintf("tombstones %v", core.DefaultRetention.Tombstones), "outcomes 1h0m0s", "runs 1h0m0s", fmt.Sprintf("audit %v", core.DefaultRetention.Audit)}
	if err != nil || !reflect.DeepEqual(ran, want) || n != (core.Pruned{Previews: 3, Tombstones: 2, Runs: 4, Audit: 7}) {
		t.Fatalf("Prune = %+v, %v after %v; want %v", n, err, ran, want)
	}
	boom := errors.New("boom")
	if n, err := Prune(r, q, func(string, time.Duration) (int64, error) { return 1, boom }); !errors.Is(err, boom) || n != (core.Pruned{}) {
		t.Fatalf("Prune with a failing statement = %+v, %v", n, err)
	}
}

func TestWriteValue(t *testing.T) {
	committed := func(_ context.Context, op string, fn func(tx string) error) error {
		if op != "op" {
			t.Fatalf("op %q", op)
		}
		return fn("tx")
	}
	v, err := WriteValue(t.Context(), "op", committed, func(tx string) (int, error) { return len(tx), nil })
	if v != 2 || err != nil {
		t.Fatalf("WriteValue = %d, %v", v, err)
	}
	boom := errors.New("commit failed")
	failed := func(_ context.Context, _ string, fn func(tx string) error) error { _ = fn("tx"); return boom }
	if v, err := WriteValue(t.Context(), "op", failed, func(tx string) (int, error) { return 7, nil }); v != 0 || !errors.Is(err, boom) {
		t.Fatalf("WriteValue of a failed commit = %d, %v; want the zero value", v, err)
	}
}

// Fence checks its arguments first, reads without a transaction when
// there are no markers, and upserts markers only after the holder check
// passed in the same transaction.
func TestFence(t *testing.T) {
	lost := errors.New("lock lost")
	var calls []string
	f := Store[int64, string]{
		Check: func() error { calls = append(calls, "check"); return nil },
		Fault: func(err error, op string) error {
			calls = append(calls, "fault "+op)
			return err
		},
		Write: func(_ context.Context, op string, fn func(tx string) error) error {
			calls = append(calls, "write "+op)
			return fn("tx")
		},
		HeldIn: func(_ context.Context, tx string, l Lock) error {
			calls = append(calls, "heldIn "+tx+" "+l.Owner)
			if l.Owner == "lost" {
				return lost
			}
			return nil
		},
		Held: func(_ context.Context, l Lock) error { calls = append(calls, "held "+l.Owner); return nil },
		UpsertIndex: func(_ context.Context, tx string, entries []core.IndexEntry) error {
			calls = append(calls, fmt.Sprintf("upsert %s %d", tx, len(entries)))
			return nil
		},
	}
	markers := []core.IndexEntry{{Scope: "s", Reference: "d/a"}}
	for _, tc := range []struct {
		name    string
		l       Lock
		markers []core.IndexEntry
		want    []string
		err     error
	}{
		{"no markers", Lock{"doc", "me", 2}, nil, []string{"check", "held me", "fault fence lock doc"}, nil},
		{"markers", Lock{"doc", "me", 2}, markers, []string{"write fence lock doc", "heldIn tx me", "upsert tx 1"}, nil},
		{"lost", Lock{"doc", "lost", 2}, markers, []string{"write fence lock doc", "heldIn tx lost"}, lost},
		{"bad generation", Lock{"doc", "me", 0}, markers, nil, nil},
	} {
		calls = nil
		err := f.Fence(t.Context(), tc.l, tc.markers)
		if tc.name == "bad generation" {
			if core.ErrorCode(err) != core.CodeInternal || calls != nil {
				t.Errorf("%s: %v after %v; want INTERNAL_ERROR before any call", tc.name, err, calls)
			}
			continue
		}
		if !errors.Is(err, tc.err) || !reflect.DeepEqual(calls, tc.want) {
			t.Errorf("%s: %v after %q; want %v after %q", tc.name, err, calls, tc.err, tc.want)
		}
	}
}
