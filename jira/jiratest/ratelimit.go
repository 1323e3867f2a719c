package jiratest

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits model Jira Cloud's rate limits as Atlassian documents them
// ("Rate limiting" and "Build an app that respects rate limits" on
// developer.atlassian.com): a burst limit per endpoint and HTTP method
// (RateLimit-Reason jira-burst-based) and a per-issue write limit
// (jira-per-issue-on-write), independent of each other and of the older
// site-wide token bucket (Options.RateLimit). The zero value is off.
//
// While a limit is on, every API answer carries X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset of the endpoint's burst
// budget (of the issue's write budget when only that limit is on), and
// X-RateLimit-NearLimit: true when less than 20% of any budget that
// applies is left. A request over a limit is refused before anything is
// applied: 429 with Retry-After (whole seconds, at least 1, as Jira sends
// it), RateLimit-Reason and X-RateLimit-Reset = now + Retry-After.
type Limits struct {
	// BurstPerSec is the burst limit: requests per second for each
	// endpoint and method ("PUT /rest/api/3/issue/{key}"), a token bucket
	// per endpoint; 0 = off.
	BurstPerSec float64
	// BurstSize is the size of each endpoint's bucket (default
	// ceil(BurstPerSec), at least 1): how many requests may arrive at once
	// after a quiet spell.
	BurstSize int
	// IssueWrites is the per-issue write limit: at most this many writes
	// (any method but GET on /rest/api/3/issue/{key}[/...]) to one issue
	// within IssueWindow; 0 = off.
	IssueWrites int
	// IssueWindow is the per-issue limit's sliding window (default 1s).
	IssueWindow time.Duration
}

// Rate-limit reasons Jira sends in RateLimit-Reason.
const (
	ReasonBurst    = "jira-burst-based"
	ReasonPerIssue = "jira-per-issue-on-write"
)

// nearLimitFraction: X-RateLimit-NearLimit is true below this share of a
// budget (Atlassian: "less than 20% of any budget remains").
const nearLimitFraction = 0.2

// limiter holds the state of Limits. Guarded by Server.gateMu.
type limiter struct {
	cfg    Limits
	bursts map[string]*tokenBucket // endpoint → bucket
	writes map[string][]time.Time  // issue key → times of admitted writes in the window
}

func newLimiter(l Limits) *limiter {
	lm := &limiter{}
	lm.set(l)
	return lm
}

func (lm *limiter) set(l Limits) {
	if l.IssueWindow <= 0 {
		l.IssueWindow = time.Second
	}
	lm.cfg = l
	lm.bursts = map[string]*tokenBucket{}
	lm.writes = map[string][]time.Time{}
}

func (lm *limiter) on() bool { return lm.cfg.BurstPerSec > 0 || lm.cfg.IssueWrites > 0 }

// SetLimits replaces the rate limits (and forgets the budgets used so far).
func (s *Server) SetLimits(l Limits) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.limits.set(l)
}

// CurrentLimits returns the rate limits in force.
func (s *Server) CurrentLimits() Limits {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	return s.limits.cfg
}

// idSegment is a path segment naming an issue (key or id) or another
// numbered resource; endpoints are counted with such segments folded.
var idSegment = regexp.MustCompile(`^([A-Z][A-Z0-9_]*-\d+|\d+)$`)

// endpointOf is the request's endpoint as the burst limit counts it:
// method and path with keys and ids folded ("PUT /rest/api/3/issue/{key}").
func endpointOf(r *http.Request) string {
	segs := strings.Split(r.URL.Path, "/")
	for i, seg := range segs {
		if i >= 4 && idSegment.MatchString(seg) { // after /rest/api/3
			segs[i] = "{key}"
		}
	}
	return r.Method + " " + strings.Join(segs, "/")
}

// issueWritten is the key of the issue a request writes to, or "".
// It takes s.mu for reading: call without s.gateMu.
func (s *Server) issueWritten(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return ""
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/rest/api/3/issue/")
	if !ok {
		return ""
	}
	seg, _, _ := strings.Cut(rest, "/")
	switch seg {
	case "", "bulk", "bulkfetch", "createmeta":
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if iss := s.issueByKeyOrID(seg); iss != nil {
		return iss.Key // writes by id and by key count against one budget
	}
	return seg
}

// budget is one limit's state for one request.
type budget struct {
	limit, remaining int
	reset            time.Time // when the budget is whole again
}

func (b budget) near() bool { return float64(b.remaining) < nearLimitFraction*float64(b.limit) }

// refusal is a request over a limit: the 429 to send.
type refusal struct {
	reason string
	wait   time.Duration // until the budget allows one more
	limit  int
	now    time.Time
}

func (f *refusal) write(w http.ResponseWriter) {
	secs := max(1, int(math.Ceil(f.wait.Seconds())))
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(secs))
	h.Set("RateLimit-Reason", f.reason)
	h.Set("X-RateLimit-Limit", strconv.Itoa(f.limit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", f.now.Add(time.Duration(secs)*time.Second).UTC().Format(time.RFC3339))
	h.Set("X-RateLimit-NearLimit", "true")
	writeErr(w, http.StatusTooManyRequests, newErr("Rate limit exceeded."))
}

// admit applies the limits to r. When r is over one it returns the
// refusal (nothing is consumed); otherwise it consumes r's share of every
// budget, sets the X-RateLimit-* headers (see Limits) on w and
// returns nil.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) *refusal {
	s.gateMu.Lock()
	on, perIssue := s.limits.on(), s.limits.cfg.IssueWrites > 0
	s.gateMu.Unlock()
	if !on {
		return nil
	}
	written := ""
	if perIssue {
		written = s.issueWritten(r) // before gateMu: it reads the issues
	}
	s.gateMu.Lock()
	lm := s.limits
	now := s.now()
	var (
		budgets []budget
		refuse  string        // reason
		wait    time.Duration // until the refused budget allows one more
		refused budget
	)
	var bucket *tokenBucket
	if lm.cfg.BurstPerSec > 0 {
		ep := endpointOf(r)
		bucket = lm.bursts[ep]
		if bucket == nil {
			bucket = newTokenBucket(lm.cfg.BurstPerSec, lm.cfg.BurstSize, now)
			lm.bursts[ep] = bucket
		}
		bucket.refill(now)
		b := budget{limit: int(bucket.burst), remaining: int(bucket.tokens), reset: now.Add(bucket.untilFull())}
		if bucket.tokens < 1 {
			refuse, wait, refused = ReasonBurst, bucket.untilOne(), b
		}
		budgets = append(budgets, b)
	}
	key := ""
	if lm.cfg.IssueWrites > 0 {
		key = written // "" if the limit came on just now: from the next request
	}
	if key != "" {
		times := lm.writes[key]
		i := 0
		for i < len(times) && !times[i].After(now.Add(-lm.cfg.IssueWindow)) {
			i++
		}
		times = times[i:]
		lm.writes[key] = times
		b := budget{limit: lm.cfg.IssueWrites, remaining: lm.cfg.IssueWrites - len(times), reset: now}
		if len(times) > 0 {
			b.reset = times[len(times)-1].Add(lm.cfg.IssueWindow)
		}
		if len(times) >= lm.cfg.IssueWrites && refuse == "" {
			refuse, wait, refused = ReasonPerIssue, times[0].Add(lm.cfg.IssueWindow).Sub(now), b
		}
		budgets = append(budgets, b)
	}
	if refuse == "" {
		if bucket != nil {
			bucket.tokens--
			budgets[0].remaining = int(bucket.tokens)
		}
		if key != "" {
			lm.writes[key] = append(lm.writes[key], now)
			budgets[len(budgets)-1].remaining--
		}
	}
	s.gateMu.Unlock()

	if refuse != "" {
		return &refusal{reason: refuse, wait: wait, limit: refused.limit, now: now}
	}
	if len(budgets) == 0 {
		return nil // no limit applies to this request
	}
	h := w.Header()
	// X-RateLimit-* describe the endpoint's burst budget when that limit
	// is on (budgets[0]), else the issue's; NearLimit speaks of any.
	tight := budgets[0]
	h.Set("X-RateLimit-Limit", strconv.Itoa(tight.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, tight.remaining)))
	h.Set("X-RateLimit-Reset", tight.reset.UTC().Format(time.RFC3339))
	for _, b := range budgets {
		if b.near() {
			h.Set("X-RateLimit-NearLimit", "true")
		}
	}
	return nil
}

// refill adds the tokens earned since the last call.
func (b *tokenBucket) refill(now time.Time) {
	b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
}

// untilOne is how long until the bucket holds one token.
func (b *tokenBucket) untilOne() time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
}

// untilFull is how long until the bucket is full.
func (b *tokenBucket) untilFull() time.Duration {
	return time.Duration((b.burst - b.tokens) / b.rate * float64(time.Second))
}

// LimitConfig is how the seed file and POST /_mockjira/config set Limits
// (a field left out is left as it is).
type LimitConfig struct {
	BurstPerSec        *float64 `json:"burst_limit_per_sec,omitempty"`
	BurstSize          *int     `json:"burst_size,omitempty"`
	IssueWriteLimit    *int     `json:"issue_write_limit,omitempty"`
	IssueWriteWindowMS *int     `json:"issue_write_window_ms,omitempty"`
}

// apply returns l with the fields c sets.
func (c LimitConfig) apply(l Limits) Limits {
	if c.BurstPerSec != nil {
		l.BurstPerSec = *c.BurstPerSec
	}
	if c.BurstSize != nil {
		l.BurstSize = *c.BurstSize
	}
	if c.IssueWriteLimit != nil {
		l.IssueWrites = *c.IssueWriteLimit
	}
	if c.IssueWriteWindowMS != nil {
		l.IssueWindow = time.Duration(*c.IssueWriteWindowMS) * time.Millisecond
	}
	return l
}

func (c LimitConfig) empty() bool {
	return c.BurstPerSec == nil && c.BurstSize == nil && c.IssueWriteLimit == nil && c.IssueWriteWindowMS == nil
}

func (s *Server) applyLimitConfig(c LimitConfig) {
	if !c.empty() {
		s.SetLimits(c.apply(s.CurrentLimits()))
	}
}
