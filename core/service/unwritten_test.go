package service_test

import (
	"strings"
	"testing"
)

// Field lines, dependencies and sub-tasks are written, so the preview does
// not warn of them; a plain document gets no warning either. (Before,
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
	// Field lines are written now: no warning either.
	if strings.Contains(all, "does not write them") {
		t.Errorf("warnings still say fields are not written:\n%s", all)
	}
	// Dependencies and sub-tasks are written now: no warning;
	// the link is a planned change, the sub-task a row of the plan.
	for _, gone := range []string{"dependencies (Depends on / Blocks)", "sub-task(s)"} {
		if strings.Contains(all, gone) {
			t.Errorf("warnings still say %q:\n%s", gone, all)
		}
	}
	if len(res.Structure) != 1 || res.Structure[0].Action != "link" || !strings.Contains(res.Structure[0].Message, "s-2 depends on s-1") {
		t.Errorf("structure changes: %+v", res.Structure)
	}
	if last := res.Items[len(res.Items)-1]; last.Reference != "fields/t-1" || last.Kind != "subtask" || last.Action != "create" {
		t.Errorf("the sub-task's row: %+v", last)
	}
	if plain := e.preview(checkoutDoc()); len(plain.Warnings) != 0 {
		t.Errorf("a plain document got warnings: %q", plain.Warnings)
	}
}
