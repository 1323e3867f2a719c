package jira

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// searchKeys runs a search on the fake as another client would and returns
// the keys it shows.
func searchKeys(t *testing.T, f *fixture, q string) []string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jql": q, "fields": []string{"key"}, "maxResults": 100})
	req, err := http.NewRequestWithContext(f.ctx, http.MethodPost, f.srv.URL+"/rest/api/3/search/jql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", f.srv.AuthHeader())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Issues []struct {
			Key string `json:"key"`
		} `json:"issues"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil {
		t.Fatalf("search %q: %d %s", q, resp.StatusCode, b)
	}
	var keys []string
	for _, is := range out.Issues {
		if is.Key == "" {
			t.Fatalf("search %q returned an issue without its key: %s", q, b)
		}
		keys = append(keys, is.Key)
	}
	return keys
}

// TestLookupSeesAnotherStoresCreatesWithinTheLag: store A creates a
// document's items; store B (its own dedup index: no known keys, and a
// Provider of its own: no reconcile ids) previews within Jira's search lag.
// B's lookup — and so its commit's stale check, which is a Lookup — finds
// A's items by reading the tail, so B would create no duplicate.
func TestLookupSeesAnotherStoresCreatesWithinTheLag(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := startJira(t, jiratest.Options{Now: clock, SearchLag: time.Hour}, nil)
	// Older, searchable history of the project and of the document.
	old := f.specs("shared", 3)
	if _, err := f.p.Create(f.ctx, old); err != nil {
		t.Fatal(err)
	}
	others := (&fixture{}).specs("other-work", 120) // other work in the project
	if _, err := f.p.Create(f.ctx, others); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour) // all of that is searchable now
	mu.Unlock()
	storeA, _ := New(f.p.cfg)
	newer := (&fixture{}).specs("shared", 8)[3:]
	outA, err := storeA.Create(f.ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range searchKeys(t, f, `project = DEMO ORDER BY key DESC`) {
		for _, o := range outA {
			if k == o.Key {
				t.Fatalf("search shows A's new %s; want none of them (lag)", k)
			}
		}
	}
	storeB, _ := New(f.p.cfg)
	var refs []core.Reference
	for _, s := range append(old, newer...) {
		refs = append(refs, s.Reference)
	}
	before := storeB.Stats()
	got, err := storeB.Lookup(f.ctx, refs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range newer {
		if got[s.Reference].Key != outA[i].Key {
			t.Errorf("B's lookup of %s = %q; want A's %s (a duplicate would be created)", s.Reference, got[s.Reference].Key, outA[i].Key)
		}
	}
	if len(got) != len(refs) {
		t.Errorf("B found %d of %d", len(got), len(refs))
	}
	if n := len(searchKeys(t, f, "project = DEMO")); n != 100 { // one page: the 123 older issues
		t.Errorf("search shows %d issues on its first page; want 100 (the older ones)", n)
	}
	// The tail starts after the document's newest searchable key and runs
	// through the other work (two full pages), then asks search for the
	// project's newest key once.
	st := storeB.Stats()
	if n := st.ByEndpoint[bulkFetchEndpoint] - before.ByEndpoint[bulkFetchEndpoint]; n < 1 || n > 4 {
		t.Errorf("%d bulk fetches for the tail; want 1 to 4", n)
	}
}

// TestLookupTailIsOneRequestWhenNobodyElseWrites: a lookup that search
// answers fully costs one extra request, the empty page after the newest
// key.
func TestLookupTailIsOneRequestWhenNobodyElseWrites(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs, _, _, _ := f.createAll(t, "quiet", 5)
	var refs []core.Reference
	for _, s := range specs {
		refs = append(refs, s.Reference)
	}
	p2 := f.fresh(t)
	if _, err := p2.ensureMeta(f.ctx); err != nil {
		t.Fatal(err)
	}
	before := p2.Stats()
	got, err := p2.Lookup(f.ctx, refs, nil)
	if err != nil || len(got) != 5 {
		t.Fatalf("Lookup = %d, %v", len(got), err)
	}
	st := p2.Stats()
	if n := st.Requests - before.Requests; n != 2 {
		t.Errorf("%d requests (%v); want 2: one search, one bulk fetch of the tail", n, st.ByEndpoint)
	}
}

// TestLookupTailStopsAtAGapAndSkipsDeletedKeys: a run of missing keys
// shorter than the gap (deleted issues) does not end the tail.
func TestLookupTailStopsAtAGapAndSkipsDeletedKeys(t *testing.T) {
	tl := &tail{project: "DEMO", from: 11, next: 11, hi: 10}
	keys := tl.take(100, nil)
	if len(keys) != 100 || keys[0] != "DEMO-11" || keys[99] != "DEMO-110" {
		t.Fatalf("take = %v", keys)
	}
	f := startJira(t, jiratest.Options{}, nil)
	m, err := f.p.ensureMeta(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Key DEMO-70 exists (40 keys after a gap of 59): the tail goes on.
	if err := f.p.fetchedTail(f.ctx, m, tl, []issue{{Key: "DEMO-70"}}, nil, map[core.Reference]core.WorkItem{}); err != nil || tl.done || tl.hi != 70 {
		t.Fatalf("after DEMO-70 in DEMO-11..110: done=%v hi=%d %v; want not done", tl.done, tl.hi, err)
	}
	tl.take(100, nil) // DEMO-111..210, nothing there
	if err := f.p.fetchedTail(f.ctx, m, tl, nil, nil, map[core.Reference]core.WorkItem{}); err != nil || !tl.done {
		t.Fatalf("after an empty page: done=%v %v; want done", tl.done, err)
	}
	if tl.take(1, nil) != nil {
		t.Error("a done tail gave more keys")
	}
}

// TestLookupTailOfANewDocument: a document search knows nothing of (a
// first import) asks search for the project's newest key, then reads the
// page after it: two requests beside the lookup search. The commit's stale
// check on the same Provider (one process: preview, then commit) starts
// after the newest key that read found: one.
func TestLookupTailOfANewDocument(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.createAll(t, "older", 3)
	p2 := f.fresh(t)
	if _, err := p2.ensureMeta(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := p2.ensureCreatable(f.ctx, p2.meta); err != nil { // create fields are read once, before the counts
		t.Fatal(err)
	}
	refs := []core.Reference{"fresh/s-1", "fresh/s-2"}
	for i, want := range []int{3, 2} {
		before := p2.Stats()
		got, err := p2.Lookup(f.ctx, refs, nil)
		if err != nil || len(got) != 0 {
			t.Fatalf("Lookup = %v, %v; want nothing", got, err)
		}
		st := p2.Stats()
		if n := st.Requests - before.Requests; n != want {
			t.Errorf("lookup %d: %d requests (%v); want %d", i+1, n, st.ByEndpoint, want)
		}
	}
	if p2.tails["fresh"] != 3 {
		t.Errorf("tail high-water of document fresh %d; want 3 (DEMO-3)", p2.tails["fresh"])
	}
}

// TestLookupTailOfAnEmptyProject: in an empty project the first lookup asks
// search for the newest key (none) and reads the first page; the next
// lookup on the same Provider (the commit after its preview) knows the
// project was empty and only reads the page: one request beside its search.
func TestLookupTailOfAnEmptyProject(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if _, err := f.p.ensureMeta(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.p.ensureCreatable(f.ctx, f.p.meta); err != nil {
		t.Fatal(err)
	}
	refs := []core.Reference{"empty/s-1"}
	for i, want := range []int{3, 2} {
		before := f.p.Stats()
		if _, err := f.p.Lookup(f.ctx, refs, nil); err != nil {
			t.Fatal(err)
		}
		if n := f.p.Stats().Requests - before.Requests; n != want {
			t.Errorf("lookup %d in an empty project: %d requests; want %d", i+1, n, want)
		}
	}
}

// TestLookupTailIsPerDocument: one Provider (a `dwire mcp` process) looks
// up document X, whose tail read runs over document Y's issues that
// another store created a moment ago (search lagging); its later lookup
// of Y must still find them. Before, the Provider's one memory of the
// tail made Y's tail start after X's, past Y's issues: Y would have been
// created twice.
func TestLookupTailIsPerDocument(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	other, _ := New(f.p.cfg) // another store's process
	y := (&fixture{}).specs("doc-y", 3)
	outY, err := other.Create(f.ctx, y)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := New(f.p.cfg)
	if got, err := p.Lookup(f.ctx, refsOf((&fixture{}).specs("doc-x", 2)), nil); err != nil || len(got) != 0 {
		t.Fatalf("Lookup(X) = %v, %v", got, err)
	}
	got, err := p.Lookup(f.ctx, refsOf(y), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range y {
		if got[s.Reference].Key != outY[i].Key {
			t.Errorf("Lookup(Y) of %s = %q; want %s (it would be created again)", s.Reference, got[s.Reference].Key, outY[i].Key)
		}
	}
}

// TestUnknownCreateSettledByKeyWithinTheLag: a commit's stale check (a
// Lookup) reads the tail; another client creates issues meanwhile; the
// bulk create is applied but its answer lost while search still lags.
// Reading the keys above the floor finds every created issue: all are
// created (none unknown), nothing is sent again and search is not asked.
// A second batch of the same Create, dropped too, is settled from the key
// the first created.
func TestUnknownCreateSettledByKeyWithinTheLag(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, faultConfig)
	if _, err := f.p.Create(f.ctx, (&fixture{}).specs("history", 5)); err != nil {
		t.Fatal(err)
	}
	specs := f.specs("settle", core.MaxBatch+3)
	p, _ := New(f.p.cfg)
	faultConfig(&p.cfg)
	if got, err := p.Lookup(f.ctx, refsOf(specs), nil); err != nil || len(got) != 0 {
		t.Fatalf("stale check = %v, %v; want nothing found", got, err)
	}
	// Someone else creates issues between the stale check and the commit.
	if _, err := f.p.Create(f.ctx, (&fixture{}).specs("meanwhile", 4)); err != nil {
		t.Fatal(err)
	}
	for _, call := range []int{1, 2} { // the commit's two batches (counted from now)
		if err := f.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: call, Kind: jiratest.FaultDropAfterApply}); err != nil {
			t.Fatal(err)
		}
	}
	searches := p.Stats().ByEndpoint[searchEndpoint]
	out, err := p.Create(f.ctx, specs)
	if err != nil {
		t.Fatalf("Create = %v; want every dropped create settled", err)
	}
	if len(out) != len(specs) {
		t.Fatalf("%d outcomes; want %d", len(out), len(specs))
	}
	byRef := map[core.Reference]string{}
	for _, is := range f.srv.Issues() {
		byRef[core.Reference(is.Reference)] = is.Key
	}
	for i, o := range out {
		if o.Unknown || o.Err != nil || o.Key == "" || o.Key != byRef[specs[i].Reference] {
			t.Errorf("outcome %+v; want created as %s", o, byRef[specs[i].Reference])
		}
	}
	if n := waitCount(t, f.srv, "POST", "/rest/api/3/issue/bulk", 4); n != 4 {
		t.Errorf("%d bulk creates sent; want 4 (2 of them the commit's, each once)", n)
	}
	if n := p.Stats().ByEndpoint[searchEndpoint] - searches; n != 0 {
		t.Errorf("%d searches to settle the creates; want 0 (search lags: read by key)", n)
	}
	if st := p.Stats(); st.Unknown != 0 || st.Created != len(specs) {
		t.Errorf("stats %+v; want %d created, 0 unknown", st, len(specs))
	}
	assertNoDuplicates(t, f.srv)
}
