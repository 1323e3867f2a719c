package jira

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestLookupReadsTheTailAlongsideTheSearches: the commit's stale check of
// a fresh import (no item has a key yet; the preview on the same Provider
// read the tail) sends its tail read without waiting for the searches —
// held here until a bulk fetch arrives — and sends no more requests than
// it did after them: 10 searches and 1 bulk fetch for 1,000 references.
// Before, the bulk fetch started after the newest key the searches
// returned: it never came while they were held.
func TestLookupReadsTheTailAlongsideTheSearches(t *testing.T) {
	var (
		hold      atomic.Bool
		fetched   = make(chan struct{})
		fetchOnce sync.Once
		timedOut  atomic.Int32
	)
	fake, p := startBehind(t, jiratest.Options{}, func(fake *jiratest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/rest/api/3/issue/bulkfetch" && hold.Load():
				fetchOnce.Do(func() { close(fetched) })
			case r.URL.Path == "/rest/api/3/search/jql" && hold.Load():
				select {
				case <-fetched:
				case <-time.After(10 * time.Second):
					timedOut.Add(1)
				}
			}
			fake.ServeHTTP(w, r)
		})
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Create(ctx, (&fixture{}).specs("older", 3)); err != nil {
		t.Fatal(err)
	}
	refs := refsOf((&fixture{}).specs("fresh", 1000))
	if got, err := p.Lookup(ctx, refs, nil); err != nil || len(got) != 0 { // the preview
		t.Fatalf("preview's Lookup = %d found, %v", len(got), err)
	}
	hold.Store(true)
	fake.ClearRequests()
	got, err := p.Lookup(ctx, refs, nil) // the commit's stale check
	if err != nil || len(got) != 0 {
		t.Fatalf("stale check's Lookup = %d found, %v", len(got), err)
	}
	if n := timedOut.Load(); n > 0 {
		t.Errorf("%d searches waited 10 s for a bulk fetch; want the tail read sent alongside them", n)
	}
	if s, b := fake.CountRequests("POST", "/rest/api/3/search/jql"), fake.CountRequests("POST", "/rest/api/3/issue/bulkfetch"); s != 10 || b != 1 || len(fake.Requests()) != 11 {
		t.Errorf("%d searches, %d bulk fetches, %d requests; want 10 + 1 = 11", s, b, len(fake.Requests()))
	}
}

// TestLookupTailGoesOnAfterANewerSearchKey: the tail read alongside the
// searches starts after the newest key this Provider's preview saw and
// ends in a run of missing keys (150 issues another process made
// meanwhile, deleted since: bulk fetch does not return them); search then
// shows the document's item made after them (searchable at once), newer
// than anything the tail found. The tail goes on after that key and finds
// the document's newest item, which search does not show yet (its lag):
// the result is complete, in one more bulk fetch.
func TestLookupTailGoesOnAfterANewerSearchKey(t *testing.T) {
	var (
		mu   sync.Mutex
		gone = map[string]bool{}
	)
	fake, p := startBehind(t, jiratest.Options{SearchLag: time.Hour}, func(fake *jiratest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/rest/api/3/issue/bulkfetch" {
				fake.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, r)
			var resp map[string]any
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil {
				t.Errorf("bulk fetch: %d %s", rec.Code, rec.Body.Bytes())
				return
			}
			issues, _ := resp["issues"].([]any)
			mu.Lock()
			resp["issues"] = slices.DeleteFunc(issues, func(is any) bool {
				m, _ := is.(map[string]any)
				k, _ := m["key"].(string)
				return gone[k]
			})
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(resp)
		})
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config{BaseURL: fake.URL, Email: fake.Email(), Token: fake.Token(), Project: fake.ProjectKey()}
	doc := (&fixture{}).specs("doc", 2)
	if got, err := p.Lookup(ctx, refsOf(doc), nil); err != nil || len(got) != 0 { // the preview: an empty project
		t.Fatalf("preview's Lookup = %v, %v", got, err)
	}
	other, _ := New(cfg) // another process
	fillers, err := other.Create(ctx, (&fixture{}).specs("gone", 150))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, o := range fillers {
		gone[o.Key] = true
	}
	mu.Unlock()
	k1, err := fake.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: doc[0].Title, Reference: string(doc[0].Reference)})
	if err != nil {
		t.Fatal(err)
	}
	out2, err := other.Create(ctx, doc[1:])
	if err != nil || out2[0].Key == "" {
		t.Fatalf("Create = %v, %v", out2, err)
	}
	if k1 != "DEMO-151" || out2[0].Key != "DEMO-152" {
		t.Fatalf("keys %s, %s; want DEMO-151, DEMO-152", k1, out2[0].Key)
	}
	fake.ClearRequests()
	got, err := p.Lookup(ctx, refsOf(doc), nil) // the commit's stale check
	if err != nil {
		t.Fatal(err)
	}
	if got[doc[0].Reference].Key != k1 || got[doc[1].Reference].Key != out2[0].Key || len(got) != 2 {
		t.Errorf("Lookup = %v; want %s = %s (search) and %s = %s (the tail after it)", got, doc[0].Reference, k1, doc[1].Reference, out2[0].Key)
	}
	if n := fake.CountRequests("POST", "/rest/api/3/issue/bulkfetch"); n != 2 {
		t.Errorf("%d bulk fetches; want 2 (DEMO-1…100 alongside the search, DEMO-152… after it)", n)
	}
	if p.tails["doc"] != 152 {
		t.Errorf("tail high-water of the document %d; want 152", p.tails["doc"])
	}
}

// TestLookupTailAlongsideWithoutBulkFetch: on a site without bulk fetch
// (404) the tail read alongside the searches ends at its first page, as
// after them; a newer key the searches show does not start it again, and
// what search found is the result.
func TestLookupTailAlongsideWithoutBulkFetch(t *testing.T) {
	var fetches atomic.Int32
	fake, p := startBehind(t, jiratest.Options{}, func(fake *jiratest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/rest/api/3/issue/bulkfetch" {
				fetches.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"errorMessages":["Not found"],"errors":{}}`))
				return
			}
			fake.ServeHTTP(w, r)
		})
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	doc := (&fixture{}).specs("nobulk", 2)
	if got, err := p.Lookup(ctx, refsOf(doc), nil); err != nil || len(got) != 0 { // the preview: an empty project
		t.Fatalf("preview's Lookup = %v, %v", got, err)
	}
	for range 60 { // other work: the document's item is DEMO-61, within the gap after DEMO-1…100
		if _, err := fake.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Other work"}); err != nil {
			t.Fatal(err)
		}
	}
	k, err := fake.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: doc[0].Title, Reference: string(doc[0].Reference)})
	if err != nil {
		t.Fatal(err)
	}
	fake.ClearRequests()
	fetches.Store(0)
	got, err := p.Lookup(ctx, refsOf(doc), nil)
	if err != nil || len(got) != 1 || got[doc[0].Reference].Key != k {
		t.Fatalf("Lookup = %v, %v; want %s = %s (search)", got, err, doc[0].Reference, k)
	}
	if n, f := len(fake.Requests()), fetches.Load(); n != 1 || f != 1 { // the bulk fetch never reaches the fake
		t.Errorf("%d requests reached the fake, %d bulk fetches were tried; want 1 search and 1 bulk fetch (the tail not started again)", n, f)
	}
}
