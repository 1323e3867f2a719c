package jira

import (
	"regexp"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

const observePlan = `---
id: obs
---
# Observability

## Epic e-1: First epic
An epic.

### Story s-1: First story
A story.

Acceptance criteria:
- It works
`

var runIDAttr = regexp.MustCompile(`\brun_id=(\S+)`)

// jiraLines returns the adapter's log lines (messages starting "jira ").
func jiraLines(logs string) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, `msg="jira `) || strings.Contains(l, "msg=jira") {
			out = append(out, l)
		}
	}
	return out
}

// TestLogLinesCarryRunID drives the adapter through the core service (which
// puts the run id on the context): an import preview, then a commit whose
// bulk create is applied but loses its response (unknown outcome, resolved
// by search) and whose first search (the commit's re-lookup) is answered
// 503 once (retried). Every
// adapter log line carries the run id of the operation it belongs to; the
// retry, the unknown outcome, the resolution and the per-call retry
// summary are there; no line holds the token, the Authorization value or
// a raw Jira body.
func TestLogLinesCarryRunID(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "obs.md", Data: []byte(observePlan)})
	if err != nil {
		t.Fatal(err)
	}
	for _, fl := range []jiratest.Fault{
		{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: 1, Kind: jiratest.FaultDropAfterApply},
		{Method: "POST", Path: "/rest/api/3/search/jql", Call: 1, Kind: jiratest.FaultHTTP503, RetryAfter: "0"},
	} {
		if err := f.srv.AddFault(fl); err != nil {
			t.Fatal(err)
		}
	}
	cm, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	if pv.RunID == "" || cm.RunID == "" || pv.RunID == cm.RunID {
		t.Fatalf("run ids %q and %q", pv.RunID, cm.RunID)
	}
	lines := jiraLines(f.logs.String())
	if len(lines) == 0 {
		t.Fatal("no adapter log lines")
	}
	byRun := map[string][]string{}
	for _, l := range lines {
		m := runIDAttr.FindStringSubmatch(l)
		if m == nil || (m[1] != pv.RunID && m[1] != cm.RunID) {
			t.Errorf("adapter log line without this test's run id: %s", l)
			continue
		}
		byRun[m[1]] = append(byRun[m[1]], l)
	}
	commit := strings.Join(byRun[cm.RunID], "\n")
	hasLine := func(frags ...string) bool {
		for _, l := range byRun[cm.RunID] {
			all := true
			for _, fr := range frags {
				all = all && strings.Contains(l, fr)
			}
			if all {
				return true
			}
		}
		return false
	}
	for _, want := range [][]string{
		{`msg="jira write outcome unknown"`, `endpoint="POST /rest/api/3/issue/bulk"`},
		{`msg="jira create outcome unknown; looking for the created issues"`},
		{`msg="jira create outcome resolved"`, "found=1", "unknown=0"},
		{`msg="jira request retry"`, `endpoint="POST /rest/api/3/search/jql"`, "status=503"},
		{`msg="jira call retried"`, "op=Lookup", `endpoint="POST /rest/api/3/search/jql"`, "attempts=2", "retries=1", "total_wait_ms="},
	} {
		if !hasLine(want...) {
			t.Errorf("no log line of the commit has all of %q:\n%s", want, commit)
		}
	}
	if n := strings.Count(commit, `msg="jira call retried"`); n != 1 {
		t.Errorf("%d retry summaries for the commit; want 1 (one per provider call that retried)", n)
	}
	if strings.Contains(strings.Join(byRun[pv.RunID], "\n"), "jira call retried") {
		t.Errorf("a retry summary for the preview, which did not retry")
	}
	assertNoDuplicates(t, f.srv)
	f.assertNoSecrets(t)
}

// TestRetrySummaryPerCall: a provider call without a run id still logs
// one summary when it retried (attempts and wait summed over its
// requests, the endpoints listed), none when it did not, and an inner
// call (Lookup reading a known key by GET) counts towards the outer one.
func TestRetrySummaryPerCall(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.logs.String(); strings.Contains(s, "jira call retried") || strings.Contains(s, "run_id=") {
		t.Fatalf("summary or run_id without retries or run id:\n%s", s)
	}
	for _, fl := range []jiratest.Fault{
		{Method: "GET", Path: "/rest/api/3/myself", Call: 1, Kind: jiratest.FaultRateLimited, RetryAfter: jiratest.RetryAfterNone},
		{Method: "GET", Path: "/rest/api/3/myself", Call: 2, Kind: jiratest.FaultHTTP500},
		{Method: "GET", Path: "/rest/api/3/mypermissions", Call: 1, Kind: jiratest.FaultHTTP503, RetryAfter: "0"},
	} {
		if err := f.srv.AddFault(fl); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, l := range jiraLines(f.logs.String()) {
		if strings.Contains(l, `msg="jira call retried"`) {
			sums = append(sums, l)
		}
	}
	if len(sums) != 1 {
		t.Fatalf("%d summaries; want 1:\n%s", len(sums), strings.Join(sums, "\n"))
	}
	// myself: 3 attempts (429, 500, ok); mypermissions: 2 (503, ok).
	for _, want := range []string{"op=Check", `endpoint="GET /rest/api/3/mypermissions, GET /rest/api/3/myself"`, "attempts=5", "retries=3", "total_wait_ms="} {
		if !strings.Contains(sums[0], want) {
			t.Errorf("summary %s lacks %s", sums[0], want)
		}
	}
	if strings.Contains(sums[0], "total_wait_ms=0 ") || strings.HasSuffix(sums[0], "total_wait_ms=0") {
		t.Errorf("summary %s reports no wait; each retry waits at least the floor", sums[0])
	}
	f.assertNoSecrets(t)
}
