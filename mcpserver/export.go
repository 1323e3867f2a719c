package mcpserver

import (
	"context"
	"fmt"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxDocumentBytes bounds the document text one document_export result
// carries. The parser reads documents of up to 5 MiB, but a model should
// not read that much at once (a 200-issue backlog with one-line
// descriptions is a 28.6 KB text, so 256 KiB holds some 1,800 such issues). Past it the text is cut at the last line end that fits,
// text_truncated is true, text_bytes is the whole document's size and a
// warning says to narrow the selection or export to a file with the CLI;
// the counts always cover the whole document.
const MaxDocumentBytes = 256 << 10

// exportInput is document_export's arguments: the CLI's selection, format
// and document id; no output file (see docs/mcp.md: the tool writes
// nothing).
type exportInput struct {
	exportSelection
	Format   string `json:"format,omitempty" jsonschema:"markdown (default; md too) or yaml (yml too)"`
	Document string `json:"document,omitempty" jsonschema:"the document id (1-64 letters, digits, '.', '_', '-'); default: the id the issues' references share, else from the epic's or project's key"`
}

func (s *server) export(ctx context.Context, _ *mcp.CallToolRequest, b backend, in exportInput) (*mcp.CallToolResult, exportResult, error) {
	res, err := b.svc.Export(ctx, service.ExportInput{ // the service trims the selection and the id
		IssueSelection: core.IssueSelection{Epic: in.Epic, Query: in.JQL, Project: in.Project},
		Format:         service.FormatName(in.Format), Document: in.Document,
	})
	if err != nil {
		return nil, exportResult{}, err
	}
	noteRunID(ctx, res.RunID)
	return nil, boundExport(res), nil
}

// exportResult is document_export's result: core's, with what
// MaxDocumentBytes left out of its text.
type exportResult struct {
	TextTruncated bool `json:"text_truncated" jsonschema:"true when text holds only the start of the document (cut at a line end, MaxDocumentBytes): it is then not a complete planning document, so do not save it as one; narrow the selection, or have the person run dwire export -o FILE"`
	TextBytes     int  `json:"text_bytes" jsonschema:"the size of the whole document in bytes"`
	service.ExportResult
}

// boundExport cuts the text at the last line end within MaxDocumentBytes
// and says so (text_truncated, a warning).
func boundExport(r service.ExportResult) exportResult {
	total := len(r.Text)
	out := exportResult{TextBytes: total}
	if r.Text, out.TextTruncated = cutAtLineEnd(r.Text, MaxDocumentBytes); out.TextTruncated {
		r.Warnings = append(r.Warnings, fmt.Sprintf("The document is %d bytes, more than the %d one result carries: text holds only its first %d bytes, so it is not a complete planning document. Do not save it as one: narrow the selection (an epic, a JQL query), or have the person run dwire export with -o FILE.", total, MaxDocumentBytes, len(r.Text)))
	}
	if r.WarningsTruncated {
		r.Warnings = append(r.Warnings, fmt.Sprintf("Each warning names at most %d issues (its count is of all of them); a person sees every one with dwire export --full.", service.MaxWarningKeys))
	}
	out.ExportResult = r
	return out
}

// exportSelection names the issues: exactly one of its fields.
type exportSelection struct {
	Epic    string `json:"epic,omitempty" jsonschema:"an epic's Jira key (PROJ-12): the epic, its stories and their sub-tasks; give exactly one of epic, jql, project"`
	JQL     string `json:"jql,omitempty" jsonschema:"a JQL query, within the configured project: the issues it finds, their sub-tasks, and the epics they belong to"`
	Project string `json:"project,omitempty" jsonschema:"the configured project's key: every issue of the project"`
}
