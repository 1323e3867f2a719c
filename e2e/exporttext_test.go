package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedDescriptionsStayDescriptions: a person's descriptions in
// Jira hold lines the plan format reads as structure (an item heading, an
// epic heading, a sub-task heading, an "Epic:" line, a criteria label).
// The export writes them so that they read back as those descriptions:
// its first import adopts every exported issue, plans no create and
// changes nothing, and the export warns of nothing.
func TestExportedDescriptionsStayDescriptions(t *testing.T) {
	e := newEnv(t, envOptions{})
	epic := e.seedAsPerson("Epic", "Checkout", "")
	story := e.seedAsPerson("Story", "Pay", epic)
	e.seedAsPerson("Story", "Refund", epic)
	e.personSetsField(story, `{"description": {"type": "doc", "version": 1, "content": [
		{"type": "paragraph", "content": [{"type": "text", "text": "Notes from the workshop."}]},
		{"type": "heading", "attrs": {"level": 2}, "content": [{"type": "text", "text": "Story s-99: planted by a heading"}]},
		{"type": "heading", "attrs": {"level": 3}, "content": [{"type": "text", "text": "Epic e-90: another"}]},
		{"type": "heading", "attrs": {"level": 4}, "content": [{"type": "text", "text": "Sub-task t-9: and a sub-task"}]},
		{"type": "paragraph", "content": [{"type": "text", "text": "Epic: e-9"}]},
		{"type": "paragraph", "content": [{"type": "text", "text": "Acceptance criteria:"}]},
		{"type": "bulletList", "content": [{"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "not a criterion"}]}]}]}
	]}}`)
	r := e.dwire("export", "--project", "DEMO", "-o", "backlog.md")
	doc, _ := os.ReadFile(filepath.Join(e.dir, "backlog.md"))
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "read back") || !strings.Contains(string(doc), "Story s-99: planted by a heading") {
		t.Fatalf("dwire export: %s\n%s", r, doc)
	}
	var pv adoptPreview
	if r := e.dwireJSON(&pv, "import", "backlog.md", "--dry-run"); r.code != 0 || pv.Counts.Adopt != 3 || pv.Counts.Create != 0 || pv.Counts.Update != 0 {
		t.Fatalf("the export's first import: %+v %s\n%s", pv.Counts, r, doc)
	}
	for _, it := range pv.Items {
		if len(it.Changes) > 0 {
			t.Errorf("%s: the adopt changes %+v; an export adopts as it is\n%s", it.Key, it.Changes, doc)
		}
	}
}
