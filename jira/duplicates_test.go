package jira

import (
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// created returns reference → key of the committed outcomes.
func created(t *testing.T, out []core.CreateOutcome) map[core.Reference]string {
	t.Helper()
	m := map[core.Reference]string{}
	for _, o := range out {
		if o.Err != nil || o.Key == "" {
			t.Fatalf("create of %s: %v", o.Reference, o.Err)
		}
		m[o.Reference] = o.Key
	}
	return m
}

func refsOf(specs []core.ItemSpec) []core.Reference {
	refs := make([]core.Reference, len(specs))
	for i, s := range specs {
		refs[i] = s.Reference
	}
	return refs
}

// TestDuplicatesOfSameMomentCommits: two Providers (two processes with
// separate stores) look a document up while Jira's search lags — both find
// nothing, as two commits' stale checks starting at the same moment do —
// and both create it. Each one's Duplicates, reading by key, not by search,
// names every reference held twice with both keys, oldest first.
func TestDuplicatesOfSameMomentCommits(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	if _, err := f.p.Create(f.ctx, (&fixture{}).specs("other-work", 20)); err != nil {
		t.Fatal(err)
	}
	specs := f.specs("race", 7)
	a, b := f.fresh(t), f.fresh(t)
	for _, p := range []*Provider{a, b} {
		if got, err := p.Lookup(f.ctx, refsOf(specs), nil); err != nil || len(got) != 0 {
			t.Fatalf("stale check = %v, %v; want nothing found", got, err)
		}
	}
	outA, err := a.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	outB, err := b.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	ka, kb := created(t, outA), created(t, outB)
	for name, c := range map[string]struct {
		p       *Provider
		created map[core.Reference]string
	}{"second": {b, kb}, "first": {a, ka}} {
		dups, err := c.p.Duplicates(f.ctx, c.created)
		if err != nil {
			t.Fatal(err)
		}
		if len(dups) != len(specs) {
			t.Errorf("%s: %d references reported; want %d: %v", name, len(dups), len(specs), dups)
		}
		for _, s := range specs {
			if got := dups[s.Reference]; len(got) != 2 || got[0] != ka[s.Reference] || got[1] != kb[s.Reference] {
				t.Errorf("%s: %s held by %v; want [%s %s]", name, s.Reference, got, ka[s.Reference], kb[s.Reference])
			}
		}
	}
}

// TestDuplicatesIsOneRequestWhenAlone: a commit nobody raced costs one
// request — also when other issues were created between its stale check
// and its creates — and reports nothing.
func TestDuplicatesIsOneRequestWhenAlone(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	specs := f.specs("alone", 120)
	p := f.fresh(t)
	if _, err := p.Lookup(f.ctx, refsOf(specs), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.p.Create(f.ctx, (&fixture{}).specs("meanwhile", 3)); err != nil { // someone else's work
		t.Fatal(err)
	}
	out, err := p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	before := p.Stats()
	dups, err := p.Duplicates(f.ctx, created(t, out))
	if err != nil || len(dups) != 0 {
		t.Fatalf("Duplicates = %v, %v; want none", dups, err)
	}
	st := p.Stats()
	if n := st.Requests - before.Requests; n != 1 || st.ByEndpoint[bulkFetchEndpoint]-before.ByEndpoint[bulkFetchEndpoint] != 1 {
		t.Errorf("%d requests (%v); want 1 bulk fetch", n, st.ByEndpoint)
	}
}
