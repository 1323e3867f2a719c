package jira

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// benchPlan is 20 epics and 980 stories (49 per epic).
func benchPlan(doc string) (epics, stories []core.ItemSpec) {
	for e := 1; e <= 20; e++ {
		ref := core.NewReference(doc, fmt.Sprintf("e-%d", e))
		epics = append(epics, core.ItemSpec{Reference: ref, Kind: core.KindEpic, Title: fmt.Sprintf("Epic %d", e), Description: "An epic.", Digest: "sha256:e"})
	}
	for s := 1; s <= 980; s++ {
		ref := core.NewReference(doc, fmt.Sprintf("s-%d", s))
		stories = append(stories, core.ItemSpec{Reference: ref, Kind: core.KindStory, Title: fmt.Sprintf("Story %d", s), Description: "A story with **some** text.", AcceptanceCriteria: []string{"It works"}, Digest: "sha256:s"})
	}
	return epics, stories
}

// runImport1000 creates 20 epics then 980 stories (each under epic
// (i mod 20)), then looks all 1,000 references up with a fresh Provider.
func runImport1000(b *testing.B, single bool) {
	const latency = 50 * time.Millisecond
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := jiratest.Start(b, jiratest.Options{Latency: latency})
		cfg := Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey(), SingleCreate: single}
		p, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		epics, stories := benchPlan("bench")
		refs := make([]core.Reference, 0, 1000)
		for _, s := range append(append([]core.ItemSpec{}, epics...), stories...) {
			refs = append(refs, s.Reference)
		}
		if err := p.Check(ctx); err != nil { // discovery, outside the timed part
			b.Fatal(err)
		}
		before := p.Stats()
		b.StartTimer()

		// Preview of a first import: nothing exists yet.
		t0 := time.Now()
		found, err := p.Lookup(ctx, refs, nil)
		if err != nil || len(found) != 0 {
			b.Fatalf("lookup before import: %d found, %v", len(found), err)
		}
		lookupEmpty := time.Since(t0)
		afterLookup := p.Stats()

		t1 := time.Now()
		eo, err := p.Create(ctx, epics)
		if err != nil {
			b.Fatal(err)
		}
		for j := range stories {
			stories[j].ParentKey = eo[j%len(eo)].Key
		}
		so, err := p.Create(ctx, stories)
		if err != nil {
			b.Fatal(err)
		}
		create := time.Since(t1)
		for _, o := range append(eo, so...) {
			if o.Key == "" || o.Err != nil {
				b.Fatalf("outcome %+v", o)
			}
		}
		afterCreate := p.Stats()

		// Re-import preview: a fresh Provider finds all 1,000 by search.
		p2, _ := New(cfg)
		if err := p2.Check(ctx); err != nil {
			b.Fatal(err)
		}
		p2before := p2.Stats()
		t2 := time.Now()
		found, err = p2.Lookup(ctx, refs, nil)
		if err != nil || len(found) != 1000 {
			b.Fatalf("lookup after import: %d found, %v", len(found), err)
		}
		lookupFull := time.Since(t2)
		b.StopTimer()

		creates := afterCreate.Requests - afterLookup.Requests
		minCreates := 1 + 20 // ceil(20/50) + ceil(980/50)
		if single {
			minCreates = 1000
		}
		b.ReportMetric(float64(afterLookup.Requests-before.Requests), "lookup-empty-reqs")
		b.ReportMetric(float64(lookupEmpty.Milliseconds()), "lookup-empty-ms")
		b.ReportMetric(float64(creates), "create-reqs")
		b.ReportMetric(float64(minCreates), "create-min-reqs")
		b.ReportMetric(float64(create.Milliseconds()), "create-ms")
		b.ReportMetric(float64(p2.Stats().Requests-p2before.Requests), "lookup-full-reqs")
		b.ReportMetric(float64(lookupFull.Milliseconds()), "lookup-full-ms")
		b.ReportMetric(float64(afterCreate.Retries), "retries")
		if n := len(srv.Issues()); n != 1000 {
			b.Fatalf("%d issues in the fake; want 1000", n)
		}
		b.StartTimer()
	}
}

// BenchmarkImport1000 measures the bulk path: look up 1,000 references,
// create 20 epics + 980 stories, look them up again, at 50 ms latency per
// request. Minimum: 10 search pages (100 issues a page) per lookup and
// ceil(20/50)+ceil(980/50) = 21 creates.
func BenchmarkImport1000(b *testing.B) { runImport1000(b, false) }

// BenchmarkImport1000SingleCreate is the baseline: one POST /issue per item.
func BenchmarkImport1000SingleCreate(b *testing.B) { runImport1000(b, true) }

// BenchmarkLookupKnownUnderLag1000: right after an import, search has not
// caught up; a fresh Provider with the dedup index's 1,000 keys reads them
// with POST /issue/bulkfetch (100 keys a request) after 10 empty searches.
func BenchmarkLookupKnownUnderLag1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := jiratest.Start(b, jiratest.Options{SearchLag: time.Hour})
		cfg := Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey()}
		p, _ := New(cfg)
		ctx := context.Background()
		epics, stories := benchPlan("lag")
		specs := append(epics, stories...)
		out, err := p.Create(ctx, specs)
		if err != nil {
			b.Fatal(err)
		}
		known := map[core.Reference]string{}
		refs := make([]core.Reference, len(specs))
		for j, s := range specs {
			refs[j] = s.Reference
			known[s.Reference] = out[j].Key
		}
		srv.SetLatency(50 * time.Millisecond)
		p2, _ := New(cfg)
		if err := p2.Check(ctx); err != nil {
			b.Fatal(err)
		}
		before := p2.Stats().Requests
		b.StartTimer()
		t0 := time.Now()
		got, err := p2.Lookup(ctx, refs, known)
		el := time.Since(t0)
		b.StopTimer()
		if err != nil || len(got) != 1000 {
			b.Fatalf("found %d, %v", len(got), err)
		}
		b.ReportMetric(float64(p2.Stats().Requests-before), "reqs")
		b.ReportMetric(float64(el.Milliseconds()), "lookup-ms")
		b.StartTimer()
	}
}
