package jira

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/core/streamtest"
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

// testPacer is a pacer on a test clock whose rate never binds (the tests
// of the window, pauses and order); ratedPacer's starts where a new
// site's does.
func testPacer(maxInFlight int) (*pacer, *paceClock) {
	pc, clk := ratedPacer(maxInFlight)
	pc.local.start = core.PaceState{Rate: core.PaceMaxRate, Steady: true}
	return pc, clk
}

func ratedPacer(maxInFlight int) (*pacer, *paceClock) {
	clk := newPaceClock()
	return pacerOn(clk, maxInFlight), clk
}

// pacerOn is a pacer (another process's, for a second one) on clk,
// starting where a new site's does.
func pacerOn(clk *paceClock, maxInFlight int) *pacer {
	pc := newPacer(maxInFlight)
	pc.now, pc.after = clk.Now, clk.After
	clocksMu.Lock()
	clocks[pc] = clk
	clocksMu.Unlock()
	return pc
}

// clocks are the test pacers' clocks, for admit.
var (
	clocksMu sync.Mutex
	clocks   = map[*pacer]*paceClock{}
)

const (
	epEdit   = "PUT /rest/api/3/issue/{key}"
	epSearch = "POST /rest/api/3/search/jql"
)

// tryAt asks the pacer once whether a request to endpoint (writing
// issue) may go now, buying send times first when it needs them.
func tryAt(pc *pacer, endpoint, issue string) (time.Duration, bool) {
	for {
		pc.mu.Lock()
		wait, ok, buy := pc.try(endpoint, issue)
		pc.mu.Unlock()
		if !buy {
			return wait, ok
		}
		pc.buy(context.Background(), endpoint)
	}
}

// admit admits as many requests to endpoint as the pacer lets through now
// (up to n) and returns their tickets. A send time due within a few
// milliseconds (a testPacer's rate right after a refusal) is waited for
// on the test clock.
func admit(pc *pacer, endpoint string, n int) []*ticket {
	clocksMu.Lock()
	clk := clocks[pc]
	clocksMu.Unlock()
	var out []*ticket
	for range n {
		wait, ok := tryAt(pc, endpoint, "")
		if !ok && wait > 0 && wait <= 5*time.Millisecond && pc.rateHolds(endpoint) {
			clk.Advance(wait)
			wait, ok = tryAt(pc, endpoint, "")
		}
		if !ok {
			break
		}
		out = append(out, &ticket{endpoint: endpoint, start: pc.now()})
	}
	return out
}

// rateHolds reports whether the endpoint waits only for a send time.
func (pc *pacer) rateHolds(endpoint string) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	ep := pc.endpoint(endpoint)
	return len(ep.slots) > 0 && ep.slots[0].After(pc.now())
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
			wait, ok := tryAt(pc, epEdit, "")
			if ok || wait != 2*time.Second {
				t.Fatalf("same endpoint: admitted %v, wait %v; want a 2s wait", ok, wait)
			}
			_, otherOK := tryAt(pc, epSearch, "")
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
	_, ok := tryAt(pc, epEdit, "DEMO-1")
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
	wait, ok := tryAt(pc, epEdit, "DEMO-1")
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
	// After the pause the refused rate's first send time is a moment
	// away: the clock moves on by milliseconds until it comes.
	var tk *ticket
	deadline = time.Now().Add(10 * time.Second)
	for tk == nil {
		select {
		case tk = <-got:
		case <-time.After(time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("not admitted after the pause ended")
			}
			clk.Advance(time.Millisecond)
		}
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
	if !s.hinted || s.retryAfter != 2*time.Minute || s.reason != reasonBurst || !s.near {
		t.Errorf("429 with Reset in Atlassian's documented format, no Retry-After: %+v", s)
	}
	s = readSignals(answer(429, "Retry-After", "3", "X-RateLimit-Reset", "2026-12-01T09:00:10Z"), now)
	if s.retryAfter != 3*time.Second {
		t.Errorf("Retry-After wins over Reset: %v", s.retryAfter)
	}
	s = readSignals(answer(200, "X-RateLimit-NearLimit", "junk"), now)
	if s.near || s.hinted {
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
	clk.Advance(2 * time.Second) // the refused rate's pause
	for range 4 {
		tk := admit(pc, epEdit, 1)[0]
		clk.Advance(50 * time.Millisecond)
		pc.release(tk, answer(200))
	}
	if w := pc.window(epEdit); w >= 5 {
		t.Errorf("after the 429, 4 clean answers grew the window to %v; want additive growth (< 5)", w)
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

// countingPace counts the purchases a pacer makes of a PaceStore, and
// fails them while broken is set.
type countingPace struct {
	core.PaceStore
	mu     sync.Mutex
	calls  int
	wants  []int
	broken bool
}

func (c *countingPace) TakePace(ctx context.Context, key string, r core.PaceRequest) (core.PaceGrant, error) {
	c.mu.Lock()
	c.calls++
	c.wants = append(c.wants, r.Want)
	broken := c.broken
	c.mu.Unlock()
	if broken {
		return core.PaceGrant{}, core.Errorf(core.CodeInternal, "the store is down")
	}
	return c.PaceStore.TakePace(ctx, key, r)
}

// probe serves an endpoint sending freely its probe: probeServed clean
// answers (carrying h) within a second, probeWindow at a time, and checks
// that no more than probeWindow go at once before.
func probe(t *testing.T, pc *pacer, clk *paceClock, endpoint string, h ...string) {
	t.Helper()
	for served := 0; served < probeServed; {
		ts := admit(pc, endpoint, 64)
		if len(ts) != probeWindow {
			t.Fatalf("probing %s: %d admitted at once after %d served; want %d", endpoint, len(ts), served, probeWindow)
		}
		clk.Advance(40 * time.Millisecond)
		for _, tk := range ts {
			pc.release(tk, answer(200, h...))
		}
		served += len(ts)
	}
}

// X-RateLimit-Limit and X-RateLimit-Remaining do not pace: Jira does not
// say which budget they count, and real sites' counters do not behave as
// the burst limit. A site's first sends go as its window lets them
// whatever they say.
func TestPacerIgnoresRateLimitCounters(t *testing.T) {
	pc, clk := ratedPacer(64)
	pc.endpoint(epEdit).window = 64
	probe(t, pc, clk, epEdit, "X-RateLimit-Limit", "2", "X-RateLimit-Remaining", "0")
	if got := len(admit(pc, epEdit, 64)); got != 64 {
		t.Errorf("after answers saying 0 of 2 remain, %d more admitted at once; want the window's 64", got)
	}
}

// A site nobody has paced yet is paced by the window alone (it doubles
// per round trip) once it served probeServed in a second two at a time:
// a site that never refuses is served as fast as it answers, and the pace
// is bought about once a second, not per batch.
// The first burst 429 cuts the rate to half of what the site served in
// the last second (the clean answers), holds the endpoint until its
// Retry-After, and from then on sends go at the learned rate.
func TestPacerPacesAtTheLearnedRate(t *testing.T) {
	pc, clk := ratedPacer(64)
	st := &countingPace{PaceStore: memstore.New(memstore.Options{Now: clk.Now})}
	pc.site, pc.shared = "https://x.atlassian.net", st
	pc.endpoint(epEdit).window = 64
	probe(t, pc, clk, epEdit)
	served := probeServed
	for range 20 { // a second in steps of 50 ms, 64 in flight each
		ts := admit(pc, epEdit, 64)
		if len(ts) != 64 {
			t.Fatalf("%d admitted at once (%d served); want the window's 64", len(ts), served)
		}
		clk.Advance(50 * time.Millisecond)
		for _, tk := range ts {
			pc.release(tk, answer(200))
		}
		served += len(ts)
	}
	if st.calls > 4 { // and the site's memory told once that it serves fast
		t.Errorf("%d sends bought the pace %d times; want about once a second", served, st.calls)
	}
	// 20 answers in the last second: 16 clean, then a refusal.
	clk.Advance(time.Second)
	ts := admit(pc, epEdit, 17)
	for _, tk := range ts[:16] {
		pc.release(tk, answer(200))
	}
	pc.release(ts[16], answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	if _, ok := tryAt(pc, epEdit, ""); ok {
		t.Fatal("admitted inside the Retry-After")
	}
	clk.Advance(time.Second)
	admitted := 0
	for range 40 { // two seconds in steps of 50 ms
		for _, tk := range admit(pc, epEdit, 64) {
			pc.release(tk, answer(200))
			admitted++
		}
		clk.Advance(50 * time.Millisecond)
	}
	// Two seconds at 8 a second and a bucket of 8 (filled during the
	// pause), with the slow growth after a cut: about 24.
	if want := 16 * core.PaceFirstCut; float64(admitted) > 3*want+2 || float64(admitted) < 2*want {
		t.Errorf("after the refusal, %d requests in two seconds; want about half of the 16 served a second, %v, and a bucket of it", admitted, want)
	}
}

// A refusal on one endpoint ends the slow start of the site's other
// endpoints at the rate it taught: those sending freely stop (before
// they are refused too) and pace at it.
func TestPacerEndsSlowStartWhereAnotherEndpointWasRefused(t *testing.T) {
	pc, clk := ratedPacer(64)
	for _, ep := range []string{epEdit, epSearch} {
		pc.endpoint(ep).window = 64
	}
	// Both free, every answer clean.
	probe(t, pc, clk, epSearch)
	probe(t, pc, clk, epEdit)
	if n := len(admit(pc, epSearch, 64)); n != 64 {
		t.Fatalf("search admitted %d at once in slow start; want its window's 64", n)
	}
	pc.mu.Lock()
	pc.inFlight -= 64
	pc.endpoint(epSearch).inFlight -= 64
	pc.mu.Unlock()
	tk := admit(pc, epEdit, 1)
	if len(tk) != 1 {
		t.Fatal("no edit admitted")
	}
	pc.release(tk[0], answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	tryAt(pc, epEdit, "") // the refusal is told at once
	learned := pc.learned
	if learned <= 0 || learned > 2*probeServed*core.PaceFirstCut {
		t.Fatalf("learned %v after the refusal; want half the edits served in the last second", learned)
	}
	n := len(admit(pc, epSearch, 64))
	search := pc.local.states[pc.key(epSearch)]
	if search.Rate != learned || !search.Steady {
		t.Errorf("search after the edit's refusal: rate %v, steady %v; want %v, steady", search.Rate, search.Steady, learned)
	}
	if n > int(learned)+1 {
		t.Errorf("search admitted %d at once after the edit's refusal; want at most a second's worth at %v", n, learned)
	}
}

// Shared pacing: one purchase per batch of waiting requests, not one
// per request; two pacers on one store share one rate (a refusal one of
// them saw holds the other); a store fault never stops a request: the
// pacer paces alone, says so once in the log, and asks the store again
// later.
func TestPacerSharesThroughTheStore(t *testing.T) {
	a, clk := ratedPacer(16)
	st := &countingPace{PaceStore: memstore.New(memstore.Options{Now: clk.Now})}
	b := newPacer(16)
	b.now, b.after = clk.Now, clk.After
	var logs streamtest.Buffer
	a.log = slog.New(slog.NewTextHandler(&logs, nil))
	for _, pc := range []*pacer{a, b} {
		pc.site, pc.shared = "https://x.atlassian.net", st
		pc.endpoint(epEdit).window = 16
	}
	// The site's rate is known (learned on another endpoint): the key
	// starts with a full bucket.
	a.learned = core.PaceStartRate
	// Ten requests waiting at once: one purchase.
	var wg sync.WaitGroup
	tickets := make(chan *ticket, 10)
	for range 10 {
		wg.Go(func() {
			tk, err := a.acquire(t.Context(), call{method: "PUT", endpoint: epEdit})
			if err != nil {
				t.Error(err)
				return
			}
			tickets <- tk
		})
	}
	wg.Wait()
	close(tickets)
	if st.calls > 3 {
		t.Errorf("10 requests made %d purchases (wants %v); want a few batches, not one per request", st.calls, st.wants)
	}
	for tk := range tickets {
		a.release(tk, answer(200))
	}
	// b shares a's rate: a bought the bucket (a window's worth), so b
	// gets nothing at once; alone it would have had the whole bucket.
	if got := len(admit(b, epEdit, 16)); got != 0 {
		t.Errorf("the second pacer got %d at once; want none (the first bought the shared bucket)", got)
	}
	// A refusal a saw holds b until its Retry-After.
	clk.Advance(2 * time.Second)
	tk := admit(a, epEdit, 1)[0]
	a.release(tk, answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	if _, ok := tryAt(a, epEdit, ""); ok {
		t.Fatal("a admitted a request inside its own Retry-After")
	}
	if wait, ok := tryAt(b, epEdit, ""); ok || wait < 900*time.Millisecond {
		t.Errorf("b, after a's refusal: admitted %v, wait %v; want held for the Retry-After", ok, wait)
	}
	// The store fails: requests still go, paced alone, said once.
	clk.Advance(2 * time.Second)
	st.mu.Lock()
	st.broken = true
	st.mu.Unlock()
	before := st.calls
	if got := len(admit(a, epEdit, 3)); got != 3 {
		t.Fatalf("with the store down, %d of 3 admitted; want all (pacing alone)", got)
	}
	clk.Advance(2 * time.Second)
	admit(a, epEdit, 3)
	if st.calls != before+1 {
		t.Errorf("the store was asked %d times after its fault; want once, then not for a while", st.calls-before)
	}
	if n := strings.Count(logs.String(), "shared pacing unavailable"); n != 1 {
		t.Errorf("log says %d times that pacing is not shared; want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "down") {
		t.Errorf("the log holds the store's error text: %s", logs.String())
	}
	clk.Advance(sharedRetry)
	st.mu.Lock()
	st.broken = false
	st.mu.Unlock()
	admit(a, epEdit, 1)
	if st.calls != before+2 {
		t.Errorf("after %v the store was not asked again", sharedRetry)
	}
}

// Two processes on one store: a pacer alone on a site's endpoint sends by
// its window; once another process buys the same endpoint, both pace by
// the shared rate (a new key's starting bucket), so a team's agents do
// not each send freely.
func TestPacerSendsFreelyOnlyAlone(t *testing.T) {
	a, clk := ratedPacer(64)
	b := pacerOn(clk, 64)
	st := memstore.New(memstore.Options{Now: clk.Now})
	for _, pc := range []*pacer{a, b} {
		pc.site, pc.shared = "https://x.atlassian.net", st
		pc.endpoint(epEdit).window = 64
	}
	release := func(pc *pacer, ts []*ticket) {
		for _, tk := range ts {
			pc.release(tk, answer(200))
		}
	}
	probe(t, a, clk, epEdit)
	ts := admit(a, epEdit, 32)
	if len(ts) != 32 {
		t.Fatalf("alone: %d of 32 admitted at once; want all (the window paces)", len(ts))
	}
	release(a, ts)
	clk.Advance(100 * time.Millisecond)
	ts = admit(b, epEdit, 32)
	// The shared bucket: at most a second's worth at the starting rate.
	if want := int(core.PaceStartRate); len(ts) > want {
		t.Errorf("a second process: %d admitted at once; want the shared bucket, at most %d", len(ts), want)
	}
	release(b, ts)
	clk.Advance(core.PaceFree) // a's free send times have run out
	ts = admit(a, epEdit, 32)
	if len(ts) == 32 {
		t.Errorf("the first process after the second came: %d admitted at once; want the shared rate", len(ts))
	}
	release(a, ts)
}

// probedOnAStore is a process's pacer sharing pacing through a new store,
// whose endpoint has served its probe (sending freely, every answer clean).
func probedOnAStore(t *testing.T, endpoint string) (*pacer, *paceClock, *memstore.Store) {
	t.Helper()
	a, clk := ratedPacer(64)
	st := memstore.New(memstore.Options{Now: clk.Now})
	a.site, a.shared = "https://x.atlassian.net", st
	a.endpoint(endpoint).window = 64
	probe(t, a, clk, endpoint)
	return a, clk, st
}

// The site's memory: a refusal one process saw is kept for the site in
// the store, so a process started later begins each endpoint at the
// learned rate instead of finding the limit again by refusals.
func TestPacerLaterProcessStartsFromTheSitesRate(t *testing.T) {
	a, clk, st := probedOnAStore(t, epEdit)
	tk := admit(a, epEdit, 1)
	a.release(tk[0], answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	tryAt(a, epEdit, "") // the refusal is told at once
	learned := a.learned
	if learned <= 0 {
		t.Fatal("nothing learned from the refusal")
	}
	clk.Advance(5 * time.Second)
	b := pacerOn(clk, 64)
	b.site, b.shared = a.site, st
	b.endpoint(epSearch).window = 64
	n := len(admit(b, epSearch, 64))
	if b.learned != learned {
		t.Errorf("a later process learned %v from the site; want %v", b.learned, learned)
	}
	if n > int(learned)+1 {
		t.Errorf("a later process sent %d at once on a new endpoint; want at most a second's worth at the site's rate %v", n, learned)
	}
}

// Two processes on one store, both holding send times bought ahead: once
// one of them is refused, the other spends none of the send times it
// bought before inside the refusal's Retry-After (Jira refuses every
// request to the endpoint until it has passed, so each would be refused
// too), and sends again after it. A process alone on a key is not asked
// to check: it sees its own refusals.
func TestPacerSpendsNoBoughtSendTimeInsideAnotherProcesssPause(t *testing.T) {
	a, clk := ratedPacer(16)
	b := pacerOn(clk, 16)
	store := memstore.New(memstore.Options{Now: clk.Now})
	sta, stb := &countingPace{PaceStore: store}, &countingPace{PaceStore: store}
	for pc, st := range map[*pacer]*countingPace{a: sta, b: stb} {
		pc.site, pc.shared = "https://x.atlassian.net", st
		pc.endpoint(epSearch).window = 16
		pc.learned = 10 // the site's rate, learned on another endpoint
	}
	// a buys a second's worth (a bucket of 10 at once and more ahead),
	// then b buys what is left of the second ahead.
	ta := admit(a, epSearch, 16)
	if len(ta) != 10 {
		t.Fatalf("a: %d admitted at once; want the bucket's 10", len(ta))
	}
	if got := len(admit(b, epSearch, 16)); got != 0 {
		t.Fatalf("b: %d admitted at once; want none (a bought the bucket)", got)
	}
	b.mu.Lock()
	bought := len(b.endpoint(epSearch).slots)
	b.mu.Unlock()
	if bought == 0 {
		t.Fatal("b bought no send time ahead")
	}
	// 50 ms later a is refused for a second.
	clk.Advance(50 * time.Millisecond)
	for _, tk := range ta[1:] {
		a.release(tk, answer(200))
	}
	// a is told as its answer comes back, before a sends again (its
	// retry comes after the Retry-After).
	a.release(ta[0], answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	// b's send times come due inside the pause: none is spent.
	pauseEnds := clk.Now().Add(time.Second)
	for clk.Now().Before(pauseEnds) {
		if wait, ok := tryAt(b, epSearch, ""); ok {
			t.Fatalf("b sent %v after a's refusal, inside its Retry-After (%d send times bought before it)", clk.Now().Sub(pauseEnds.Add(-time.Second)), bought)
		} else if wait <= 0 || wait > time.Second {
			t.Fatalf("b waits %v inside the pause; want until it ends", wait)
		}
		clk.Advance(20 * time.Millisecond)
	}
	// After it b sends again (once the send times bought ahead before
	// the refusal, which the shared bucket still counts, are paid for).
	after := 0
	for range 10 {
		after += len(admit(b, epSearch, 16))
		clk.Advance(100 * time.Millisecond)
	}
	if after == 0 {
		t.Error("b sends nothing in the second after the pause")
	}
	// b buys only for the requests waiting (here one at a time): a send
	// time bought and never spent is one a waits for in vain.
	for _, w := range stb.wants {
		if w > 1 {
			t.Errorf("b asked for %v send times with one request waiting; want 1 each", stb.wants)
			break
		}
	}
	// Alone on a key, a spends what it bought without asking the store.
	c, cclk := ratedPacer(16)
	cst := &countingPace{PaceStore: memstore.New(memstore.Options{Now: cclk.Now})}
	c.site, c.shared, c.learned = "https://x.atlassian.net", cst, 10
	c.endpoint(epSearch).window = 16
	sent := len(admit(c, epSearch, 16))
	for range 10 {
		cclk.Advance(100 * time.Millisecond)
		sent += len(admit(c, epSearch, 16))
	}
	if cst.calls > 4 {
		t.Errorf("a process alone sent %d and asked the store %d times; want a purchase per second's worth, no checks", sent, cst.calls)
	}
}

// The site's memory of a fast site: a process that saw the site serve
// core.PaceProven clean answers in a second and refuse none says so in
// the store, and a later process's endpoints skip the two-at-a-time start
// (they send by their window from the first request); a refusal on the
// site makes it forget, so a process after that starts two at a time.
func TestPacerLaterProcessSkipsTheProbeOnAFastSite(t *testing.T) {
	a, clk, st := probedOnAStore(t, epSearch)
	clk.Advance(5 * time.Second)
	start := func() int {
		t.Helper()
		b := pacerOn(clk, 64)
		b.site, b.shared = a.site, st
		b.endpoint(epEdit).window = 64
		ts := admit(b, epEdit, 64)
		for _, tk := range ts {
			b.release(tk, answer(200))
		}
		return len(ts)
	}
	if n := start(); n <= probeWindow {
		t.Errorf("a later process on a site that served %d in a second sent %d at once; want its window", probeServed, n)
	}
	// A refusal on the site: the next process finds its limits again.
	tk := admit(a, epSearch, 1)
	a.release(tk[0], answer(429, "Retry-After", "1", "RateLimit-Reason", "jira-burst-based"))
	clk.Advance(5 * time.Second)
	c := pacerOn(clk, 64)
	c.site, c.shared = a.site, st
	c.endpoint(epEdit).window = 64
	c.learned = 0
	if n := len(admit(c, epEdit, 64)); n > int(c.learned)+1 || c.endpoint(epEdit).proven {
		t.Errorf("after a refusal on the site a new process sent %d at once (proven %v); want the learned rate's bucket, not proven", n, c.endpoint(epEdit).proven)
	}
}
