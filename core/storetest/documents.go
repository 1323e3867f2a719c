package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// testDocuments: a document record round-trips (replaced by the next one
// of its scope and id, survives a reopen, other scopes and ids apart), and
// the document's index entries with a key are listed — those of other
// documents (even one whose id starts the same), other scopes and
// write-ahead markers left out.
func testDocuments(t *testing.T, e *env) {
	d := capability[core.DocumentStore](t, e)
	ctx, now := t.Context(), e.clock.Now().UTC().Truncate(time.Millisecond)
	const a, b = "https://a.atlassian.net/A", "https://b.atlassian.net/B"
	if got, err := d.LoadDocuments(ctx, a, []string{"plan"}); err != nil || len(got) != 0 {
		t.Fatalf("LoadDocuments before any record = %+v, %v", got, err)
	}
	first := core.DocumentRecord{Scope: a, Document: "plan", Path: "/w/plans/plan.md", Items: []string{"e-1", "s-1"}, UpdatedAt: now}
	other := core.DocumentRecord{Scope: b, Document: "plan", Path: "/w/elsewhere.md", Items: []string{"x"}, UpdatedAt: now}
	for _, r := range []core.DocumentRecord{first, other, {Scope: a, Document: "plan-2", Path: "", Items: nil, UpdatedAt: now}} {
		if err := d.RecordDocument(ctx, r); err != nil {
			t.Fatalf("RecordDocument(%+v): %v", r, err)
		}
	}
	second := first
	second.Path, second.Items, second.UpdatedAt = "/w/plans/moved.md", []string{"e-1", "s-2", "s-3"}, now.Add(time.Minute)
	if err := d.RecordDocument(ctx, second); err != nil {
		t.Fatal(err)
	}
	check := func(when string, d core.DocumentStore) {
		t.Helper()
		got, err := d.LoadDocuments(ctx, a, []string{"plan", "plan-2", "none"})
		if err != nil || len(got) != 2 {
			t.Fatalf("%s: LoadDocuments = %+v, %v; want plan and plan-2", when, got, err)
		}
		r := got["plan"]
		if r.Scope != a || r.Document != "plan" || r.Path != second.Path || !slices.Equal(r.Items, second.Items) || !r.UpdatedAt.Equal(second.UpdatedAt) {
			t.Errorf("%s: record %+v; want %+v (the later one)", when, r, second)
		}
		if r := got["plan-2"]; r.Path != "" || len(r.Items) != 0 {
			t.Errorf("%s: record without path or items %+v", when, r)
		}
		if got, err := d.LoadDocuments(ctx, b, []string{"plan"}); err != nil || got["plan"].Path != other.Path {
			t.Errorf("%s: scope b = %+v, %v", when, got, err)
		}
	}
	check("after RecordDocument", d)
	e.s = e.open()
	check("after a reopen", e.s.(core.DocumentStore))
	d = e.s.(core.DocumentStore)

	entry := func(scope string, ref core.Reference, key string) core.IndexEntry {
		return core.IndexEntry{Scope: scope, Reference: ref, Key: key, Digest: "sha256:x", UpdatedAt: now}
	}
	marker := core.IndexEntry{Scope: a, Reference: "plan/s-9", Digest: "unknown-create", UpdatedAt: now}
	if err := e.s.UpsertIndex(ctx, []core.IndexEntry{
		entry(a, "plan/e-1", "A-1"), entry(a, "plan/s-1", "A-2"), entry(a, "plan-2/s-1", "A-3"), entry(a, "planning/s-1", "A-4"),
		entry(b, "plan/s-1", "B-1"), marker,
	}); err != nil {
		t.Fatal(err)
	}
	got, err := d.ListDocumentIndex(ctx, a, "plan")
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, g := range got {
		if g.Scope != a || g.Key == "" {
			t.Errorf("ListDocumentIndex holds %+v", g)
		}
		refs = append(refs, string(g.Reference))
	}
	slices.Sort(refs)
	if !slices.Equal(refs, []string{"plan/e-1", "plan/s-1"}) {
		t.Errorf("ListDocumentIndex(a, plan) = %v; want plan/e-1 and plan/s-1", refs)
	}
	if got, err := d.ListDocumentIndex(ctx, a, "absent"); err != nil || len(got) != 0 {
		t.Errorf("ListDocumentIndex of an unknown document = %+v, %v", got, err)
	}
}

// capability returns the open store as the capability C, failing the test
// when it lacks it.
func capability[C any](t *testing.T, e *env) C {
	t.Helper()
	c, ok := e.s.(C)
	if !ok {
		var want *C
		t.Fatalf("%T does not implement %T", e.s, want)
	}
	return c
}
