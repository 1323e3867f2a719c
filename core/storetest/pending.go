package storetest

import (
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// testPendingPreviews: the previews waiting for a person are those of the
// scope, neither consumed nor expired, newest first, bounded; a tampered
// one is left out.
func testPendingPreviews(t *testing.T, e *env) {
	l, ok := e.s.(core.PreviewLister)
	if !ok {
		t.Fatalf("%T does not implement core.PreviewLister", e.s)
	}
	scope := "https://example.atlassian.net/DEMO"
	old := e.save(e.preview(core.PreviewImport, time.Hour))
	e.clock.Advance(time.Second)
	short := e.save(e.preview(core.PreviewProgress, 2*time.Second))
	e.clock.Advance(time.Second)
	consumed := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("pending-k", consumed.Handle)
	other := e.preview(core.PreviewImport, time.Hour)
	other.Scope = "https://example.atlassian.net/OTHER"
	e.save(other)
	tampered := e.save(e.preview(core.PreviewImport, time.Hour))
	if err := e.h.TamperPlan(t.Context(), tampered.Handle); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	newest := e.save(e.preview(core.PreviewProgress, time.Hour))

	got, truncated, err := l.PendingPreviews(t.Context(), scope, e.clock.Now(), 10)
	if err != nil || truncated {
		t.Fatalf("PendingPreviews = %v, %v", truncated, err)
	}
	// short expired at Epoch+3s: now is Epoch+3s.
	if len(got) != 2 || got[0].Handle != newest.Handle || got[1].Handle != old.Handle {
		t.Fatalf("PendingPreviews = %v; want [%s %s]", handles(got), newest.Handle, old.Handle)
	}
	equalPreview(t, got[0], newest)
	if _, _, err := l.PendingPreviews(t.Context(), scope, short.CreatedAt, 10); err != nil {
		t.Fatal(err)
	}
	early, _, _ := l.PendingPreviews(t.Context(), scope, short.CreatedAt, 10)
	if len(early) < 2 || !containsHandle(early, short.Handle) {
		t.Fatalf("before it expired, %s is pending: %v", short.Handle, handles(early))
	}
	one, truncated, err := l.PendingPreviews(t.Context(), scope, e.clock.Now(), 1)
	if err != nil || !truncated || len(one) != 1 || one[0].Handle != newest.Handle {
		t.Fatalf("PendingPreviews(limit 1) = %v, %v, %v", handles(one), truncated, err)
	}
}

func handles(ps []core.Preview) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Handle
	}
	return out
}

func containsHandle(ps []core.Preview, h string) bool {
	for _, p := range ps {
		if p.Handle == h {
			return true
		}
	}
	return false
}

// testListIndex: the entries of a scope that hold a key, markers (no key)
// and other scopes left out, bounded.
func testListIndex(t *testing.T, e *env) {
	l, ok := e.s.(core.IndexLister)
	if !ok {
		t.Fatalf("%T does not implement core.IndexLister", e.s)
	}
	ctx := t.Context()
	const a, b = "https://a.atlassian.net/A", "https://b.atlassian.net/B"
	now := e.clock.Now()
	marker := core.IndexEntry{Scope: a, Reference: "doc/s-9", Digest: "unknown-create", UpdatedAt: now}
	if err := e.s.UpsertIndex(ctx, []core.IndexEntry{indexEntry(a, 1, now), indexEntry(a, 2, now), indexEntry(b, 3, now), marker}); err != nil {
		t.Fatal(err)
	}
	got, err := l.ListIndex(ctx, a, 0)
	if err != nil || len(got) != 2 {
		t.Fatalf("ListIndex(a) = %+v, %v; want doc/s-1 and doc/s-2", got, err)
	}
	for _, g := range got {
		if g.Scope != a || g.Key == "" || (g.Reference != "doc/s-1" && g.Reference != "doc/s-2") {
			t.Fatalf("ListIndex(a) holds %+v", g)
		}
	}
	if got, err := l.ListIndex(ctx, a, 1); err != nil || len(got) != 1 {
		t.Fatalf("ListIndex(a, 1) = %+v, %v", got, err)
	}
}
