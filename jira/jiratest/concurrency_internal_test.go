package jiratest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// answered is one answer of the fake (body decoded; nil for a 204).
type answered struct {
	status int
	body   map[string]any
	err    error
}

// fakeClient sends one authenticated JSON request and decodes the answer.
type fakeClient func(method, path string, body any) answered

// async sends the request from a new goroutine.
func (c fakeClient) async(method, path string, body any) <-chan answered {
	ch := make(chan answered, 1)
	go func() { ch <- c(method, path, body) }()
	return ch
}

// concurrencyServer runs s on a loopback server and returns its client.
func concurrencyServer(t *testing.T, s *Server) fakeClient {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	s.URL = ts.URL
	return func(method, path string, body any) answered {
		b, err := json.Marshal(body)
		if err != nil {
			return answered{err: err}
		}
		req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(b))
		if err != nil {
			return answered{err: err}
		}
		req.Header.Set("Authorization", s.AuthHeader())
		req.Header.Set("Content-Type", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			return answered{err: err}
		}
		defer res.Body.Close()
		a := answered{status: res.StatusCode}
		if res.StatusCode != http.StatusNoContent {
			a.err = json.NewDecoder(res.Body).Decode(&a.body)
		}
		return a
	}
}

func seedRefs(t *testing.T, s *Server, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := s.Seed(SeedIssue{IssueType: "Story", Summary: fmt.Sprintf("Story %d", i), Reference: fmt.Sprintf("doc/s-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadsAreAnsweredConcurrently: searches and bulk fetches share the
// data lock, so two of them are evaluated at the same time (a real Jira
// answers requests sent together together; a fake that answered them one
// after another made a commit's stale-check searches, sent at once, cost
// one round trip each). The hook holds every read inside the lock until
// both are there: with reads serialized the second never arrives.
func TestReadsAreAnsweredConcurrently(t *testing.T) {
	search := func(ref string) (string, string, any) {
		return http.MethodPost, "/rest/api/3/search/jql", map[string]any{"jql": fmt.Sprintf(`project = DEMO AND cf[10050] ~ "\"%s\""`, ref), "fields": []string{"summary"}}
	}
	type req struct {
		method, path string
		body         any
	}
	r := func(m, p string, b any) req { return req{m, p, b} }
	for name, pair := range map[string][2]req{
		"two searches":           {r(search("doc/s-1")), r(search("doc/s-2"))},
		"a search and a count":   {r(search("doc/s-1")), r(http.MethodPost, "/rest/api/3/search/approximate-count", map[string]any{"jql": "project = DEMO"})},
		"a search and bulkfetch": {r(search("doc/s-1")), r(http.MethodPost, "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{"DEMO-3"}, "fields": []string{"summary"}})},
	} {
		t.Run(name, func(t *testing.T) {
			s := New(Options{Limits: Limits{BurstPerSec: 100, IssueWrites: 10}})
			seedRefs(t, s, 3)
			inside := make(chan struct{}, 2)
			release := make(chan struct{})
			s.searchHook = func() {
				inside <- struct{}{}
				<-release
			}
			do := concurrencyServer(t, s)
			var results []<-chan answered
			for _, q := range pair {
				results = append(results, do.async(q.method, q.path, q.body))
			}
			deadline := time.After(10 * time.Second)
			for n := 0; n < 2; n++ {
				select {
				case <-inside:
				case <-deadline:
					close(release)
					t.Fatalf("only %d of 2 reads were being answered at once after 10 s: reads are serialized", n)
				}
			}
			close(release)
			for _, ch := range results {
				res := <-ch
				if res.err != nil || res.status != http.StatusOK {
					t.Fatalf("status %d, %v: %v", res.status, res.err, res.body)
				}
			}
		})
	}
}

// TestWriteWaitsForReadsInProgress: a write that arrives while a search
// is between finding its issues and rendering them waits until the search
// has encoded its answer (which shows the issue as it was, whole), then
// applies.
func TestWriteWaitsForReadsInProgress(t *testing.T) {
	s := New(Options{})
	seedRefs(t, s, 1)
	inside := make(chan struct{}, 1)
	release := make(chan struct{})
	var once sync.Once
	s.searchHook = func() {
		once.Do(func() {
			inside <- struct{}{}
			<-release
		})
	}
	do := concurrencyServer(t, s)
	searched := do.async(http.MethodPost, "/rest/api/3/search/jql", map[string]any{"jql": "project = DEMO", "fields": []string{"summary"}})
	select {
	case <-inside:
	case <-time.After(10 * time.Second):
		t.Fatal("the search never found its issues")
	}
	edited := do.async(http.MethodPut, "/rest/api/3/issue/DEMO-1", map[string]any{"fields": map[string]any{"summary": "Renamed"}})
	// Poll (with a deadline) until the edit waits for the lock: a waiting
	// writer makes TryRLock fail.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for waiting := false; !waiting; {
		if s.mu.TryRLock() {
			s.mu.RUnlock()
		} else {
			waiting = true
			continue
		}
		select {
		case res := <-edited:
			close(release)
			t.Fatalf("the edit was answered (%d) while a search held the data lock", res.status)
		case <-deadline:
			close(release)
			t.Fatal("the edit never waited for the search's lock")
		case <-tick.C:
		}
	}
	close(release)
	res := <-searched
	if res.err != nil || res.status != http.StatusOK {
		t.Fatalf("search: status %d, %v", res.status, res.err)
	}
	issues, _ := res.body["issues"].([]any)
	if len(issues) != 1 {
		t.Fatalf("search found %d issues, want 1: %v", len(issues), res.body)
	}
	if got := issues[0].(map[string]any)["fields"].(map[string]any)["summary"]; got != "Story 0" {
		t.Errorf("search shows summary %q, want the one before the edit (Story 0): it rendered after letting the write in", got)
	}
	if res := <-edited; res.err != nil || res.status != http.StatusNoContent {
		t.Fatalf("edit: status %d, %v: %v", res.status, res.err, res.body)
	}
	if iss, _ := s.Issue("DEMO-1"); iss.Summary != "Renamed" {
		t.Errorf("after the edit the summary is %q, want Renamed", iss.Summary)
	}
}

// TestReadsAndWritesTogether runs searches, counts and bulk fetches
// while issues are edited and created (run it with -race): every answer
// is 200 and shows each issue whole — the summary and the reference an
// edit sets together always agree.
func TestReadsAndWritesTogether(t *testing.T) {
	s := New(Options{})
	seedRefs(t, s, 20)
	do := concurrencyServer(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	fail := func(format string, args ...any) {
		select {
		case errs <- fmt.Errorf(format, args...):
		default:
		}
	}
	wg.Add(1)
	go func() { // the writer: each edit sets summary and reference to "vN"
		defer wg.Done()
		for i := 0; i < 60; i++ {
			key := fmt.Sprintf("DEMO-%d", 1+i%20)
			res := do(http.MethodPut, "/rest/api/3/issue/"+key, map[string]any{"fields": map[string]any{
				"summary": fmt.Sprintf("v%d", i), DefaultFieldID: fmt.Sprintf("v%d", i)}})
			if res.err != nil || res.status != http.StatusNoContent {
				fail("edit %s: %d %v %v", key, res.status, res.err, res.body)
				return
			}
			if i%10 == 0 {
				if _, err := s.Seed(SeedIssue{IssueType: "Story", Summary: "new", Reference: "new"}); err != nil {
					fail("seed: %v", err)
					return
				}
			}
		}
	}()
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				res := do(http.MethodPost, "/rest/api/3/search/jql", map[string]any{
					"jql": `project = DEMO AND (summary ~ "v*" OR summary ~ "story") ORDER BY key`, "maxResults": 100, "fields": []string{"summary", DefaultFieldID}})
				if res.err != nil || res.status != http.StatusOK {
					fail("search: %d %v %v", res.status, res.err, res.body)
					return
				}
				issues, _ := res.body["issues"].([]any)
				for _, is := range issues {
					f := is.(map[string]any)["fields"].(map[string]any)
					sum, _ := f["summary"].(string)
					ref, _ := f[DefaultFieldID].(string)
					if strings.HasPrefix(sum, "v") && sum != ref {
						fail("an issue shows summary %q with reference %q: a half-applied edit", sum, ref)
						return
					}
				}
				if res := do(http.MethodPost, "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{"DEMO-1", "DEMO-2"}, "fields": []string{"summary"}}); res.err != nil || res.status != http.StatusOK {
					fail("bulkfetch: %d %v %v", res.status, res.err, res.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
