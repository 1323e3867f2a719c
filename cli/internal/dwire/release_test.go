package dwire

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
)

// An item held back after an unknown create is created only when the
// person releases it (--release-held) and confirms the preview that shows
// it as released; releasing an item that is not held is refused.
func TestImportReleaseHeld(t *testing.T) {
	h := newHarness(t)
	h.prov.FailItem(1, fakeprovider.ItemLost, nil) // e-1: created, the response lost
	h.run("y\n", true, "import", "plan.md").expect(t, 4, "COMMIT_PARTIAL")
	lost := h.prov.Items()[0]
	if lost.Reference != "checkout-v2/e-1" {
		t.Fatalf("first created item %+v; want checkout-v2/e-1", lost)
	}
	h.prov.Delete(lost.Key) // the person checked Jira: it is not there

	held := h.run("", false, "import", "plan.md", "--dry-run")
	held.expect(t, 0, "held", "1 held back")
	if strings.Contains(held.out, "released") {
		t.Errorf("released without --release-held:\n%s", held.out)
	}
	h.run("", false, "import", "plan.md", "--dry-run", "--release-held", "s-1").
		expect(t, 1, "VALIDATION_FAILED", "s-1 is not held back", "Held back now: checkout-v2/e-1")

	before := len(h.prov.Items())
	r := h.run("y\n", true, "import", "plan.md", "--release-held", "e-1")
	r.expect(t, 0, "Epic e-1 is RELEASED", "released: you checked Jira", "(1 released)", "Write to Jira (8 writes: create 4 items (1 released), place 4 items in the\nbacklog order)?")
	if strings.Contains(r.out, "held back") {
		t.Errorf("the released item is still shown as held:\n%s", r.out)
	}
	var created int
	for _, w := range h.prov.Items() {
		if w.Reference == "checkout-v2/e-1" {
			created++
		}
	}
	if created != 1 || len(h.prov.Items()) <= before {
		t.Errorf("after the release: %d issues for checkout-v2/e-1 (want 1), %d items before, %d after", created, before, len(h.prov.Items()))
	}
}
