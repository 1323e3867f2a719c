package jiratest

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits model Jira's rate limits as Atlassian documents them, and the
// headers real sites send ("Rate limiting" and "Build an app that
// respects rate limits" on developer.atlassian.com; Data Center's "Rate
// limiting" administration pages). The zero value is off.
//
// Jira Cloud (the default): a burst limit per endpoint and HTTP method
// (RateLimit-Reason jira-burst-based) and a per-issue write limit
// (jira-per-issue-on-write), independent of each other and of the older
// site-wide token bucket (Options.RateLimit). A request over a limit is
// refused before anything is applied: 429 with Retry-After (whole
// seconds, at least 1, as Jira sends it), RateLimit-Reason and
// X-RateLimit-Reset (now + Retry-After, with minute precision:
// yyyy-MM-ddTHH:mmZ, Atlassian's documented format). A request sent again
// to the same limit (endpoint, issue) before that Retry-After has passed
// is refused again, with what is left of it, even if the bucket has
// refilled meanwhile ("If you reissue the request before the retry period
// expires, the request will fail and return the same or longer
// Retry-After period"). Jira does not expose
// the burst budget: while a limit is on every answer carries
// X-RateLimit-Limit and X-RateLimit-Remaining of another counter
// (QuotaLimit, counting down one per answer over QuotaWindow, never
// refusing), as real sites send counters that do not follow the burst
// limit; X-RateLimit-NearLimit is not sent (it belongs to the cost-based
// budgets, not modelled). The older site-wide token bucket
// (Options.RateLimit) refuses as a budget of the whole site does, with
// the same headers and RateLimit-Reason jira-cost-based (Atlassian's
// reason for the counter and cost budgets of a user, the closest Cloud
// has to one budget for every endpoint).
//
// Jira Data Center (Options.Deployment "datacenter"): rate limiting is an
// administrator's option, one token bucket per user for every endpoint
// (BurstPerSec tokens a second, BurstSize at most). While it is on every
// answer carries X-RateLimit-Limit (the bucket's size), X-RateLimit-
// Remaining (its tokens), X-RateLimit-Interval-Seconds (1),
// X-RateLimit-FillRate (tokens per interval) and Retry-After (0 while
// tokens are left); over it: 429 with Retry-After, no RateLimit-Reason.
// Data Center has no per-issue write limit.
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
	// QuotaLimit and QuotaWindow shape the counters Cloud answers carry
	// (default 350 over an hour): informational, never refusing.
	QuotaLimit  int
	QuotaWindow time.Duration
}

// Rate-limit reasons Jira sends in RateLimit-Reason.
const (
	ReasonBurst    = "jira-burst-based"
	ReasonPerIssue = "jira-per-issue-on-write"
	ReasonCost     = "jira-cost-based"
)

// limiter holds the state of Limits. Guarded by Server.gateMu.
type limiter struct {
	cfg    Limits
	bursts map[string]*tokenBucket // endpoint → bucket ("" on Data Center: the user's)
	writes map[string][]time.Time  // issue key → times of admitted writes in the window
	// penalty: a limit that refused a request refuses every request to
	// it until the Retry-After it sent has passed ("burst " + endpoint,
	// "issue " + key, "site").
	penalty map[string]time.Time
	// quota: the counters a Cloud answer carries.
	quotaStart time.Time
	quotaUsed  int
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
	lm.penalty = map[string]time.Time{}
	lm.quotaStart, lm.quotaUsed = time.Time{}, 0
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

// refusal is a request over a limit: the 429 to send.
type refusal struct {
	reason string // "" on Data Center
	wait   time.Duration
	now    time.Time
	dc     *dcBudget // Data Center: the user's bucket
	quota  [2]int    // Cloud: the counters (limit, remaining)
}

// dcBudget is a Data Center user's bucket as its headers state it.
type dcBudget struct {
	limit, remaining, fill int
}

func (b *dcBudget) set(h http.Header, retry int) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(b.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, b.remaining)))
	h.Set("X-RateLimit-Interval-Seconds", "1")
	h.Set("X-RateLimit-FillRate", strconv.Itoa(b.fill))
	h.Set("Retry-After", strconv.Itoa(retry))
}

func setQuota(h http.Header, q [2]int) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(q[0]))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(q[1]))
}

// retrySeconds is the Retry-After Jira sends for a wait: whole seconds,
// at least one.
func retrySeconds(wait time.Duration) int { return max(1, int(math.Ceil(wait.Seconds()))) }

// refuse records that limit (a penalty key) refused a request at now
// with a wait of d, and returns the Retry-After it sends: until it has
// passed, the limit refuses every request (penalized).
func (lm *limiter) refuse(limit string, now time.Time, d time.Duration) time.Duration {
	if until := lm.penalty[limit]; until.After(now) {
		return until.Sub(now) // already refusing: what is left of it
	}
	wait := time.Duration(retrySeconds(d)) * time.Second
	lm.penalty[limit] = now.Add(wait)
	return wait
}

// penalized is how long limit still refuses every request (0: it does not).
func (lm *limiter) penalized(limit string, now time.Time) time.Duration {
	if until := lm.penalty[limit]; until.After(now) {
		return until.Sub(now)
	}
	return 0
}

func (f *refusal) write(w http.ResponseWriter) {
	secs := retrySeconds(f.wait)
	h := w.Header()
	if f.dc != nil {
		f.dc.set(h, secs)
	} else {
		h.Set("Retry-After", strconv.Itoa(secs))
		h.Set("RateLimit-Reason", f.reason)
		h.Set("X-RateLimit-Reset", f.now.Add(time.Duration(secs)*time.Second).UTC().Format("2006-01-02T15:04Z"))
		setQuota(h, f.quota)
	}
	writeErr(w, http.StatusTooManyRequests, newErr("Rate limit exceeded."))
}

// quota counts one answer against the informational counters and returns
// them (limit, remaining). Call with gateMu held.
func (lm *limiter) quota(now time.Time) [2]int {
	limit, window := lm.cfg.QuotaLimit, lm.cfg.QuotaWindow
	if limit <= 0 {
		limit = 350
	}
	if window <= 0 {
		window = time.Hour
	}
	if lm.quotaStart.IsZero() || now.Sub(lm.quotaStart) >= window {
		lm.quotaStart, lm.quotaUsed = now, 0
	}
	lm.quotaUsed++
	return [2]int{limit, max(0, limit-lm.quotaUsed)}
}

// admit applies the limits to r. When r is over one it returns the
// refusal (nothing is consumed); otherwise it consumes r's share of every
// budget, sets the headers (see Limits) on w and returns nil.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) *refusal {
	s.gateMu.Lock()
	on, perIssue := s.limits.on(), s.limits.cfg.IssueWrites > 0
	if !on && s.bucket.rate > 0 {
		// Only the site-wide bucket is on (admitSite let r through).
		setQuota(w.Header(), s.limits.quota(s.now()))
	}
	s.gateMu.Unlock()
	if !on {
		return nil
	}
	s.mu.RLock()
	dc := s.site.dataCenter()
	s.mu.RUnlock()
	written := ""
	if perIssue && !dc {
		written = s.issueWritten(r) // before gateMu: it reads the issues
	}
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	lm := s.limits
	now := s.now()
	if dc {
		return lm.admitDataCenter(w, now)
	}
	var (
		refuse string        // reason
		wait   time.Duration // until the refused budget allows one more
		bucket *tokenBucket
	)
	if lm.cfg.BurstPerSec > 0 {
		ep := endpointOf(r)
		bucket = lm.bursts[ep]
		if bucket == nil {
			bucket = newTokenBucket(lm.cfg.BurstPerSec, lm.cfg.BurstSize, now)
			lm.bursts[ep] = bucket
		}
		bucket.refill(now)
		if left := lm.penalized("burst "+ep, now); left > 0 {
			refuse, wait = ReasonBurst, left
		} else if bucket.tokens < 1 {
			refuse, wait = ReasonBurst, lm.refuse("burst "+ep, now, bucket.untilOne())
		}
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
		switch left := lm.penalized("issue "+key, now); {
		case refuse != "": // the burst limit refused it
		case left > 0:
			refuse, wait = ReasonPerIssue, left
		case len(times) >= lm.cfg.IssueWrites:
			refuse, wait = ReasonPerIssue, lm.refuse("issue "+key, now, times[0].Add(lm.cfg.IssueWindow).Sub(now))
		}
	}
	q := lm.quota(now)
	if refuse != "" {
		return &refusal{reason: refuse, wait: wait, now: now, quota: q}
	}
	if bucket != nil {
		bucket.tokens--
	}
	if key != "" {
		lm.writes[key] = append(lm.writes[key], now)
	}
	setQuota(w.Header(), q)
	return nil
}

// admitSite applies the older site-wide token bucket (Options.RateLimit):
// the refusal to send, or nil (admit then adds the counters).
func (s *Server) admitSite() *refusal {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	lm, now := s.limits, s.now()
	if s.bucket.rate <= 0 {
		return nil
	}
	wait := lm.penalized("site", now)
	if wait == 0 {
		ok, d, _ := s.bucket.take(now)
		if ok {
			return nil
		}
		wait = lm.refuse("site", now, d)
	}
	return &refusal{reason: ReasonCost, wait: wait, now: now, quota: lm.quota(now)}
}

// admitDataCenter applies Data Center's limit: one bucket for the user,
// whatever the endpoint. Call with gateMu held.
func (lm *limiter) admitDataCenter(w http.ResponseWriter, now time.Time) *refusal {
	if lm.cfg.BurstPerSec <= 0 {
		return nil // Data Center has no per-issue write limit
	}
	b := lm.bursts[""]
	if b == nil {
		b = newTokenBucket(lm.cfg.BurstPerSec, lm.cfg.BurstSize, now)
		lm.bursts[""] = b
	}
	b.refill(now)
	d := &dcBudget{limit: int(b.burst), fill: max(1, int(math.Round(lm.cfg.BurstPerSec)))}
	if b.tokens < 1 {
		d.remaining = 0
		return &refusal{wait: b.untilOne(), now: now, dc: d}
	}
	b.tokens--
	d.remaining = int(b.tokens)
	d.set(w.Header(), 0)
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

// LimitConfig is how the seed file and POST /_mockjira/config set Limits
// (a field left out is left as it is).
type LimitConfig struct {
	BurstPerSec        *float64 `json:"burst_limit_per_sec,omitempty"`
	BurstSize          *int     `json:"burst_size,omitempty"`
	IssueWriteLimit    *int     `json:"issue_write_limit,omitempty"`
	IssueWriteWindowMS *int     `json:"issue_write_window_ms,omitempty"`
	QuotaLimit         *int     `json:"quota_limit,omitempty"`
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
	if c.QuotaLimit != nil {
		l.QuotaLimit = *c.QuotaLimit
	}
	return l
}

func (c LimitConfig) empty() bool {
	return c.BurstPerSec == nil && c.BurstSize == nil && c.IssueWriteLimit == nil && c.IssueWriteWindowMS == nil && c.QuotaLimit == nil
}

func (s *Server) applyLimitConfig(c LimitConfig) {
	if !c.empty() {
		s.SetLimits(c.apply(s.CurrentLimits()))
	}
}
