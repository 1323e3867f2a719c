package jira

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestConcurrentEditsUnderJiraLimits: many edits sent at once through one
// Provider against a fake Jira with a burst limit and a per-issue write
// limit all succeed, and no two writes to one issue are ever in flight at
// the same time (the server watches).
func TestConcurrentEditsUnderJiraLimits(t *testing.T) {
	var (
		mu      sync.Mutex
		writing = map[string]int{}
		overlap []string
	)
	srv, p := startBehind(t, jiratest.Options{Limits: jiratest.Limits{BurstPerSec: 20, IssueWrites: 2, IssueWindow: time.Second}}, func(srv *jiratest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := ""
			if r.Method == http.MethodPut {
				key = strings.TrimPrefix(r.URL.Path, "/rest/api/3/issue/")
				mu.Lock()
				if writing[key]++; writing[key] > 1 {
					overlap = append(overlap, key)
				}
				mu.Unlock()
			}
			srv.ServeHTTP(w, r)
			if key != "" {
				mu.Lock()
				writing[key]--
				mu.Unlock()
			}
		})
	}, func(c *Config) {
		c.MaxAttempts, c.MaxRetryWait, c.RequestTimeout, c.MaxInFlight = 10, 30*time.Second, 10*time.Second, 8
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var keys []string
	for i := range 10 {
		k, err := srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: fmt.Sprintf("S%d", i), Reference: fmt.Sprintf("doc/s-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for round := range 4 { // four edits of each issue, all sent at once
		for i, k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				title := fmt.Sprintf("S%d edit %d", i, round)
				errs <- p.Update(ctx, k, core.ItemSpec{Reference: core.NewReference("doc", fmt.Sprintf("s-%d", i)), Kind: core.KindStory, Title: title, Digest: core.ContentDigest(core.KindStory, title, "", nil, "")})
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("edit failed: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(overlap) > 0 {
		t.Errorf("two writes to one issue in flight at once: %v", overlap)
	}
	n429 := 0
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			n429++
		}
	}
	t.Logf("%d requests, %d answered 429", len(srv.Requests()), n429)
}
