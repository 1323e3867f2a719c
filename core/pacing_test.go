package core

import (
	"testing"
	"time"
)

// The learned rate: it grows only while sends wait for it (slow start:
// one per clean answer), a refusal halves it the first time and takes
// 20% later, refusals within a second of a cut (already in flight) cut
// nothing more, a Near hint ends slow start, and after it a second's
// worth of clean answers adds one (PaceNearSlowdown seconds' worth near
// the rate of the last cut).
func TestPaceStateLearnsTheRate(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	g := s.Take(t0, PaceRequest{Want: 4})
	if len(g.Sends) != 4 || g.Rate != PaceStartRate {
		t.Fatalf("first take %+v", g)
	}
	if g = s.Take(t0, PaceRequest{Clean: 4}); g.Rate != PaceStartRate {
		t.Fatalf("clean answers while nothing waited grew the rate to %v", g.Rate)
	}
	s.Take(t0, PaceRequest{Want: PaceMaxGrant}) // short: sends wait now
	if g = s.Take(t0, PaceRequest{Clean: 4}); g.Rate != PaceStartRate+4 {
		t.Fatalf("slow start: rate %v after 4 clean answers while short; want %v", g.Rate, PaceStartRate+4)
	}
	t1 := t0.Add(100 * time.Millisecond)
	if g = s.Take(t1, PaceRequest{Refused: true}); g.Rate != (PaceStartRate+4)*PaceFirstCut {
		t.Fatalf("first refusal: rate %v; want halved", g.Rate)
	}
	r := g.Rate
	if g = s.Take(t1.Add(500*time.Millisecond), PaceRequest{Refused: true}); g.Rate != r {
		t.Fatalf("a refusal within a second of the cut cut again: %v", g.Rate)
	}
	if g = s.Take(t1.Add(1500*time.Millisecond), PaceRequest{Refused: true}); g.Rate != r*PaceCut {
		t.Fatalf("a later refusal: rate %v; want %v", g.Rate, r*PaceCut)
	}
	r = g.Rate
	// The rate (8) is near the one it was cut from (10): one more per
	// second takes PaceNearSlowdown seconds' worth of clean answers.
	t2 := t1.Add(5 * time.Second)
	s.Take(t2, PaceRequest{Want: PaceMaxGrant})
	if g = s.Take(t2, PaceRequest{Clean: int(r)*PaceNearSlowdown - 1}); g.Rate != r {
		t.Fatalf("steady: rate %v before %d seconds' worth of clean answers; want %v", g.Rate, PaceNearSlowdown, r)
	}
	if g = s.Take(t2, PaceRequest{Clean: 1}); g.Rate != r+1 {
		t.Fatalf("steady: rate %v after %d seconds' worth; want %v", g.Rate, PaceNearSlowdown, r+1)
	}

	var n PaceState
	n.Take(t0, PaceRequest{Want: PaceMaxGrant})
	n.Take(t0, PaceRequest{Want: PaceMaxGrant, Near: true})
	if g = n.Take(t0, PaceRequest{Clean: 5}); g.Rate != PaceStartRate {
		t.Fatalf("after a Near hint, 5 clean answers made the rate %v; want no slow-start growth", g.Rate)
	}
}

// Grants never buy more than the bucket and a second ahead, honour the
// pause, and refill at the rate. A new key's bucket starts with
// PaceStartBurst, not a second's worth: the tracker's bucket for the
// endpoint is unknown.
func TestPaceStateGrants(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	if g := s.Take(t0, PaceRequest{Want: PaceMaxGrant}); len(g.Sends) != PaceMaxGrant || g.Sends[int(PaceStartBurst)-1] != 0 || g.Sends[int(PaceStartBurst)] == 0 {
		t.Fatalf("a new key's first grant %v; want %v sends at once, the rest at the rate", g.Sends, PaceStartBurst)
	}
	total := PaceMaxGrant
	for range 10 {
		total += len(s.Take(t0, PaceRequest{Want: 5}).Sends)
	}
	if want := int(PaceStartBurst) + int(PaceStartRate); total != want {
		t.Fatalf("granted %d on a standing clock; want %d (the first bucket and a second ahead)", total, want)
	}
	g := s.Take(t0.Add(time.Second), PaceRequest{Want: 1})
	if iv := time.Second / time.Duration(PaceStartRate); len(g.Sends) != 1 || g.Sends[0] != iv {
		t.Fatalf("1 s later (the second bought ahead repaid): %v; want one send after %v", g.Sends, iv)
	}
	g = s.Take(t0.Add(3*time.Second), PaceRequest{Want: 1, Refused: true, RetryAfter: 3 * time.Second})
	if len(g.Sends) != 0 || g.Retry < 2*time.Second {
		t.Fatalf("a 3 s Retry-After: sends %v, retry %v; want none and a retry near its end", g.Sends, g.Retry)
	}
	if g = s.Take(t0.Add(6*time.Second), PaceRequest{Want: 1}); len(g.Sends) != 1 || g.Sends[0] != 0 {
		t.Fatalf("after the pause: %v; want one at once", g.Sends)
	}
}

// A new key starts from the rate the caller learned on another key of
// the site, past slow start; a known key past slow start ignores the
// hint.
func TestPaceStateStartsFromTheSitesRate(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	g := s.Take(t0, PaceRequest{Want: PaceMaxGrant, Start: 6})
	if g.Rate != 6 || !g.Steady || len(g.Sends) != 12 || g.Sends[5] != 0 || g.Sends[6] == 0 {
		t.Fatalf("a new key with a start of 6: %+v; want rate 6, steady, 6 at once and 6 more within a second", g)
	}
	if g = s.Take(t0, PaceRequest{Start: 50}); g.Rate != 6 {
		t.Fatalf("a known key took the hint: rate %v", g.Rate)
	}
	// A key in slow start that has grown past the rate another key of
	// the site was refused at ends slow start there; one below it keeps
	// growing.
	var u PaceState
	u.Take(t0, PaceRequest{Want: PaceMaxGrant})
	if g = u.Take(t0, PaceRequest{Want: PaceMaxGrant, Clean: 8}); g.Rate != PaceStartRate+8 || g.Steady {
		t.Fatalf("slow start: %+v", g)
	}
	if g = u.Take(t0, PaceRequest{Clean: 2, Start: PaceStartRate + 20}); g.Rate != PaceStartRate+10 || g.Steady {
		t.Fatalf("a hint above the rate: %+v; want slow start going on", g)
	}
	if g = u.Take(t0, PaceRequest{Want: 1, Start: 8}); g.Rate != 8 || !g.Steady {
		t.Fatalf("a hint below the rate in slow start: %+v; want rate 8, steady", g)
	}
}

// Past a cut, the rate grows one per second's worth of clean answers
// until it nears the rate it was cut from, and then PaceNearSlowdown
// times more slowly: each probe above the limit costs refusals.
func TestPaceStateGrowsSlowlyNearTheRefusedRate(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	s := PaceState{Rate: 20, Steady: true, At: t0, Level: 20}
	s.Take(t0, PaceRequest{Refused: true}) // cut from 20 to 16
	now := t0.Add(2 * time.Second)
	grow := func(clean int) float64 {
		s.Take(now, PaceRequest{Want: PaceMaxGrant})
		s.Take(now, PaceRequest{Want: PaceMaxGrant}) // sends wait: short
		return s.Take(now, PaceRequest{Clean: clean}).Rate
	}
	if r := grow(16); r != 17 {
		t.Fatalf("a second's worth at 16 (ceiling 20): rate %v; want 17", r)
	}
	// 17 + 1 ≥ 0.9 × 20: near the ceiling.
	if r := grow(17); r != 17 {
		t.Fatalf("a second's worth at 17 near the ceiling 20: rate %v; want still 17", r)
	}
	if r := grow(17*PaceNearSlowdown - 17); r != 18 {
		t.Fatalf("%d seconds' worth at 17: rate %v; want 18", PaceNearSlowdown, r)
	}
}

// A key in slow start bought by one buyer alone is not paced by a rate:
// the grant lets it send freely for PaceFree (its window paces it). A
// second buyer within PaceAlone shares the key: neither is free until
// PaceAlone after the last change of buyer. A refusal ends it, and so
// does a caller that names no buyer.
func TestPaceStateLetsALoneBuyerGoFree(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	g := s.Take(t0, PaceRequest{Want: PaceMaxGrant, Buyer: "a"})
	if g.Free != PaceFree || len(g.Sends) != 0 || g.Steady {
		t.Fatalf("a new key's first buyer: %+v; want free for %v, no send times", g, PaceFree)
	}
	if g = s.Take(t0.Add(time.Second), PaceRequest{Want: PaceMaxGrant, Buyer: "a", Clean: 300}); g.Free != PaceFree {
		t.Fatalf("the same buyer a second later: %+v; want free again", g)
	}
	t1 := t0.Add(1500 * time.Millisecond)
	if g = s.Take(t1, PaceRequest{Want: PaceMaxGrant, Buyer: "b"}); g.Free != 0 || len(g.Sends) == 0 {
		t.Fatalf("a second buyer: %+v; want send times, not free", g)
	}
	if g = s.Take(t1.Add(500*time.Millisecond), PaceRequest{Want: PaceMaxGrant, Buyer: "a"}); g.Free != 0 {
		t.Fatalf("the first buyer after the second came: %+v; want shared, not free", g)
	}
	if g = s.Take(t1.Add(PaceAlone+600*time.Millisecond), PaceRequest{Want: PaceMaxGrant, Buyer: "a"}); g.Free != PaceFree {
		t.Fatalf("the first buyer alone again for %v: %+v; want free", PaceAlone, g)
	}
	var n PaceState
	if g = n.Take(t0, PaceRequest{Want: PaceMaxGrant}); g.Free != 0 || len(g.Sends) != PaceMaxGrant {
		t.Fatalf("no buyer named: %+v; want paced by send times", g)
	}
	var r PaceState
	r.Take(t0, PaceRequest{Want: 4, Buyer: "a"})
	if g = r.Take(t0.Add(time.Second), PaceRequest{Want: 4, Buyer: "a", Refused: true, Sent: 20}); g.Free != 0 || !g.Steady {
		t.Fatalf("after a refusal: %+v; want steady, not free", g)
	}
}

// A free buyer's first refusal cuts from the rate it was served at (the
// clean answers of its last second), not from a rate it was not paced
// by: half of it, and the limit is near the rate served.
func TestPaceStateFirstCutFromTheServedRate(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	s.Take(t0, PaceRequest{Want: 4, Buyer: "a"})
	g := s.Take(t0.Add(500*time.Millisecond), PaceRequest{Want: 4, Buyer: "a", Clean: 300, Refused: true, Sent: 14})
	if g.Rate != 14*PaceFirstCut || s.Ceil != 14 || !g.Steady {
		t.Fatalf("refused after 14 served in a second: rate %v, ceiling %v, steady %v; want %v, 14, steady", g.Rate, s.Ceil, g.Steady, 14*PaceFirstCut)
	}
}

// A key shared by buyers in slow start: a refusal one of them tells cuts
// the key's rate, not that buyer's own sends (its share of the rate).
func TestPaceStateSharedFirstCutFromTheKeysRate(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	s.Take(t0, PaceRequest{Want: 4, Buyer: "a"})
	s.Take(t0.Add(100*time.Millisecond), PaceRequest{Want: 4, Buyer: "b"})
	g := s.Take(t0.Add(300*time.Millisecond), PaceRequest{Want: 4, Buyer: "a", Refused: true, RetryAfter: time.Second, Sent: 2})
	if want := PaceStartRate * PaceFirstCut; g.Rate != want || !g.Steady {
		t.Fatalf("a shared key refused while one buyer sent 2 in a second: rate %v, steady %v; want half the key's %v, %v", g.Rate, g.Steady, PaceStartRate, want)
	}
	if g.Pause < 900*time.Millisecond || !g.Shared {
		t.Errorf("the grant says pause %v, shared %v; want the Retry-After left, shared", g.Pause, g.Shared)
	}
}

// A refusal that starts a pause forgets the send times bought ahead
// before it (their buyers drop them): the bucket refills from zero during
// the pause, so after it a bucket's worth goes at once, as the tracker's
// bucket (refilled meanwhile) allows.
func TestPaceStateRefusalForgetsWhatWasBoughtAhead(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	s := PaceState{Rate: 10, Steady: true}
	for _, b := range []string{"a", "b"} {
		s.Take(t0, PaceRequest{Want: PaceMaxGrant, Buyer: b}) // a second's worth ahead
	}
	g := s.Take(t0.Add(50*time.Millisecond), PaceRequest{Buyer: "a", Refused: true, RetryAfter: time.Second})
	if g.Pause != time.Second {
		t.Fatalf("pause %v after the refusal; want its Retry-After", g.Pause)
	}
	g = s.Take(t0.Add(1050*time.Millisecond), PaceRequest{Want: PaceMaxGrant, Buyer: "b"})
	now := 0
	for _, at := range g.Sends {
		if at == 0 {
			now++
		}
	}
	if want := int(s.Rate) - 1; now < want {
		t.Errorf("after the pause %d sends at once (%v); want the bucket refilled during it, at least %d", now, g.Sends, want)
	}
}

// A site's key told Proven says so to a later read, until a refusal or a
// learned rate (Start) comes.
func TestPaceStateRemembersAFastSiteUntilARefusal(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	if g := s.Take(t0, PaceRequest{}); g.Proven {
		t.Fatal("a new key reads as proven")
	}
	s.Take(t0, PaceRequest{Proven: true})
	if g := s.Take(t0.Add(time.Hour), PaceRequest{}); !g.Proven {
		t.Fatal("a key told Proven does not say so to a later read")
	}
	refused := s
	refused.Take(t0.Add(time.Hour), PaceRequest{Refused: true, RetryAfter: time.Second})
	if g := refused.Take(t0.Add(2*time.Hour), PaceRequest{}); g.Proven {
		t.Error("after a refusal the key still says the site is fast")
	}
	s.Take(t0.Add(time.Hour), PaceRequest{Start: 8})
	if g := s.Take(t0.Add(2*time.Hour), PaceRequest{}); g.Proven {
		t.Error("after a rate was learned the key still says the site is fast")
	}
}
