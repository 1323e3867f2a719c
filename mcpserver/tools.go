package mcpserver

import (
	"context"
	"reflect"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names (dotted namespace.verb, lowercase).
const (
	ToolImportPreview   = "import.preview"
	ToolImportCommit    = "import.commit"
	ToolProgressPreview = "progress.preview"
	ToolProgressCommit  = "progress.commit"
	ToolWorkItemGet     = "workitem.get"
	ToolWorkItemQuery   = "workitem.query"
)

var toolNames = []string{ToolImportPreview, ToolImportCommit, ToolProgressPreview, ToolProgressCommit, ToolWorkItemGet, ToolWorkItemQuery}

const (
	tierReadOnly = "Trust tier: read-only (no externally visible effect; safe to call autonomously). "
	tierWrites   = "Trust tier: externally visible (confirm before executing, always). "
)

var (
	descImportPreview   = tierReadOnly + "Writes nothing to Jira: reads the planning document (Markdown .md or YAML .yaml/.yml, a path inside the workspace) and the matching Jira items, and returns the plan (per item: create, update, unchanged or drift), which it keeps in the local state store (30 minutes by default) under a preview_handle that import.commit needs. Drifted items (edited in Jira since DevWorkWire wrote them) are shown and left alone."
	descImportCommit    = tierWrites + "Writes to Jira irreversibly: creates and updates the work items of a stored import plan, exactly as import.preview showed it (epics before stories; stops at the first failure: COMMIT_PARTIAL once something was written, else the failure's own code). Requires the preview_handle from import.preview and confirmed: true, which you may only send after the person agreed to that plan. Where the client supports it, the server also asks the person directly before writing. Repeating a call with the same idempotency_key and handle replays the result without new writes."
	descProgressPreview = tierReadOnly + "Writes nothing to Jira: checks a status change and/or comment for one work item (a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1) and returns what progress.commit would do, keeping that plan in the local state store under a preview_handle."
	descProgressCommit  = tierWrites + "Writes to Jira irreversibly: applies a stored progress plan (transitions the item's status and/or adds the comment) exactly as progress.preview showed it. Requires the preview_handle from progress.preview and confirmed: true, which you may only send after the person agreed. Where the client supports it, the server also asks the person directly before writing. Repeating a call with the same idempotency_key and handle replays the result without new writes."
	descGet             = tierReadOnly + "Writes nothing: returns one work item by Jira key (PROJ-12) or reference (checkout-v2/s-1): title, description, acceptance criteria, epic, status, blockers and, for an epic, its stories."
	descQuery           = tierReadOnly + "Writes nothing: lists work items matching the filters (status, epic, document, free text, ready = todo with every blocker done), at most limit (1-100, default 25). Every item is self-sufficient (title, acceptance criteria, epic, status); truncated: true means more matched, so narrow the filter."
)

func ptr[T any](v T) *T { return &v }

func readOnlyAnnotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)}
}

// writeAnnotations: commits only create and update (never delete), and a
// repeated call with the same idempotency key and handle replays the
// stored result, so they are additive and idempotent.
func writeAnnotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)}
}

func (s *server) addTools(ms *mcp.Server) {
	addTool(s, ms, &mcp.Tool{Name: ToolImportPreview, Description: descImportPreview, Annotations: readOnlyAnnotations("Preview a planning document import")}, core.ResultPreview, s.importPreview)
	addTool(s, ms, &mcp.Tool{Name: ToolImportCommit, Description: descImportCommit, Annotations: writeAnnotations("Commit a previewed import to Jira")}, core.ResultCommitted, s.importCommit)
	addTool(s, ms, &mcp.Tool{Name: ToolProgressPreview, Description: descProgressPreview, Annotations: readOnlyAnnotations("Preview a progress update")}, core.ResultPreview, s.progressPreview)
	addTool(s, ms, &mcp.Tool{Name: ToolProgressCommit, Description: descProgressCommit, Annotations: writeAnnotations("Commit a previewed progress update to Jira")}, core.ResultCommitted, s.progressCommit)
	addTool(s, ms, &mcp.Tool{Name: ToolWorkItemGet, Description: descGet, Annotations: readOnlyAnnotations("Get a work item")}, core.ResultPreview, s.get)
	addTool(s, ms, &mcp.Tool{Name: ToolWorkItemQuery, Description: descQuery, Annotations: readOnlyAnnotations("Query work items")}, core.ResultPreview, s.query)
}

// addTool registers a typed handler with explicit input and output
// schemas generated from the core structs (see schemaFor), refined where
// the struct tags cannot say enough.
func addTool[In, Out any](s *server, ms *mcp.Server, t *mcp.Tool, resultType string, h mcp.ToolHandlerFor[In, Out]) {
	in := schemaFor[In]()
	if p := in.Properties["confirmed"]; p != nil {
		// confirmed is optional in the schema so that a missing flag
		// reaches the service and is refused as CONFIRMATION_REQUIRED
		// (the gate's own code), not as a schema violation.
		in.Required = remove(in.Required, "confirmed")
	}
	if p := in.Properties["path"]; p != nil {
		p.Description = "path of the planning document (.md, .markdown, .yaml or .yml), relative to the workspace (the folder holding .devworkwire.yaml) or absolute; it must resolve inside the workspace"
	}
	if p := in.Properties["limit"]; p != nil {
		p.Minimum, p.Maximum = ptr(1.0), ptr(float64(core.MaxQueryLimit))
	}
	out := schemaFor[Out]()
	// Results may gain fields in a minor release (the versioning rules), so
	// their objects stay open: a client validating strictly against an
	// older schema must not reject a newer result.
	openObjects(out)
	if p := out.Properties["result_type"]; p != nil {
		p.Enum = []any{resultType}
		if resultType == core.ResultPreview {
			p.Description = "always \"preview\": this call wrote nothing"
		} else {
			p.Description = "always \"committed\": this call wrote to Jira"
		}
	}
	t.InputSchema, t.OutputSchema = in, out
	s.args.add(t.Name, in)
	mcp.AddTool(ms, t, h)
}

func remove(list []string, v string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time]():        {Type: "string", Format: "date-time", Description: "ISO-8601 UTC time"},
	reflect.TypeFor[core.Status]():      {Type: "string", Enum: []any{"todo", "in_progress", "done"}},
	reflect.TypeFor[core.Kind]():        {Type: "string", Enum: []any{"epic", "story"}},
	reflect.TypeFor[core.Action]():      {Type: "string", Enum: []any{"create", "update", "unchanged", "drift"}},
	reflect.TypeFor[core.PreviewKind](): {Type: "string", Enum: []any{"import", "progress"}},
	reflect.TypeFor[core.Reference]():   {Type: "string", Description: "<document id>/<item id>, e.g. checkout-v2/s-3"},
}

// schemaFor infers the JSON schema of T from its json and jsonschema tags,
// with enums for the domain's string types and without "null": results
// never carry null (absent optional fields are omitted, collections are
// empty arrays).
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic("mcpserver: schema for " + reflect.TypeFor[T]().String() + ": " + err.Error())
	}
	stripNull(s)
	return s
}

// openObjects removes "additionalProperties": false from every object of s.
func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
}

func stripNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		var keep []string
		for _, t := range s.Types {
			if t != "null" {
				keep = append(keep, t)
			}
		}
		if len(keep) == 1 {
			s.Type, s.Types = keep[0], nil
		} else {
			s.Types = keep
		}
	}
	for _, p := range s.Properties {
		stripNull(p)
	}
	stripNull(s.Items)
	stripNull(s.AdditionalProperties)
	for _, d := range s.Defs {
		stripNull(d)
	}
	for _, d := range s.Definitions {
		stripNull(d)
	}
}

func (s *server) importPreview(ctx context.Context, _ *mcp.CallToolRequest, in core.ImportPreviewInput) (*mcp.CallToolResult, core.ImportPreviewResult, error) {
	path, data, err := s.readDocument(in.Path)
	if err != nil {
		return nil, core.ImportPreviewResult{}, fail(ctx, err)
	}
	res, err := s.svc.ImportPreview(ctx, core.ImportPreviewInput{Path: path, Data: data})
	if err != nil {
		return nil, res, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	if res.Items == nil {
		res.Items = []core.PlanItem{}
	}
	return nil, res, nil
}

func (s *server) importCommit(ctx context.Context, req *mcp.CallToolRequest, in core.CommitInput) (*mcp.CallToolResult, core.ImportCommitResult, error) {
	var zero core.ImportCommitResult
	ask, err := s.confirm(ctx, req, ToolImportCommit, core.PreviewImport, in)
	if err != nil || ask != nil {
		return ask, zero, err
	}
	in.Progress = progressFunc(ctx, req)
	res, err := s.svc.ImportCommit(ctx, in)
	if err != nil {
		return nil, zero, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	if res.Items == nil {
		res.Items = []core.CommittedItem{}
	}
	return nil, res, nil
}

func (s *server) progressPreview(ctx context.Context, _ *mcp.CallToolRequest, in core.ProgressPreviewInput) (*mcp.CallToolResult, core.ProgressPreviewResult, error) {
	res, err := s.svc.ProgressPreview(ctx, in)
	if err != nil {
		return nil, res, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	return nil, res, nil
}

func (s *server) progressCommit(ctx context.Context, req *mcp.CallToolRequest, in core.CommitInput) (*mcp.CallToolResult, core.ProgressCommitResult, error) {
	var zero core.ProgressCommitResult
	ask, err := s.confirm(ctx, req, ToolProgressCommit, core.PreviewProgress, in)
	if err != nil || ask != nil {
		return ask, zero, err
	}
	in.Progress = progressFunc(ctx, req)
	res, err := s.svc.ProgressCommit(ctx, in)
	if err != nil {
		return nil, zero, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	return nil, res, nil
}

func (s *server) get(ctx context.Context, _ *mcp.CallToolRequest, in core.GetInput) (*mcp.CallToolResult, core.GetResult, error) {
	res, err := s.svc.Get(ctx, in)
	if err != nil {
		return nil, res, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	return nil, res, nil
}

func (s *server) query(ctx context.Context, _ *mcp.CallToolRequest, in core.QueryInput) (*mcp.CallToolResult, core.QueryResult, error) {
	res, err := s.svc.Query(ctx, in)
	if err != nil {
		return nil, res, fail(ctx, err)
	}
	stateFrom(ctx).runID = res.RunID
	if res.Items == nil {
		res.Items = []core.ItemView{}
	}
	return nil, res, nil
}

// progressFunc sends MCP progress notifications for a commit when the
// client sent a progress token; nil otherwise.
func progressFunc(ctx context.Context, req *mcp.CallToolRequest) func(done, total int) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	st := stateFrom(ctx)
	return func(done, total int) {
		st.progress++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(done),
			Total:         float64(total),
			Message:       progressMessage(done, total),
		})
	}
}
