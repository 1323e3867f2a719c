package core

import (
	"encoding/json"
	"math"
	"time"
)

// Pacing shared by processes: a tracker's rate limits are per site (Jira's
// burst limit counts every request to one endpoint of a site, whoever
// sends it), so processes that share a state store pace through it. The
// store keeps one PaceState per key (a site's endpoint, as the provider
// names it) and applies PaceState.Take atomically across every process;
// a process buys a batch of send times in one call and spends them
// itself. The rate is learned, not read from the tracker's headers (Jira
// does not expose its burst budget): it starts at PaceStartRate, grows
// while answers come back clean and sends wait for it, and is cut when a
// request is refused. A key in slow start bought by one buyer alone (one
// process) is not paced by a rate at all: the grant lets that buyer send
// freely for PaceFree (its in-flight window, which doubles per round
// trip, paces it) and it buys again after that, so a site that never
// refuses is served as fast as it answers and the store is asked about
// once a second per endpoint. A refusal ends it (the first cut is made
// from the rate the buyer was sending at), and so does a second buyer:
// processes that share a site then share one rate. A refusal pauses the
// key for its Retry-After (the tracker refuses every request to the
// endpoint until then); every answer says the pause left (PaceGrant.Pause)
// and whether other buyers share the key (PaceGrant.Shared), so a buyer
// holding send times bought before another's refusal checks them with an
// empty request before spending one, and spends none inside it.
// PaceState is the whole algorithm; the stores only keep it.

// PaceRequest is what a process asks of a shared pace, and what it tells
// about the answers it had since its last request.
type PaceRequest struct {
	// Want is how many sends it asks for (0: only report). A grant holds
	// at most Want and at most PaceMaxGrant.
	Want int `json:"want,omitempty"`
	// Clean is the number of answers without a sign of a limit.
	Clean int `json:"clean,omitempty"`
	// Refused: a request was refused for the rate (a 429 of this limit).
	Refused bool `json:"refused,omitempty"`
	// RetryAfter is how long the refusal said to wait, from now.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Near: the tracker said a budget runs low (a hint: stop growing).
	Near bool `json:"near,omitempty"`
	// Start is the rate the caller learned on another key of the same
	// tracker site (0: none). A key nobody has paced yet starts at it,
	// past slow start (else at PaceStartRate, in slow start), and a key
	// still in slow start above it (or sending freely) ends slow start
	// at it: a site whose limit was found on one endpoint is not found
	// again by refusals on each.
	Start float64 `json:"start,omitempty"`
	// Buyer names the caller (one id per process's pacer; empty: never
	// free). While the key is in slow start and no other buyer bought it
	// within PaceAlone, the grant lets the buyer send freely (Free).
	Buyer string `json:"buyer,omitempty"`
	// Proven: the caller saw the tracker site serve PaceProven clean
	// answers within one second (on any of its endpoints) and refuse
	// none (told to a site's key, which remembers it until a refusal
	// teaches it a rate: PaceGrant.Proven).
	Proven bool `json:"proven,omitempty"`
	// Sent is how many sends the caller made to the key in the last
	// second (told with a refusal: a free buyer's rate, which the first
	// cut is made from; ignored when the key is not sent to freely).
	Sent int `json:"sent,omitempty"`
}

// PaceGrant is the answer: the send times bought, as offsets from now
// (ascending; a send may go once its offset has passed). Empty when
// nothing can be granted within PaceAhead: ask again after Retry.
type PaceGrant struct {
	Sends []time.Duration `json:"sends,omitempty"`
	Retry time.Duration   `json:"retry,omitempty"`
	// Rate is the rate the grant was made at (requests per second), and
	// Steady says it was learned (slow start is over).
	Rate   float64 `json:"rate"`
	Steady bool    `json:"steady,omitempty"`
	// Free: the buyer may send without buying for this long (no send
	// times are given; only its in-flight window paces it), then it buys
	// again (0: pace by Sends).
	Free time.Duration `json:"free,omitempty"`
	// Pause is how long from now no send may go (a refusal's
	// Retry-After, told by whoever saw it; 0: none). Every answer says
	// it, a request with nothing to report or buy too (a check): a
	// buyer holding send times it bought before the refusal spends none
	// of them inside it.
	Pause time.Duration `json:"pause,omitempty"`
	// Proven: a caller told the key PaceRequest.Proven and no refusal
	// has taught it a rate since (a site known to serve fast: a new
	// process need not find its limits two requests at a time).
	Proven bool `json:"proven,omitempty"`
	// Shared: another buyer bought the key within PaceAlone of this
	// buyer (its refusals are not this buyer's to see): send times
	// bought ahead are worth checking against Pause before they are
	// spent.
	Shared bool `json:"shared,omitempty"`
}

// PaceState is the pacing of one key, as a store keeps it.
type PaceState struct {
	// Rate is the learned rate, requests per second (0: PaceStartRate).
	Rate float64 `json:"rate,omitempty"`
	// Level is the tokens at At: up to Rate × 1 s; below zero when sends
	// were bought ahead of time.
	Level float64   `json:"level"`
	At    time.Time `json:"at"`
	// Pause: no send before it (the last refusal's Retry-After).
	Pause time.Time `json:"pause"`
	// Cut is when the rate was last cut (zero: never; it is in slow
	// start, growing by one per clean answer).
	Cut time.Time `json:"cut"`
	// Steady: slow start is over (a refusal or a Near hint came).
	Steady bool `json:"steady,omitempty"`
	// Clean counts clean answers towards the next additive step.
	Clean int `json:"clean,omitempty"`
	// Short is when a grant last could not give every send at once:
	// the rate grows only while sends wait for it.
	Short time.Time `json:"short"`
	// Ceil is the rate the last cut was made from (0: none): the limit is
	// near it, so past slow start the rate grows slowly once it comes
	// within PaceNear of it (each probe above the limit costs refusals
	// and a Retry-After).
	Ceil float64 `json:"ceil,omitempty"`
	// Buyer and Bought: who bought last, and when (PaceRequest.Buyer);
	// Shared: when another buyer last bought within PaceAlone of the one
	// before (the key is shared until PaceAlone after it).
	Buyer  string    `json:"buyer,omitempty"`
	Bought time.Time `json:"bought"`
	Shared time.Time `json:"shared"`
	// Free: the last grant let its buyer send freely (its rate is not
	// Rate: a Start ends its slow start whatever Rate says).
	Free bool `json:"free,omitempty"`
	// Proven: when a caller last told PaceRequest.Proven (zero: never,
	// or a refusal came since).
	Proven time.Time `json:"proven"`
}

// Pacing constants (docs/jira-client.md, "Pacing").
const (
	// PaceStartRate is the rate of a key nobody has paced yet.
	PaceStartRate = 16.0
	// PaceStartBurst is what a key nobody has paced yet may send at once
	// (its bucket's first level, in slow start): the tracker's bucket for
	// that endpoint is unknown, and a full second's worth sent at once
	// would find it by refusals.
	PaceStartBurst = 4.0
	// PaceMaxRate bounds the learned rate.
	PaceMaxRate = 1000.0
	// PaceMaxGrant bounds one grant.
	PaceMaxGrant = 16
	// PaceAhead is how far ahead a grant may buy sends.
	PaceAhead = time.Second
	// PaceFirstCut and PaceCut scale the rate on a refusal: the first
	// ends slow start (which may have doubled past the limit), later ones
	// are Atlassian's "80% of the refused rate".
	PaceFirstCut = 0.5
	PaceCut      = 0.8
	// paceCutGap: refusals within it of a cut were in flight before it
	// and cut nothing more.
	paceCutGap = time.Second
	// paceShortFor: the rate grows only within it of a short grant.
	paceShortFor = 2 * time.Second
	// PaceNear and PaceNearSlowdown: once the rate is within PaceNear of
	// Ceil, one more per second takes PaceNearSlowdown seconds' worth of
	// clean answers instead of one.
	PaceNear         = 0.9
	PaceNearSlowdown = 8
	// PaceProven is how many clean answers within one second, and no
	// refusal, prove a site fast (PaceRequest.Proven): twice a 10-a-second
	// burst bucket's refill.
	PaceProven = 20
	// PaceFree is how long a free grant lasts (PaceGrant.Free), and
	// PaceAlone how long after another buyer's purchase a key is shared
	// (no free grant).
	PaceFree  = time.Second
	PaceAlone = 2 * PaceFree
)

// rate is the state's rate, PaceStartRate when none was learned.
func (s *PaceState) rate() float64 {
	if s.Rate <= 0 {
		return PaceStartRate
	}
	return s.Rate
}

// slowdown is how many seconds' worth of clean answers one more request
// per second takes at rate: one, or PaceNearSlowdown near Ceil.
func (s *PaceState) slowdown(rate float64) float64 {
	if s.Ceil > 0 && rate+1 >= s.Ceil*PaceNear {
		return PaceNearSlowdown
	}
	return 1
}

// Take applies r at now and returns the grant. It is deterministic: a
// store calls it with its clock inside one atomic update.
func (s *PaceState) Take(now time.Time, r PaceRequest) PaceGrant {
	if r == (PaceRequest{}) && s.At.IsZero() && s.Rate <= 0 {
		// Only a read of a key nobody has paced: it stays so.
		return PaceGrant{Rate: PaceStartRate}
	}
	if start := math.Min(math.Max(1, r.Start), PaceMaxRate); r.Start > 0 && !s.Steady &&
		((s.At.IsZero() && s.Rate <= 0) || s.rate() > start || s.Free) {
		s.Rate, s.Steady, s.Clean = start, true, 0
		s.Level = math.Min(s.Level, start)
	}
	// Two buyers within PaceAlone of each other: the key is shared (for
	// PaceAlone after the last time the buyer changed).
	if r.Buyer != "" {
		if s.Buyer != "" && s.Buyer != r.Buyer && now.Sub(s.Bought) < PaceAlone {
			s.Shared = now
		}
		s.Buyer, s.Bought = r.Buyer, now
	}
	shared := !s.Shared.IsZero() && now.Sub(s.Shared) < PaceAlone
	rate := s.rate()
	// Refill since At, up to one second's worth.
	if s.At.IsZero() {
		s.Level, s.At = rate, now
		if !s.Steady {
			s.Level = math.Min(rate, PaceStartBurst)
		}
	} else if now.After(s.At) {
		s.Level = math.Min(rate, s.Level+now.Sub(s.At).Seconds()*rate)
		s.At = now
	}
	if r.Proven {
		s.Proven = now
	}
	// Learn from what the caller reports.
	switch {
	case r.Refused:
		if s.Cut.IsZero() || now.Sub(s.Cut) >= paceCutGap {
			cut := PaceCut
			if !s.Steady {
				cut = PaceFirstCut
				if r.Sent > 0 && s.Free {
					// A free buyer (alone on the key): the rate it was
					// sending at. A shared key's rate is every buyer's,
					// one buyer's sends are only its share of it.
					rate = min(float64(r.Sent), PaceMaxRate)
				}
			}
			s.Ceil = rate
			rate = math.Max(1, rate*cut)
			s.Cut, s.Steady, s.Clean = now, true, 0
		}
		s.Proven = time.Time{}
		// The tracker's bucket is empty now. A refusal that starts a
		// pause also ends what was bought ahead before it: those send
		// times fall inside the pause, and their buyers drop them (the
		// refused one at once, the others when they check Pause before
		// spending one), so the bucket refills from zero during the
		// pause, as the tracker's does. Inside a pause, what was bought
		// since (sends after it) stays bought.
		if r.RetryAfter > 0 && !s.Pause.After(now) {
			s.Level = 0
		} else {
			s.Level = math.Min(s.Level, 0)
		}
		if r.RetryAfter > 0 {
			s.Pause = laterOf(s.Pause, now.Add(r.RetryAfter))
		}
	case r.Near:
		s.Steady, s.Clean = true, 0
	case r.Clean > 0 && !s.Short.IsZero() && now.Sub(s.Short) <= paceShortFor:
		if !s.Steady {
			rate += float64(r.Clean) // slow start: doubles per second of traffic
		} else if s.Clean += r.Clean; float64(s.Clean) >= rate*s.slowdown(rate) {
			s.Clean = 0
			rate++ // one more per second's worth of clean answers
		}
		rate = math.Min(rate, PaceMaxRate)
	}
	s.Rate = rate
	var pause time.Duration
	if s.Pause.After(now) {
		pause = s.Pause.Sub(now)
	}
	g := PaceGrant{Rate: rate, Steady: s.Steady, Pause: pause, Shared: shared, Proven: !s.Proven.IsZero() && !s.Steady}
	want := min(r.Want, PaceMaxGrant)
	if want <= 0 {
		return g
	}
	s.Free = !s.Steady && !shared && r.Buyer != "" && pause == 0
	if s.Free {
		g.Free = PaceFree
		return g
	}
	interval := time.Duration(float64(time.Second) / rate)
	for range want {
		// The next token is due when the level reaches one.
		at := time.Duration(0)
		if s.Level < 1 {
			at = time.Duration((1 - s.Level) * float64(time.Second) / rate)
		}
		at = max(at, pause)
		if at > PaceAhead {
			break
		}
		s.Level--
		g.Sends = append(g.Sends, at)
	}
	if len(g.Sends) < want || (len(g.Sends) > 0 && g.Sends[len(g.Sends)-1] > 0) {
		s.Short = now
	}
	if len(g.Sends) == 0 {
		g.Retry = max(interval, pause-PaceAhead)
	}
	return g
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// StepPace is what a store does inside its atomic update: the state kept
// as body (EncodePace; empty: a new key) stepped by r at now, the body to
// keep and the grant.
func StepPace(body []byte, now time.Time, r PaceRequest) ([]byte, PaceGrant, error) {
	st, err := DecodePace(body)
	if err != nil {
		return nil, PaceGrant{}, err
	}
	g := st.Take(now, r)
	body, err = EncodePace(st)
	return body, g, err
}

// EncodePace and DecodePace are how stores keep a PaceState (an empty or
// nil body is the zero state).
func EncodePace(s PaceState) ([]byte, error) { return json.Marshal(s) }

// DecodePace reads what EncodePace wrote.
func DecodePace(b []byte) (PaceState, error) {
	var s PaceState
	if len(b) == 0 {
		return s, nil
	}
	err := json.Unmarshal(b, &s)
	return s, err
}
