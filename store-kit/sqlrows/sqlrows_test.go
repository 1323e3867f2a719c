package sqlrows

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// fakeRows replays rows of values, as a driver would scan them.
type fakeRows struct {
	rows [][]any
	i    int
	err  error
}

func (f *fakeRows) Next() bool { f.i++; return f.i <= len(f.rows) }
func (f *fakeRows) Err() error { return f.err }
func (f *fakeRows) Scan(dest ...any) error {
	row := f.rows[f.i-1]
	if len(row) != len(dest) {
		return fmt.Errorf("%d values for %d destinations", len(row), len(dest))
	}
	for i, v := range row {
		d := reflect.ValueOf(dest[i]).Elem()
		if v == nil {
			d.SetZero()
			continue
		}
		rv := reflect.ValueOf(v)
		if d.Kind() == reflect.Pointer {
			p := reflect.New(d.Type().Elem())
			p.Elem().Set(rv)
			d.Set(p)
			continue
		}
		d.Set(rv)
	}
	return nil
}

func micros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func TestRun(t *testing.T) {
	seq := func(n int64) any { return n }
	rows := &fakeRows{rows: [][]any{
		{"run-1", "h", "partial", int64(10), int64(20), []byte("r"), seq(1), "d/s-1", "create", "K-1", "committed", "", ""},
		{"run-1", "h", "partial", int64(10), int64(20), []byte("r"), seq(2), "d/s-2", "update", "", "failed", "VALIDATION_FAILED", "too long"},
	}}
	run, found, err := Run(rows, "k", micros)
	if err != nil || !found {
		t.Fatalf("Run: found %v, %v", found, err)
	}
	want := core.Run{ID: "run-1", Key: "k", Handle: "h", State: core.RunPartial, StartedAt: micros(10), FinishedAt: micros(20), Result: []byte("r"),
		Outcomes: []core.ItemOutcome{
			{Reference: "d/s-1", Action: core.ActionCreate, Key: "K-1", Outcome: "committed"},
			{Reference: "d/s-2", Action: core.ActionUpdate, Outcome: "failed", Code: core.CodeValidationFailed, Message: "too long"},
		}}
	if !reflect.DeepEqual(run, want) {
		t.Fatalf("Run =\n%+v\nwant\n%+v", run, want)
	}
	// A run without outcomes or finish time: the LEFT JOIN's NULLs.
	run, found, err = Run(&fakeRows{rows: [][]any{{"run-2", "h2", "in_progress", int64(5), nil, nil, nil, nil, nil, nil, nil, nil, nil}}}, "k2", micros)
	if err != nil || !found || !run.FinishedAt.IsZero() || run.Outcomes != nil || run.State != core.RunInProgress {
		t.Fatalf("Run without outcomes = %+v, %v, %v", run, found, err)
	}
	if _, found, err := Run(&fakeRows{}, "none", micros); found || err != nil {
		t.Fatalf("Run of no rows: found %v, %v", found, err)
	}
	boom := errors.New("boom")
	if _, _, err := Run(&fakeRows{err: boom}, "k", micros); !errors.Is(err, boom) {
		t.Fatalf("Run with a rows error: %v", err)
	}
}

func TestIndex(t *testing.T) {
	rows := &fakeRows{rows: [][]any{{"d/s-1", "K-1", "sha256:1", int64(7)}, {"d/s-2", "", "marker", int64(8)}}}
	got, err := Index(rows, "scope", micros, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[core.Reference]core.IndexEntry{
		"d/s-1": {Scope: "scope", Reference: "d/s-1", Key: "K-1", Digest: "sha256:1", UpdatedAt: micros(7)},
		"d/s-2": {Scope: "scope", Reference: "d/s-2", Digest: "marker", UpdatedAt: micros(8)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Index = %+v", got)
	}
}

func TestPending(t *testing.T) {
	ok := func(h string) []any { return []any{h, []byte(h), core.PlanDigest([]byte(h))} }
	rows := func() *fakeRows {
		return &fakeRows{rows: [][]any{ok("a"), {"tampered", []byte("x"), core.PlanDigest([]byte("y"))}, ok("b"), ok("c")}}
	}
	if hs, trunc, err := Pending(rows(), 0); err != nil || trunc || !reflect.DeepEqual(hs, []string{"a", "b", "c"}) {
		t.Fatalf("Pending(no limit) = %v, %v, %v", hs, trunc, err)
	}
	if hs, trunc, err := Pending(rows(), 2); err != nil || !trunc || !reflect.DeepEqual(hs, []string{"a", "b"}) {
		t.Fatalf("Pending(2) = %v, %v, %v", hs, trunc, err)
	}
	if hs, trunc, err := Pending(rows(), 3); err != nil || trunc || len(hs) != 3 {
		t.Fatalf("Pending(3) = %v, %v, %v", hs, trunc, err)
	}
}

// A preview pruned between listing and loading is left out, whether its
// tombstone answers PREVIEW_EXPIRED or it is gone (PREVIEW_NOT_FOUND).
func TestLoadAll(t *testing.T) {
	load := func(h string) (core.Preview, error) {
		switch h {
		case "expired":
			return core.Preview{}, core.Errorf(core.CodePreviewExpired, "expired")
		case "gone":
			return core.Preview{}, core.Errorf(core.CodePreviewNotFound, "gone")
		case "broken":
			return core.Preview{}, core.Errorf(core.CodeInternal, "broken")
		}
		return core.Preview{Handle: h}, nil
	}
	got, err := LoadAll([]string{"a", "expired", "gone", "b"}, load)
	if err != nil || len(got) != 2 || got[0].Handle != "a" || got[1].Handle != "b" {
		t.Fatalf("LoadAll = %+v, %v", got, err)
	}
	if _, err := LoadAll([]string{"a", "broken"}, load); core.ErrorCode(err) != core.CodeInternal {
		t.Fatalf("LoadAll with a store fault: %v", err)
	}
}
