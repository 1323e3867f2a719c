package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// mcpTools is how many tools `dwire mcp` lists.
const mcpTools = 7

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
