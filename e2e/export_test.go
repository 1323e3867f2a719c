package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/e2e/harness"
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

// TestExportQueryStaysInTheProject: the fake holds two projects; the
// workspace is configured for DEMO. A query written to close the
// project's scope and open another (`…) OR (project = OPS`) is refused
// before anything is read, and a query naming the other project reads
// none of its issues: nothing of OPS reaches the export.
func TestExportQueryStaysInTheProject(t *testing.T) {
	e := newEnv(t, envOptions{mock: harness.MockJiraOptions{Project: "DEMO,OPS"}})
	e.seedAsPerson("Story", "Ours", "")
	b, _ := json.Marshal(map[string]any{"project": "OPS", "issuetype": "Story", "summary": "Secret of OPS"})
	resp, err := http.Post(e.jira.URL+"/_mockjira/issues", "application/json", bytes.NewReader(b))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("seed OPS: %v %v", resp, err)
	}
	resp.Body.Close()
	e.clearRequests()
	r := e.dwire("export", "--jql", `summary ~ "x") OR (project = OPS`, "-o", "escape.md")
	if r.code != 1 || !strings.Contains(r.stderr, "VALIDATION_FAILED") || !strings.Contains(r.stderr, "within project DEMO") {
		t.Errorf("an escaping query: %s", r)
	}
	rs, err := e.jira.Requests(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rs {
		if strings.Contains(q.Body, "OPS") || strings.Contains(q.Query, "OPS") {
			t.Errorf("the escaping query reached Jira: %s %s %s", q.Method, q.Path, q.Body)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "escape.md")); err == nil {
		t.Error("the refused export wrote escape.md")
	}
	r = e.dwire("export", "--jql", `project = OPS OR summary ~ "Ours"`, "-o", "named.md")
	doc, _ := os.ReadFile(filepath.Join(e.dir, "named.md"))
	if r.code != 0 || strings.Contains(string(doc), "Secret") || !strings.Contains(string(doc), "Ours") {
		t.Errorf("a query naming OPS: %s\n%s", r, doc)
	}
}
