package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataCenterThroughTheBinary: the scenarios that differ on Jira Data
// Center, through the real binary against the fake's Data Center
// deployment (REST API v2, a personal access token, wiki markup, Epic Link,
// search with startAt, people by user name): a plan with a user field, a
// dependency, a sub-task, a sprint and rank imports exactly once; the
// unchanged re-import writes nothing; a story progresses to done; a
// person's edit in Jira is pulled into the document, which then imports
// unchanged; the project exports; and the MCP door previews and commits.
func TestDataCenterThroughTheBinary(t *testing.T) {
	ctx := context.Background()
	e := siteEnvWith(t, envOptions{jira: "  deployment: datacenter\n"}, `{"deployment": "datacenter"}`)
	if r := e.dwire("doctor"); r.code != 0 || !strings.Contains(r.stdout, "is Jira Data Center") || !strings.Contains(r.stdout, "personal access token") {
		t.Fatalf("doctor: %s", r)
	}
	e.write("plan.md", sitePlan)
	r := e.dwirePTY("y\r", "import", "plan.md")
	if r.code != 0 || !strings.Contains(r.stdout, "s-2 depends on s-1") || !strings.Contains(r.stdout, "DEMO Sprint 2") {
		t.Fatalf("import: %s", r)
	}
	issues := e.issuesByRef()
	e1, s1, s2, t1 := issues["site/e-1"], issues["site/s-1"], issues["site/s-2"], issues["site/t-1"]
	if len(issues) != 4 || t1.Parent != s2.Key || s1.Parent != e1.Key || s2.Parent != e1.Key {
		t.Fatalf("issues after the import: %+v", issues)
	}
	if got := e.jiraFields()[s1.Summary]["customfield_10071"]; len(got) != 1 || got[0] != "acc-ana" {
		t.Errorf("s-1's Reviewer is %v, want Ana (acc-ana)", got)
	}
	for _, req := range e.requestLog() {
		if strings.HasPrefix(req.Path, "/rest/api/3/") {
			t.Errorf("%s %s: Cloud's REST API v3 on a Data Center site", req.Method, req.Path)
		}
	}

	// Exactly once: the unchanged re-import plans nothing and writes nothing.
	w0 := e.writes()
	var pv previewJSON
	if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 || pv.Counts.Create != 0 || pv.Counts.Update != 0 || pv.Counts.Unchanged != 4 {
		t.Fatalf("re-import preview: %+v %s", pv.Counts, r)
	}
	if r := e.dwire("import", "plan.md"); r.code != 0 || !strings.Contains(r.stderr, "Nothing to write") || e.writes() != w0 {
		t.Fatalf("unchanged re-import: %d writes, %s", e.writes()-w0, r)
	}
	e.noDuplicates()

	// Progress to done.
	if r := e.dwirePTY("y\r", "progress", s1.Key, "--status", "done"); r.code != 0 {
		t.Fatalf("progress: %s", r)
	}
	if got := e.issuesByRef()["site/s-1"]; got.StatusCategory != "done" {
		t.Errorf("s-1 after progress: %+v", got)
	}

	// A person renames s-2 in Jira: the pull takes it into the document,
	// which then imports unchanged.
	if err := e.jira.EditAsPerson(ctx, s2.Key, "Save the address for next time"); err != nil {
		t.Fatal(err)
	}
	if r := e.dwirePTY("y\r", "pull", "plan.md"); r.code != 0 {
		t.Fatalf("pull: %s", r)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "plan.md")); !strings.Contains(string(b), "Story s-2: Save the address for next time") {
		t.Fatalf("plan.md after the pull:\n%s", b)
	}
	pv = previewJSON{}
	if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 || pv.Counts.Create != 0 || pv.Counts.Update != 0 {
		t.Errorf("import after the pull: %+v %s", pv.Counts, r)
	}

	// Export: the project's items as a document, keys and all.
	if r := e.dwire("export", "--project", "DEMO", "-o", "backlog.md"); r.code != 0 {
		t.Fatalf("export: %s", r)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "backlog.md")); !strings.Contains(string(b), "Key: "+s2.Key) || !strings.Contains(string(b), "Save the address for next time") {
		t.Errorf("backlog.md:\n%s", b)
	}

	// The MCP door: a new story previewed and committed by an agent.
	e.write("plan.md", strings.Replace(sitePlan, "### Story s-2:", "### Story s-3: Pay by invoice\n\n### Story s-2:", 1))
	cs, _ := e.mcp()
	var mp previewJSON
	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &mp); d != nil || mp.Counts.Create != 1 {
		t.Fatalf("import_preview: %v %+v", d, mp.Counts)
	}
	var c commitJSON
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": mp.PreviewHandle, "confirmed": true, "idempotency_key": newKey()}, &c); d != nil || c.Counts.Created != 1 {
		t.Fatalf("import_commit: %v %+v", d, c)
	}
	if s3 := e.issuesByRef()["site/s-3"]; s3.Key == "" || s3.Parent != e1.Key {
		t.Errorf("s-3 after the MCP commit: %+v", s3)
	}
	e.noDuplicates()
}

// requestLog is every request the fake logged.
func (e *env) requestLog() []loggedRequest {
	e.t.Helper()
	resp, err := http.Get(e.jira.URL + "/_mockjira/requests")
	if err != nil {
		e.t.Fatalf("read the request log: %v", err)
	}
	defer resp.Body.Close()
	var rs []loggedRequest
	if err := json.NewDecoder(resp.Body).Decode(&rs); err != nil {
		e.t.Fatalf("decode the request log: %v", err)
	}
	return rs
}
