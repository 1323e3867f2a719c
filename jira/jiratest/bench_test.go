package jiratest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// benchServer runs a fake without the contract middleware (to measure the
// fake itself) and returns a function that POSTs JSON.
func benchServer(b *testing.B) (*jiratest.Server, func(path string, body any) int) {
	s := jiratest.New(jiratest.Options{})
	ts := httptest.NewServer(s)
	b.Cleanup(ts.Close)
	s.URL = ts.URL
	hc := ts.Client()
	post := func(path string, body any) int {
		j, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", ts.URL+path, bytes.NewReader(j))
		req.Header.Set("Authorization", s.AuthHeader())
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var sink bytes.Buffer
		_, _ = sink.ReadFrom(res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	return s, post
}

func BenchmarkBulkCreate50(b *testing.B) {
	_, post := benchServer(b)
	var ups []any
	for i := 0; i < 50; i++ {
		f := issueFields("Story", fmt.Sprintf("Story %d", i), fmt.Sprintf("doc/s-%d", i))
		f["description"] = adf("A description with a few words in it.")
		ups = append(ups, map[string]any{"fields": f, "properties": []any{map[string]any{"key": "devworkwire", "value": map[string]any{"digest": "d"}}}})
	}
	body := map[string]any{"issueUpdates": ups}
	benchPost(b, post, "/rest/api/3/issue/bulk", body, 201)
}

// benchPost times post(path, body), which must answer want.
func benchPost(b *testing.B, post func(string, any) int, path string, body any, want int) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := post(path, body); code != want {
			b.Fatalf("status %d", code)
		}
	}
}

// seedStories seeds n stories with the references doc/s-0 … doc/s-(n-1).
func seedStories(b *testing.B, s *jiratest.Server, n int) {
	for i := 0; i < n; i++ {
		if _, err := s.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: fmt.Sprintf("Story %d", i), Reference: fmt.Sprintf("doc/s-%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchReferencePhrase5000(b *testing.B) {
	s, post := benchServer(b)
	seedStories(b, s, 5000)
	body := map[string]any{"jql": `project = DEMO AND cf[10050] ~ "\"doc/s-4321\""`, "fields": []string{"summary", jiratest.DefaultFieldID}, "properties": []string{"devworkwire"}}
	benchPost(b, post, "/rest/api/3/search/jql", body, 200)
}

// BenchmarkSearch100RefsIn10000Issues is the adapter's reference lookup at
// scale: one search for 100 references (a disjunction of cf[N] ~ "phrase"
// clauses within the project) over 10,000 issues.
func BenchmarkSearch100RefsIn10000Issues(b *testing.B) { benchSearch100Refs(b, false) }

// BenchmarkSearch100RefsIn10000IssuesParallel: the same searches sent
// from several clients at once (a lookup sends its pages together): the
// fake answers them at the same time.
func BenchmarkSearch100RefsIn10000IssuesParallel(b *testing.B) { benchSearch100Refs(b, true) }

func benchSearch100Refs(b *testing.B, parallel bool) {
	s, post := benchServer(b)
	seedStories(b, s, 10000)
	jql := "project = DEMO AND ("
	for i := 0; i < 100; i++ {
		if i > 0 {
			jql += " OR "
		}
		jql += fmt.Sprintf(`cf[10050] ~ "\"doc/s-%d\""`, i*97)
	}
	jql += ")"
	body := map[string]any{"jql": jql, "maxResults": 100, "fields": []string{"summary", jiratest.DefaultFieldID}, "properties": []string{"devworkwire"}}
	if !parallel {
		benchPost(b, post, "/rest/api/3/search/jql", body, 200)
		return
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if code := post("/rest/api/3/search/jql", body); code != 200 {
				b.Errorf("status %d", code)
				return
			}
		}
	})
}
