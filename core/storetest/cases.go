package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

func testPreviewRoundTrip(t *testing.T, e *env) {
	p := e.preview(core.PreviewImport, 30*time.Minute)
	// Bytes a text column or JSON normalisation would change.
	p.Plan = append(p.Plan, 0x00, 0xff, 0xfe, '\r', '\n', ' ', '\t')
	want := p
	want.Plan = append([]byte(nil), p.Plan...)
	e.save(p)
	p.Plan[0] = 'X' // the store must have kept its own copy
	got := e.load(want.Handle)
	equalPreview(t, got, want)
	if !got.ConsumedAt.IsZero() || got.ConsumedBy != "" {
		t.Fatalf("fresh preview is consumed: %+v", summary(got))
	}
	got.Plan[0] = 'Y' // nor may a caller change it through a loaded copy
	equalPreview(t, e.load(want.Handle), want)

	// An empty plan is kept as well.
	q := e.preview(core.PreviewProgress, time.Minute)
	q.Plan = []byte{}
	e.save(q)
	if got := e.load(q.Handle); len(got.Plan) != 0 {
		t.Fatalf("empty plan came back as %q", got.Plan)
	}
}

func testPreviewKindAndScope(t *testing.T, e *env) {
	imp := e.preview(core.PreviewImport, time.Hour)
	imp.Scope = "https://a.atlassian.net/ALPHA"
	prog := e.preview(core.PreviewProgress, time.Hour)
	prog.Scope = "https://b.atlassian.net/BETA"
	e.save(imp)
	e.save(prog)
	if got := e.load(imp.Handle); got.Kind != core.PreviewImport || got.Scope != imp.Scope {
		t.Fatalf("import preview: kind %q scope %q, want %q %q", got.Kind, got.Scope, core.PreviewImport, imp.Scope)
	}
	if got := e.load(prog.Handle); got.Kind != core.PreviewProgress || got.Scope != prog.Scope {
		t.Fatalf("progress preview: kind %q scope %q, want %q %q", got.Kind, got.Scope, core.PreviewProgress, prog.Scope)
	}
}

func testPreviewDuplicateHandle(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	q := p
	q.Plan = []byte("another plan")
	err := e.s.SavePreview(t.Context(), q)
	wantCode(t, err, core.CodeInternal, "SavePreview with a handle in use")
	equalPreview(t, e.load(p.Handle), p) // the first one is untouched
}

func testPreviewInvalid(t *testing.T, e *env) {
	p := e.preview(core.PreviewImport, time.Hour)
	p.Handle = ""
	wantCode(t, e.s.SavePreview(t.Context(), p), core.CodeInternal, "SavePreview with an empty handle")
	q := e.preview("bogus", time.Hour)
	wantCode(t, e.s.SavePreview(t.Context(), q), core.CodeInternal, "SavePreview with an unknown kind")
	wantCode(t, func() error { _, err := e.s.LoadPreview(t.Context(), q.Handle); return err }(), core.CodePreviewNotFound, "LoadPreview of a refused preview")
}

func testPreviewUnknownHandle(t *testing.T, e *env) {
	_, err := e.s.LoadPreview(t.Context(), "no-such-handle")
	wantCode(t, err, core.CodePreviewNotFound, "LoadPreview(unknown)")
	_, err = e.s.LoadPreview(t.Context(), "")
	wantCode(t, err, core.CodePreviewNotFound, "LoadPreview(\"\")")
}

func testPreviewTampered(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	other := e.save(e.preview(core.PreviewImport, time.Hour))
	if err := e.h.TamperPlan(t.Context(), p.Handle); err != nil {
		t.Fatalf("TamperPlan: %v", err)
	}
	_, err := e.s.LoadPreview(t.Context(), p.Handle)
	ce := wantCode(t, err, core.CodeInternal, "LoadPreview(tampered)")
	if !strings.Contains(ce.Message, p.Handle) {
		t.Errorf("tamper error does not name the handle: %q", ce.Message)
	}
	equalPreview(t, e.load(other.Handle), other) // others unaffected
	// Reopening does not launder it.
	e.reopen()
	_, err = e.s.LoadPreview(t.Context(), p.Handle)
	wantCode(t, err, core.CodeInternal, "LoadPreview(tampered) after reopen")
}

func testPreviewSurvivesReopen(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, 30*time.Minute))
	e.reopen()
	equalPreview(t, e.load(p.Handle), p)
}

func testLoadReturnsExpiredAndConsumed(t *testing.T, e *env) {
	exp := e.save(e.preview(core.PreviewImport, time.Minute))
	con := e.save(e.preview(core.PreviewImport, time.Hour))
	e.clock.Advance(2 * time.Minute)
	run := e.mustStart("key-1", con.Handle)
	equalPreview(t, e.load(exp.Handle), exp) // expired, still returned
	got := e.load(con.Handle)
	if !got.ConsumedAt.Equal(run.StartedAt) || got.ConsumedBy != "key-1" {
		t.Fatalf("consumed preview: ConsumedAt %v ConsumedBy %q, want %v key-1", got.ConsumedAt, got.ConsumedBy, run.StartedAt)
	}
}

func testPruneExpired(t *testing.T, e *env) {
	short1 := e.save(e.preview(core.PreviewImport, time.Minute))
	short2 := e.save(e.preview(core.PreviewProgress, 2*time.Minute))
	consumed := e.save(e.preview(core.PreviewImport, 3*time.Minute))
	long := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("pk", consumed.Handle)

	// Exactly at the expiry instant nothing has expired "before" it yet.
	n, err := e.s.Prune(t.Context(), short1.ExpiresAt, core.Retention{})
	if err != nil || n != (core.Pruned{}) {
		t.Fatalf("Prune(at first expiry) = %+v, %v; want nothing, nil", n, err)
	}
	n, err = e.s.Prune(t.Context(), Epoch.Add(10*time.Minute), core.Retention{})
	if err != nil || n != (core.Pruned{Previews: 3}) {
		t.Fatalf("Prune = %+v, %v; want 3 previews, nil", n, err)
	}
	// A pruned handle still answers PREVIEW_EXPIRED, from its tombstone.
	for _, p := range []core.Preview{short1, short2, consumed} {
		_, err := e.s.LoadPreview(t.Context(), p.Handle)
		e.wantPruned(err, "LoadPreview(pruned "+p.Handle+")", p)
	}
	equalPreview(t, e.load(long.Handle), long)
	// Runs in progress are kept.
	if r := e.getRun("pk"); r.Handle != consumed.Handle || r.State != core.RunInProgress {
		t.Fatalf("run after prune: %+v", r)
	}
	n, err = e.s.Prune(t.Context(), Epoch.Add(10*time.Minute), core.Retention{})
	if err != nil || n != (core.Pruned{}) {
		t.Fatalf("second Prune = %+v, %v; want nothing, nil", n, err)
	}
}

// wantPruned asserts err is the PREVIEW_EXPIRED of p's tombstone.
func (e *env) wantPruned(err error, what string, p core.Preview) {
	e.t.Helper()
	ce := wantCode(e.t, err, core.CodePreviewExpired, what)
	var pruned *core.PrunedPreviewError
	if !errors.As(ce, &pruned) {
		e.t.Fatalf("%s: %v has no *core.PrunedPreviewError cause", what, err)
	}
	if pruned.Handle != p.Handle || pruned.Kind != p.Kind || !pruned.ExpiredAt.Equal(p.ExpiresAt) {
		e.t.Fatalf("%s: tombstone %+v; want %s (%s) expired at %s", what, pruned, p.Handle, p.Kind, p.ExpiresAt)
	}
}

func testPruneTombstones(t *testing.T, e *env) {
	ctx := t.Context()
	p := e.save(e.preview(core.PreviewProgress, time.Minute))
	e.clock.Advance(3 * time.Minute)
	if n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{Tombstones: time.Hour}); err != nil || n.Previews != 1 {
		t.Fatalf("Prune = %+v, %v", n, err)
	}
	_, err := e.s.LoadPreview(ctx, p.Handle)
	e.wantPruned(err, "LoadPreview 3 minutes after expiry", p)
	_, _, err = e.start("k-tomb", p.Handle)
	e.wantPruned(err, "StartRun of a pruned handle", p)
	if _, found, _ := e.s.GetRun(ctx, "k-tomb"); found {
		t.Fatal("StartRun of a pruned handle made a run")
	}
	// Tombstones survive a reopen (whose prune uses the default
	// retention).
	e.reopen()
	_, err = e.s.LoadPreview(ctx, p.Handle)
	e.wantPruned(err, "LoadPreview of a pruned handle after reopen", p)
	// Within the retention (measured from expiry) the tombstone stays…
	e.clock.Advance(time.Hour - 2*time.Minute) // now = expiry + 1h
	if n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{Tombstones: time.Hour}); err != nil || n != (core.Pruned{}) {
		t.Fatalf("Prune at the end of the retention = %+v, %v; want nothing", n, err)
	}
	// …after it, it goes: the handle is unknown.
	e.clock.Advance(time.Microsecond)
	if n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{Tombstones: time.Hour}); err != nil || n != (core.Pruned{Tombstones: 1}) {
		t.Fatalf("Prune after the retention = %+v, %v; want 1 tombstone", n, err)
	}
	_, err = e.s.LoadPreview(ctx, p.Handle)
	wantCode(t, err, core.CodePreviewNotFound, "LoadPreview after the tombstone's retention")
	_, _, err = e.start("k-tomb", p.Handle)
	wantCode(t, err, core.CodePreviewNotFound, "StartRun after the tombstone's retention")
	// The default retention keeps a tombstone for DefaultRetention.Tombstones.
	q := e.save(e.preview(core.PreviewImport, time.Minute))
	e.clock.Advance(time.Minute + time.Microsecond)
	e.reopen() // prunes q with the default retention
	e.clock.Advance(core.DefaultRetention.Tombstones - time.Microsecond)
	e.reopen()
	_, err = e.s.LoadPreview(ctx, q.Handle)
	e.wantPruned(err, "LoadPreview at the end of the default retention", q)
	e.clock.Advance(time.Microsecond)
	e.reopen()
	_, err = e.s.LoadPreview(ctx, q.Handle)
	wantCode(t, err, core.CodePreviewNotFound, "LoadPreview after the default retention")
}

func testPruneRuns(t *testing.T, e *env) {
	ctx := t.Context()
	r := core.Retention{Runs: 24 * time.Hour}
	var handles []string
	for range 3 {
		handles = append(handles, e.save(e.preview(core.PreviewImport, 2*time.Hour)).Handle)
	}
	e.mustStart("old", handles[0])
	if err := e.s.RecordOutcomes(ctx, "old", []core.ItemOutcome{outcome(0)}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.FinishRun(ctx, "old", core.RunCommitted, []byte("old result"), e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.mustStart("stuck", handles[1]) // never finishes (its process died)
	e.clock.Advance(time.Hour)
	e.mustStart("recent", handles[2])
	if err := e.s.FinishRun(ctx, "recent", core.RunPartial, nil, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// Exactly at the retention's end nothing is old enough yet.
	e.clock.Advance(23 * time.Hour)
	if n, err := e.s.Prune(ctx, e.clock.Now(), r); err != nil || n.Runs != 0 {
		t.Fatalf("Prune at the retention's end = %+v, %v; want no runs", n, err)
	}
	e.clock.Advance(time.Microsecond)
	n, err := e.s.Prune(ctx, e.clock.Now(), r)
	if err != nil || n.Runs != 1 {
		t.Fatalf("Prune after the retention = %+v, %v; want 1 run", n, err)
	}
	if _, found, err := e.s.GetRun(ctx, "old"); err != nil || found {
		t.Fatalf("the old finished run survived: found %v, %v", found, err)
	}
	if got := e.getRun("stuck"); got.State != core.RunInProgress {
		t.Fatalf("run in progress: %+v", got)
	}
	if got := e.getRun("recent"); got.State != core.RunPartial {
		t.Fatalf("recent run: %+v", got)
	}
	// The default retention: runs finished DefaultRetention.Runs ago go on
	// the next open.
	e.clock.Advance(core.DefaultRetention.Runs)
	e.reopen()
	if _, found, err := e.s.GetRun(ctx, "recent"); err != nil || found {
		t.Fatalf("a run past the default retention survived the prune on open: found %v, %v", found, err)
	}
	if got := e.getRun("stuck"); got.State != core.RunInProgress {
		t.Fatalf("run in progress after the default retention: %+v", got)
	}
}

func testPruneOnOpen(t *testing.T, e *env) {
	short := e.save(e.preview(core.PreviewImport, time.Minute))
	long := e.save(e.preview(core.PreviewImport, time.Hour))
	e.reopen() // nothing expired yet
	equalPreview(t, e.load(short.Handle), short)
	e.clock.Advance(5 * time.Minute)
	e.reopen()
	_, err := e.s.LoadPreview(t.Context(), short.Handle)
	e.wantPruned(err, "LoadPreview(expired, after reopen)", short)
	equalPreview(t, e.load(long.Handle), long)
}

func testStartRunConsumes(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.clock.Advance(time.Second)
	now := e.clock.Now()
	run, started, err := e.s.StartRun(t.Context(), core.StartRunRequest{Key: "k1", Handle: p.Handle, RunID: "run-abc", Now: now})
	if err != nil || !started {
		t.Fatalf("StartRun = started %v, %v; want true, nil", started, err)
	}
	if run.ID != "run-abc" || run.Key != "k1" || run.Handle != p.Handle || run.State != core.RunInProgress ||
		!run.StartedAt.Equal(now) || !run.FinishedAt.IsZero() || len(run.Outcomes) != 0 || len(run.Result) != 0 {
		t.Fatalf("started run = %+v", run)
	}
	got := e.load(p.Handle)
	if !got.ConsumedAt.Equal(now) || got.ConsumedBy != "k1" {
		t.Fatalf("preview after StartRun: ConsumedAt %v ConsumedBy %q; want %v k1", got.ConsumedAt, got.ConsumedBy, now)
	}
	if r := e.getRun("k1"); r.ID != run.ID || r.State != core.RunInProgress || !r.StartedAt.Equal(now) {
		t.Fatalf("GetRun = %+v", r)
	}
}

func testStartRunSameKeySameHandle(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	first := e.mustStart("k1", p.Handle)
	e.clock.Advance(time.Minute)
	again, started, err := e.s.StartRun(t.Context(), core.StartRunRequest{Key: "k1", Handle: p.Handle, RunID: "run-other", Now: e.clock.Now()})
	if err != nil || started {
		t.Fatalf("repeat StartRun = started %v, %v; want false, nil", started, err)
	}
	if again.ID != first.ID || again.State != core.RunInProgress || !again.StartedAt.Equal(first.StartedAt) {
		t.Fatalf("repeat StartRun returned %+v, want the existing run %+v", again, first)
	}
	// Even after the preview expired and was pruned, the key finds its run.
	e.clock.Advance(2 * time.Hour)
	if _, err := e.s.Prune(t.Context(), e.clock.Now(), core.Retention{}); err != nil {
		t.Fatal(err)
	}
	again, started, err = e.start("k1", p.Handle)
	if err != nil || started || again.ID != first.ID {
		t.Fatalf("StartRun after prune = %+v started %v, %v; want the existing run", again, started, err)
	}
}

func testStartRunKeyReused(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	q := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	e.refuseStart("k1", q.Handle, core.CodeIdempotencyKeyReused, "StartRun(reused key)")
	if got := e.load(q.Handle); !got.ConsumedAt.IsZero() {
		t.Fatalf("the other handle was consumed: %+v", summary(got))
	}
	// Even for an unknown handle, a known key is reported as reused.
	e.refuseStart("k1", "no-such-handle", core.CodeIdempotencyKeyReused, "StartRun(reused key, unknown handle)")
	// The other handle is still free for another key.
	e.mustStart("k2", q.Handle)
}

func testStartRunConsumedByOtherKey(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	ce := e.refuseStart("k2", p.Handle, core.CodePreviewNotFound, "StartRun(consumed handle, other key)")
	named := false
	for _, d := range ce.Details {
		if strings.Contains(d.Message, "run-k1") {
			named = true
		}
	}
	if !named {
		t.Errorf("PREVIEW_NOT_FOUND details do not name the consuming run run-k1: %+v", ce.Details)
	}
	if _, found, err := e.s.GetRun(t.Context(), "k2"); err != nil || found {
		t.Fatalf("GetRun(k2) = found %v, %v; want no run", found, err)
	}
	// Consumed takes precedence over expired.
	e.clock.Advance(2 * time.Hour)
	e.refuseStart("k3", p.Handle, core.CodePreviewNotFound, "StartRun(consumed and expired handle)")
}

func testStartRunUnknownHandle(t *testing.T, e *env) {
	e.refuseStart("k1", "no-such-handle", core.CodePreviewNotFound, "StartRun(unknown handle)")
	if _, found, err := e.s.GetRun(t.Context(), "k1"); err != nil || found {
		t.Fatalf("GetRun after failed StartRun = found %v, %v", found, err)
	}
}

func testStartRunExpired(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, 30*time.Minute))
	e.clock.Advance(30*time.Minute - time.Microsecond)
	q := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k-early", q.Handle)  // sanity: the store is working
	e.clock.Advance(time.Microsecond) // now == ExpiresAt: expired
	e.refuseStart("k1", p.Handle, core.CodePreviewExpired, "StartRun(expired)")
	if got := e.load(p.Handle); !got.ConsumedAt.IsZero() {
		t.Fatalf("expired handle was consumed: %+v", summary(got))
	}
	if _, found, _ := e.s.GetRun(t.Context(), "k1"); found {
		t.Fatal("a run exists for a refused StartRun")
	}
}

func testStartRunAfterPrune(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Minute))
	e.clock.Advance(time.Hour)
	e.reopen()
	_, _, err := e.start("k1", p.Handle)
	e.wantPruned(err, "StartRun(pruned)", p)
}

func testOutcomesSurviveCrash(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	run := e.mustStart("k1", p.Handle)
	var want []core.ItemOutcome
	for i := range 3 {
		o := outcome(i)
		if err := e.s.RecordOutcomes(t.Context(), "k1", []core.ItemOutcome{o}); err != nil {
			t.Fatalf("RecordOutcomes %d: %v", i, err)
		}
		want = append(want, o)
	}
	e.reopen() // the process died mid-run
	got := e.getRun("k1")
	if got.State != core.RunInProgress || got.ID != run.ID || got.Handle != p.Handle {
		t.Fatalf("run after crash: %+v", got)
	}
	equalOutcomes(t, got.Outcomes, want)
	// A retry with the same key sees the interrupted run, with its outcomes.
	again, started, err := e.start("k1", p.Handle)
	if err != nil || started || again.State != core.RunInProgress {
		t.Fatalf("StartRun after crash = %+v started %v, %v", again, started, err)
	}
	equalOutcomes(t, again.Outcomes, want)
	// Recording continues in order after the restart.
	o := outcome(3)
	if err := e.s.RecordOutcomes(t.Context(), "k1", []core.ItemOutcome{o}); err != nil {
		t.Fatal(err)
	}
	equalOutcomes(t, e.getRun("k1").Outcomes, append(want, o))
}

func testFinishRunReplay(t *testing.T, e *env) {
	for _, state := range []core.RunState{core.RunCommitted, core.RunPartial, core.RunFailed} {
		p := e.save(e.preview(core.PreviewImport, time.Hour))
		key := "k-" + string(state)
		run := e.mustStart(key, p.Handle)
		outs := []core.ItemOutcome{outcome(0), outcome(2)}
		for _, o := range outs {
			if err := e.s.RecordOutcomes(t.Context(), key, []core.ItemOutcome{o}); err != nil {
				t.Fatal(err)
			}
		}
		result := []byte(`{"result_type":"committed","state":"` + string(state) + `"}` + "\n\x00")
		fin := e.clock.Advance(3 * time.Second)
		if err := e.s.FinishRun(t.Context(), key, state, result, fin); err != nil {
			t.Fatalf("FinishRun(%s): %v", state, err)
		}
		e.reopen()
		got := e.getRun(key)
		if got.ID != run.ID || got.State != state || !got.FinishedAt.Equal(fin) || !got.StartedAt.Equal(run.StartedAt) || string(got.Result) != string(result) {
			t.Fatalf("finished run = %+v (result %q)", got, got.Result)
		}
		equalOutcomes(t, got.Outcomes, outs)
		again, started, err := e.start(key, p.Handle)
		if err != nil || started || again.State != state || string(again.Result) != string(result) {
			t.Fatalf("replay StartRun = %+v started %v, %v", again, started, err)
		}
	}
}

func testFinishRunInvalid(t *testing.T, e *env) {
	ctx := t.Context()
	now := e.clock.Now()
	wantCode(t, e.s.FinishRun(ctx, "nope", core.RunCommitted, []byte("{}"), now), core.CodeInternal, "FinishRun(unknown key)")
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	wantCode(t, e.s.FinishRun(ctx, "k1", core.RunInProgress, nil, now), core.CodeInternal, "FinishRun(in_progress)")
	wantCode(t, e.s.FinishRun(ctx, "k1", "done", nil, now), core.CodeInternal, "FinishRun(bogus state)")
	if err := e.s.FinishRun(ctx, "k1", core.RunPartial, []byte("first"), now); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.s.FinishRun(ctx, "k1", core.RunCommitted, []byte("second"), now), core.CodeInternal, "FinishRun twice")
	if r := e.getRun("k1"); r.State != core.RunPartial || string(r.Result) != "first" {
		t.Fatalf("second FinishRun changed the run: %+v", r)
	}
}

func testRecordOutcomesInvalid(t *testing.T, e *env) {
	ctx := t.Context()
	wantCode(t, e.s.RecordOutcomes(ctx, "nope", []core.ItemOutcome{outcome(0)}), core.CodeInternal, "RecordOutcomes(unknown key)")
	if err := e.s.RecordOutcomes(ctx, "nope", nil); err != nil {
		t.Fatalf("RecordOutcomes(no outcomes) = %v, want nil (nothing to record)", err)
	}
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	if err := e.s.FinishRun(ctx, "k1", core.RunCommitted, []byte("{}"), e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.s.RecordOutcomes(ctx, "k1", []core.ItemOutcome{outcome(1)}), core.CodeInternal, "RecordOutcomes(finished run)")
	wantCode(t, e.s.RecordOutcomes(ctx, "k1", []core.ItemOutcome{outcome(1), outcome(2), outcome(3)}), core.CodeInternal, "RecordOutcomes(finished run, a batch)")
	if r := e.getRun("k1"); len(r.Outcomes) != 0 {
		t.Fatalf("outcome recorded on a finished run: %+v", r.Outcomes)
	}
}

func testRecordOutcomesBatch(t *testing.T, e *env) {
	// A batch is appended in order, after what was recorded before, and
	// survives a reopen; batches and single outcomes mix.
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	var want []core.ItemOutcome
	for _, n := range []int{1, 50, 0, 3} {
		var batch []core.ItemOutcome
		for range n {
			batch = append(batch, outcome(len(want)+len(batch)))
		}
		if err := e.s.RecordOutcomes(t.Context(), "k1", batch); err != nil {
			t.Fatalf("RecordOutcomes(%d outcomes): %v", n, err)
		}
		want = append(want, batch...)
		equalOutcomes(t, e.getRun("k1").Outcomes, want)
	}
	e.reopen()
	equalOutcomes(t, e.getRun("k1").Outcomes, want)
}

func testGetRunUnknown(t *testing.T, e *env) {
	r, found, err := e.s.GetRun(t.Context(), "nope")
	if err != nil || found || r.ID != "" {
		t.Fatalf("GetRun(unknown) = %+v, %v, %v; want zero, false, nil", r, found, err)
	}
}

func indexEntry(scope string, i int, at time.Time) core.IndexEntry {
	return core.IndexEntry{
		Scope:     scope,
		Reference: core.NewReference("doc", fmt.Sprintf("s-%d", i)),
		Key:       fmt.Sprintf("DEMO-%d", i),
		Digest:    core.ContentDigest(core.KindStory, fmt.Sprint("title ", i), "", nil, ""),
		UpdatedAt: at,
	}
}

func testIndexUpsertLookup(t *testing.T, e *env) {
	ctx := t.Context()
	const a, b = "https://a.atlassian.net/A", "https://b.atlassian.net/B"
	now := e.clock.Now()
	if err := e.s.UpsertIndex(ctx, []core.IndexEntry{indexEntry(a, 1, now), indexEntry(a, 2, now), indexEntry(b, 1, now)}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.UpsertIndex(ctx, nil); err != nil {
		t.Fatalf("UpsertIndex(nil): %v", err)
	}
	refs := []core.Reference{"doc/s-1", "doc/s-2", "doc/s-3"}
	got, err := e.s.LookupIndex(ctx, a, refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["doc/s-1"] != indexEntry(a, 1, now) || got["doc/s-2"] != indexEntry(a, 2, now) {
		t.Fatalf("LookupIndex(a) = %+v", got)
	}
	got, err = e.s.LookupIndex(ctx, b, refs)
	if err != nil || len(got) != 1 || got["doc/s-1"] != indexEntry(b, 1, now) {
		t.Fatalf("LookupIndex(b) = %+v, %v (scopes must not leak)", got, err)
	}
	// Upsert replaces key and digest.
	later := e.clock.Advance(time.Hour)
	upd := indexEntry(a, 1, later)
	upd.Key = "DEMO-99"
	upd.Digest = "sha256:new"
	if err := e.s.UpsertIndex(ctx, []core.IndexEntry{upd}); err != nil {
		t.Fatal(err)
	}
	got, err = e.s.LookupIndex(ctx, a, []core.Reference{"doc/s-1"})
	if err != nil || len(got) != 1 || got["doc/s-1"] != upd {
		t.Fatalf("after upsert: %+v, %v; want %+v", got, err, upd)
	}
	got, err = e.s.LookupIndex(ctx, a, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("LookupIndex(no refs) = %+v, %v", got, err)
	}
	if got == nil {
		t.Fatal("LookupIndex returned a nil map")
	}
	got, err = e.s.LookupIndex(ctx, "https://c.atlassian.net/C", refs)
	if err != nil || len(got) != 0 {
		t.Fatalf("LookupIndex(unknown scope) = %+v, %v", got, err)
	}
	// Duplicates within one batch: the last one wins.
	d1, d2 := indexEntry(a, 7, later), indexEntry(a, 7, later)
	d2.Key = "DEMO-700"
	if err := e.s.UpsertIndex(ctx, []core.IndexEntry{d1, d2}); err != nil {
		t.Fatalf("UpsertIndex with a repeated reference: %v", err)
	}
	got, err = e.s.LookupIndex(ctx, a, []core.Reference{"doc/s-7", "doc/s-7"})
	if err != nil || len(got) != 1 || got["doc/s-7"].Key != "DEMO-700" {
		t.Fatalf("repeated reference: %+v, %v", got, err)
	}
}

func testIndexBulk(t *testing.T, e *env) {
	ctx := t.Context()
	const scope = "https://example.atlassian.net/DEMO"
	const n = 2500 // beyond SQLite's and many drivers' per-statement parameter limits
	entries := make([]core.IndexEntry, n)
	refs := make([]core.Reference, 0, n+10)
	for i := range n {
		entries[i] = indexEntry(scope, i, e.clock.Now())
		if i%2 == 0 {
			refs = append(refs, entries[i].Reference)
		}
	}
	if err := e.s.UpsertIndex(ctx, entries); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		refs = append(refs, core.NewReference("other", fmt.Sprint(i)))
	}
	got, err := e.s.LookupIndex(ctx, scope, refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n/2 {
		t.Fatalf("LookupIndex returned %d entries, want %d", len(got), n/2)
	}
	for i := 0; i < n; i += 2 {
		if got[entries[i].Reference] != entries[i] {
			t.Fatalf("entry %d = %+v, want %+v", i, got[entries[i].Reference], entries[i])
		}
	}
}

func testIndexSurvivesReopen(t *testing.T, e *env) {
	now := e.clock.Now()
	ent := indexEntry("s", 1, now)
	if err := e.s.UpsertIndex(t.Context(), []core.IndexEntry{ent}); err != nil {
		t.Fatal(err)
	}
	e.reopen()
	got, err := e.s.LookupIndex(t.Context(), "s", []core.Reference{ent.Reference})
	if err != nil || got[ent.Reference] != ent {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
}

func testClosedStore(t *testing.T, e *env) {
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	_, err := e.s.LoadPreview(ctx, p.Handle)
	wantCode(t, err, core.CodeInternal, "LoadPreview on a closed store")
	_, _, err = e.start("k", p.Handle)
	wantCode(t, err, core.CodeInternal, "StartRun on a closed store")
	wantCode(t, e.s.SavePreview(ctx, e.preview(core.PreviewImport, time.Hour)), core.CodeInternal, "SavePreview on a closed store")
	_ = e.s.Close() // a second Close must not panic
	e.s = e.open()
	equalPreview(t, e.load(p.Handle), p)
}
