package dwire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// A story deleted from the document is shown as removed and left alone;
// `dwire import --removed close` asks for the close and writes it; ls
// marks it.
func TestImportRemovedItems(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0, "Committed: 5 created")
	path := filepath.Join(h.dir, "plan.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "### Story s-2: Save address for next time\n", "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	writes := h.prov.Writes()
	h.run("", true, "import", "plan.md").expect(t, 0, "removed", "Story s-2: Save address for next time", "no longer in the document: left alone", "1 removed (left alone)", "Nothing to write", "1 item no longer in the document is left alone in Jira; to close it, import with --removed close.")
	h.run("y\n", true, "import", "plan.md", "--removed", "close").
		expect(t, 0, "close ", "closed via", "(0 to create, 0 to update, 1 to close)?", "1 closed")
	if h.prov.Writes() != writes+2 {
		t.Errorf("%d writes for one close; want 2 (transition, comment)", h.prov.Writes()-writes)
	}
	for _, w := range h.prov.Items() {
		if w.Reference == "checkout-v2/s-2" && w.Status != core.StatusDone {
			t.Errorf("s-2 is %s after the close", w.Status)
		}
	}
	h.run("", false, "ls", "--status", "done").expect(t, 0, "(removed from the document) Save address")
	h.run("", false, "import", "plan.md", "--removed", "drop", "--dry-run").expect(t, 1, "VALIDATION_FAILED", `removed "drop" is not a choice`)
}
