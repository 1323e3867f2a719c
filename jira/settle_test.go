package jira

import (
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

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
