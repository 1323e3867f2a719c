package jira

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The pacer decides when each request may go out, from Jira's own signals
// (docs/jira-client.md, "Pacing"). Jira Cloud applies independent limits
// and names the one that refused a request in RateLimit-Reason: a burst
// limit per endpoint and HTTP method (jira-burst-based) and a per-issue
// write limit (jira-per-issue-on-write). So the pacer keeps:
//
//   - for the whole Provider: at most MaxInFlight requests at once, and a
//     pause everyone honours (Retry-After of a 429 without a reason the
//     pacer knows, or of a 503);
//   - per endpoint ("PUT /rest/api/3/issue/{key}"): an AIMD window of
//     requests in flight — it starts at 4, grows by one for each fast and
//     clean answer until the first slow answer or sign of a limit (slow
//     start: it doubles per round trip), by 1/window after that, halves on
//     a 429 or 503, and stays at one after
//     three 429s in a row until 20 clean answers have come back; a pause
//     (Retry-After of a burst 429, for every request to the endpoint); and
//     a send interval once Jira says the budget runs low
//     (X-RateLimit-NearLimit, or X-RateLimit-Remaining below half of
//     X-RateLimit-Limit once the requests already in flight are counted):
//     then what Jira says is left goes out at once (as many at once as
//     it holds, whatever the window) and the rest no faster than
//     X-RateLimit-Limit per second (Atlassian's burst limit is per
//     second; 90% of it without X-RateLimit-Remaining), or, without a
//     limit header, at 80% of the rate that was just refused;
//   - per issue: never two writes at once, and after a per-issue 429 no
//     write to that issue before its Retry-After.
//
// Every request passes acquire before it is sent and release with its
// answer. The clock and timers are injectable (tests drive them).
type pacer struct {
	max   int // MaxInFlight
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced when a slot frees or a rule changes
	inFlight  int
	pause     time.Time // no request starts before it
	endpoints map[string]*endpointPace
	issues    map[string]*issuePace
}

// Pacing constants (docs/jira-client.md explains each).
const (
	initialWindow   = 4
	strikesToSingle = 3   // 429s in a row that put an endpoint at one at a time
	cleanToRecover  = 20  // clean answers that lift it again
	nearFraction    = 0.2 // Atlassian's NearLimit threshold
	lowFraction     = 0.5 // Remaining, less what is in flight, below this share paces
	limitShare      = 1.0 // of X-RateLimit-Limit per second, when pacing with X-RateLimit-Remaining
	limitOnlyShare  = 0.9 // of X-RateLimit-Limit per second, when pacing without it
	refusedShare    = 0.8 // of the refused rate, without a limit header
	unpaceFraction  = 0.9 // Remaining at or above this share ends the interval
	minInterval     = 5 * time.Millisecond
	fractionKept    = 0.9 // of a request: how far above Jira's whole count (Remaining less in flight) an estimate may stay
)

// endpointPace is the pacing of one endpoint and method.
type endpointPace struct {
	window   float64 // requests allowed in flight (AIMD)
	grown    bool    // a slowdown signal came: growth is additive from now on
	inFlight int
	pause    time.Time     // Retry-After of a burst 429
	interval time.Duration // minimum spacing of sends; 0 = none
	// While an interval holds, sends spend credit: what Jira said is left
	// (Remaining less the requests in flight, less one for safety), grown
	// by one per interval up to the limit. So the rest of a burst budget
	// is used at once, and the refill no faster than the interval.
	credit   float64
	creditAt time.Time
	// synced is when the request whose answer last set the credit was
	// sent. Answers come back out of order (one slow answer among fast
	// ones), and an older request's Remaining is older news: it would
	// raise the credit to what Jira had left before the newer requests
	// took theirs. Only an answer to a request sent no earlier sets it.
	synced time.Time
	// estimated: the credit has been set from an answer since pacing
	// began, so the next answer's Remaining can be checked against it.
	estimated bool
	limit     int // the last X-RateLimit-Limit seen
	strikes   int // 429s since the last clean answer
	// overloaded: a 503 came since the last clean answer.
	overloaded bool
	calm       int // clean answers without a low budget since the interval last changed
	single     int // clean answers still needed to leave one-at-a-time; 0 = not single
	minRTT     time.Duration
	sent       []time.Time // sends in the last second (the rate a refusal cut)
	// waiting counts the requests waiting here by their send order
	// (core.SendOrder): while one with a lower order waits, a higher one
	// is not admitted, so a commit's writes leave in its plan's order.
	waiting map[int]int
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
		changed:   make(chan struct{}),
		endpoints: map[string]*endpointPace{},
		issues:    map[string]*issuePace{},
	}
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
	if ordered {
		pc.mu.Lock()
		pc.endpoint(c.endpoint).wait(order, 1)
		pc.mu.Unlock()
		defer func() {
			pc.mu.Lock()
			pc.endpoint(c.endpoint).wait(order, -1)
			pc.signal() // a lower order left: the next may go
			pc.mu.Unlock()
		}()
	}
	for {
		pc.mu.Lock()
		wait, ok := time.Duration(0), false
		if !ordered || !pc.endpoint(c.endpoint).lowerWaits(order) {
			wait, ok = pc.try(c.endpoint, issue)
		}
		ch := pc.changed
		pc.mu.Unlock()
		if ok {
			return &ticket{endpoint: c.endpoint, issue: issue, start: pc.now()}, nil
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
// how long until something it waits for is due (0: until a slot frees).
// Call with pc.mu held.
func (pc *pacer) try(endpoint, issue string) (wait time.Duration, ok bool) {
	now := pc.now()
	ep := pc.endpoint(endpoint)
	var is *issuePace
	if issue != "" {
		is = pc.issue(issue)
	}
	due := time.Time{} // the latest time-based rule that is not met yet
	later := func(t time.Time) {
		if t.After(now) && t.After(due) {
			due = t
		}
	}
	later(pc.pause)
	later(ep.pause)
	if ep.interval > 0 {
		if a := ep.available(now); a < 1 {
			later(now.Add(time.Duration((1 - a) * float64(ep.interval))))
		}
	}
	if is != nil {
		later(is.next)
	}
	if !due.IsZero() {
		return due.Sub(now), false
	}
	if pc.inFlight >= pc.max || ep.inFlight >= ep.allowedAt(now) || (is != nil && is.busy) {
		return 0, false
	}
	pc.inFlight++
	ep.inFlight++
	if ep.interval > 0 {
		ep.credit, ep.creditAt = ep.available(now)-1, now
	}
	ep.sent = append(ep.sent, now)
	if is != nil {
		is.busy = true
	}
	return 0, true
}

func (pc *pacer) endpoint(name string) *endpointPace {
	ep := pc.endpoints[name]
	if ep == nil {
		ep = &endpointPace{window: float64(min(initialWindow, pc.max))}
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

// available is the send credit at now (see endpointPace.credit).
func (ep *endpointPace) available(now time.Time) float64 {
	ceil := 1.0
	if ep.limit > 0 {
		ceil = float64(ep.limit)
	}
	a := ep.credit
	if now.After(ep.creditAt) {
		a += float64(now.Sub(ep.creditAt)) / float64(ep.interval)
	}
	return math.Min(a, ceil)
}

// allowedAt is how many requests the endpoint may have in flight at now:
// its window or, while it is paced by a budget Jira stated (interval and
// limit set) and nothing was refused since the last clean answer, as many
// as that budget has credit for. Jira's burst limit counts requests per
// second, not requests at once: once the credit (Jira's own count, less
// what is in flight) rules the sends, the window would only split them
// into round trips (a commit's 10 stale-check searches into two).
func (ep *endpointPace) allowedAt(now time.Time) int {
	n := ep.allowed()
	if ep.interval > 0 && ep.limit > 0 && ep.single == 0 && ep.strikes == 0 && !ep.overloaded {
		n = max(n, ep.inFlight+int(ep.available(now)))
	}
	return n
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
	limit      int    // X-RateLimit-Limit (0: absent)
	remaining  int    // X-RateLimit-Remaining (-1: absent)
	near       bool   // X-RateLimit-NearLimit: true
}

func readSignals(resp *response, now time.Time) signals {
	s := signals{remaining: -1}
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
	if n, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Limit"))); err == nil && n > 0 {
		s.limit = n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining"))); err == nil && n >= 0 {
		s.remaining = n
	}
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
	defer pc.mu.Unlock()
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
	pc.signal()
}

// signal wakes every request waiting in acquire. Call with pc.mu held.
func (pc *pacer) signal() {
	close(pc.changed)
	pc.changed = make(chan struct{})
}

// wait counts one more (d = 1) or one less (d = -1) request of send order
// n waiting for the endpoint.
func (ep *endpointPace) wait(n, d int) {
	if ep.waiting == nil {
		ep.waiting = map[int]int{}
	}
	if ep.waiting[n] += d; ep.waiting[n] <= 0 {
		delete(ep.waiting, n)
	}
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
	cutoff := now.Add(-time.Second)
	for len(ep.sent) > 0 && ep.sent[0].Before(cutoff) {
		ep.sent = ep.sent[1:]
	}
	switch {
	case s.status == http.StatusTooManyRequests && s.reason == reasonPerIssue:
		// One issue is written too often: space writes to it; the
		// endpoint is not overloaded.
		if is != nil {
			is.next = later(is.next, now.Add(max(s.retryAfter, time.Second)))
		}
	case s.status == http.StatusTooManyRequests:
		ep.window, ep.grown = max(1, ep.window/2), true
		ep.strikes++
		if ep.strikes >= strikesToSingle {
			ep.single = cleanToRecover
		}
		ep.pace(s, len(ep.sent), now)
		if s.hinted {
			if s.reason == reasonBurst {
				ep.pause = later(ep.pause, now.Add(s.retryAfter)) // that endpoint only
			} else {
				pc.pause = later(pc.pause, now.Add(s.retryAfter)) // a budget of the whole site
			}
		}
	case s.status == http.StatusServiceUnavailable:
		ep.window, ep.grown, ep.overloaded = max(1, ep.window/2), true, true
		if s.hinted {
			pc.pause = later(pc.pause, now.Add(s.retryAfter))
		}
	case s.status >= 200 && s.status < 300:
		ep.strikes, ep.overloaded = 0, false
		if ep.single > 0 {
			ep.single--
		}
		// Low: Jira says so, or what is left once the requests in flight
		// are counted is under half the limit, or is less than the window
		// would send (a window grown on a full budget must not outrun
		// the rest of it: 8 in flight into 6 left were 2 429s and a
		// whole second's pause).
		low := s.near || (s.limit > 0 && s.remaining >= 0 &&
			(float64(s.remaining-ep.inFlight) < lowFraction*float64(s.limit) || s.remaining <= ep.allowed()))
		switch {
		case low:
			ep.calm = 0
			ep.pace(s, len(ep.sent), now)
		case ep.interval > 0 && s.limit > 0 && s.remaining >= 0 && float64(s.remaining) >= unpaceFraction*float64(s.limit):
			ep.interval, ep.calm = 0, 0 // the budget has recovered
		case ep.interval > 0:
			// No budget headers: relax the interval step by step.
			if ep.calm++; ep.calm >= cleanToRecover {
				ep.interval, ep.calm = ep.interval/2, 0
				if ep.interval < minInterval {
					ep.interval = 0
				}
			}
		}
		if ep.interval > 0 && s.limit > 0 && s.remaining >= 0 && !sent.Before(ep.synced) {
			// Jira's own count replaces the estimate (unless a newer
			// request's answer already did): what it says is left, less
			// the requests still in flight. That is one too many when a
			// request sent before this one was counted after it but
			// answered before it (neither in flight nor in Remaining).
			// The first answer keeps one in reserve for that; later ones
			// may raise the estimate by at most the one request they
			// settle (it was counted as spent when it was sent, and
			// Jira's count may hold it too), which is exact for such a
			// pair and costs nothing when answers come in order.
			// Remaining is a whole number: an estimate less than
			// fractionKept above Jira's count agrees with it (Jira's
			// bucket may hold that fraction of a request), and it stays
			// — dropping it at every answer kept the sends one fraction
			// behind Jira's refill for the rest of the spell.
			ep.limit = s.limit
			told := float64(s.remaining - ep.inFlight)
			switch est := ep.available(now); {
			case !ep.estimated:
				told-- // the first answer keeps one back
			case est < told:
				told = math.Min(told, est+1) // up by at most the one it settles
			case est < told+fractionKept:
				told = est // Jira's whole count agrees: keep the fraction
			}
			ep.credit, ep.creditAt, ep.synced, ep.estimated = told, now, sent, true
		}
		if ep.minRTT == 0 || rtt < ep.minRTT {
			ep.minRTT = rtt
		}
		fast := rtt <= 2*ep.minRTT+5*time.Millisecond
		switch {
		case low || !fast:
			ep.grown = true
		case ep.single == 0 && !ep.grown:
			ep.window = math.Min(float64(pc.max), ep.window+1) // slow start: doubles per round trip
		case ep.single == 0:
			ep.window = math.Min(float64(pc.max), ep.window+1/ep.window)
		}
	}
}

// pace sets the endpoint's send interval from a low or refused budget:
// X-RateLimit-Limit per second when X-RateLimit-Remaining comes with it,
// 90% of it without, else 80% of the rate just sent.
//
// The full limit is safe with Remaining because the credit it refills is
// never more than Jira has: each answer sets it to Remaining (counted when
// the request arrived, before the answer's way back, whose refill is not
// added) less every request still in flight (those Jira counted already
// are subtracted twice), and the first answer of a spell keeps one more
// back for a request counted out of order. So sends at the limit's own
// rate find Jira's bucket at least as full as the estimate, and the one
// kept back absorbs arrivals bunched by up to one interval of jitter.
// Without Remaining nothing corrects the estimate, and 10% is the margin.
func (ep *endpointPace) pace(s signals, sentLastSecond int, now time.Time) {
	var iv time.Duration
	switch {
	case s.limit > 0 && s.remaining >= 0:
		iv = time.Duration(float64(time.Second) / (limitShare * float64(s.limit)))
	case s.limit > 0:
		iv = time.Duration(float64(time.Second) / (limitOnlyShare * float64(s.limit)))
	case s.status == http.StatusTooManyRequests:
		iv = time.Duration(float64(time.Second) / (refusedShare * float64(max(1, sentLastSecond))))
	default:
		return // NearLimit without a limit: no growth, no interval
	}
	if iv > ep.interval {
		if ep.interval == 0 {
			ep.credit, ep.creditAt, ep.estimated = 0, now, false
		}
		ep.interval, ep.calm = iv, 0
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
	})
	return p.pace
}
