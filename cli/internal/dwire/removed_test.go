package dwire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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
		expect(t, 0, "close ", "closed via", "Write to Jira (1 write: close 1 item the document no longer lists)?", "1 closed")
	if h.prov.Writes() != writes+2 {
		t.Errorf("%d writes for one close; want 2 (transition, comment)", h.prov.Writes()-writes)
	}
	for _, w := range h.prov.Items() {
		if w.Reference == "checkout-v2/s-2" && w.Status != core.StatusDone {
			t.Errorf("s-2 is %s after the close", w.Status)
		}
	}
	h.run("", false, "ls", "--status", "done").expect(t, 0, "(removed from the document) Save address")
	h.run("", false, "import", "plan.md", "--removed", "drop", "--dry-run").expect(t, 1, `Error: --removed "drop" is not a choice. Use close or leave.`)
}

// A large plan's preview is a summary (the rows that change, the rest
// counted); --full shows every row, on import and on review.
func TestLargePreviewSummaryAndFull(t *testing.T) {
	h := newHarness(t)
	var b strings.Builder
	b.WriteString("---\nid: big\n---\n# Big\n\n## Epic e-1: Epic\n")
	for i := 1; i <= 60; i++ {
		b.WriteString("\n### Story s-" + strconv.Itoa(i) + ": Story " + strconv.Itoa(i) + "\n")
	}
	path := filepath.Join(h.dir, "big.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h.run("y\n", true, "import", "big.md").expect(t, 0, "Committed: 61 created")
	if err := os.WriteFile(path, []byte(strings.Replace(b.String(), "Story 7\n", "Story 7, renamed\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("", false, "import", "big.md", "--dry-run")
	r.expect(t, 0, "61 items: 0 to create · 1 to update · 60 unchanged", "~ title: Story 7 → Story 7, renamed", "… and 59 unchanged (--full shows every item)")
	if strings.Contains(r.out, "Story 8") {
		t.Errorf("the summary lists unchanged stories:\n%s", r.out)
	}
	full := h.run("", false, "import", "big.md", "--dry-run", "--full")
	full.expect(t, 0, "Story 8", "Story 60")
	if strings.Contains(full.out, "--full shows") {
		t.Errorf("--full still summarises:\n%s", full.out)
	}
	var pv struct {
		PreviewHandle string `json:"preview_handle"`
	}
	js := h.run("", false, "import", "big.md", "--dry-run", "--json")
	if err := json.Unmarshal([]byte(js.out), &pv); err != nil || pv.PreviewHandle == "" {
		t.Fatalf("--json preview: %v\n%s", err, js.out)
	}
	if rv := h.run("", false, "review", pv.PreviewHandle); !strings.Contains(rv.out, "… and 59 unchanged") || strings.Contains(rv.out, "Story 8") {
		t.Errorf("review of a large preview is not a summary:\n%s", rv.out)
	}
	if rv := h.run("", false, "review", pv.PreviewHandle, "--full"); !strings.Contains(rv.out, "Story 8") {
		t.Errorf("review --full does not show every row:\n%s", rv.out)
	}
}
