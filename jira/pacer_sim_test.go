package jira

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"testing"
	"time"
)

// simPhase is requests sent together: n to each endpoint; the next phase
// starts when every one of them has been answered (or after pause).
type simPhase struct {
	n     map[string]int
	pause time.Duration // before the phase
	mark  bool          // start measuring here
}

type simResult struct {
	wall    time.Duration // from the marked phase to the last answer
	refused int
	sends   map[string][]time.Duration
}

// burstSim runs phases through pc against Jira's burst limit simulated:
// per endpoint a token bucket (rate per second, size burst, full at the
// start); a request is admitted toward after it was sent and answered back
// after that. jitter (deterministic) spreads toward by up to that much.
func burstSim(pc *pacer, clk *paceClock, phases []simPhase, rate float64, burst int, toward, back, jitter time.Duration) simResult {
	type bucket struct {
		tokens float64
		last   time.Time
	}
	buckets := map[string]*bucket{}
	type flight struct {
		tk     *ticket
		answer time.Time
		resp   *response
		ep     string
	}
	var inflight []flight
	res := simResult{sends: map[string][]time.Duration{}}
	var mark time.Time
	seq := 0
	for _, ph := range phases {
		if ph.pause > 0 {
			clk.Advance(ph.pause)
		}
		if ph.mark {
			mark = clk.Now()
		}
		pending := map[string]int{}
		left := 0
		for ep, n := range ph.n {
			pending[ep] = n
			left += n
		}
		eps := make([]string, 0, len(pending))
		for ep := range pending {
			eps = append(eps, ep)
		}
		sort.Strings(eps)
		for left > 0 {
			now := clk.Now()
			var wait time.Duration
			for _, ep := range eps {
				for pending[ep] > 0 {
					pc.mu.Lock()
					w, ok := pc.try(ep, "")
					pc.mu.Unlock()
					if !ok {
						if w > 0 && (wait == 0 || w < wait) {
							wait = w
						}
						break
					}
					pending[ep]--
					if !mark.IsZero() {
						res.sends[ep] = append(res.sends[ep], now.Sub(mark))
					}
					seq++
					j := time.Duration(0)
					if jitter > 0 {
						j = time.Duration((seq * 7919) % int(jitter+1))
					}
					inflight = append(inflight, flight{tk: &ticket{endpoint: ep, start: now}, answer: now.Add(toward + j), ep: ep})
				}
			}
			// admissions (in admission order), then answers
			sort.Slice(inflight, func(i, j int) bool { return inflight[i].answer.Before(inflight[j].answer) })
			next := time.Time{}
			for _, f := range inflight {
				if f.resp == nil {
					next = f.answer
					break
				}
				if next.IsZero() || f.answer.Before(next) {
					next = f.answer
				}
			}
			if len(inflight) > 0 && next.IsZero() {
				next = inflight[0].answer
			}
			if wait > 0 && (next.IsZero() || now.Add(wait).Before(next)) {
				next = now.Add(wait)
			}
			if next.IsZero() {
				panic("simulation stuck")
			}
			if next.After(now) {
				clk.Advance(next.Sub(now))
			}
			now = clk.Now()
			for i := range inflight {
				f := &inflight[i]
				if f.resp != nil || f.answer.After(now) {
					continue
				}
				b := buckets[f.ep]
				if b == nil {
					b = &bucket{tokens: float64(burst), last: f.answer}
					buckets[f.ep] = b
				}
				b.tokens = math.Min(float64(burst), b.tokens+f.answer.Sub(b.last).Seconds()*rate)
				b.last = f.answer
				h := http.Header{}
				h.Set("X-RateLimit-Limit", strconv.Itoa(burst))
				if b.tokens >= 1 {
					b.tokens--
					h.Set("X-RateLimit-Remaining", strconv.Itoa(int(b.tokens)))
					if b.tokens < 0.2*float64(burst) {
						h.Set("X-RateLimit-NearLimit", "true")
					}
					f.resp = &response{status: 200, header: h}
				} else {
					h.Set("X-RateLimit-Remaining", "0")
					h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil((1-b.tokens)/rate)))))
					h.Set("RateLimit-Reason", reasonBurst)
					f.resp = &response{status: 429, header: h}
					res.refused++
				}
				f.answer = f.answer.Add(back)
			}
			keep := inflight[:0]
			for _, f := range inflight {
				if f.resp != nil && !f.answer.After(now) {
					pc.release(f.tk, f.resp)
					if f.resp.status == 429 {
						pending[f.ep]++
					} else {
						left--
						if !mark.IsZero() {
							res.wall = now.Sub(mark)
						}
					}
					continue
				}
				keep = append(keep, f)
			}
			inflight = keep
		}
	}
	return res
}

const (
	epBulk      = "POST /rest/api/3/issue/bulk"
	epBulkFetch = "POST /rest/api/3/issue/bulkfetch"
)

// burstCommit is make bench's burst-limited fresh 1,000-item import: the
// preview's lookup, the person's pause, then the commit's stale check
// (searches, tail), the epics, the stories, the duplicate check.
func burstCommit() []simPhase {
	return []simPhase{
		{n: map[string]int{epSearch: 10}},
		{n: map[string]int{epSearch: 1}},
		{n: map[string]int{epBulkFetch: 1}},
		{pause: 2 * time.Second, mark: true, n: map[string]int{epSearch: 10}},
		{n: map[string]int{epBulkFetch: 1}},
		{n: map[string]int{epBulk: 1}},
		{n: map[string]int{epBulk: 20}},
		{n: map[string]int{epBulkFetch: 1}},
	}
}

// burstCommitEarly is burstCommit since the stale check reads its tail
// alongside its searches (lookup.go): one round trip less before the
// epics.
func burstCommitEarly() []simPhase {
	return []simPhase{
		{n: map[string]int{epSearch: 10}},
		{n: map[string]int{epSearch: 1}},
		{n: map[string]int{epBulkFetch: 1}},
		{pause: 2 * time.Second, mark: true, n: map[string]int{epSearch: 10, epBulkFetch: 1}},
		{n: map[string]int{epBulk: 1}},
		{n: map[string]int{epBulk: 20}},
		{n: map[string]int{epBulkFetch: 1}},
	}
}

// TestPacerUnderSimulatedBurstLimit runs request patterns through the
// pacer against Jira's burst limit simulated exactly (a token bucket of
// 10 per second and 10 deep per endpoint, a request counted 50 ms after it
// is sent, with up to 2·j of spread, so requests sent together are
// counted out of order): make bench's burst-limited fresh commit, 21
// creates sent at once, and 100 edits. None may be refused (a 429 costs a
// whole second's Retry-After), and each ends within 1.3 × the time the
// limit implies for it (simulated time: no wall clock involved). Before
// the pacer capped the window at what Jira says is left, 21 at once were
// 2 429s; before it stopped keeping a reserve at every answer, the
// commit took 1.47 × its floor.
func TestPacerUnderSimulatedBurstLimit(t *testing.T) {
	const latency = 50 * time.Millisecond
	for _, pat := range []struct {
		name   string
		phases []simPhase
		floor  time.Duration // what the limit alone implies, plus the round trips the pattern orders
	}{
		// Stale check (10 searches, then the tail), epics, stories, the
		// duplicate check: 4 round trips before and after 21 creates
		// through a bucket of 10.
		{"burst commit", burstCommit(), 1100*time.Millisecond + 5*(latency+time.Millisecond)},
		{"burst commit, tail alongside", burstCommitEarly(), 1100*time.Millisecond + 4*(latency+time.Millisecond)},
		// The rank requests of a 1,000-item commit: the chunks' heads,
		// then every chunk's rest at once.
		{"1 rank then 20", []simPhase{{n: map[string]int{"PUT /rest/agile/1.0/issue/rank": 1}, mark: true}, {n: map[string]int{"PUT /rest/agile/1.0/issue/rank": 20}}}, 1100*time.Millisecond + 2*(latency+time.Millisecond)},
		{"21 creates at once", []simPhase{{n: map[string]int{epBulk: 21}, mark: true}}, 1100*time.Millisecond + latency + time.Millisecond},
		{"100 edits at once", []simPhase{{n: map[string]int{epEdit: 100}, mark: true}}, 9*time.Second + latency + time.Millisecond},
	} {
		for _, j := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/spread %v", pat.name, 2*j), func(t *testing.T) {
				pc, clk := testPacer(16)
				r := burstSim(pc, clk, pat.phases, 10, 10, latency-j, time.Millisecond, 2*j)
				if r.refused > 0 {
					t.Errorf("%d requests refused (429)", r.refused)
				}
				if ratio := float64(r.wall) / float64(pat.floor); ratio > 1.3 {
					t.Errorf("took %v, %.2f × the %v the limit implies, want ≤ 1.3 ×", r.wall, ratio, pat.floor)
				}
			})
		}
	}
}
