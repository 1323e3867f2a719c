package core_test

import (
	"strings"
	"testing"
)

// A document whose field lines, dependencies or sub-tasks this version does
// not write yet says so in the preview; a plain document does not. (Before,
// such a plan previewed without a word: a person confirmed "Priority: High"
// believing it would be written.)
func TestPreviewWarnsOfWhatIsNotWrittenYet(t *testing.T) {
	e := newEnv(t)
	doc := `---
id: fields
---
# Epic e-1: Checkout

### Story s-1: Pay as a guest
Priority: High
Labels: checkout, guest

Text.

### Story s-2: Save the address
Depends on: s-1

#### Sub-task t-1: Migration

Text.
`
	res := e.preview(doc)
	all := strings.Join(res.Warnings, "\n")
	for _, want := range []string{
		"Story s-1 sets the field(s) Labels, Priority: this version checks them but does not write them",
		"Story s-2 sets its dependencies (Depends on / Blocks)",
		"1 sub-task(s) — t-1 (story s-2) — are checked but not written",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if plain := e.preview(checkoutDoc()); len(plain.Warnings) != 0 {
		t.Errorf("a plain document got warnings: %q", plain.Warnings)
	}
}
