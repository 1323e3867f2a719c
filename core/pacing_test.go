package core

import (
	"testing"
	"time"
)

// The learned rate: it grows only while sends wait for it (slow start:
// one per clean answer), a refusal halves it the first time and takes
// 20% later, refusals within a second of a cut (already in flight) cut
// nothing more, a Near hint ends slow start, and after it a second's
// worth of clean answers adds one.
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
	t2 := t1.Add(5 * time.Second)
	s.Take(t2, PaceRequest{Want: PaceMaxGrant})
	if g = s.Take(t2, PaceRequest{Clean: int(r) - 1}); g.Rate != r {
		t.Fatalf("steady: rate %v before a second's worth of clean answers; want %v", g.Rate, r)
	}
	if g = s.Take(t2, PaceRequest{Clean: 1}); g.Rate != r+1 {
		t.Fatalf("steady: rate %v after a second's worth; want %v", g.Rate, r+1)
	}

	var n PaceState
	n.Take(t0, PaceRequest{Want: PaceMaxGrant})
	n.Take(t0, PaceRequest{Want: PaceMaxGrant, Near: true})
	if g = n.Take(t0, PaceRequest{Clean: 5}); g.Rate != PaceStartRate {
		t.Fatalf("after a Near hint, 5 clean answers made the rate %v; want no slow-start growth", g.Rate)
	}
}

// Grants never buy more than the bucket and a second ahead, honour the
// pause, and refill at the rate.
func TestPaceStateGrants(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	var s PaceState
	total := 0
	for range 10 {
		total += len(s.Take(t0, PaceRequest{Want: 5}).Sends)
	}
	if total != 2*int(PaceStartRate) {
		t.Fatalf("granted %d on a standing clock; want %d", total, 2*int(PaceStartRate))
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
// the site, past slow start; a known key ignores the hint.
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
}
