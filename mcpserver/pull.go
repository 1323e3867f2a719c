package mcpserver

import (
	"context"
	"path/filepath"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pullPreviewInput is pull_preview's arguments: core's, with the path
// resolved inside the workspace.
type pullPreviewInput struct {
	Path         string   `json:"path" jsonschema:"path of the planning document (.md, .markdown, .yaml or .yml) to take Jira's changes into, relative to the workspace (the folder holding .devworkwire.yaml) or absolute; it must resolve inside the workspace, and pull_commit rewrites this file"`
	TakeTracker  []string `json:"take_tracker,omitempty" jsonschema:"only as the person chose, per item in conflict (changed in Jira and in the document): ids (s-1) or references (doc/s-1), or [\"all\"], whose Jira values are written into the document"`
	TakeDocument []string `json:"take_document,omitempty" jsonschema:"only as the person chose, per item in conflict: ids or references, or [\"all\"], whose document values are kept (the next import writes them to Jira)"`
	Items        []string `json:"items,omitempty" jsonschema:"pull only these items: ids (s-1) or references (doc/s-1); omitted, every item of the document (dwire pull --item)"`
}

// pullPreviewResult is pull_preview's result: core's, bounded like the
// import preview's (MaxRows rows, changes first; MaxChangeBytes of change
// values; the diff cut at MaxChangeBytes).
type pullPreviewResult struct {
	RowsTruncated  bool `json:"rows_truncated" jsonschema:"true when items lists only some of the document's items (those with something to pull or in conflict first); counts always cover the whole document, and the commit executes the whole stored plan"`
	RowsTotal      int  `json:"rows_total" jsonschema:"the number of items in the whole plan"`
	DiffTruncated  bool `json:"diff_truncated" jsonschema:"true when diff shows only the start of the file's diff (cut at a line end); the commit writes the whole stored file; a person sees all of it with dwire pull --dry-run"`
	ChangesOmitted int  `json:"changes_omitted,omitempty" jsonschema:"rows whose changes were left out to keep the result small"`
	service.PullPreviewResult
}

func (s *server) pullPreview(ctx context.Context, _ *mcp.CallToolRequest, b backend, in pullPreviewInput) (*mcp.CallToolResult, pullPreviewResult, error) {
	path, err := resolveInside(b.workspace, in.Path)
	if err != nil {
		return nil, pullPreviewResult{}, err
	}
	res, err := b.svc.PullPreview(ctx, service.PullPreviewInput{Path: path, TakeTracker: in.TakeTracker, TakeDocument: in.TakeDocument, Items: in.Items})
	if err != nil {
		return nil, pullPreviewResult{}, err
	}
	noteRunID(ctx, res.RunID)
	res.Path = shownPath(b.workspace, res.Path)
	return nil, boundPull(res), nil
}

func (s *server) pullCommit(ctx context.Context, req *mcp.CallToolRequest, b backend, in service.CommitInput) (*mcp.CallToolResult, service.PullCommitResult, error) {
	load := previewLoader(b.svc.StoredPull)
	if in.Confirmed {
		// The commit rewrites the file the stored plan names (a plan a
		// person may have made with the CLI): only one inside the
		// workspace, as import_preview reads only those.
		info, err := b.svc.StoredPull(ctx, in.PreviewHandle)
		if err != nil {
			return nil, service.PullCommitResult{}, err
		}
		if info.ConsumedBy == "" {
			if _, err := resolveInside(b.workspace, info.Pull.Path); err != nil {
				return nil, service.PullCommitResult{}, core.Errorf(core.CodeSourceNotFound,
					"The pull plan %s rewrites %s, which is not a file inside the workspace (%s). Nothing was written. The MCP server writes only documents inside the workspace; run the pull in a terminal (dwire pull), or move the document into the workspace and call pull_preview again.",
					in.PreviewHandle, info.Pull.Path, core.AsError(err).Message).WithDetails(core.Detail{Field: "preview_handle", Message: "writes outside the workspace"})
			}
		}
		// The confirmation shows the plan just read: not read twice.
		load = func(context.Context, string) (service.PreviewInfo, error) { return info, nil }
		// And the write itself stays inside: a folder or link swapped
		// since the check cannot lead it out (os.Root).
		ws, err := workspaceDir(b.workspace)
		if err != nil {
			return nil, service.PullCommitResult{}, err
		}
		in.WriteWithin = ws
	}
	ask, res, err := commitConfirmed(ctx, s, req, b, ToolPullCommit, core.PreviewPull, in, load, b.svc.PullCommit)
	if err != nil || ask != nil {
		return ask, service.PullCommitResult{}, err
	}
	noteRunID(ctx, res.RunID)
	res.Path = shownPath(b.workspace, res.Path)
	return nil, res, nil
}

// shownPath is p relative to the workspace when it is inside it.
func shownPath(workspace, p string) string {
	ws, err := workspaceDir(workspace)
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(ws, p); err == nil && within(ws, p) {
		return rel
	}
	return p
}

func boundPull(r service.PullPreviewResult) pullPreviewResult {
	total := len(r.Items)
	r.Items = firstRows(r.Items, func(it service.PullItem) bool { return it.Action != service.PullActionUnchanged })
	out := pullPreviewResult{RowsTotal: total, RowsTruncated: len(r.Items) < total}
	size := 0
	for i, it := range r.Items {
		for _, c := range it.Changes {
			size += len(c.Field) + len(c.Document) + len(c.Tracker)
		}
		if size > MaxChangeBytes && len(it.Changes) > 0 {
			if out.ChangesOmitted == 0 {
				r.Items = append([]service.PullItem(nil), r.Items...)
			}
			r.Items[i].Changes = nil
			out.ChangesOmitted++
		}
	}
	r.Diff, out.DiffTruncated = cutAtLineEnd(r.Diff, MaxChangeBytes)
	out.PullPreviewResult = r
	return out
}
