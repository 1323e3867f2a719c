package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPullSweepsAKilledPullsTemporaryFile: a pull killed while writing
// leaves its temporary file (".plan.md.dwire-<hex>", a full copy of the
// document) next to the document; the next pull that writes the
// document removes it, and leaves none of its own.
func TestPullSweepsAKilledPullsTemporaryFile(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plan.md", "---\nid: shop\n---\n## Story s-1: Pay\n\nA guest pays.\n")
	e.importConfirmed("plan.md")
	key := e.issuesByRef()["shop/s-1"].Key
	e.personSetsField(key, `{"summary": "Pay as a guest"}`)
	left := e.write(".plan.md.dwire-0123456789ab", "---\nid: shop\n---\n## Story s-1: Pay as a guest\n")
	r := e.dwirePTY("y\r", "pull", "plan.md")
	doc, _ := os.ReadFile(filepath.Join(e.dir, "plan.md"))
	if r.code != 0 || !strings.Contains(string(doc), "## Story s-1: Pay as a guest") {
		t.Fatalf("pull: %s\n%s", r, doc)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("the killed pull's temporary file %s is still there", filepath.Base(left))
	}
	es, _ := os.ReadDir(e.dir)
	for _, de := range es {
		if strings.Contains(de.Name(), ".dwire-") {
			t.Errorf("a temporary file is left: %s", de.Name())
		}
	}
}
