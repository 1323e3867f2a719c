package e2e

import (
	"strings"
	"testing"
)

// TestDirectoryRefusesACycleAcrossDocuments: two documents of a directory
// depend on each other's stories in a circle (each alone is fine). The
// import preview refuses the set, naming the cycle, and writes nothing;
// committed, those items would block each other for ever.
func TestDirectoryRefusesACycleAcrossDocuments(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plans/web.md", "---\nid: web\n---\n## Story s-1: Checkout page\nDepends on: api/s-1\n")
	e.write("plans/api.md", "---\nid: api\n---\n## Story s-1: Payment endpoint\nDepends on: web/s-1\n")
	w0 := e.writes()
	r := e.dwire("import", "plans", "--dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, "VALIDATION_FAILED") || !strings.Contains(r.stderr, "dependency cycle across documents") || !strings.Contains(r.stderr, "api/s-1 → web/s-1 → api/s-1") {
		t.Errorf("a cycle across documents: %s", r)
	}
	if w := e.writes(); w != w0 {
		t.Errorf("the refused preview made %d writes", w-w0)
	}
}
