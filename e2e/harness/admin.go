package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Admin talks to mockjira's admin endpoints (/_mockjira/...), the way the
// suite reads the tracker's final state and its request log.
type Admin struct {
	base string
	hc   *http.Client
}

// NewAdmin returns an admin client for the fake Jira at base.
func NewAdmin(base string) *Admin {
	return &Admin{base: strings.TrimRight(base, "/"), hc: &http.Client{Timeout: 30 * time.Second}}
}

// Request is one logged request to the fake Jira.
type Request struct {
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Query  string    `json:"query"`
	Body   string    `json:"body"`
	Status int       `json:"status"`
	At     time.Time `json:"at"` // when the fake received it
}

// IsWrite reports whether the request changes the tracker: the fake's own
// rule, jiratest.IsWrite, so the suite and the fake never disagree.
func (r Request) IsWrite() bool { return jiratest.IsWrite(r.Method, r.Path) }

// Issue is one issue as the fake Jira holds it.
type Issue struct {
	Key            string `json:"key"`
	ID             string `json:"id"`
	IssueType      string `json:"issuetype"`
	Summary        string `json:"summary"`
	Reference      string `json:"reference"`
	Parent         string `json:"parent"`
	Status         string `json:"status"`
	StatusCategory string `json:"status_category"`
}

// Fault is one scripted fault.
type Fault struct {
	Method     string `json:"method"`
	Path       string `json:"path"`
	Call       int    `json:"call"` // 1-based count of matching calls; 0 = every call
	Kind       string `json:"kind"` // 500 | 503 | 429 | reset | hang | drop-after-apply
	RetryAfter string `json:"retry_after,omitempty"`
}

func (a *Admin) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("mockjira admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("mockjira admin %s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Requests returns the request log.
func (a *Admin) Requests(ctx context.Context) ([]Request, error) {
	var rs []Request
	err := a.do(ctx, http.MethodGet, "/_mockjira/requests", nil, &rs)
	return rs, err
}

// ClearRequests empties the request log.
func (a *Admin) ClearRequests(ctx context.Context) error {
	return a.do(ctx, http.MethodDelete, "/_mockjira/requests", nil, nil)
}

// Writes counts the logged requests that change the tracker.
func (a *Admin) Writes(ctx context.Context) (int, error) {
	rs, err := a.Requests(ctx)
	n := 0
	for _, r := range rs {
		if r.IsWrite() {
			n++
		}
	}
	return n, err
}

// Issues returns every issue the fake holds.
func (a *Admin) Issues(ctx context.Context) ([]Issue, error) {
	var is []Issue
	err := a.do(ctx, http.MethodGet, "/_mockjira/issues", nil, &is)
	return is, err
}

// Backlog returns the default project's issue keys in rank (backlog)
// order.
func (a *Admin) Backlog(ctx context.Context) ([]string, error) {
	var rows []struct {
		Key string `json:"key"`
	}
	if err := a.do(ctx, http.MethodGet, "/_mockjira/backlog", nil, &rows); err != nil {
		return nil, err
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return keys, nil
}

// Duplicates returns the references held by more than one issue.
func (a *Admin) Duplicates(ctx context.Context) ([]string, error) {
	is, err := a.Issues(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	var dup []string
	for _, i := range is {
		if i.Reference == "" {
			continue
		}
		seen[i.Reference]++
		if seen[i.Reference] == 2 {
			dup = append(dup, i.Reference)
		}
	}
	return dup, nil
}

// EditAsPerson changes an issue's summary the way a person in Jira would.
func (a *Admin) EditAsPerson(ctx context.Context, key, summary string) error {
	return a.do(ctx, http.MethodPost, "/_mockjira/issues/"+key+"/edit", map[string]string{"summary": summary}, nil)
}

// SetFaults replaces the scripted faults.
func (a *Admin) SetFaults(ctx context.Context, fs []Fault) error {
	if err := a.do(ctx, http.MethodDelete, "/_mockjira/faults", nil, nil); err != nil {
		return err
	}
	if len(fs) == 0 {
		return nil
	}
	return a.do(ctx, http.MethodPost, "/_mockjira/faults", fs, nil)
}

// SetConfig changes latency, search lag and rate limit at run time.
func (a *Admin) SetConfig(ctx context.Context, latencyMS, searchLagMS, rateLimit int) error {
	return a.do(ctx, http.MethodPost, "/_mockjira/config", map[string]int{
		"latency_ms": latencyMS, "search_lag_ms": searchLagMS, "rate_limit_per_sec": rateLimit,
	}, nil)
}

// SetBurstLimit sets Jira's burst limit (requests per second for each
// endpoint and method, a bucket of as many; 0 turns it off).
func (a *Admin) SetBurstLimit(ctx context.Context, perSec float64) error {
	return a.do(ctx, http.MethodPost, "/_mockjira/config", map[string]float64{"burst_limit_per_sec": perSec}, nil)
}

// SetFields adds the seed's priorities, custom fields, people, components,
// versions and required fields to the fake (the seed file's fields, at
// run time).
func (a *Admin) SetFields(ctx context.Context, fs jiratest.FieldSeed) error {
	return a.do(ctx, http.MethodPost, "/_mockjira/fields", fs, nil)
}
