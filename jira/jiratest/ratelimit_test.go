package jiratest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestBurstLimitPerEndpointAndMethod: each endpoint and method has its own
// bucket; a request over the limit gets 429 jira-burst-based with
// Retry-After and X-RateLimit-Reset (minute precision, as Atlassian
// documents it), and the bucket refills with time. Answers do not state
// the burst budget (Jira does not): their X-RateLimit-Limit and
// X-RateLimit-Remaining count another budget, one less per answer, and no
// NearLimit is sent.
func TestBurstLimitPerEndpointAndMethod(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Limits: jiratest.Limits{BurstPerSec: 5, QuotaLimit: 400}})
	key, _ := c.create(issueFields("Story", "One", "doc/s-1"))
	prev := 0
	for i := 4; i >= 0; i-- {
		r := c.do("GET", "/rest/api/3/issue/"+key+"?fields=summary", nil)
		if r.status != 200 {
			t.Fatalf("request %d within the burst: %d", 5-i, r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "400" {
			t.Errorf("X-RateLimit-Limit %q; want the other budget's 400, not the burst limit", r.header.Get("X-RateLimit-Limit"))
		}
		rem, err := strconv.Atoi(r.header.Get("X-RateLimit-Remaining"))
		if err != nil || rem < 390 || (prev != 0 && rem != prev-1) {
			t.Errorf("request %d: X-RateLimit-Remaining %q (before %d); want one less per answer, far from the burst budget", 5-i, r.header.Get("X-RateLimit-Remaining"), prev)
		}
		prev = rem
		if r.header.Get("X-RateLimit-NearLimit") != "" || r.header.Get("X-RateLimit-Reset") != "" {
			t.Errorf("a 200 with NearLimit %q, Reset %q; want neither", r.header.Get("X-RateLimit-NearLimit"), r.header.Get("X-RateLimit-Reset"))
		}
	}
	// Another key on the same endpoint shares the bucket: the endpoint is
	// the route, not the URL.
	r := c.do("GET", "/rest/api/3/issue/DEMO-99", nil)
	if r.status != 429 {
		t.Fatalf("sixth GET issue/{key} within a second: %d", r.status)
	}
	if r.header.Get("RateLimit-Reason") != jiratest.ReasonBurst || r.header.Get("Retry-After") != "1" {
		t.Errorf("429 headers: %v", r.header)
	}
	reset, err := time.Parse("2006-01-02T15:04Z07:00", r.header.Get("X-RateLimit-Reset"))
	if err != nil || !reset.Equal(clk.Now().Add(time.Second).Truncate(time.Minute)) {
		t.Errorf("X-RateLimit-Reset %q, want now + Retry-After to the minute (yyyy-MM-ddTHH:mmZ)", r.header.Get("X-RateLimit-Reset"))
	}
	r.errs(t)
	if f := lastRequest(c).Fault; f != "rate-limit" {
		t.Errorf("logged fault %q", f)
	}
	// Other endpoints and other methods are not affected.
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("GET myself: %d", r.status)
	}
	if r := c.do("PUT", "/rest/api/3/issue/"+key, map[string]any{"fields": map[string]any{"summary": "Edited"}}); r.status != 204 {
		t.Errorf("PUT issue/{key}: %d", r.status)
	}
	clk.Advance(time.Second) // the Retry-After; the bucket is full again
	for i := range 5 {
		if r := c.do("GET", "/rest/api/3/issue/"+key, nil); r.status != 200 {
			t.Errorf("after the Retry-After, request %d: %d", i+1, r.status)
		}
	}
	if r := c.do("GET", "/rest/api/3/issue/"+key, nil); r.status != 429 {
		t.Errorf("the refilled bucket is spent: %d", r.status)
	}
	c.srv.SetLimits(jiratest.Limits{})
	for i := 0; i < 20; i++ {
		r := c.do("GET", "/rest/api/3/issue/"+key, nil)
		if r.status != 200 {
			t.Fatalf("limits off: %d", r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("limits off, yet X-RateLimit-Limit %q", r.header.Get("X-RateLimit-Limit"))
		}
	}
}

// TestRetryAfterHoldsUntilItPasses: Atlassian's "Rate limiting": "If you
// reissue the request before the retry period expires, the request will
// fail and return the same or longer Retry-After period". A burst bucket
// refills a token in a tenth of a second at 10/s, but Jira asked for a
// whole second: a request to that endpoint sent within it is refused,
// and other endpoints are not.
func TestRetryAfterHoldsUntilItPasses(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Limits: jiratest.Limits{BurstPerSec: 10, BurstSize: 1}})
	get := func() resp { return c.do("GET", "/rest/api/3/myself", nil) }
	if r := get(); r.status != 200 {
		t.Fatalf("first request: %d", r.status)
	}
	r := get()
	if r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("second request at once: %d, Retry-After %q; want 429, 1", r.status, r.header.Get("Retry-After"))
	}
	clk.Advance(300 * time.Millisecond) // three tokens' worth of refill
	r = get()
	if r.status != 429 || r.header.Get("Retry-After") != "1" || r.header.Get("RateLimit-Reason") != jiratest.ReasonBurst {
		t.Errorf("sent again before the Retry-After: %d, Retry-After %q, reason %q; want 429, 1, %s",
			r.status, r.header.Get("Retry-After"), r.header.Get("RateLimit-Reason"), jiratest.ReasonBurst)
	}
	if r := c.do("GET", "/rest/api/3/serverInfo", nil); r.status != 200 {
		t.Errorf("another endpoint: %d", r.status)
	}
	clk.Advance(700 * time.Millisecond)
	if r := get(); r.status != 200 {
		t.Errorf("once the Retry-After has passed: %d", r.status)
	}
}

// TestPerIssueWriteLimit: writes to one issue (by key or id, any write
// endpoint under it) share a sliding window; other issues and reads are
// not limited; a refused write is not applied.
func TestPerIssueWriteLimit(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Limits: jiratest.Limits{IssueWrites: 2, IssueWindow: 2 * time.Second}})
	aKey, aID := c.create(issueFields("Story", "A", "doc/s-a"))
	bKey, _ := c.create(issueFields("Story", "B", "doc/s-b"))
	edit := func(keyOrID, summary string) resp {
		return c.do("PUT", "/rest/api/3/issue/"+keyOrID, map[string]any{"fields": map[string]any{"summary": summary}})
	}
	if r := edit(aKey, "A1"); r.status != 204 {
		t.Fatalf("first write: %d", r.status)
	}
	clk.Advance(500 * time.Millisecond)
	if r := c.do("POST", "/rest/api/3/issue/"+aID+"/comment", map[string]any{"body": jiratest.TextADF("hi")}); r.status != 201 {
		t.Fatalf("second write (comment, by id): %d", r.status)
	}
	r := edit(aKey, "A3")
	if r.status != 429 || r.header.Get("RateLimit-Reason") != jiratest.ReasonPerIssue {
		t.Fatalf("third write within the window: %d %v", r.status, r.header)
	}
	// The oldest write leaves the window 1.5s from now.
	if r.header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After %q, want 2 (1.5s rounded up)", r.header.Get("Retry-After"))
	}
	if sn, _ := c.srv.Issue(aKey); sn.Summary != "A1" {
		t.Errorf("a refused write was applied: summary %q", sn.Summary)
	}
	if r := edit(bKey, "B1"); r.status != 204 {
		t.Errorf("another issue: %d", r.status)
	}
	if r := c.do("GET", "/rest/api/3/issue/"+aKey, nil); r.status != 200 {
		t.Errorf("a read of the limited issue: %d", r.status)
	}
	// The oldest write has left the window, but the Retry-After Jira
	// sent (2 s) has not passed: sent again now, the write is refused
	// again, with what is left of it.
	clk.Advance(1500 * time.Millisecond)
	if r := edit(aKey, "A4"); r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Errorf("a write sent again before its Retry-After: %d, Retry-After %q; want 429, 1", r.status, r.header.Get("Retry-After"))
	}
	clk.Advance(500 * time.Millisecond)
	if r := edit(aKey, "A4"); r.status != 204 {
		t.Errorf("after the Retry-After: %d", r.status)
	}
	if r := edit(aKey, "A5"); r.status != 204 {
		t.Errorf("the second write of the new window: %d", r.status)
	}
	if r := edit(aKey, "A6"); r.status != 429 {
		t.Errorf("a third write within the window: %d", r.status)
	}
}

// TestLimitsConfigurable: the admin API, the seed file and the mockjira
// options set the same limits.
func TestLimitsConfigurable(t *testing.T) {
	s := jiratest.New(jiratest.Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	res, err := http.Post(ts.URL+"/_mockjira/config", "application/json",
		strings.NewReader(`{"burst_limit_per_sec": 10, "burst_size": 3, "issue_write_limit": 4, "issue_write_window_ms": 30000}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 {
		t.Fatalf("admin config: %d", res.StatusCode)
	}
	want := jiratest.Limits{BurstPerSec: 10, BurstSize: 3, IssueWrites: 4, IssueWindow: 30 * time.Second}
	if got := s.CurrentLimits(); got != want {
		t.Errorf("after admin config: %+v, want %+v", got, want)
	}
	// A config without limit fields leaves them alone.
	res, err = http.Post(ts.URL+"/_mockjira/config", "application/json", strings.NewReader(`{"latency_ms": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := s.CurrentLimits(); got != want {
		t.Errorf("after an unrelated config: %+v", got)
	}

	path := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(path, []byte(`{"burst_limit_per_sec": 2.5, "issue_write_limit": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := jiratest.LoadSeedFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := sf.Options()
	if o.Limits.BurstPerSec != 2.5 || o.Limits.IssueWrites != 1 {
		t.Errorf("seed file limits: %+v", o.Limits)
	}
	if got := jiratest.New(o).CurrentLimits(); got.IssueWindow != time.Second {
		t.Errorf("default issue write window %v, want 1s", got.IssueWindow)
	}
}

// TestBurstSizeAllowsBurstAboveRate: a bucket larger than the rate lets a
// burst through, then refuses until tokens come back.
func TestBurstSizeAllowsBurstAboveRate(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Limits: jiratest.Limits{BurstPerSec: 1, BurstSize: 3}})
	var got []int
	for i := 0; i < 4; i++ {
		got = append(got, c.do("GET", "/rest/api/3/myself", nil).status)
	}
	if fmt.Sprint(got) != "[200 200 200 429]" {
		t.Fatalf("statuses %v", got)
	}
	clk.Advance(time.Second)
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("one second later: %d", r.status)
	}
}

// TestDataCenterRateLimitHeaders: with rate limiting on, a Data Center
// site keeps one bucket for the user across every endpoint and states it
// on every answer (X-RateLimit-Limit, -Remaining, -Interval-Seconds,
// -FillRate, Retry-After 0 while tokens are left); over it, 429 with
// Retry-After and no RateLimit-Reason; the bucket refills with time.
func TestDataCenterRateLimitHeaders(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Deployment: jiratest.DeploymentDataCenter, Limits: jiratest.Limits{BurstPerSec: 2, BurstSize: 3}})
	c.auth = "Bearer " + jiratest.DefaultToken
	paths := []string{"/rest/api/2/myself", "/rest/api/2/field", "/rest/api/2/myself"}
	for i, p := range paths {
		r := c.do("GET", p, nil)
		if r.status != 200 {
			t.Fatalf("request %d: %d", i+1, r.status)
		}
		h := r.header
		if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) ||
			h.Get("X-RateLimit-Interval-Seconds") != "1" || h.Get("X-RateLimit-FillRate") != "2" || h.Get("Retry-After") != "0" {
			t.Errorf("request %d (%s) headers: %v", i+1, p, h)
		}
	}
	r := c.do("GET", "/rest/api/2/field", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "1" || r.header.Get("RateLimit-Reason") != "" || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("over the user's bucket (another endpoint): %d %v", r.status, r.header)
	}
	clk.Advance(500 * time.Millisecond)
	if r := c.do("GET", "/rest/api/2/myself", nil); r.status != 200 {
		t.Errorf("after 500ms at 2/s: %d", r.status)
	}
}
