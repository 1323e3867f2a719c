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
