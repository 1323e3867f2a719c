package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Lock generations, Store.Fence and StartRun's plan-digest check.

// childFence is the EnvChild value of a ProcessFenceRace child.
const childFence = "fence"

const fenceScope = "https://example.atlassian.net/FENCE"

// marker is the write-ahead marker a fencer records before its batch.
func marker(ref string) core.IndexEntry {
	return core.IndexEntry{Scope: fenceScope, Reference: core.Reference(ref), Key: "", Digest: "marker:" + ref, UpdatedAt: Epoch}
}

func markerRef(name string, racer, k int) string {
	return fmt.Sprintf("%s/m-%d-%d", name, racer, k)
}

// wantLost asserts that err is the documented lock-lost error.
func wantLost(t *testing.T, err error, what, name, owner string, gen int64, holder string, holderGen int64) {
	t.Helper()
	ce := wantCode(t, err, core.CodeInternal, what)
	var lost *core.LockLostError
	if !errors.As(ce, &lost) {
		t.Fatalf("%s: %v has no *core.LockLostError cause", what, err)
	}
	want := core.LockLostError{Name: name, Owner: owner, Generation: gen, Holder: holder, HolderGeneration: holderGen}
	if *lost != want {
		t.Fatalf("%s: cause %+v, want %+v", what, *lost, want)
	}
}

// indexed returns which of refs have an entry in the fence scope.
func indexed(t *testing.T, s core.Store, refs ...string) map[string]core.IndexEntry {
	t.Helper()
	rs := make([]core.Reference, len(refs))
	for i, r := range refs {
		rs[i] = core.Reference(r)
	}
	got, err := s.LookupIndex(t.Context(), fenceScope, rs)
	if err != nil {
		t.Fatalf("LookupIndex: %v", err)
	}
	out := map[string]core.IndexEntry{}
	for r, e := range got {
		out[string(r)] = e
	}
	return out
}

func testLockGeneration(t *testing.T, e *env) {
	ctx := t.Context()
	a1 := e.acquireLock("gen", "a", time.Minute)
	// Renewal by the holder keeps the generation…
	e.clock.Advance(30 * time.Second)
	if a := e.acquireLock("gen", "a", time.Minute); a.Generation != a1.Generation {
		t.Fatalf("renewal changed the generation: %d → %d", a1.Generation, a.Generation)
	}
	// …even after its lease lapsed, as long as nobody took the lock.
	e.clock.Advance(2 * time.Minute)
	if a := e.acquireLock("gen", "a", time.Minute); a.Generation != a1.Generation {
		t.Fatalf("renewal after a lapse nobody used changed the generation: %d → %d", a1.Generation, a.Generation)
	}
	// A takeover after the lease ran out: a new generation.
	e.clock.Advance(time.Minute)
	b := e.acquireLock("gen", "b", time.Minute)
	if b.Generation <= a1.Generation {
		t.Fatalf("takeover: generation %d, want more than %d", b.Generation, a1.Generation)
	}
	// A release keeps the counter: the next acquisition, even by a former
	// holder, is a new generation.
	if err := b.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	a2 := e.acquireLock("gen", "a", time.Minute)
	if a2.Generation <= b.Generation {
		t.Fatalf("acquisition after release: generation %d, want more than %d", a2.Generation, b.Generation)
	}
	// The first Lock of a is stale: its Release changes nothing.
	wantLost(t, a1.Release(ctx), "release of an older generation by the same owner", "gen", "a", a1.Generation, "a", a2.Generation)
	e.wantHeld("gen", "c", "a", e.clock.Now().Add(time.Minute))
	if err := a2.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	// A second release: the lock is free.
	wantLost(t, a2.Release(ctx), "a second release", "gen", "a", a2.Generation, "", a2.Generation)
	// Names count independently.
	if o := e.acquireLock("gen-other", "a", time.Minute); o.Generation <= 0 {
		t.Fatalf("fresh lock generation %d", o.Generation)
	}
	// The counter survives a reopen, and so does a holder's generation.
	c := e.acquireLock("gen", "c", time.Minute)
	if c.Generation <= a2.Generation {
		t.Fatalf("acquisition after release: generation %d, want more than %d", c.Generation, a2.Generation)
	}
	e.reopen()
	if c2 := e.acquireLock("gen", "c", time.Minute); c2.Generation != c.Generation {
		t.Fatalf("renewal after reopen: generation %d, want %d", c2.Generation, c.Generation)
	}
	e.clock.Advance(time.Minute)
	if d := e.acquireLock("gen", "d", time.Minute); d.Generation <= c.Generation {
		t.Fatalf("takeover after reopen: generation %d, want more than %d", d.Generation, c.Generation)
	}
}

func testFenceHolder(t *testing.T, e *env) {
	ctx := t.Context()
	lk := e.acquireLock("fence", "a", time.Minute)
	// Verification only.
	if err := e.s.Fence(ctx, "fence", "a", lk.Generation, nil); err != nil {
		t.Fatalf("Fence without markers: %v", err)
	}
	batch := []core.IndexEntry{marker("fence/1"), marker("fence/2"), marker("fence/3")}
	batch[2].Key = "FENCE-3" // markers are index entries like any other
	if err := e.s.Fence(ctx, "fence", "a", lk.Generation, batch); err != nil {
		t.Fatalf("Fence: %v", err)
	}
	got := indexed(t, e.s, "fence/1", "fence/2", "fence/3")
	for _, m := range batch {
		if got[string(m.Reference)] != m {
			t.Fatalf("marker %s: got %+v, want %+v", m.Reference, got[string(m.Reference)], m)
		}
	}
	// The holder's lease lapsed but nobody took the lock: still fenced.
	e.clock.Advance(5 * time.Minute)
	late := marker("fence/late")
	if err := e.s.Fence(ctx, "fence", "a", lk.Generation, []core.IndexEntry{late}); err != nil {
		t.Fatalf("Fence after a lapse nobody used: %v", err)
	}
	// Markers survive a reopen.
	e.reopen()
	if got := indexed(t, e.s, "fence/1", "fence/late"); len(got) != 2 {
		t.Fatalf("after reopen: markers %v", got)
	}
	// Another owner, or another generation of the holder, is refused.
	wantLost(t, e.s.Fence(ctx, "fence", "b", lk.Generation, []core.IndexEntry{marker("fence/b")}),
		"Fence by an owner that never held the lock", "fence", "b", lk.Generation, "a", lk.Generation)
	wantLost(t, e.s.Fence(ctx, "fence", "a", lk.Generation+1, []core.IndexEntry{marker("fence/g")}),
		"Fence at a generation the lock never had", "fence", "a", lk.Generation+1, "a", lk.Generation)
	wantLost(t, e.s.Fence(ctx, "never-taken", "a", 1, []core.IndexEntry{marker("fence/n")}),
		"Fence on a lock never taken", "never-taken", "a", 1, "", 0)
	if got := indexed(t, e.s, "fence/b", "fence/g", "fence/n"); len(got) != 0 {
		t.Fatalf("refused fences wrote %v", got)
	}
}

func testFenceAfterTakeover(t *testing.T, e *env) {
	ctx := t.Context()
	a := e.acquireLock("taken", "a", time.Minute)
	// An entry the taker-over wrote must not be overwritten by a's
	// refused marker.
	e.clock.Advance(time.Minute)
	b := e.acquireLock("taken", "b", time.Minute)
	if err := e.s.Fence(ctx, "taken", "b", b.Generation, []core.IndexEntry{{Scope: fenceScope, Reference: "taken/1", Key: "FENCE-1", Digest: "b", UpdatedAt: Epoch}}); err != nil {
		t.Fatalf("Fence by the new holder: %v", err)
	}
	batch := []core.IndexEntry{marker("taken/1"), marker("taken/2")}
	wantLost(t, e.s.Fence(ctx, "taken", "a", a.Generation, batch),
		"Fence after a takeover", "taken", "a", a.Generation, "b", b.Generation)
	got := indexed(t, e.s, "taken/1", "taken/2")
	if _, ok := got["taken/2"]; ok || got["taken/1"].Key != "FENCE-1" || got["taken/1"].Digest != "b" {
		t.Fatalf("a refused Fence wrote markers: %v", got)
	}
	// a renewing now is a takeover attempt against b's live lease.
	e.wantHeld("taken", "a", "b", e.clock.Now().Add(time.Minute))
	// Released: a fence of the released generation is refused too.
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	wantLost(t, e.s.Fence(ctx, "taken", "b", b.Generation, nil),
		"Fence after release", "taken", "b", b.Generation, "", b.Generation)
}

func testFenceInvalid(t *testing.T, e *env) {
	ctx := t.Context()
	lk := e.acquireLock("n", "o", time.Minute)
	for _, c := range []struct {
		name, owner string
		gen         int64
	}{{"", "o", lk.Generation}, {"n", "", lk.Generation}, {"n", "o", 0}, {"n", "o", -1}} {
		err := e.s.Fence(ctx, c.name, c.owner, c.gen, []core.IndexEntry{marker("invalid")})
		wantCode(t, err, core.CodeInternal, fmt.Sprintf("Fence(%q, %q, %d)", c.name, c.owner, c.gen))
	}
	if got := indexed(t, e.s, "invalid"); len(got) != 0 {
		t.Fatalf("refused fences wrote %v", got)
	}
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.s.Fence(ctx, "n", "o", lk.Generation, nil), core.CodeInternal, "Fence on a closed store")
}

// fenceAttempt is one racer's result in a Fence-versus-takeover race.
type fenceAttempt struct {
	Racer            int      `json:"racer"`
	Take             bool     `json:"take"` // AcquireLock (else Fence)
	OK               bool     `json:"ok"`
	Seq              int      `json:"seq,omitempty"`    // the fencer's k-th fence
	Marker           string   `json:"marker,omitempty"` // the fence's marker
	Generation       int64    `json:"generation,omitempty"`
	Seen             []string `json:"seen,omitempty"` // markers the winning taker saw right after taking
	Holder           string   `json:"holder,omitempty"`
	HolderGeneration int64    `json:"holder_generation,omitempty"`
	Code             string   `json:"code,omitempty"`
	Err              string   `json:"err,omitempty"`
}

// fenceRace is one race: lock name, held (lease lapsed) by "old" at gen;
// racers racers, fences fences each.
type fenceRace struct {
	name           string
	gen            int64
	racers, fences int
}

func (r fenceRace) allMarkers() []string {
	var out []string
	for id := range r.racers {
		for k := range r.fences {
			out = append(out, markerRef(r.name, id, k))
		}
	}
	return out
}

// run is racer id's part: even ids try to take the lock over (once, after
// as many index reads as about half the fences take, so that fences land
// on both sides of the takeover; the winner then reads every marker), odd
// ids fence as "old", fences times.
func (r fenceRace) run(ctx context.Context, s core.Store, id int) []fenceAttempt {
	if id%2 == 0 {
		for range r.fences/2 + rand.IntN(r.fences/2+1) {
			if _, err := s.LookupIndex(ctx, fenceScope, []core.Reference{"delay"}); err != nil {
				return []fenceAttempt{{Racer: id, Take: true, Code: string(core.ErrorCode(err)), Err: err.Error()}}
			}
		}
		lk, took := acquire(ctx, s, r.name, fmt.Sprint("taker-", id), time.Hour) // lock.go
		a := fenceAttempt{Racer: id, Take: true, OK: took.Won, Generation: lk.Generation, Holder: took.Holder, Code: took.Code, Err: took.Err}
		if !took.Won {
			return []fenceAttempt{a}
		}
		refs := r.allMarkers()
		rs := make([]core.Reference, len(refs))
		for i, ref := range refs {
			rs[i] = core.Reference(ref)
		}
		seen, err := s.LookupIndex(ctx, fenceScope, rs)
		if err != nil {
			a.Code, a.Err = string(core.ErrorCode(err)), "LookupIndex after the takeover: "+err.Error()
		}
		for ref := range seen {
			a.Seen = append(a.Seen, string(ref))
		}
		return []fenceAttempt{a}
	}
	out := make([]fenceAttempt, 0, r.fences)
	for k := range r.fences {
		ref := markerRef(r.name, id, k)
		err := s.Fence(ctx, r.name, "old", r.gen, []core.IndexEntry{marker(ref)})
		a := fenceAttempt{Racer: id, Seq: k, Marker: ref, OK: err == nil}
		if err != nil {
			a.Code, a.Err = string(core.ErrorCode(err)), err.Error()
			var lost *core.LockLostError
			if errors.As(err, &lost) {
				a.Holder, a.HolderGeneration = lost.Holder, lost.HolderGeneration
			}
		}
		out = append(out, a)
	}
	return out
}

// check verifies the race: one taker won, at a newer generation; the other
// takers were told it holds the lock; every fence that succeeded wrote its
// marker and the winner saw it at once (so it would treat that item as
// possibly written); every fence that failed wrote nothing and named the
// winner; and no fencer succeeded after it had once failed.
func (r fenceRace) check(t *testing.T, s core.Store, attempts []fenceAttempt) {
	t.Helper()
	var (
		winner fenceAttempt
		won    bool
	)
	for _, a := range attempts {
		if a.Take && a.OK {
			if won {
				t.Fatalf("lock %s taken over twice: by racer %d and by racer %d", r.name, winner.Racer, a.Racer)
			}
			winner, won = a, true
		}
	}
	if !won {
		t.Fatalf("nobody took over the lapsed lock %s: %+v", r.name, attempts)
	}
	if winner.Code != "" || winner.Generation <= r.gen {
		t.Fatalf("winner %+v: want generation above %d", winner, r.gen)
	}
	winnerOwner := fmt.Sprint("taker-", winner.Racer)
	seen := map[string]bool{}
	for _, m := range winner.Seen {
		seen[m] = true
	}
	stored := indexed(t, s, r.allMarkers()...)
	failed := map[int]bool{}
	slices.SortStableFunc(attempts, func(a, b fenceAttempt) int { return a.Seq - b.Seq })
	var ok, lost int
	for _, a := range attempts {
		switch {
		case a.Take && a.OK:
		case a.Take:
			if a.Code != string(core.CodeInternal) || a.Holder != winnerOwner {
				t.Fatalf("losing taker got %+v; want the lock held by %s", a, winnerOwner)
			}
		case a.OK:
			ok++
			if failed[a.Racer] {
				t.Fatalf("fencer %d succeeded at fence %d after it had failed", a.Racer, a.Seq)
			}
			if _, in := stored[a.Marker]; !in {
				t.Fatalf("fence %s succeeded but its marker is not stored", a.Marker)
			}
			if !seen[a.Marker] {
				t.Fatalf("fence %s succeeded but the taker-over did not see its marker right after taking the lock", a.Marker)
			}
		default:
			lost++
			failed[a.Racer] = true
			if a.Code != string(core.CodeInternal) || a.Holder != winnerOwner || a.HolderGeneration != winner.Generation {
				t.Fatalf("refused fence %+v; want lost to %s at generation %d", a, winnerOwner, winner.Generation)
			}
			if _, in := stored[a.Marker]; in {
				t.Fatalf("fence %s was refused but wrote its marker", a.Marker)
			}
		}
	}
	t.Logf("lock %s: %d fences before the takeover, %d refused after it", r.name, ok, lost)
}

func testConcurrentFenceTakeover(t *testing.T, e *env) {
	const racers, fences = 16, 20
	old := e.acquireLock("fence-race", "old", time.Minute)
	e.clock.Advance(time.Minute) // old's lease lapsed: anyone may take over
	r := fenceRace{name: "fence-race", gen: old.Generation, racers: racers, fences: fences}
	r.check(t, e.s, inGoroutines(racers, func(id int) []fenceAttempt { return r.run(t.Context(), e.s, id) }))
}

func runFenceChild(ctx context.Context, open func(ctx context.Context) (core.Store, error)) error {
	return runRaceChild(ctx, open, func(ctx context.Context, s core.Store, _, id int, args []string, _ time.Time) []any {
		r, err := parseFenceRace(args)
		if err != nil {
			return []any{fenceAttempt{Racer: id, Err: err.Error()}}
		}
		var out []any
		for _, a := range r.run(ctx, s, id) {
			out = append(out, a)
		}
		return out
	})
}

func parseFenceRace(args []string) (fenceRace, error) {
	if len(args) != 4 {
		return fenceRace{}, fmt.Errorf("fence race arguments %q", args)
	}
	gen, err1 := strconv.ParseInt(args[1], 10, 64)
	racers, err2 := strconv.Atoi(args[2])
	fences, err3 := strconv.Atoi(args[3])
	if err := errors.Join(err1, err2, err3); err != nil {
		return fenceRace{}, err
	}
	return fenceRace{name: args[0], gen: gen, racers: racers, fences: fences}, nil
}

// processFenceRace races Fence against a takeover across processes: s
// takes a lock for "old" with a lease of one microsecond (it has lapsed by
// the time the children start), then procs copies of the test binary
// (goroutines racers each, env added to their environment so they open the
// same underlying store) start at once. Half the racers try to take the lock over (the winner
// then reads every marker at once), the other half fence as "old", 20
// times each, with one marker per fence. It checks that exactly one took
// over, that every fence that succeeded wrote its marker and was seen by
// the winner, and that every fence refused wrote nothing and named the
// winner.
func processFenceRace(t *testing.T, s core.Store, procs, goroutines int, env []string) {
	t.Helper()
	name := fmt.Sprintf("proc-fence-%d", time.Now().UnixNano())
	old, err := s.AcquireLock(t.Context(), name, "old", time.Microsecond)
	if err != nil {
		t.Fatalf("AcquireLock: %v", err)
	}
	r := fenceRace{name: name, gen: old.Generation, racers: procs * goroutines, fences: 20}
	args := []string{name, strconv.FormatInt(r.gen, 10), strconv.Itoa(r.racers), strconv.Itoa(r.fences)}
	all := raceAttempts[fenceAttempt](t, childFence, args, procs, goroutines, time.Now(), env, 0)
	r.check(t, s, all)
	t.Logf("%d processes × %d goroutines raced Fence against a takeover", procs, goroutines)
}

func testPreviewDigest(t *testing.T, e *env) {
	ctx := t.Context()
	p := e.preview(core.PreviewImport, time.Hour)
	e.save(p)
	if got := e.load(p.Handle); got.Digest != core.PlanDigest(p.Plan) {
		t.Fatalf("LoadPreview digest %q, want %q", got.Digest, core.PlanDigest(p.Plan))
	}
	// A caller may pass the digest; it must be the plan's.
	q := e.preview(core.PreviewImport, time.Hour)
	q.Digest = core.PlanDigest(q.Plan)
	e.save(q)
	bad := e.preview(core.PreviewImport, time.Hour)
	bad.Digest = core.PlanDigest([]byte("another plan"))
	wantCode(t, e.s.SavePreview(ctx, bad), core.CodeInternal, "SavePreview with a digest that is not its plan's")
	wantCode(t, loadErr(e, bad.Handle), core.CodePreviewNotFound, "LoadPreview of a refused preview")
	empty := e.preview(core.PreviewProgress, time.Hour)
	empty.Plan = nil
	e.save(empty)
	if got := e.load(empty.Handle); got.Digest != core.PlanDigest([]byte{}) {
		t.Fatalf("digest of an empty plan %q", got.Digest)
	}
}

func loadErr(e *env, handle string) error {
	_, err := e.s.LoadPreview(e.t.Context(), handle)
	return err
}

func testStartRunPlanDigest(t *testing.T, e *env) {
	ctx := t.Context()
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	shown := e.load(p.Handle).Digest
	other := core.PlanDigest([]byte("the plan someone swapped in"))
	req := core.StartRunRequest{Key: "k-digest", Handle: p.Handle, RunID: "run-digest", Now: e.clock.Now(), PlanDigest: other}
	_, started, err := e.s.StartRun(ctx, req)
	if started {
		t.Fatal("StartRun with another plan digest started")
	}
	ce := wantCode(t, err, core.CodePreviewStale, "StartRun with a plan digest the stored plan does not have")
	var changed *core.PlanChangedError
	if !errors.As(ce, &changed) {
		t.Fatalf("%v has no *core.PlanChangedError cause", err)
	}
	if *changed != (core.PlanChangedError{Handle: p.Handle, Want: other, Stored: shown}) {
		t.Fatalf("cause %+v", *changed)
	}
	// Nothing was consumed and no run exists.
	if got := e.load(p.Handle); !got.ConsumedAt.IsZero() || got.ConsumedBy != "" {
		t.Fatalf("refused StartRun consumed the handle: %+v", summary(got))
	}
	if _, found, err := e.s.GetRun(ctx, "k-digest"); err != nil || found {
		t.Fatalf("refused StartRun left a run: found %v, %v", found, err)
	}
	// The digest the confirmer saw starts it.
	req.PlanDigest = shown
	if _, started, err := e.s.StartRun(ctx, req); err != nil || !started {
		t.Fatalf("StartRun with the shown digest: started %v, %v", started, err)
	}
	// A repeat of the same key returns the run, whatever the digest.
	req.PlanDigest = other
	if r, started, err := e.s.StartRun(ctx, req); err != nil || started || r.Key != "k-digest" {
		t.Fatalf("repeat StartRun: %+v started %v, %v", r, started, err)
	}
	// Consumed and expired win over the digest check.
	req.Key = "k-digest-2"
	_, _, err = e.s.StartRun(ctx, req)
	wantCode(t, err, core.CodePreviewNotFound, "StartRun of a consumed handle with another digest")
	exp := e.save(e.preview(core.PreviewImport, time.Minute))
	e.clock.Advance(time.Minute)
	_, _, err = e.s.StartRun(ctx, core.StartRunRequest{Key: "k-digest-3", Handle: exp.Handle, RunID: "r3", Now: e.clock.Now(), PlanDigest: other})
	wantCode(t, err, core.CodePreviewExpired, "StartRun of an expired handle with another digest")
}
