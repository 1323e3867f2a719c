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
// bucket; answers carry X-RateLimit-* (NearLimit below 20%), a request
// over the limit gets 429 jira-burst-based with Retry-After, and the bucket
// refills with time.
func TestBurstLimitPerEndpointAndMethod(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now, Limits: jiratest.Limits{BurstPerSec: 5}})
	key, _ := c.create(issueFields("Story", "One", "doc/s-1"))
	for i := 4; i >= 0; i-- {
		r := c.do("GET", "/rest/api/3/issue/"+key+"?fields=summary", nil)
		if r.status != 200 {
			t.Fatalf("request %d within the burst: %d", 5-i, r.status)
		}
		if got := r.header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(i) {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %d", 5-i, got, i)
		}
		if r.header.Get("X-RateLimit-Limit") != "5" {
			t.Errorf("X-RateLimit-Limit %q", r.header.Get("X-RateLimit-Limit"))
		}
		if _, err := time.Parse(time.RFC3339, r.header.Get("X-RateLimit-Reset")); err != nil {
			t.Errorf("X-RateLimit-Reset: %v", err)
		}
		near := r.header.Get("X-RateLimit-NearLimit") == "true"
		if near != (i < 1) { // 20% of 5
			t.Errorf("remaining %d: NearLimit %v", i, near)
		}
	}
	// Another key on the same endpoint shares the bucket: the endpoint is
	// the route, not the URL.
	r := c.do("GET", "/rest/api/3/issue/DEMO-99", nil)
	if r.status != 429 {
		t.Fatalf("sixth GET issue/{key} within a second: %d", r.status)
	}
	if r.header.Get("RateLimit-Reason") != jiratest.ReasonBurst || r.header.Get("Retry-After") != "1" ||
		r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Get("X-RateLimit-NearLimit") != "true" {
		t.Errorf("429 headers: %v", r.header)
	}
	reset, err := time.Parse(time.RFC3339, r.header.Get("X-RateLimit-Reset"))
	if err != nil || !reset.Equal(clk.Now().Add(time.Second)) {
		t.Errorf("X-RateLimit-Reset %q, want now + Retry-After", r.header.Get("X-RateLimit-Reset"))
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
	clk.Advance(200 * time.Millisecond) // one token at 5/s
	if r := c.do("GET", "/rest/api/3/issue/"+key, nil); r.status != 200 {
		t.Errorf("after 200ms: %d", r.status)
	}
	if r := c.do("GET", "/rest/api/3/issue/"+key, nil); r.status != 429 {
		t.Errorf("the refilled token is spent: %d", r.status)
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
	if r := edit(aKey, "A1"); r.status != 204 || r.header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("first write: %d remaining %q", r.status, r.header.Get("X-RateLimit-Remaining"))
	}
	clk.Advance(500 * time.Millisecond)
	if r := c.do("POST", "/rest/api/3/issue/"+aID+"/comment", map[string]any{"body": jiratest.TextADF("hi")}); r.status != 201 {
		t.Fatalf("second write (comment, by id): %d", r.status)
	} else if r.header.Get("X-RateLimit-NearLimit") != "true" {
		t.Errorf("no budget left, yet NearLimit %q", r.header.Get("X-RateLimit-NearLimit"))
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
	clk.Advance(1500 * time.Millisecond)
	if r := edit(aKey, "A4"); r.status != 204 {
		t.Errorf("after the oldest write left the window: %d", r.status)
	}
	if r := edit(aKey, "A5"); r.status != 429 {
		t.Errorf("the comment is still in the window: %d", r.status)
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
