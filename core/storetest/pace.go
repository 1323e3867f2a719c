package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// testPace: a new key grants PaceStartBurst sends at once and the rest of
// a second's worth at PaceStartRate ahead, spaced at the rate, and no more
// (the clock stands still); keys are independent; the state survives a
// reopen; a refusal cuts the rate and holds every send until its
// Retry-After, which a check (an empty request) answers as Pause; a
// second buyer's grant says the key is shared; concurrent takers
// (goroutines on one store, and a second store opened on the same data)
// never share out more than the bucket holds: the update is atomic.
func testPace(t *testing.T, e *env) {
	ps := capability[core.PaceStore](t, e)
	ctx := t.Context()
	take := func(ps core.PaceStore, key string, r core.PaceRequest) core.PaceGrant {
		t.Helper()
		g, err := ps.TakePace(ctx, key, r)
		if err != nil {
			t.Fatalf("TakePace(%s, %+v): %v", key, r, err)
		}
		return g
	}
	burst, start := int(core.PaceStartBurst), int(core.PaceStartRate)
	interval := time.Duration(float64(time.Second) / core.PaceStartRate)
	spaced := func(g core.PaceGrant, first int) {
		t.Helper()
		for i, at := range g.Sends {
			want := time.Duration(max(0, first+i-burst+1)) * interval
			if at < want-time.Millisecond || at > want+time.Millisecond {
				t.Fatalf("send %d at %v; want %v (%d at once, then spaced at the rate): %v", first+i, at, want, burst, g.Sends)
			}
		}
	}
	g := take(ps, "site|A", core.PaceRequest{Want: start})
	if len(g.Sends) != start || g.Rate != core.PaceStartRate {
		t.Fatalf("a new key granted %v at rate %v; want %d sends at %v", g.Sends, g.Rate, start, core.PaceStartRate)
	}
	spaced(g, 0)
	g = take(ps, "site|A", core.PaceRequest{Want: start + 4})
	if len(g.Sends) != burst {
		t.Fatalf("%d more sends granted; want %d (the rest of one second ahead)", len(g.Sends), burst)
	}
	spaced(g, start)
	if g = take(ps, "site|A", core.PaceRequest{Want: 1}); len(g.Sends) != 0 || g.Retry <= 0 {
		t.Fatalf("a second ahead bought, another send granted %v (retry %v); want none and a retry", g.Sends, g.Retry)
	}
	if g = take(ps, "site|B", core.PaceRequest{Want: 3}); len(g.Sends) != 3 || g.Sends[2] != 0 {
		t.Fatalf("another key granted %v; want 3 at once (keys are independent)", g.Sends)
	}
	// Kept across a reopen.
	e.reopen()
	ps = capability[core.PaceStore](t, e)
	if g = take(ps, "site|A", core.PaceRequest{Want: 1}); len(g.Sends) != 0 {
		t.Fatalf("after a reopen the spent key granted %v; want none (the state is kept)", g.Sends)
	}
	// Two seconds later the bucket is full again; a refusal cuts the rate
	// and holds every send until its Retry-After.
	e.clock.Advance(2 * time.Second)
	g = take(ps, "site|A", core.PaceRequest{Refused: true, RetryAfter: 500 * time.Millisecond, Want: 2})
	if g.Rate >= core.PaceStartRate || g.Rate < 1 {
		t.Fatalf("a refusal left the rate at %v; want it cut below %v", g.Rate, core.PaceStartRate)
	}
	if len(g.Sends) == 0 || g.Sends[0] < 500*time.Millisecond {
		t.Fatalf("after a refusal with Retry-After 500ms, sends at %v; want none before 500ms", g.Sends)
	}
	// A check (nothing bought, nothing told) says the pause to another
	// buyer holding send times bought before the refusal.
	if g = take(ps, "site|A", core.PaceRequest{}); g.Pause < 490*time.Millisecond || g.Pause > 500*time.Millisecond || len(g.Sends) != 0 {
		t.Fatalf("a check after the refusal answered pause %v, sends %v; want the 500ms left, none", g.Pause, g.Sends)
	}
	// Two buyers within PaceAlone: each answer says the key is shared.
	take(ps, "site|D", core.PaceRequest{Want: 1, Buyer: "one"})
	if g = take(ps, "site|D", core.PaceRequest{Want: 1, Buyer: "two"}); !g.Shared {
		t.Fatal("a second buyer's grant does not say the key is shared")
	}
	// Atomic: takers at once on a standing clock share out exactly one
	// bucket and one second ahead, never more.
	other := e.openClock(e.clock.Now)
	ops := capability[core.PaceStore](t, &env{t: t, s: other})
	var (
		mu    sync.Mutex
		total int
		wg    sync.WaitGroup
	)
	for i := range 8 {
		s := ps
		if i%2 == 1 {
			s = ops
		}
		wg.Go(func() {
			for range 6 {
				g, err := s.TakePace(ctx, "site|C", core.PaceRequest{Want: 2})
				if err != nil {
					t.Errorf("TakePace: %v", err)
					return
				}
				mu.Lock()
				total += len(g.Sends)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if total != burst+start {
		t.Errorf("concurrent takers were granted %d sends; want exactly %d (the first bucket and a second ahead)", total, burst+start)
	}
}

// testPacePrune: Prune deletes the pacing state of a key nobody took for
// longer than Retention.Pace, measured on the clock TakePace stamps it
// with, and keeps the others: the pruned key starts again as a new one (at
// PaceStartRate), the kept one keeps the rate it learned.
func testPacePrune(t *testing.T, e *env) {
	ps := capability[core.PaceStore](t, e)
	ctx := t.Context()
	cut := func(key string) float64 {
		t.Helper()
		g, err := ps.TakePace(ctx, key, core.PaceRequest{Refused: true, RetryAfter: time.Second, Want: 1})
		if err != nil {
			t.Fatalf("TakePace(%s): %v", key, err)
		}
		if g.Rate >= core.PaceStartRate {
			t.Fatalf("a refusal left %s at rate %v; want it cut", key, g.Rate)
		}
		return g.Rate
	}
	rate := func(key string) float64 {
		t.Helper()
		g, err := ps.TakePace(ctx, key, core.PaceRequest{Want: 1})
		if err != nil {
			t.Fatalf("TakePace(%s): %v", key, err)
		}
		return g.Rate
	}
	cut("site|old")
	kept := cut("site|used")
	e.clock.Advance(20 * 24 * time.Hour)
	if r := rate("site|used"); r != kept {
		t.Fatalf("site|used at rate %v after 20 days; want the learned %v", r, kept)
	}
	e.clock.Advance(11 * 24 * time.Hour) // old: 31 days unused; used: 11
	n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{})
	if err != nil || n.Pace != 1 {
		t.Fatalf("Prune after 31 days = %+v, %v; want 1 pacing state deleted (the default keeps %v)", n, err, core.DefaultRetention.Pace)
	}
	if r := rate("site|old"); r != core.PaceStartRate {
		t.Errorf("the pruned key paces at %v; want %v (a new key)", r, core.PaceStartRate)
	}
	if r := rate("site|used"); r != kept {
		t.Errorf("the key used 11 days ago paces at %v; want the learned %v (kept)", r, kept)
	}
	// A shorter retention, and a second Prune finds nothing more.
	e.clock.Advance(2 * time.Hour)
	if n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{Pace: time.Hour}); err != nil || n.Pace != 2 {
		t.Fatalf("Prune with a 1-hour retention = %+v, %v; want 2 pacing states deleted", n, err)
	}
	if n, err := e.s.Prune(ctx, e.clock.Now(), core.Retention{Pace: time.Hour}); err != nil || n.Pace != 0 {
		t.Fatalf("Prune again = %+v, %v; want nothing", n, err)
	}
}
