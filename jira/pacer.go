package jira

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The pacer decides when each request may go out, from what Jira really
// exposes (docs/jira-client.md, "Pacing"): its refusals (429 with
// Retry-After and RateLimit-Reason, 503), the NearLimit hint, and the
// round trips it measures. It does not read X-RateLimit-Limit or
// X-RateLimit-Remaining: Jira Cloud does not say which budget they count,
// and what real sites send does not behave as the burst limit. Jira Cloud
// applies independent limits and names the one that refused a request in
// RateLimit-Reason: a burst limit per endpoint and HTTP method
// (jira-burst-based) and a per-issue write limit (jira-per-issue-on-write).
// So the pacer keeps:
//
//   - for the whole Provider: at most MaxInFlight requests at once, and a
//     pause everyone honours (Retry-After of a 429 without a reason the
//     pacer knows, or of a 503);
//   - per endpoint ("PUT /rest/api/3/issue/{key}"): an AIMD window of
//     requests in flight — it starts at 4, grows by one for each fast and
//     clean answer until the first slow answer or sign of a limit (slow
//     start: it doubles per round trip), by 1/window after that, halves on
//     a 429 or 503, and stays at one after three 429s in a row until 20
//     clean answers have come back; a pause (Retry-After of a burst 429,
//     for every request to the endpoint); and a rate: every send spends a
//     send time bought from the endpoint's core.PaceState, a learned rate
//     (core/pacing.go) kept in the state store when the Provider shares
//     pacing (SharePacing: every process on the site paces as one), else
//     in this process. One purchase buys a batch (the requests waiting),
//     and carries what the answers since the last one said (clean, refused
//     with its Retry-After, NearLimit); a refusal is told as soon as it
//     comes back. Where other processes buy the key too, a purchase buys
//     only for the requests waiting, and a send time bought more than
//     checkAfter before it is spent is checked against the key's shared
//     pause first (another process's refusal since): none is spent inside
//     it. A store fault falls back to this process's own state, said once
//     in the log, and the store is tried again a while later;
//   - per issue: never two writes at once, and after a per-issue 429 no
//     write to that issue before its Retry-After.
//
// Every request passes acquire before it is sent and release with its
// answer. The clock and timers are injectable (tests drive them).
type pacer struct {
	max   int // MaxInFlight
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	// site names the site in pace keys; perSite: one rate for every
	// endpoint (Data Center's rate limit is per user, not per endpoint).
	site    string
	perSite bool
	log     *slog.Logger

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced when a slot frees or a rule changes
	inFlight  int
	pause     time.Time // no request starts before it
	endpoints map[string]*endpointPace
	issues    map[string]*issuePace

	shared   core.PaceStore // nil: this process paces alone
	sharedOK time.Time      // after a store fault: the store is not asked before it
	local    localPace
	// learned is the last rate learned on any key of the site: a new
	// key starts from it (core.PaceRequest.Start).
	learned float64
	// id names this pacer as a buyer (core.PaceRequest.Buyer).
	id string
	// siteProven: the site's memory says it serves fast (core.PaceGrant.
	// Proven): new endpoints start proven. served are the times of the
	// clean answers from every endpoint within the last second, and
	// provenTold: the site's memory was told this process saw
	// core.PaceProven of them in a second (or it was refused: it never
	// tells).
	siteProven bool
	served     []time.Time
	provenTold bool
	// siteRead: the site's learned rate was read from the shared store
	// (siteKey), or there is none to read.
	siteRead bool
}

// Pacing constants (docs/jira-client.md explains each).
const (
	initialWindow   = 4
	strikesToSingle = 3  // 429s in a row that put an endpoint at one at a time
	cleanToRecover  = 20 // clean answers that lift it again
	// slotLife: a bought send time not used within it is dropped (it was
	// bought for a moment that has passed).
	slotLife = 250 * time.Millisecond
	// sharedRetry: after a store fault, the store is asked again after it.
	sharedRetry = 30 * time.Second
	// sharedTimeout bounds one call to the store.
	sharedTimeout = 2 * time.Second
	// probeWindow and probeServed: an endpoint sending freely
	// (core.PaceGrant.Free) has at most probeWindow requests in flight
	// until it had probeServed clean answers within one second. Every
	// request in flight when a burst bucket runs out is refused (those
	// that reach Jira before the first refusal is back), so the window,
	// not the rate, is what finding a bucket costs; a bucket that served
	// probeServed in a second (twice a 10-a-second bucket's refill) is not
	// found by the window's growth in one round trip.
	probeWindow = 2
	probeServed = 20
	// checkAfter: a send time of a key other processes buy too, spent
	// more than checkAfter after the store last answered for it, is
	// checked first (core.PaceGrant.Pause): another process may have
	// been refused since, and every request inside the Retry-After that
	// refusal started is refused too (Jira refuses every request to the
	// endpoint until it has passed).
	checkAfter = 25 * time.Millisecond
)

// endpointPace is the pacing of one endpoint and method.
type endpointPace struct {
	window   float64 // requests allowed in flight (AIMD)
	grown    bool    // a slowdown signal came: growth is additive from now on
	inFlight int
	pause    time.Time // Retry-After of a burst 429
	strikes  int       // 429s since the last clean answer
	single   int       // clean answers still needed to leave one-at-a-time; 0 = not single
	minRTT   time.Duration
	// waiting counts the requests waiting here by their send order
	// (core.SendOrder): while one with a lower order waits, a higher one
	// is not admitted, so a commit's writes leave in its plan's order.
	waiting   map[int]int
	unordered int // requests without a send order waiting here
	// slots are the send times bought and not yet used (ascending).
	slots []time.Time
	// free: until it, requests need no send time (core.PaceGrant.Free:
	// slow start with no other buyer; the window paces them).
	free time.Time
	// served are the times of the clean answers within the last second:
	// the rate the site served, told with a refusal (core.PaceRequest.Sent).
	served []time.Time
	// proven: it had probeServed clean answers within a second and no
	// refusal since (sending freely, only the window paces it).
	proven bool
	// buying: a purchase is under way (one at a time per endpoint);
	// check: it is a check (core.PaceGrant.Pause), buying nothing.
	buying, check bool
	// steady: the last grant's rate was learned (its slow start is over).
	steady bool
	// shared: the last answer said other processes buy the key too
	// (core.PaceGrant.Shared), and checked is when the store last
	// answered for it: a send time is checked against the shared pause
	// before it is spent once checkAfter has passed since.
	shared  bool
	checked time.Time
	// retry: no purchase before it (the last one granted nothing).
	retry time.Time
	// report is what the answers said since the last purchase; a
	// refusal's Retry-After is kept as the time it ends (reportPause),
	// and sent as what is left of it.
	report      core.PaceRequest
	reportPause time.Time
}

// issuePace is the pacing of writes to one issue.
type issuePace struct {
	busy bool
	next time.Time // Retry-After of a per-issue 429
}

func newPacer(maxInFlight int) *pacer {
	return &pacer{
		max:       max(1, maxInFlight),
		now:       time.Now,
		after:     time.After,
		log:       slog.New(slog.DiscardHandler),
		changed:   make(chan struct{}),
		endpoints: map[string]*endpointPace{},
		issues:    map[string]*issuePace{},
		local:     localPace{states: map[string]*core.PaceState{}},
		id:        buyerID(),
	}
}

// buyerID is a random name for one pacer (a process's), as a buyer of a
// shared pace.
func buyerID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ticket is one admitted request.
type ticket struct {
	endpoint, issue string
	start           time.Time
}

// acquire waits until c may be sent, or ctx ends.
func (pc *pacer) acquire(ctx context.Context, c call) (*ticket, error) {
	issue := ""
	if c.method != http.MethodGet && c.key != "" {
		issue = c.key
	}
	order, ordered := core.SendOrder(ctx)
	pc.mu.Lock()
	pc.endpoint(c.endpoint).wait(ordered, order, 1)
	pc.mu.Unlock()
	defer func() {
		pc.mu.Lock()
		pc.endpoint(c.endpoint).wait(ordered, order, -1)
		pc.signal() // a lower order left: the next may go
		pc.mu.Unlock()
	}()
	for {
		pc.mu.Lock()
		wait, ok, buy := time.Duration(0), false, false
		if !ordered || !pc.endpoint(c.endpoint).lowerWaits(order) {
			wait, ok, buy = pc.try(c.endpoint, issue)
		}
		ch := pc.changed
		pc.mu.Unlock()
		if ok {
			return &ticket{endpoint: c.endpoint, issue: issue, start: pc.now()}, nil
		}
		if buy {
			pc.buy(ctx, c.endpoint)
			continue
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = pc.after(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		case <-timer:
		}
	}
}

// try admits a request to endpoint (writing issue, or "") now, or says
// how long until something it waits for is due (0: until a slot frees),
// or that the endpoint needs send times bought (buy: the caller buys them
// and tries again). Call with pc.mu held.
func (pc *pacer) try(endpoint, issue string) (wait time.Duration, ok, buy bool) {
	now := pc.now()
	ep := pc.endpoint(endpoint)
	var is *issuePace
	if issue != "" {
		is = pc.issue(issue)
	}
	if ep.report.Refused && !ep.buying {
		// A refusal is told to the shared pace at once, so every
		// process sharing it holds back now, not at this one's next
		// purchase.
		ep.buying = true
		return 0, false, true
	}
	due := time.Time{} // the latest time-based rule that is not met yet
	later := func(t time.Time) {
		if t.After(now) && t.After(due) {
			due = t
		}
	}
	later(pc.pause)
	later(ep.pause)
	if is != nil {
		later(is.next)
	}
	if !due.IsZero() {
		return due.Sub(now), false, false
	}
	if pc.inFlight >= pc.max || ep.inFlight >= ep.allowed() || (is != nil && is.busy) {
		return 0, false, false
	}
	if now.Before(ep.free) {
		// Free (slow start, no other buyer): the window alone paces.
		if ep.proven = ep.proven || len(ep.recent(now)) >= probeServed; ep.inFlight >= probeWindow && !ep.proven {
			// Not yet shown a bucket of probeServed a second: two at a
			// time, so finding a small one costs two refusals.
			return 0, false, false
		}
		pc.admit(ep, is, now)
		return 0, true, false
	}
	// A send time: the first bought one, once due; stale ones are dropped.
	for len(ep.slots) > 0 && now.Sub(ep.slots[0]) > slotLife {
		ep.slots = ep.slots[1:]
	}
	switch {
	case len(ep.slots) == 0 && ep.buying:
		return 0, false, false // another request is buying: wait for it
	case len(ep.slots) == 0 && ep.retry.After(now):
		return ep.retry.Sub(now), false, false
	case len(ep.slots) == 0:
		ep.buying = true
		return 0, false, true
	case ep.slots[0].After(now):
		return ep.slots[0].Sub(now), false, false
	case ep.buying:
		return 0, false, false // a check is under way: wait for it
	case ep.shared && pc.sharing(now) && now.Sub(ep.checked) > checkAfter:
		// Bought a while ago, and other processes send here too: is
		// the endpoint paused since (one of them was refused)?
		ep.buying, ep.check = true, true
		return 0, false, true
	}
	ep.slots = ep.slots[1:]
	pc.admit(ep, is, now)
	return 0, true, false
}

// admit counts a request admitted at now. Call with pc.mu held.
func (pc *pacer) admit(ep *endpointPace, is *issuePace, now time.Time) {
	pc.inFlight++
	ep.inFlight++
	if is != nil {
		is.busy = true
	}
}

// recent is ep.served without the answers more than a second before now.
func (ep *endpointPace) recent(now time.Time) []time.Time {
	i := 0
	for i < len(ep.served) && now.Sub(ep.served[i]) >= time.Second {
		i++
	}
	ep.served = ep.served[i:]
	return ep.served
}

// storeFailed: the shared store failed at now (err); this process paces
// alone until sharedRetry has passed, and says so in the log. Call with
// pc.mu held.
func (pc *pacer) storeFailed(err error, now time.Time) {
	pc.log.Warn("shared pacing unavailable: this process paces alone for a while", "code", core.ErrorCode(err), "retry_in", sharedRetry.String())
	pc.sharedOK = now.Add(sharedRetry)
}

// sharing reports whether the shared store is to be asked at now (there
// is one, and no fault of it is recent). Call with pc.mu held.
func (pc *pacer) sharing(now time.Time) bool {
	return pc.shared != nil && !now.Before(pc.sharedOK)
}

// buy buys send times for endpoint (its waiting requests' worth) with
// what its answers said since the last purchase, from the shared store
// or, without one or after its fault, from this process's own state; or,
// when ep.check is set, only asks the shared store whether the endpoint
// is paused (and tells what the answers said), dropping the send times
// the pause covers. The caller set ep.buying.
func (pc *pacer) buy(ctx context.Context, endpoint string) {
	pc.mu.Lock()
	ep := pc.endpoint(endpoint)
	check := ep.check
	ep.check = false
	if check {
		pc.mu.Unlock()
		pc.checkPause(ctx, endpoint)
		return
	}
	r := ep.report
	if left := ep.reportPause.Sub(pc.now()); left > 0 {
		r.RetryAfter = left
	}
	ep.report, ep.reportPause = core.PaceRequest{}, time.Time{}
	// As many as wait, or as the window would let out now: requests
	// arriving one after another then share one purchase. Where other
	// processes may buy the key too (they do, or this is the first
	// purchase: nobody knows yet), only as many as wait: a send time
	// bought and never spent is one they waited for in vain.
	want := max(ep.waiters(), ep.allowed()-ep.inFlight)
	if ep.shared || (pc.shared != nil && ep.checked.IsZero()) {
		want = ep.waiters()
	}
	r.Want = max(1, min(want, core.PaceMaxGrant))
	readSite := pc.shared != nil && !pc.siteRead && !pc.perSite
	pc.siteRead = true
	r.Buyer = pc.id
	if r.Refused {
		r.Sent = len(ep.recent(pc.now()))
	}
	key := pc.key(endpoint)
	shared := pc.shared
	if !pc.sharing(pc.now()) {
		shared = nil
	}
	pc.mu.Unlock()

	var (
		g   core.PaceGrant
		err error
	)
	if readSite && shared != nil {
		// The rate the site taught any process before (a site-wide
		// memory): this process's endpoints start from it, so only a
		// site's first contact pays refusals.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
		site, serr := shared.TakePace(sctx, pc.siteKey(), core.PaceRequest{})
		cancel()
		if serr == nil && site.Proven {
			// Another process saw the site serve fast and never refuse:
			// this one's endpoints skip the two-at-a-time start.
			pc.mu.Lock()
			pc.siteProven = true
			for _, o := range pc.endpoints {
				o.proven = o.proven || !o.steady
			}
			pc.mu.Unlock()
		}
		if serr == nil && site.Steady {
			pc.mu.Lock()
			if pc.learned <= 0 {
				pc.learned = site.Rate
			}
			pc.mu.Unlock()
		}
	}
	pc.mu.Lock()
	r.Start = pc.learned
	pc.mu.Unlock()
	if shared != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
		g, err = shared.TakePace(sctx, key, r)
		cancel()
		if err == nil && r.Refused && g.Steady && !pc.perSite {
			// Teach the site's memory (a key nobody has paced takes
			// the rate; one that has keeps the first it was taught).
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
			_, _ = shared.TakePace(sctx, pc.siteKey(), core.PaceRequest{Start: g.Rate})
			cancel()
		}
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if shared == nil || err != nil {
		if err != nil {
			pc.storeFailed(err, pc.now())
		}
		g = pc.local.take(key, pc.now(), r)
	}
	if g.Steady {
		pc.learned = g.Rate
	}

	ep.steady = g.Steady
	now := pc.now()
	ep.heard(g, now, shared != nil && err == nil)
	if r.Refused {
		// The site refused this endpoint: endpoints still in slow start
		// drop the send times they bought at their growing rate and buy
		// again, ending their slow start at the rate just learned
		// (PaceRequest.Start), before they are refused too.
		for name, o := range pc.endpoints {
			if name != endpoint && !o.steady {
				o.slots, o.free = nil, time.Time{}
			}
		}
	}
	for _, d := range g.Sends {
		ep.slots = append(ep.slots, now.Add(d))
	}
	ep.free = time.Time{}
	switch {
	case g.Free > 0:
		ep.free = now.Add(g.Free)
	case len(g.Sends) == 0:
		ep.retry = now.Add(g.Retry)
	}
	ep.buying = false
	pc.signal()
}

// checkPause asks the shared store whether endpoint's key is paused,
// telling it what the answers said since the last purchase. A store
// fault skips the check (the send time is spent) and is handled as in
// buy. The caller set ep.buying.
func (pc *pacer) checkPause(ctx context.Context, endpoint string) {
	pc.mu.Lock()
	ep := pc.endpoint(endpoint)
	// The clean answers and NearLimit go with the check (a refusal
	// coming meanwhile stays for the next purchase).
	tell := core.PaceRequest{Clean: ep.report.Clean, Near: ep.report.Near}
	ep.report.Clean, ep.report.Near = 0, false
	key, shared := pc.key(endpoint), pc.shared
	pc.mu.Unlock()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
	g, err := shared.TakePace(sctx, key, tell)
	cancel()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	if err != nil {
		pc.storeFailed(err, now)
		ep.report.Clean += tell.Clean
		ep.report.Near = ep.report.Near || tell.Near
	} else {
		ep.heard(g, now, true)
	}
	ep.buying = false
	pc.signal()
}

// heard applies what an answer of the shared store (fromStore) or of
// this process's own state said of the key's pause and sharing at now:
// send times the pause covers are dropped (bought before a refusal,
// spent inside its Retry-After they would be refused).
func (ep *endpointPace) heard(g core.PaceGrant, now time.Time, fromStore bool) {
	ep.shared = g.Shared && fromStore
	ep.checked = now
	if g.Pause <= 0 {
		return
	}
	until := now.Add(g.Pause)
	ep.pause = later(ep.pause, until)
	i := 0
	for i < len(ep.slots) && ep.slots[i].Before(until) {
		i++
	}
	ep.slots = ep.slots[i:]
}

// key names endpoint's pace: the site and the endpoint (or the whole
// site, when its limit is per user).
func (pc *pacer) key(endpoint string) string {
	if pc.perSite {
		return "jira " + pc.site
	}
	return "jira " + pc.site + " " + endpoint
}

// siteKey names the site's memory in the shared store: the first rate a
// refusal taught any process on the site (on Data Center, the site's own
// key, which every endpoint shares anyway).
func (pc *pacer) siteKey() string { return "jira " + pc.site }

// localPace is the pacing state of a process that paces alone.
type localPace struct {
	states map[string]*core.PaceState
	start  core.PaceState // a new key's state (tests: a rate that never binds)
}

func (l *localPace) take(key string, now time.Time, r core.PaceRequest) core.PaceGrant {
	st := l.states[key]
	if st == nil {
		st = new(core.PaceState)
		*st = l.start
		l.states[key] = st
	}
	return st.Take(now, r)
}

func (pc *pacer) endpoint(name string) *endpointPace {
	ep := pc.endpoints[name]
	if ep == nil {
		ep = &endpointPace{window: float64(min(initialWindow, pc.max)), proven: pc.siteProven}
		pc.endpoints[name] = ep
	}
	return ep
}

func (pc *pacer) issue(key string) *issuePace {
	is := pc.issues[key]
	if is == nil {
		is = &issuePace{}
		pc.issues[key] = is
	}
	return is
}

// allowed is how many requests the endpoint's window lets be in flight.
func (ep *endpointPace) allowed() int {
	if ep.single > 0 {
		return 1
	}
	return max(1, int(ep.window))
}

// signals are what an answer says about Jira's limits.
type signals struct {
	status     int // 0: no answer (transport error)
	retryAfter time.Duration
	hinted     bool   // Retry-After was sent
	reason     string // RateLimit-Reason
	near       bool   // X-RateLimit-NearLimit: true
}

func readSignals(resp *response, now time.Time) signals {
	var s signals
	if resp == nil {
		return s
	}
	s.status = resp.status
	h := resp.header
	s.retryAfter, s.hinted = retryAfter(h, now)
	if !s.hinted && resp.status == http.StatusTooManyRequests {
		// Atlassian: X-RateLimit-Reset = request time + Retry-After.
		if t, ok := parseReset(h.Get("X-RateLimit-Reset")); ok && t.After(now) {
			s.retryAfter, s.hinted = t.Sub(now), true
		}
	}
	s.reason = strings.ToLower(strings.TrimSpace(h.Get("RateLimit-Reason")))
	s.near = strings.EqualFold(strings.TrimSpace(h.Get("X-RateLimit-NearLimit")), "true")
	return s
}

// parseReset reads X-RateLimit-Reset: ISO 8601 as Atlassian documents it
// (yyyy-MM-ddTHH:mmZ), with seconds, or with fractions.
func parseReset(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Reasons Jira gives in RateLimit-Reason.
const (
	reasonBurst    = "jira-burst-based"
	reasonPerIssue = "jira-per-issue-on-write"
)

// release returns t's slot and learns from the answer (resp nil when none
// came).
func (pc *pacer) release(t *ticket, resp *response) {
	pc.mu.Lock()
	now := pc.now()
	pc.inFlight--
	ep := pc.endpoint(t.endpoint)
	ep.inFlight--
	var is *issuePace
	if t.issue != "" {
		is = pc.issue(t.issue)
		is.busy = false
	}
	pc.learn(ep, is, readSignals(resp, now), t.start, now)
	// A refusal is told to the shared pace now, not when this process
	// next sends to the endpoint (its retry, after the Retry-After):
	// every other process on the site holds back inside it.
	tell := ep.report.Refused && !ep.buying && pc.shared != nil
	if tell {
		ep.buying = true
	}
	// The site served core.PaceProven in a second and refused nothing:
	// its memory says so, for later processes.
	proven := !pc.provenTold && len(pc.served) >= core.PaceProven && pc.shared != nil && !pc.perSite && pc.sharing(now)
	if proven {
		pc.provenTold, pc.served = true, nil
	}
	shared, site := pc.shared, pc.siteKey()
	pc.signal()
	pc.mu.Unlock()
	if tell {
		pc.buy(context.Background(), t.endpoint)
	}
	if proven {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		_, _ = shared.TakePace(ctx, site, core.PaceRequest{Proven: true})
		cancel()
	}
}

// signal wakes every request waiting in acquire. Call with pc.mu held.
func (pc *pacer) signal() {
	close(pc.changed)
	pc.changed = make(chan struct{})
}

// wait counts one more (d = 1) or one less (d = -1) request of send order
// n (or of none, unordered) waiting for the endpoint.
func (ep *endpointPace) wait(ordered bool, n, d int) {
	if !ordered {
		ep.unordered += d
		return
	}
	if ep.waiting == nil {
		ep.waiting = map[int]int{}
	}
	if ep.waiting[n] += d; ep.waiting[n] <= 0 {
		delete(ep.waiting, n)
	}
}

// waiters is how many requests wait for the endpoint.
func (ep *endpointPace) waiters() int {
	n := ep.unordered
	for _, c := range ep.waiting {
		n += c
	}
	return n
}

// lowerWaits reports whether a request with a send order below n waits
// for the endpoint.
func (ep *endpointPace) lowerWaits(n int) bool {
	for m := range ep.waiting {
		if m < n {
			return true
		}
	}
	return false
}

// learn applies one answer's signals. Call with pc.mu held.
func (pc *pacer) learn(ep *endpointPace, is *issuePace, s signals, sent, now time.Time) {
	rtt := now.Sub(sent)
	switch {
	case s.status == http.StatusTooManyRequests && s.reason == reasonPerIssue:
		// One issue is written too often: space writes to it; the
		// endpoint is not overloaded.
		if is != nil {
			is.next = later(is.next, now.Add(max(s.retryAfter, time.Second)))
		}
	case s.status == http.StatusTooManyRequests:
		pc.provenTold, pc.siteProven = true, false // a refused site is not fast
		ep.window, ep.grown = max(1, ep.window/2), true
		ep.strikes++
		if ep.strikes >= strikesToSingle {
			ep.single = cleanToRecover
		}
		// The rate was too high: say so at the next purchase (which comes
		// at once: the send times bought at that rate are dropped).
		ep.report.Refused = true
		if s.hinted {
			ep.reportPause = later(ep.reportPause, now.Add(s.retryAfter))
		}
		ep.slots, ep.retry, ep.free, ep.proven = nil, time.Time{}, time.Time{}, false
		if s.hinted {
			if s.reason == reasonBurst {
				ep.pause = later(ep.pause, now.Add(s.retryAfter)) // that endpoint only
			} else {
				pc.pause = later(pc.pause, now.Add(s.retryAfter)) // a budget of the whole site
			}
		}
	case s.status == http.StatusServiceUnavailable:
		ep.window, ep.grown = max(1, ep.window/2), true
		if s.hinted {
			pc.pause = later(pc.pause, now.Add(s.retryAfter))
		}
	case s.status >= 200 && s.status < 300:
		ep.strikes = 0
		if ep.single > 0 {
			ep.single--
		}
		ep.served = append(ep.recent(now), now)
		if !pc.provenTold {
			i := 0
			for i < len(pc.served) && now.Sub(pc.served[i]) >= time.Second {
				i++
			}
			pc.served = append(pc.served[i:], now)
		}
		if s.near {
			ep.report.Near = true
			ep.free = time.Time{} // told at the next request's purchase
		} else {
			ep.report.Clean++
		}
		if ep.minRTT == 0 || rtt < ep.minRTT {
			ep.minRTT = rtt
		}
		fast := rtt <= 2*ep.minRTT+5*time.Millisecond
		switch {
		case s.near || !fast:
			ep.grown = true
		case ep.single == 0 && !ep.grown:
			ep.window = math.Min(float64(pc.max), ep.window+1) // slow start: doubles per round trip
		case ep.single == 0:
			ep.window = math.Min(float64(pc.max), ep.window+1/ep.window)
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// pacing returns the Provider's pacer.
func (p *Provider) pacing() *pacer {
	p.paceOnce.Do(func() {
		if p.pace == nil {
			p.pace = newPacer(p.cfg.MaxInFlight)
		}
		p.pace.site = strings.TrimRight(p.cfg.BaseURL, "/")
		p.pace.perSite = p.dataCenter()
		if p.log != nil {
			p.pace.log = p.log
		}
	})
	return p.pace
}

var _ core.PaceSharer = (*Provider)(nil)

// SharePacing implements core.PaceSharer: from now on the Provider's
// requests spend send times bought from ps, shared with every process
// using it (core/pacing.go), under keys naming the site and the endpoint.
func (p *Provider) SharePacing(ps core.PaceStore) {
	pc := p.pacing()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.shared, pc.sharedOK = ps, time.Time{}
}
