package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpTools is how many tools `dwire mcp` lists.
const mcpTools = 9

// TestMCPExportThenImportAdopts drives document_export through the real
// `dwire mcp` against the fake Jira: issues people made are returned as a
// document without a write (to Jira or to a file), and the document, saved
// in the workspace by the agent, previews as adopts only; a Jira refusal
// keeps its code.
func TestMCPExportThenImportAdopts(t *testing.T) {
	e := newEnv(t, envOptions{})
	epic := e.seedAsPerson("Epic", "Checkout", "")
	e.seedAsPerson("Story", "Pay by card", epic, "team-1")
	e.seedAsPerson("Story", "Pay by wallet", epic)
	cs, _ := e.mcp()
	w0 := e.writes()
	docs := func() []string { // the planning documents in the workspace
		m, err := filepath.Glob(filepath.Join(e.dir, "*.[my]*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := docs()
	var ex struct {
		ResultType    string   `json:"result_type"`
		Document      string   `json:"document"`
		Format        string   `json:"format"`
		Text          string   `json:"text"`
		Epics         int      `json:"epics"`
		Stories       int      `json:"stories"`
		Adopt         int      `json:"adopt"`
		TextTruncated bool     `json:"text_truncated"`
		TextBytes     int      `json:"text_bytes"`
		Warnings      []string `json:"warnings"`
	}
	if d := e.call(cs, "document_export", map[string]any{"epic": epic, "document": "checkout"}, &ex); d != nil {
		t.Fatalf("document_export: %v", d)
	}
	if ex.ResultType != "preview" || ex.Document != "checkout" || ex.Format != "markdown" || ex.Epics != 1 || ex.Stories != 2 || ex.Adopt != 3 ||
		ex.TextTruncated || ex.TextBytes != len(ex.Text) || !strings.Contains(ex.Text, "Key: "+epic) || len(ex.Warnings) != 0 {
		t.Fatalf("document_export = %+v", ex)
	}
	if after := docs(); len(after) != len(before) {
		t.Errorf("document_export wrote a file: %v before, %v after", before, after)
	}
	e.write("checkout.md", ex.Text)
	var pv adoptPreview
	if d := e.call(cs, "import_preview", map[string]any{"path": "checkout.md"}, &pv); d != nil {
		t.Fatalf("import_preview of the export: %v", d)
	}
	if pv.Counts.Create != 0 || pv.Counts.Adopt != 3 {
		t.Errorf("the export's import preview: %+v", pv.Counts)
	}
	if w := e.writes(); w != w0 {
		t.Errorf("export and preview made %d writes", w-w0)
	}
	// Jira's own refusal of a query keeps its code; so does an unknown epic.
	if d := e.call(cs, "document_export", map[string]any{"jql": "summary ~~ ("}, nil); codeOf(d) != "VALIDATION_FAILED" {
		t.Errorf("a JQL Jira refuses: %v", d)
	}
	if d := e.call(cs, "document_export", map[string]any{"epic": "DEMO-999"}, nil); codeOf(d) != "WORK_ITEM_NOT_FOUND" {
		t.Errorf("an unknown epic: %v", d)
	}
}

// read returns a workspace file's content.
func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// mcpPullDoc is the document TestMCPPull imports and pulls into.
const mcpPullDoc = `---
id: shop
---
# Shop

<!-- notes nobody manages -->

## Epic e-1: Checkout
The checkout, end to end.

### Story s-1: Pay as a guest
Guests pay without an account.

### Story s-2: Save the address
`

// TestMCPPull drives pull_preview / pull_commit through the real
// `dwire mcp`: a person's change of a title in Jira is previewed without a
// write, committed with confirmed: true into the file in place (one
// property write in Jira, no issue edited), replayed by the same key
// without a write, and the next import is unchanged; a path outside the
// workspace is refused.
func TestMCPPull(t *testing.T) {
	e := newEnv(t, envOptions{})
	file := e.write("shop.md", mcpPullDoc)
	cs, _ := e.mcp()
	var pv previewJSON
	if d := e.call(cs, "import_preview", map[string]any{"path": "shop.md"}, &pv); d != nil {
		t.Fatalf("import_preview: %v", d)
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, nil); d != nil {
		t.Fatalf("import_commit: %v", d)
	}
	var got struct {
		Item struct{ Key string } `json:"item"`
	}
	if d := e.call(cs, "workitem_get", map[string]any{"item": "shop/s-1"}, &got); d != nil {
		t.Fatalf("workitem_get: %v", d)
	}
	e.personSetsField(got.Item.Key, `{"summary": "Pay without an account"}`)

	type pullPreview struct {
		ResultType    string                                          `json:"result_type"`
		PreviewHandle string                                          `json:"preview_handle"`
		PlanDigest    string                                          `json:"plan_digest"`
		Path          string                                          `json:"path"`
		Diff          string                                          `json:"diff"`
		Writes        bool                                            `json:"writes"`
		Counts        struct{ Pull, Conflict, Settle, Unchanged int } `json:"counts"`
	}
	w0 := e.writes()
	var lp pullPreview
	if d := e.call(cs, "pull_preview", map[string]any{"path": "shop.md"}, &lp); d != nil {
		t.Fatalf("pull_preview: %v", d)
	}
	if lp.ResultType != "preview" || !lp.Writes || lp.PreviewHandle == "" || lp.Path != "shop.md" || lp.Counts.Pull != 1 ||
		!strings.Contains(lp.Diff, "+### Story s-1: Pay without an account") {
		t.Fatalf("pull_preview = %+v", lp)
	}
	if e.read("shop.md") != mcpPullDoc || e.writes() != w0 {
		t.Fatalf("pull_preview wrote (%d writes)", e.writes()-w0)
	}
	if d := e.call(cs, "pull_commit", map[string]any{"preview_handle": lp.PreviewHandle}, nil); codeOf(d) != "CONFIRMATION_REQUIRED" {
		t.Errorf("pull_commit without confirmed: %v", d)
	}
	var cm struct {
		ResultType  string   `json:"result_type"`
		FileWritten bool     `json:"file_written"`
		Path        string   `json:"path"`
		Settled     []string `json:"settled"`
		Replayed    bool     `json:"replayed"`
	}
	args := map[string]any{"preview_handle": lp.PreviewHandle, "confirmed": true, "idempotency_key": "pull-e2e", "plan_digest": lp.PlanDigest}
	if d := e.call(cs, "pull_commit", args, &cm); d != nil {
		t.Fatalf("pull_commit: %v", d)
	}
	if cm.ResultType != "committed" || !cm.FileWritten || cm.Path != "shop.md" || len(cm.Settled) != 1 || cm.Settled[0] != got.Item.Key {
		t.Errorf("pull_commit = %+v", cm)
	}
	if want := strings.Replace(mcpPullDoc, "Story s-1: Pay as a guest", "Story s-1: Pay without an account", 1); e.read("shop.md") != want {
		t.Errorf("%s after the pull:\n%s", file, e.read("shop.md"))
	}
	w1 := e.writes()
	if w1-w0 != 1 {
		t.Errorf("pull_commit made %d Jira writes; want 1 (the record on s-1)", w1-w0)
	}
	cm.Replayed = false
	if d := e.call(cs, "pull_commit", args, &cm); d != nil || !cm.Replayed || e.writes() != w1 {
		t.Errorf("replay: %v %+v, %d writes", d, cm, e.writes()-w1)
	}
	var again previewJSON
	if d := e.call(cs, "import_preview", map[string]any{"path": "shop.md"}, &again); d != nil || again.Counts.Update != 0 || again.Counts.Drift != 0 || again.Counts.Unchanged != 3 {
		t.Errorf("import after the pull: %v %+v", d, again.Counts)
	}
	if d := e.call(cs, "pull_preview", map[string]any{"path": "../shop.md"}, nil); codeOf(d) != "SOURCE_NOT_FOUND" {
		t.Errorf("a path outside the workspace: %v", d)
	}
}
