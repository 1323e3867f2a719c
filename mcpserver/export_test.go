package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// TestExportPassesTheSelection: document_export hands the CLI's selection,
// format (with the CLI's aliases) and document id to the service, and
// returns the document text with its warnings.
func TestExportPassesTheSelection(t *testing.T) {
	svc := &fakeService{}
	c := connect(t, svc, Options{}, nil, "")
	cases := []struct {
		args map[string]any
		want service.ExportInput
	}{
		{map[string]any{"epic": "DEMO-1"}, service.ExportInput{IssueSelection: core.IssueSelection{Epic: "DEMO-1"}}},
		{map[string]any{"jql": "labels = q3", "format": "yml", "document": "q3"}, service.ExportInput{IssueSelection: core.IssueSelection{Query: "labels = q3"}, Format: "yaml", Document: "q3"}},
		{map[string]any{"project": "DEMO", "format": "md"}, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: "markdown"}},
	}
	for _, tc := range cases {
		m := c.mustCall(t, ToolDocumentExport, tc.args)
		if svc.lastExport != tc.want {
			t.Errorf("%v: service got %+v, want %+v", tc.args, svc.lastExport, tc.want)
		}
		if m["text"] != "# Guest checkout\n" || m["text_truncated"] != false || m["text_bytes"] != float64(len("# Guest checkout\n")) || m["adopt"] != float64(3) {
			t.Errorf("%v: result %v", tc.args, m)
		}
	}
	// A format outside the enum is refused before the service is called.
	n := svc.called("Export")
	d := wantCode(t, errOf(c.call(t, ToolDocumentExport, map[string]any{"epic": "DEMO-1", "format": "json"})), core.CodeValidationFailed)
	if !strings.Contains(d["message"].(string), "format") || svc.called("Export") != n {
		t.Errorf("format json: %v (service called %d times)", d, svc.called("Export")-n)
	}
	// No file argument: an unknown argument is refused (the tool writes no file).
	wantCode(t, errOf(c.call(t, ToolDocumentExport, map[string]any{"epic": "DEMO-1", "output": "plan.md"})), core.CodeValidationFailed)
}

// TestExportTextIsBounded: a document over MaxDocumentBytes is cut at a
// line end, flagged, sized, and warned about; the counts stay whole.
func TestExportTextIsBounded(t *testing.T) {
	line := "- [ ] a criterion of some length, as a story has many\n"
	big := strings.Repeat(line, MaxDocumentBytes/len(line)+10)
	svc := &fakeService{export: func(context.Context, service.ExportInput) (service.ExportResult, error) {
		r := sampleExport()
		r.Text, r.Stories, r.Warnings = big, 900, []string{"s-3 does not read back"}
		return r, nil
	}}
	c := connect(t, svc, Options{}, nil, "")
	m := c.mustCall(t, ToolDocumentExport, map[string]any{"project": "DEMO"})
	text := m["text"].(string)
	if len(text) > MaxDocumentBytes || len(text) < MaxDocumentBytes-len(line) || !strings.HasSuffix(text, "\n") || !strings.HasPrefix(big, text) {
		t.Errorf("text is %d bytes (cap %d), ends %q", len(text), MaxDocumentBytes, text[len(text)-5:])
	}
	if m["text_truncated"] != true || m["text_bytes"] != float64(len(big)) || m["stories"] != float64(900) {
		t.Errorf("truncated %v, bytes %v, stories %v", m["text_truncated"], m["text_bytes"], m["stories"])
	}
	w := m["warnings"].([]any)
	if len(w) != 2 || w[0] != "s-3 does not read back" || !strings.Contains(w[1].(string), "not a complete planning document") {
		t.Errorf("warnings %v", w)
	}
	// At the cap exactly, nothing is cut.
	exact := strings.Repeat("x", MaxDocumentBytes-1) + "\n"
	if r := boundExport(service.ExportResult{Text: exact}); r.TextTruncated || r.Text != exact || len(r.Warnings) != 0 {
		t.Errorf("a document of exactly the cap was cut: %d bytes, %v", len(r.Text), r.Warnings)
	}
}

// TestRealServiceExportReadsBack: against the real service, document_export
// of issues people made in Jira writes nothing, and its text, saved inside
// the workspace, is a document whose import_preview adopts every issue and
// creates none.
func TestRealServiceExportReadsBack(t *testing.T) {
	r := newReal(t, Options{Elicitation: ElicitationOff}, nil, nil)
	epic := r.prov.AddAsPerson(core.WorkItem{Kind: core.KindEpic, Title: "Checkout (old)", Description: "What the team wrote."})
	r.prov.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay", ParentKey: epic, Description: "Pay by card.", AcceptanceCriteria: []string{"[ ] a card works"}})
	r.prov.ForbidWrites(t)
	m := r.c.mustCall(t, ToolDocumentExport, map[string]any{"epic": epic, "document": "old-checkout"})
	text := m["text"].(string)
	if m["document"] != "old-checkout" || m["format"] != "markdown" || m["epics"] != float64(1) || m["stories"] != float64(1) || m["adopt"] != float64(2) || m["text_truncated"] != false || !strings.Contains(text, "Key: "+epic) {
		t.Fatalf("export result %v", m)
	}
	y := r.c.mustCall(t, ToolDocumentExport, map[string]any{"project": "DEMO", "format": "yaml"})
	if y["format"] != "yaml" || !strings.Contains(y["text"].(string), epic) {
		t.Errorf("yaml export %v", y)
	}
	writeFile(t, r.ws, "plans/old-checkout.md", text)
	p := r.c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/old-checkout.md"})
	r.prov.AllowWrites()
	if c := p["counts"].(map[string]any); c["create"] != float64(0) || c["adopt"] != float64(2) {
		t.Errorf("the exported document's import plans %v", c)
	}
	// The service's refusals keep their codes: no selection, an unknown
	// epic, a bad document id.
	wantCode(t, errOf(r.c.call(t, ToolDocumentExport, map[string]any{})), core.CodeValidationFailed)
	wantCode(t, errOf(r.c.call(t, ToolDocumentExport, map[string]any{"epic": epic, "project": "DEMO"})), core.CodeValidationFailed)
	wantCode(t, errOf(r.c.call(t, ToolDocumentExport, map[string]any{"epic": "DEMO-999"})), core.CodeWorkItemNotFound)
	wantCode(t, errOf(r.c.call(t, ToolDocumentExport, map[string]any{"epic": epic, "document": "not an id"})), core.CodeValidationFailed)
	// The id is trimmed by the service, as dwire export's is.
	if m := r.c.mustCall(t, ToolDocumentExport, map[string]any{"epic": epic, "document": " old-checkout ", "format": "yml"}); m["document"] != "old-checkout" || m["format"] != "yaml" {
		t.Errorf("a padded id: document %v, format %v", m["document"], m["format"])
	}
}
