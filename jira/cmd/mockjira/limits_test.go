package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestLimitFlags: -burst-limit and -issue-write-limit turn on Jira's
// burst and per-issue write limits.
func TestLimitFlags(t *testing.T) {
	url, _, stop := startRun(t, "-addr", "127.0.0.1:0", "-burst-limit", "0.001", "-burst-size", "2", "-issue-write-limit", "1", "-issue-write-window", "1h")
	do := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.SetBasicAuth(jiratest.DefaultEmail, jiratest.DefaultToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	var statuses []int
	for range 3 {
		statuses = append(statuses, do("GET", "/rest/api/3/myself", "").StatusCode)
	}
	if statuses[0] != 200 || statuses[1] != 200 || statuses[2] != 429 {
		t.Errorf("burst size 2: statuses %v", statuses)
	}
	create := do("POST", "/rest/api/3/issue", `{"fields":{"project":{"key":"DEMO"},"issuetype":{"name":"Story"},"summary":"S"}}`)
	if create.StatusCode != 201 {
		t.Fatalf("create: %d", create.StatusCode)
	}
	edit := `{"fields":{"summary":"T"}}`
	if r := do("PUT", "/rest/api/3/issue/DEMO-1", edit); r.StatusCode != 204 {
		t.Fatalf("first edit: %d", r.StatusCode)
	}
	r := do("PUT", "/rest/api/3/issue/DEMO-1", edit)
	if r.StatusCode != 429 || r.Header.Get("RateLimit-Reason") != jiratest.ReasonPerIssue {
		t.Errorf("second edit within the window: %d %q", r.StatusCode, r.Header.Get("RateLimit-Reason"))
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
