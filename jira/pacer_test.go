package jira

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// paceClock is the pacer's clock in tests: time moves only when the test
// says, and timers fire when it passes them.
type paceClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []paceTimer
}

type paceTimer struct {
	at time.Time
	ch chan time.Time
}

func newPaceClock() *paceClock { return &paceClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func (c *paceClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *paceClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, paceTimer{at: c.t.Add(d), ch: ch})
	return ch
}

func (c *paceClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	keep := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.t) {
			tm.ch <- c.t
			continue
		}
		keep = append(keep, tm)
	}
	c.timers = keep
}

func testPacer(maxInFlight int) (*pacer, *paceClock) {
	clk := newPaceClock()
	pc := newPacer(maxInFlight)
	pc.now, pc.after = clk.Now, clk.After
	return pc, clk
}

const (
	epEdit   = "PUT /rest/api/3/issue/{key}"
	epSearch = "POST /rest/api/3/search/jql"
)

// admit admits as many requests to endpoint as the pacer lets through now
// (up to n) and returns their tickets.
func admit(pc *pacer, endpoint string, n int) []*ticket {
	var out []*ticket
	for range n {
		pc.mu.Lock()
		_, ok := pc.try(endpoint, "")
		pc.mu.Unlock()
		if !ok {
			break
		}
		out = append(out, &ticket{endpoint: endpoint, start: pc.now()})
	}
	return out
}

func answer(status int, h ...string) *response {
	hd := http.Header{}
	for i := 0; i+1 < len(h); i += 2 {
		hd.Set(h[i], h[i+1])
	}
	return &response{status: status, header: hd}
}

func (pc *pacer) window(endpoint string) float64 {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.endpoint(endpoint).window
}

// TestPacerStartsSmallAndGrowsToTheCap: four in flight at first; fast
// clean answers add 1/window each (one per window's worth: +1 per round
// trip); the window never passes MaxInFlight.
func TestPacerStartsSmallAndGrowsToTheCap(t *testing.T) {
	pc, clk := testPacer(8)
	ts := admit(pc, epEdit, 100)
	if len(ts) != 4 {
		t.Fatalf("admitted %d at first, want 4", len(ts))
	}
	for round := 0; round < 30; round++ {
		clk.Advance(50 * time.Millisecond)
		for _, tk := range ts {
			pc.release(tk, answer(200))
		}
		ts = admit(pc, epEdit, 100)
		if len(ts) > 8 {
			t.Fatalf("round %d: %d in flight, over MaxInFlight 8", round, len(ts))
		}
	}
	if len(ts) != 8 {
		t.Errorf("after 30 fast clean round trips: %d in flight, want the cap 8", len(ts))
	}
}

// TestPacerHoldsOnSlowAnswers: answers much slower than the fastest seen
// do not grow the window.
func TestPacerHoldsOnSlowAnswers(t *testing.T) {
	pc, clk := testPacer(16)
	tk := admit(pc, epEdit, 1)[0]
	clk.Advance(50 * time.Millisecond)
	pc.release(tk, answer(200))
	w := pc.window(epEdit)
	for range 20 {
		tk := admit(pc, epEdit, 1)[0]
		clk.Advance(500 * time.Millisecond)
		pc.release(tk, answer(200))
	}
	if got := pc.window(epEdit); got != w {
		t.Errorf("window %v after slow answers, want it held at %v", got, w)
	}
}

// TestPacerHalvesOn429And503: a 429 or a 503 halves the window (never
// below one).
func TestPacerHalvesOn429And503(t *testing.T) {
	pc, clk := testPacer(16)
	pc.endpoint(epEdit).window = 8
	tk := admit(pc, epEdit, 1)[0]
	pc.release(tk, answer(429, "RateLimit-Reason", "jira-burst-based"))
	if w := pc.window(epEdit); w != 4 {
		t.Errorf("after a 429: window %v, want 4", w)
	}
	clk.Advance(2 * time.Second) // past the interval the 429 set
	tk = admit(pc, epEdit, 1)[0]
	pc.release(tk, answer(503))
	if w := pc.window(epEdit); w != 2 {
		t.Errorf("after a 503: window %v, want 2", w)
	}
	for range 3 {
		clk.Advance(2 * time.Second)
		tk = admit(pc, epEdit, 1)[0]
		pc.release(tk, answer(503))
	}
	if w := pc.window(epEdit); w != 1 {
		t.Errorf("window %v, want the floor 1", w)
	}
}

// TestPacerRetryAfterForEveryone: a burst 429's Retry-After holds every
// request to that endpoint (not others); one without a reason the pacer
// knows, or a 503's, holds every request.
func TestPacerRetryAfterForEveryone(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resp      *response
		otherWait bool
	}{
		{"burst 429", answer(429, "Retry-After", "2", "RateLimit-Reason", "jira-burst-based"), false},
		{"429 without a reason", answer(429, "Retry-After", "2"), true},
		{"quota 429", answer(429, "Retry-After", "2", "RateLimit-Reason", "jira-quota-based"), true},
		{"503", answer(503, "Retry-After", "2"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, clk := testPacer(8)
			tk := admit(pc, epEdit, 1)[0]
			pc.release(tk, tc.resp)
			pc.mu.Lock()
			wait, ok := pc.try(epEdit, "")
			pc.mu.Unlock()
			if ok || wait != 2*time.Second {
				t.Fatalf("same endpoint: admitted %v, wait %v; want a 2s wait", ok, wait)
			}
			pc.mu.Lock()
			_, otherOK := pc.try(epSearch, "")
			pc.mu.Unlock()
			if otherOK == tc.otherWait {
				t.Errorf("another endpoint admitted = %v, want %v", otherOK, !tc.otherWait)
			}
			clk.Advance(2 * time.Second)
			if len(admit(pc, epEdit, 1)) != 1 {
				t.Error("not admitted after Retry-After")
			}
		})
	}
}

// TestPacerSlowsDownBeforeTheLimit: NearLimit, or a Remaining that the
// requests already in flight would use up, paces the endpoint at 90% of
// X-RateLimit-Limit per second and stops its growth; a budget back above
// half lifts the pacing.
func TestPacerSlowsDownBeforeTheLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *response
	}{
		{"NearLimit", answer(200, "X-RateLimit-NearLimit", "true", "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "1")},
		{"low Remaining counting what is in flight", answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "4")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, clk := testPacer(8)
			ts := admit(pc, epEdit, 4)
			w := pc.window(epEdit)
			pc.release(ts[0], tc.resp) // three still in flight
			if got := pc.window(epEdit); got != w {
				t.Errorf("window grew to %v on a low budget", got)
			}
			limit := 10.0
			want := time.Duration(float64(time.Second) / (limitShare * limit))
			if iv := pc.endpoint(epEdit).interval; iv != want {
				t.Fatalf("interval %v, want %v (the limit, 10/s: Remaining keeps the estimate honest)", iv, want)
			}
			for _, tk := range ts[1:] {
				pc.release(tk, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0"))
			}
			// Nothing left: spaced sends, one per interval (once every
			// answer is in, nothing is kept in reserve:
			// TestPacerKeepsNoReserveOnceAnswersAreIn).
			if n := len(admit(pc, epEdit, 8)); n != 0 {
				t.Fatalf("admitted %d with no budget left, want 0", n)
			}
			clk.Advance(want)
			if n := len(admit(pc, epEdit, 8)); n != 1 {
				t.Fatalf("admitted %d within one interval, want 1", n)
			}
			clk.Advance(want / 2)
			if n := len(admit(pc, epEdit, 8)); n != 0 {
				t.Fatalf("admitted %d half an interval later, want 0", n)
			}
			pc.release(&ticket{endpoint: epEdit, start: clk.Now()}, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "8"))
			if iv := pc.endpoint(epEdit).interval; iv == 0 {
				t.Errorf("the interval ended at 80%% of the budget, want it held until 90%%")
			}
			pc.release(&ticket{endpoint: epEdit, start: clk.Now()}, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "9"))
			if iv := pc.endpoint(epEdit).interval; iv != 0 {
				t.Errorf("interval %v after the budget recovered to 90%%, want none", iv)
			}
		})
	}
}

// TestPacerSpendsTheRestOfTheBudgetAtOnce: once paced, what Jira says is
// left (less what is in flight, less one) goes out at once; then one per
// interval.
func TestPacerSpendsTheRestOfTheBudgetAtOnce(t *testing.T) {
	pc, clk := testPacer(16)
	pc.endpoint(epEdit).window = 16
	tk := admit(pc, epEdit, 1)[0]
	clk.Advance(50 * time.Millisecond)
	pc.release(tk, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "4"))
	if pc.endpoint(epEdit).interval == 0 {
		t.Fatal("not paced below half the budget")
	}
	if n := len(admit(pc, epEdit, 16)); n != 3 {
		t.Fatalf("admitted %d at once with 4 left, want 3 (one kept in reserve)", n)
	}
}

// TestPacerRefusedRateWithoutHeaders: a burst 429 without X-RateLimit-Limit
// paces the endpoint at 80% of the rate that was refused, and clean
// answers relax it step by step.
func TestPacerRefusedRateWithoutHeaders(t *testing.T) {
	pc, clk := testPacer(8)
	var last *ticket
	for i := range 5 { // 10 sends in the last second
		ts := admit(pc, epEdit, 2)
		clk.Advance(100 * time.Millisecond)
		pc.release(ts[0], answer(200))
		if i < 4 {
			pc.release(ts[1], answer(200))
		} else {
			last = ts[1]
		}
	}
	pc.release(last, answer(429, "RateLimit-Reason", "jira-burst-based"))
	rate := 10.0
	want := time.Duration(float64(time.Second) / (refusedShare * rate))
	if iv := pc.endpoint(epEdit).interval; iv != want {
		t.Fatalf("interval %v, want %v (80%% of 10/s)", iv, want)
	}
	for range cleanToRecover {
		clk.Advance(time.Second)
		tk := admit(pc, epEdit, 1)[0]
		pc.release(tk, answer(200))
	}
	if iv := pc.endpoint(epEdit).interval; iv != want/2 {
		t.Errorf("interval %v after %d clean answers, want it halved to %v", iv, cleanToRecover, want/2)
	}
}

// TestPacerSustained429sOneAtATime: three 429s in a row put the endpoint
// at one request at a time until 20 clean answers came back.
func TestPacerSustained429sOneAtATime(t *testing.T) {
	pc, clk := testPacer(8)
	pc.endpoint(epEdit).window = 8
	for range strikesToSingle {
		tk := admit(pc, epEdit, 1)[0]
		pc.release(tk, answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
		clk.Advance(2 * time.Second)
	}
	pc.endpoint(epEdit).interval = 0
	for i := range cleanToRecover {
		ts := admit(pc, epEdit, 8)
		if len(ts) != 1 {
			t.Fatalf("clean answer %d after sustained 429s: %d admitted at once, want 1", i, len(ts))
		}
		clk.Advance(50 * time.Millisecond)
		pc.release(ts[0], answer(200))
	}
	if n := len(admit(pc, epEdit, 8)); n < 2 {
		t.Errorf("after %d clean answers still %d at a time", cleanToRecover, n)
	}
}

// TestPacerPerIssueWrites: two writes to one issue never go at once; a
// per-issue 429 spaces writes to that issue only and does not touch the
// endpoint's window.
func TestPacerPerIssueWrites(t *testing.T) {
	pc, clk := testPacer(8)
	ctx := context.Background()
	edit := func(key string) call { return call{method: "PUT", endpoint: epEdit, key: key} }
	a, err := pc.acquire(ctx, edit("DEMO-1"))
	if err != nil {
		t.Fatal(err)
	}
	pc.mu.Lock()
	_, ok := pc.try(epEdit, "DEMO-1")
	pc.mu.Unlock()
	if ok {
		t.Fatal("a second write to DEMO-1 was admitted while one is in flight")
	}
	if _, err := pc.acquire(ctx, call{method: "GET", endpoint: "GET /rest/api/3/issue/{key}", key: "DEMO-1"}); err != nil {
		t.Fatal("a read of DEMO-1 waits for its write")
	}
	b, err := pc.acquire(ctx, edit("DEMO-2"))
	if err != nil {
		t.Fatal(err)
	}
	w := pc.window(epEdit)
	pc.release(a, answer(429, "Retry-After", "3", "RateLimit-Reason", "jira-per-issue-on-write"))
	pc.release(b, answer(204))
	if got := pc.window(epEdit); got < w {
		t.Errorf("a per-issue 429 shrank the endpoint's window %v → %v", w, got)
	}
	pc.mu.Lock()
	wait, ok := pc.try(epEdit, "DEMO-1")
	pc.mu.Unlock()
	if ok || wait != 3*time.Second {
		t.Fatalf("DEMO-1 after its 429: admitted %v, wait %v; want 3s", ok, wait)
	}
	if _, err := pc.acquire(ctx, edit("DEMO-3")); err != nil {
		t.Fatal(err)
	}
	clk.Advance(3 * time.Second)
	if _, err := pc.acquire(ctx, edit("DEMO-1")); err != nil {
		t.Fatal(err)
	}
}

// TestPacerMaxInFlightOne: MaxInFlight 1 sends one request at a time,
// whatever the endpoint.
func TestPacerMaxInFlightOne(t *testing.T) {
	pc, _ := testPacer(1)
	if n := len(admit(pc, epEdit, 8)); n != 1 {
		t.Fatalf("admitted %d, want 1", n)
	}
	if n := len(admit(pc, epSearch, 8)); n != 0 {
		t.Fatalf("another endpoint admitted %d while one request is in flight", n)
	}
}

// TestAcquireWaitsForSlotsTimersAndContext: acquire blocks while the
// pacer says no, wakes when a slot frees or a pause ends, and gives up
// with the context.
func TestAcquireWaitsForSlotsTimersAndContext(t *testing.T) {
	pc, clk := testPacer(1)
	first, err := pc.acquire(context.Background(), call{method: "GET", endpoint: epSearch})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *ticket)
	go func() {
		tk, err := pc.acquire(context.Background(), call{method: "GET", endpoint: epSearch})
		if err != nil {
			t.Error(err)
		}
		got <- tk
	}()
	select {
	case <-got:
		t.Fatal("admitted while the only slot is taken")
	default:
	}
	pc.release(first, answer(429, "Retry-After", "5", "RateLimit-Reason", "jira-quota-based"))
	// The slot is free, but everyone waits 5s: the waiter sets a timer.
	deadline := time.Now().Add(10 * time.Second)
	for {
		clk.mu.Lock()
		n := len(clk.timers)
		clk.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiter never waited for the pause")
		}
		runtime.Gosched()
	}
	select {
	case <-got:
		t.Fatal("admitted during the pause")
	default:
	}
	clk.Advance(5 * time.Second)
	var tk *ticket
	select {
	case tk = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("not admitted after the pause ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := pc.acquire(ctx, call{method: "GET", endpoint: epSearch})
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("a cancelled acquire was admitted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled acquire did not return")
	}
	pc.release(tk, answer(200))
}

func TestReadSignals(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := readSignals(answer(429, "X-RateLimit-Reset", "2026-12-01T09:02Z", "RateLimit-Reason", "Jira-Burst-Based",
		"X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0", "X-RateLimit-NearLimit", "true"), now)
	if !s.hinted || s.retryAfter != 2*time.Minute || s.reason != reasonBurst || s.limit != 10 || s.remaining != 0 || !s.near {
		t.Errorf("429 with Reset in Atlassian's documented format, no Retry-After: %+v", s)
	}
	s = readSignals(answer(429, "Retry-After", "3", "X-RateLimit-Reset", "2026-12-01T09:00:10Z"), now)
	if s.retryAfter != 3*time.Second {
		t.Errorf("Retry-After wins over Reset: %v", s.retryAfter)
	}
	s = readSignals(answer(200, "X-RateLimit-Remaining", "junk"), now)
	if s.remaining != -1 || s.limit != 0 || s.near || s.hinted {
		t.Errorf("unreadable headers: %+v", s)
	}
	if s := readSignals(nil, now); s.status != 0 {
		t.Errorf("no answer: %+v", s)
	}
}

// TestPacerSlowStartThenAdditive: fast clean answers add one each (the
// window doubles per round trip) until the first sign of a limit; after
// it growth is 1/window per answer.
func TestPacerSlowStartThenAdditive(t *testing.T) {
	pc, clk := testPacer(32)
	ts := admit(pc, epEdit, 32)
	clk.Advance(50 * time.Millisecond)
	for _, tk := range ts {
		pc.release(tk, answer(200))
	}
	if w := pc.window(epEdit); w != 8 {
		t.Fatalf("after one round trip of 4 clean answers: window %v, want 8", w)
	}
	tk := admit(pc, epEdit, 1)[0]
	pc.release(tk, answer(429, "RateLimit-Reason", "jira-burst-based"))
	if w := pc.window(epEdit); w != 4 {
		t.Fatalf("after a 429: window %v, want 4", w)
	}
	pc.endpoint(epEdit).interval = 0
	for range 4 {
		tk := admit(pc, epEdit, 1)[0]
		clk.Advance(50 * time.Millisecond)
		pc.release(tk, answer(200))
	}
	if w := pc.window(epEdit); w >= 5 {
		t.Errorf("after the 429, 4 clean answers grew the window to %v; want additive growth (< 5)", w)
	}
}

// TestPacerIgnoresAnOlderAnswersBudget: answers come back out of order;
// the Remaining of a request sent before the one that last set the credit
// is older news and must not raise the credit again (it let a paced
// endpoint send past Jira's bucket: a 429 and a whole second's pause in
// make bench's burst-limited commit).
func TestPacerIgnoresAnOlderAnswersBudget(t *testing.T) {
	pc, clk := testPacer(16)
	pc.endpoint(epEdit).window = 16
	first := admit(pc, epEdit, 1)[0]
	clk.Advance(10 * time.Millisecond)
	older := admit(pc, epEdit, 1)[0] // sent before newer, answered after it
	clk.Advance(10 * time.Millisecond)
	newer := admit(pc, epEdit, 1)[0]
	clk.Advance(50 * time.Millisecond)
	// A low budget paces the endpoint (interval set, credit from Jira).
	pc.release(first, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "3"))
	if pc.endpoint(epEdit).interval == 0 {
		t.Fatal("not paced below half the budget")
	}
	pc.release(newer, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "1"))
	credit := pc.endpoint(epEdit).credit // 1 left, less older in flight, less the reserve
	// Jira had 1 left after newer; older's answer still says 2.
	pc.release(older, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "2"))
	if got := pc.endpoint(epEdit).credit; got != credit {
		t.Errorf("the older answer moved the credit from %v to %v", credit, got)
	}
	if n := len(admit(pc, epEdit, 16)); n != 0 {
		t.Fatalf("admitted %d at once after Jira said 1 was left (one kept in reserve), want 0", n)
	}
	// The credit refills one per interval from there.
	clk.Advance(time.Duration((1 - credit) * float64(pc.endpoint(epEdit).interval)))
	if n := len(admit(pc, epEdit, 16)); n != 1 {
		t.Fatalf("admitted %d once the credit refilled to one, want 1", n)
	}
}

// fourAnswers admits four requests to endpoint and answers them 50 ms
// later in send order, each with a limit of 10 and first, first-1, … left.
func fourAnswers(pc *pacer, clk *paceClock, endpoint string, first int) {
	ts := admit(pc, endpoint, 4)
	clk.Advance(50 * time.Millisecond)
	for i, tk := range ts {
		pc.release(tk, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", fmt.Sprint(first-i)))
	}
}

// TestPacerWindowNeverOutrunsTheBudget: a window grown on answers that
// showed a full budget must not send more than Jira says is left: four
// answers said 9, 8, 7 and 6 left (more than half of 10 each, counting
// what was in flight), the window grew to 8, and 8 went into 6 (make
// bench's simulation: two 429s and a whole second's Retry-After).
func TestPacerWindowNeverOutrunsTheBudget(t *testing.T) {
	pc, clk := testPacer(16)
	fourAnswers(pc, clk, epEdit, 9)
	if n := len(admit(pc, epEdit, 16)); n > 6 {
		t.Fatalf("admitted %d at once with 6 left, want at most 6", n)
	}
}

// TestPacerKeepsNoReserveOnceAnswersAreIn: the first answer after pacing
// begins keeps one request in reserve (a request sent earlier may have
// been counted later); later answers may raise the estimate by the one
// request each settles, so once every answer of a batch is in, what Jira
// said is left goes out, no less (the reserve, kept at every answer, cost
// the burst-limited commit a tenth of a second per resync).
func TestPacerKeepsNoReserveOnceAnswersAreIn(t *testing.T) {
	pc, clk := testPacer(16)
	pc.endpoint(epEdit).window = 16
	fourAnswers(pc, clk, epEdit, 5) // counted in send order: 5, 4, 3, 2 left
	if n := len(admit(pc, epEdit, 16)); n != 2 {
		t.Fatalf("admitted %d at once after Jira said 2 were left, want 2", n)
	}
}

// TestPacerSettledAnswerNeverOvershoots: older is sent first but counted
// after newer, and answered first. Its Remaining (4) already holds newer;
// newer's (5) does not hold older, which is no longer in flight. Jira has
// 4 left: the estimate must not pass that (5 is a 429 waiting to happen).
func TestPacerSettledAnswerNeverOvershoots(t *testing.T) {
	pc, clk := testPacer(16)
	pc.endpoint(epEdit).window = 16
	pc.endpoint(epEdit).pace(signals{limit: 10, remaining: 6}, 0, clk.Now()) // paced already
	pc.endpoint(epEdit).credit, pc.endpoint(epEdit).limit = 10, 10
	older := admit(pc, epEdit, 1)[0]
	clk.Advance(10 * time.Millisecond)
	newer := admit(pc, epEdit, 1)[0]
	clk.Advance(50 * time.Millisecond)
	pc.release(older, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "4"))
	pc.release(newer, answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "5"))
	if n := len(admit(pc, epEdit, 16)); n > 4 {
		t.Fatalf("admitted %d at once with 4 left in Jira, want at most 4", n)
	}
}

// TestPacerOpensToTheBudgetWhilePaced: an endpoint Jira said was near its
// burst limit (paced, its window no longer growing) whose budget has
// refilled since — the commit's stale check, a person's pause after the
// preview — sends as many requests at once as the budget holds, not as
// many as the window: the commit's 10 searches in one round trip, not two.
// After sustained 429s it is still one at a time.
func TestPacerOpensToTheBudgetWhilePaced(t *testing.T) {
	pc, clk := testPacer(16)
	fourAnswers(pc, clk, epSearch, 5)
	if pc.endpoint(epSearch).interval == 0 {
		t.Fatal("not paced after Jira said 2 of 10 were left")
	}
	if w := pc.window(epSearch); w >= 10 {
		t.Fatalf("window %v; the test wants one smaller than the budget", w)
	}
	clk.Advance(2 * time.Second) // the bucket and the pacer's estimate of it are full again
	if n := len(admit(pc, epSearch, 16)); n != 10 {
		t.Errorf("admitted %d at once with the budget of 10 refilled, want 10", n)
	}

	pc, clk = testPacer(16)
	pc.endpoint(epSearch).window = 8
	for range strikesToSingle {
		tk := admit(pc, epSearch, 1)[0]
		pc.release(tk, answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based", "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0"))
		clk.Advance(2 * time.Second)
	}
	if iv := pc.endpoint(epSearch).interval; iv == 0 {
		t.Fatal("not paced after 429s with a limit")
	}
	clk.Advance(2 * time.Second)
	if n := len(admit(pc, epSearch, 16)); n != 1 {
		t.Errorf("admitted %d at once after sustained 429s, want 1 (one at a time until clean answers come back)", n)
	}
}

// TestPacerPacesAtTheLimitOnlyWithRemaining: pacing spaces sends at
// X-RateLimit-Limit per second when X-RateLimit-Remaining comes with it
// (each answer sets the credit to what Jira has left), and at 90% of it
// when it does not (nothing corrects the estimate then).
func TestPacerPacesAtTheLimitOnlyWithRemaining(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *response
		want time.Duration
	}{
		{"Remaining", answer(200, "X-RateLimit-NearLimit", "true", "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "1"), 100 * time.Millisecond},
		{"no Remaining", answer(200, "X-RateLimit-NearLimit", "true", "X-RateLimit-Limit", "10"), time.Second / 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, clk := testPacer(8)
			tk := admit(pc, epEdit, 1)[0]
			clk.Advance(50 * time.Millisecond)
			pc.release(tk, tc.resp)
			if iv := pc.endpoint(epEdit).interval; iv != tc.want {
				t.Errorf("interval %v, want %v", iv, tc.want)
			}
		})
	}
}

// TestPacerSendsInTheCommitsOrder: requests to one endpoint waiting for a
// slot go in their send order (core.SendOrder), lowest first, whatever
// order they came in: a commit's writes leave in its plan's order.
func TestPacerSendsInTheCommitsOrder(t *testing.T) {
	pc, _ := testPacer(1)
	first, err := pc.acquire(core.WithSendOrder(context.Background(), 9), call{method: "POST", endpoint: epSearch})
	if err != nil {
		t.Fatal(err)
	}
	type admitted struct {
		order int
		tk    *ticket
	}
	got := make(chan admitted)
	for _, n := range []int{5, 3, 4} {
		go func() {
			tk, err := pc.acquire(core.WithSendOrder(context.Background(), n), call{method: "POST", endpoint: epSearch})
			if err != nil {
				t.Error(err)
			}
			got <- admitted{n, tk}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pc.mu.Lock()
		n := len(pc.endpoint(epSearch).waiting)
		pc.mu.Unlock()
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests waiting; want 3", n)
		}
		runtime.Gosched()
	}
	tk := first
	for _, want := range []int{3, 4, 5} {
		pc.release(tk, answer(200))
		select {
		case a := <-got:
			if a.order != want {
				t.Fatalf("admitted send order %d; want %d", a.order, want)
			}
			tk = a.tk
		case <-time.After(10 * time.Second):
			t.Fatalf("nothing admitted; want send order %d", want)
		}
	}
	pc.release(tk, answer(200))
}

// TestPacerKeepsTheFractionJirasCountCannotShow: X-RateLimit-Remaining is
// a whole number, so an answer saying 0 is left is consistent with the
// pacer's estimate of 0.8 (Jira's bucket may hold 0.8 of a request). The
// estimate stays, and the next send is due when it reaches one (20 ms),
// not a whole interval later: dropping the fraction at every answer kept
// the burst-limited commit's creates ~100 ms behind Jira's bucket. An
// answer below the estimate by a whole request or more still lowers it.
func TestPacerKeepsTheFractionJirasCountCannotShow(t *testing.T) {
	pc, clk := testPacer(16)
	ep := pc.endpoint(epEdit)
	ep.pace(signals{limit: 10, remaining: 2}, 0, clk.Now()) // paced: one per 100 ms
	ep.limit, ep.estimated = 10, true
	ep.credit, ep.creditAt = 1.8, clk.Now()
	tk := admit(pc, epEdit, 1)
	if len(tk) != 1 {
		t.Fatal("a credit of 1.8 admitted nothing")
	}
	pc.release(tk[0], answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0"))
	pc.mu.Lock()
	wait, ok := pc.try(epEdit, "")
	pc.mu.Unlock()
	if ok || wait > 25*time.Millisecond {
		t.Fatalf("after Jira said 0 left with 0.8 estimated: admitted %v, next send in %v; want one due in about 20 ms", ok, wait)
	}

	pc, clk = testPacer(16)
	ep = pc.endpoint(epEdit)
	ep.pace(signals{limit: 10, remaining: 2}, 0, clk.Now())
	ep.limit, ep.estimated = 10, true
	ep.credit, ep.creditAt = 3, clk.Now()
	tk = admit(pc, epEdit, 1) // the estimate is 2 now
	pc.release(tk[0], answer(200, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0"))
	pc.mu.Lock()
	wait, ok = pc.try(epEdit, "")
	pc.mu.Unlock()
	if ok || wait < 90*time.Millisecond {
		t.Fatalf("after Jira said 0 left with 2 estimated: admitted %v, next send in %v; want the estimate cut to Jira's count plus at most %.1f", ok, wait, fractionKept)
	}
}
