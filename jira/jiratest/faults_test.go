package jiratest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func lastRequest(c *tc) jiratest.RecordedRequest {
	rs := c.srv.Requests()
	if len(rs) == 0 {
		return jiratest.RecordedRequest{}
	}
	return rs[len(rs)-1]
}

func TestFaultStatusCodes(t *testing.T) {
	c := start(t, jiratest.Options{})
	body := map[string]any{"fields": issueFields("Story", "S", "")}
	must := func(f jiratest.Fault) {
		t.Helper()
		if err := c.srv.AddFault(f); err != nil {
			t.Fatal(err)
		}
	}
	must(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue", Call: 2, Kind: jiratest.FaultHTTP500})
	must(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue", Call: 3, Kind: jiratest.FaultHTTP503, RetryAfter: "7"})
	must(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue", Call: 4, Kind: jiratest.FaultRateLimited, RetryAfter: "3"})
	must(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue", Call: 5, Kind: "502"})
	want := []int{201, 500, 503, 429, 502, 201}
	for i, w := range want {
		r := c.do("POST", "/rest/api/3/issue", body)
		if r.status != w {
			t.Fatalf("call %d: status %d, want %d", i+1, r.status, w)
		}
		if w >= 400 {
			if msgs, _ := r.errs(t); len(msgs) == 0 {
				t.Errorf("call %d: no error message", i+1)
			}
		}
		switch w {
		case 503:
			if r.header.Get("Retry-After") != "7" {
				t.Errorf("503 Retry-After %q", r.header.Get("Retry-After"))
			}
		case 429:
			if r.header.Get("Retry-After") != "3" || r.header.Get("X-RateLimit-Limit") == "" || r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("429 headers %v", r.header)
			}
		}
	}
	// Faulted calls are not applied.
	if n := len(c.srv.Issues()); n != 2 {
		t.Errorf("%d issues, want 2 (faulted calls must not apply)", n)
	}
	// The log shows each call with its status and fault.
	var got []string
	for _, r := range c.srv.Requests() {
		got = append(got, r.Fault)
	}
	if strings.Join(got, ",") != ",500,503,429,502," {
		t.Errorf("logged faults %q", got)
	}
	// Every-call fault on a pattern, other methods unaffected; clear.
	must(jiratest.Fault{Path: "/rest/api/3/issue/*", Kind: jiratest.FaultHTTP503})
	for i := 0; i < 3; i++ {
		if r := c.do("GET", "/rest/api/3/issue/DEMO-1", nil); r.status != 503 || r.header.Get("Retry-After") != "1" {
			t.Fatalf("every-call fault: %d %q", r.status, r.header.Get("Retry-After"))
		}
	}
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("unrelated path faulted: %d", r.status)
	}
	c.srv.ClearFaults()
	if r := c.do("GET", "/rest/api/3/issue/DEMO-1", nil); r.status != 200 {
		t.Errorf("after ClearFaults: %d", r.status)
	}
	for _, bad := range []jiratest.Fault{{Path: "/x", Kind: "teapot"}, {Kind: "500"}, {Path: "/x", Kind: "404"}, {Path: "[", Kind: "500"}, {Path: "/x", Kind: "500", Call: -1}} {
		if err := c.srv.AddFault(bad); err == nil {
			t.Errorf("invalid fault %+v accepted", bad)
		}
	}
}

// TestFaultRetryAfterNone: retry_after "none" (or "-") omits Retry-After
// on 429 and 503, keeping the X-RateLimit-* headers of a 429.
func TestFaultRetryAfterNone(t *testing.T) {
	c := start(t, jiratest.Options{})
	for _, f := range []jiratest.Fault{
		{Method: "GET", Path: "/rest/api/3/myself", Call: 1, Kind: jiratest.FaultRateLimited, RetryAfter: jiratest.RetryAfterNone},
		{Method: "GET", Path: "/rest/api/3/myself", Call: 2, Kind: jiratest.FaultHTTP503, RetryAfter: "-"},
		{Method: "GET", Path: "/rest/api/3/myself", Call: 3, Kind: jiratest.FaultRateLimited},
	} {
		if err := c.srv.AddFault(f); err != nil {
			t.Fatal(err)
		}
	}
	r := c.do("GET", "/rest/api/3/myself", nil)
	if _, has := r.header["Retry-After"]; r.status != 429 || has || r.header.Get("X-RateLimit-Limit") == "" || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 without Retry-After: status %d, headers %v", r.status, r.header)
	}
	r = c.do("GET", "/rest/api/3/myself", nil)
	if _, has := r.header["Retry-After"]; r.status != 503 || has {
		t.Errorf("503 without Retry-After: status %d, headers %v", r.status, r.header)
	}
	r = c.do("GET", "/rest/api/3/myself", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Errorf("429 default: status %d, Retry-After %q; want 1", r.status, r.header.Get("Retry-After"))
	}
}

func TestFaultReset(t *testing.T) {
	c := start(t, jiratest.Options{})
	c.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue", Call: 1, Kind: jiratest.FaultReset})
	_, err := c.try(context.Background(), "POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Story", "S", "")})
	if err == nil {
		t.Fatal("reset: request succeeded")
	}
	waitFor(t, "the reset request to be logged", func() bool { return len(c.srv.Requests()) == 1 })
	if n := len(c.srv.Issues()); n != 0 {
		t.Errorf("reset applied the write: %d issues", n)
	}
	if r := lastRequest(c); r.Fault != "reset" || r.Status != 0 {
		t.Errorf("log: %+v", r)
	}
	// The next call works.
	c.create(issueFields("Story", "S", ""))
}

func TestFaultDropAfterApply(t *testing.T) {
	c := start(t, jiratest.Options{})
	c.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: 1, Kind: jiratest.FaultDropAfterApply})
	body := map[string]any{"issueUpdates": []any{map[string]any{"fields": issueFields("Story", "S", "doc/s-1")}}}
	_, err := c.try(context.Background(), "POST", "/rest/api/3/issue/bulk", body)
	if err == nil {
		t.Fatal("drop-after-apply: the client got a response")
	}
	waitFor(t, "the dropped request to be logged", func() bool { return len(c.srv.Requests()) == 1 })
	iss := c.srv.Issues()
	if len(iss) != 1 || iss[0].Reference != "doc/s-1" {
		t.Fatalf("the write must be applied: %+v", iss)
	}
	if r := lastRequest(c); r.Fault != jiratest.FaultDropAfterApply || r.Status != 201 {
		t.Errorf("log: %+v", r)
	}
	// It is findable, so a careful client can resolve the unknown outcome.
	if got := keys(t, c.search(map[string]any{"jql": `cf[10050] ~ "\"doc/s-1\""`, "fields": []string{"summary"}})); len(got) != 1 {
		t.Errorf("applied issue not searchable: %v", got)
	}
	if n := len(c.srv.Writes()); n != 1 {
		t.Errorf("Writes() = %d, want 1", n)
	}
}

func TestFaultHang(t *testing.T) {
	c := start(t, jiratest.Options{})
	c.srv.AddFault(jiratest.Fault{Path: "/rest/api/3/myself", Call: 1, Kind: jiratest.FaultHang})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.try(ctx, "GET", "/rest/api/3/myself", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang: err %v, want deadline exceeded", err)
	}
	waitFor(t, "the hung request to be logged", func() bool { return lastRequest(c).Fault == jiratest.FaultHang })
	if r := lastRequest(c); r.Status != 0 {
		t.Errorf("hung request logged with status %d", r.Status)
	}
	// A client-side timeout works the same way.
	c.srv.AddFault(jiratest.Fault{Path: "/rest/api/3/serverInfo", Kind: jiratest.FaultHang})
	c.hc = &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := c.try(context.Background(), "GET", "/rest/api/3/serverInfo", nil); err == nil {
		t.Fatal("hang with client timeout: no error")
	}
	// Close releases hanging handlers.
	waitFor(t, "earlier requests to finish", func() bool { return c.srv.Pending() == 0 })
	done := make(chan error, 1)
	c.hc = &http.Client{}
	go func() {
		_, err := c.try(context.Background(), "GET", "/rest/api/3/serverInfo", nil)
		done <- err
	}()
	waitFor(t, "the request to hang", func() bool { return c.srv.Pending() == 1 })
	c.srv.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("request released by Close got a response")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the hanging request")
	}
}

func TestLatency(t *testing.T) {
	c := start(t, jiratest.Options{Latency: time.Hour})
	c.hc = &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := c.try(context.Background(), "GET", "/rest/api/3/myself", nil); err == nil {
		t.Fatal("a request with one hour of latency answered within 50ms")
	}
	waitFor(t, "the abandoned request to be logged", func() bool { return lastRequest(c).Fault == "client-gone" })
	c.srv.SetLatency(0)
	c.hc = &http.Client{}
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("after SetLatency(0): %d", r.status)
	}
}

// TestRateLimit: the older site-wide bucket refuses as a budget of the
// whole site does on Cloud: 429 with Retry-After (whole seconds, held
// until it passes), RateLimit-Reason jira-cost-based and X-RateLimit-Reset
// to the minute; like every Cloud answer while a limit is on, its
// X-RateLimit-Limit and -Remaining count another budget, not the bucket,
// and no NearLimit is sent.
func TestRateLimit(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{RateLimit: 2, Now: clk.Now})
	for i := 0; i < 2; i++ {
		r := c.do("GET", "/rest/api/3/myself", nil)
		if r.status != 200 {
			t.Fatalf("request %d within burst: %d", i+1, r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "350" || r.header.Get("X-RateLimit-NearLimit") != "" {
			t.Errorf("request %d: X-RateLimit-Limit %q, NearLimit %q; want the other budget's 350 and no NearLimit", i+1, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-NearLimit"))
		}
	}
	r := c.do("GET", "/rest/api/3/myself", nil)
	if r.status != 429 {
		t.Fatalf("over the limit: %d", r.status)
	}
	h := r.header
	if h.Get("Retry-After") != "1" || h.Get("RateLimit-Reason") != jiratest.ReasonCost || h.Get("X-RateLimit-Limit") == "2" || h.Get("X-RateLimit-Remaining") == "0" || h.Get("X-RateLimit-NearLimit") != "" {
		t.Errorf("429 headers: %v; want Retry-After 1, %s, the other budget's counters, no NearLimit", h, jiratest.ReasonCost)
	}
	if _, err := time.Parse("2006-01-02T15:04Z07:00", h.Get("X-RateLimit-Reset")); err != nil {
		t.Errorf("X-RateLimit-Reset %q: want yyyy-MM-ddTHH:mmZ: %v", h.Get("X-RateLimit-Reset"), err)
	}
	r.errs(t)
	if f := lastRequest(c).Fault; f != "rate-limit" {
		t.Errorf("logged fault %q", f)
	}
	clk.Advance(500 * time.Millisecond) // a token, but not the Retry-After
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 429 {
		t.Errorf("before the Retry-After: %d", r.status)
	}
	clk.Advance(500 * time.Millisecond)
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("after the Retry-After: %d", r.status)
	}
	c.srv.SetRateLimit(0, 0)
	for i := 0; i < 20; i++ {
		r := c.do("GET", "/rest/api/3/myself", nil)
		if r.status != 200 {
			t.Fatalf("rate limit off: %d", r.status)
		}
		if r.header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("rate limit off, yet X-RateLimit-Limit %q", r.header.Get("X-RateLimit-Limit"))
		}
	}
}
