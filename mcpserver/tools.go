package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names: lowercase namespace_verb. Every name matches
// ^[a-zA-Z0-9_-]{1,64}$, which Claude Desktop / claude.ai and OpenAI's tool
// API require (a host that rejects one name hides the whole server).
const (
	ToolImportPreview   = "import_preview"
	ToolImportCommit    = "import_commit"
	ToolProgressPreview = "progress_preview"
	ToolProgressCommit  = "progress_commit"
	ToolWorkItemGet     = "workitem_get"
	ToolWorkItemQuery   = "workitem_query"
	ToolDocumentExport  = "document_export"
	ToolPullPreview     = "pull_preview"
	ToolPullCommit      = "pull_commit"
)

var toolNames = []string{ToolImportPreview, ToolImportCommit, ToolProgressPreview, ToolProgressCommit, ToolWorkItemGet, ToolWorkItemQuery, ToolDocumentExport, ToolPullPreview, ToolPullCommit}

// deprecatedNames are the dotted names of the first releases. A tools/call
// with one of them still works for this minor series (logged as
// deprecated); tools/list does not list them. Tools added later never had
// a dotted name.
var deprecatedNames = map[string]string{
	"import.preview":   ToolImportPreview,
	"import.commit":    ToolImportCommit,
	"progress.preview": ToolProgressPreview,
	"progress.commit":  ToolProgressCommit,
	"workitem.get":     ToolWorkItemGet,
	"workitem.query":   ToolWorkItemQuery,
}

const (
	tierReadOnly = "Trust tier: read-only (no externally visible effect; safe to call autonomously). "
	tierWrites   = "Trust tier: externally visible (confirm before executing, always). "
)

var (
	descImportPreview   = tierReadOnly + "Writes nothing to Jira: reads the planning document (Markdown .md or YAML .yaml/.yml, a path inside the workspace) — or every planning document of a directory in the workspace, recursively, as one plan with one handle (rows name their document; documents lists each with its file) — and the matching Jira items, and returns the plan (per item: create, update with its changes per field, unchanged, drift, or removed — in Jira but no longer in the document, left alone unless removed: close plans a close), which it keeps in the local state store (30 minutes by default) under a preview_handle that import_commit needs. Drifted items (edited in Jira since DevWorkWire wrote them) are shown and left alone. An item whose earlier create had an unknown outcome is held back (blocked_reason) while Jira search may not show it yet; only after the person checked Jira and found it missing, preview again with release_held to plan it as a create marked released, and confirm that plan as usual."
	descImportCommit    = tierWrites + "Writes to Jira irreversibly: creates, updates (and, where the plan says close, closes) the work items of a stored import plan, exactly as import_preview showed it (epics before stories; stops at the first failure: COMMIT_PARTIAL once something was written, else the failure's own code). Requires the preview_handle from import_preview and confirmed: true, which you may only send after the person agreed to that plan. Where the client supports it, the server also asks the person directly before writing. Repeating a call with the same idempotency_key and handle replays the result without new writes. Pass the preview's plan_digest to make sure the plan written is the one you showed: if the stored plan changed since, nothing is written (PREVIEW_STALE)."
	descProgressPreview = tierReadOnly + "Writes nothing to Jira: checks a status change and/or comment for one work item (a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1) and returns what progress_commit would do, keeping that plan in the local state store under a preview_handle."
	descProgressCommit  = tierWrites + "Writes to Jira irreversibly: applies a stored progress plan (transitions the item's status and/or adds the comment) exactly as progress_preview showed it. Requires the preview_handle from progress_preview and confirmed: true, which you may only send after the person agreed. Where the client supports it, the server also asks the person directly before writing. Repeating a call with the same idempotency_key and handle replays the result without new writes. Pass the preview's plan_digest to make sure the plan written is the one you showed."
	descGet             = tierReadOnly + "Writes nothing: returns one work item by Jira key (PROJ-12) or reference (checkout-v2/s-1): title, description, acceptance criteria, epic, status, blockers and, for an epic, its stories."
	descExport          = tierReadOnly + "Writes nothing (neither Jira nor a file): reads existing Jira issues — an epic with its stories and their sub-tasks (epic), the issues a JQL query finds within the configured project (jql), or the whole project (project); exactly one — and returns them as one planning document (text: Markdown, or YAML with format yaml), with their parents, so no story loses its epic. Each item carries a Key line naming its issue, so the document's first import_preview adopts the issues (action adopt) instead of creating new ones. Save text where the person wants it, then import_preview it. A document over 256 KiB is cut at a line end (text_truncated: true; not a complete document: narrow the selection)."
	descPullPreview     = tierReadOnly + "Writes nothing (neither Jira nor the file): compares a planning document (a path inside the workspace) that was imported before with its items in Jira and returns what people changed there — titles, descriptions, acceptance criteria (ticked boxes too) and the fields the document sets — as the file's unified diff (diff) and per item (pull: Jira's change goes into the document; conflict: changed on both sides, shown, taken from neither unless the person chose with take_tracker or take_document; settle: the document already matches; unchanged; skipped: left as it is, the warnings say why — the rest is pulled), keeping that plan in the local state store under a preview_handle that pull_commit needs. writes: false means nothing to pull (no handle). items narrows the pull to the named items."
	descPullCommit      = tierWrites + "Writes to Jira irreversibly, and rewrites the local document: executes a stored pull plan exactly as pull_preview showed it — the file is replaced with the previewed one (only the pulled values change; written all at once, its mode kept) if it is still the file previewed, then DevWorkWire's record on each item in Jira moves forward (an issue property: no field, text or status of any issue changes), so the next import of the document is unchanged. Requires the preview_handle from pull_preview and confirmed: true, which you may only send after the person agreed to that diff. Where the client supports it, the server also asks the person directly before writing. Repeating a call with the same idempotency_key and handle replays the result without writing again. Pass the preview's plan_digest to make sure the plan written is the one you showed. The file or an item changed since the preview: nothing is written (PREVIEW_STALE)."
	descQuery           = tierReadOnly + "Writes nothing: lists work items matching the filters (status, kind, epic, document, free text, ready = todo with every blocker done), at most limit (1-100, default 25). Every item is self-sufficient (title, acceptance criteria, epic, status); truncated: true means more matched, so narrow the filter."
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
	addTool(s, ms, &mcp.Tool{Name: ToolImportPreview, Description: descImportPreview, Annotations: readOnlyAnnotations("Preview a planning document import")}, service.ResultPreview, s.importPreview)
	addTool(s, ms, &mcp.Tool{Name: ToolImportCommit, Description: descImportCommit, Annotations: writeAnnotations("Commit a previewed import to Jira")}, service.ResultCommitted, s.importCommit)
	addTool(s, ms, &mcp.Tool{Name: ToolProgressPreview, Description: descProgressPreview, Annotations: readOnlyAnnotations("Preview a progress update")}, service.ResultPreview, s.progressPreview)
	addTool(s, ms, &mcp.Tool{Name: ToolProgressCommit, Description: descProgressCommit, Annotations: writeAnnotations("Commit a previewed progress update to Jira")}, service.ResultCommitted, s.progressCommit)
	addTool(s, ms, &mcp.Tool{Name: ToolWorkItemGet, Description: descGet, Annotations: readOnlyAnnotations("Get a work item")}, service.ResultPreview, s.get)
	addTool(s, ms, &mcp.Tool{Name: ToolWorkItemQuery, Description: descQuery, Annotations: readOnlyAnnotations("Query work items")}, service.ResultPreview, s.query)
	addTool(s, ms, &mcp.Tool{Name: ToolPullPreview, Description: descPullPreview, Annotations: readOnlyAnnotations("Preview taking Jira's changes into a planning document")}, service.ResultPreview, s.pullPreview)
	addTool(s, ms, &mcp.Tool{Name: ToolPullCommit, Description: descPullCommit, Annotations: writeAnnotations("Commit a previewed pull into the document")}, service.ResultCommitted, s.pullCommit)
	addTool(s, ms, &mcp.Tool{Name: ToolDocumentExport, Description: descExport, Annotations: readOnlyAnnotations("Export Jira issues as a planning document")}, service.ResultPreview, s.export)
}

// toolFunc is one tool's behaviour: typed arguments in, a typed result
// (or an elicitation request, or an error) out, over the service of this
// call.
type toolFunc[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, b backend, in In) (*mcp.CallToolResult, Out, error)

// addTool registers a tool with explicit input and output schemas
// generated from the core structs (see schemaFor), refined where the
// struct tags cannot say enough. The handler does what the SDK's typed
// AddTool would, in the contract's terms: it checks the arguments against
// the input schema (VALIDATION_FAILED with one detail per field), opens
// the service, calls f, checks the result against the output schema, and
// returns every failure as the JSON-RPC error itself.
func addTool[In, Out any](s *server, ms *mcp.Server, t *mcp.Tool, resultType string, f toolFunc[In, Out]) {
	in := schemaFor[In]()
	if p := in.Properties["confirmed"]; p != nil {
		// confirmed is optional in the schema so that a missing flag
		// reaches the service and is refused as CONFIRMATION_REQUIRED
		// (the gate's own code), not as a schema violation.
		in.Required = remove(in.Required, "confirmed")
	}
	if p := in.Properties["path"]; p != nil && t.Name == ToolImportPreview {
		p.Description = "path of the planning document (.md, .markdown, .yaml or .yml), or of a directory: every planning document in it, recursively, as one preview (hidden entries, other files, symbolic links and files without epics, stories or id skipped, and listed in warnings); relative to the workspace (the folder holding .devworkwire.yaml) or absolute; it must resolve inside the workspace"
	}
	if p := in.Properties["release_held"]; p != nil {
		p.Description = `only after the person checked Jira and found them missing: ids (s-1) or references (doc/s-1) of held-back items (rows with blocked_reason) to plan as creates anyway, marked released, or ["all"]; an item that is not held back is refused (VALIDATION_FAILED)`
	}
	if p := in.Properties["format"]; p != nil {
		p.Enum = []any{service.FormatMarkdown, "md", service.FormatYAML, "yml"}
	}
	if p := in.Properties["removed"]; p != nil {
		p.Enum = []any{"leave", "close"}
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
		if resultType == service.ResultPreview {
			p.Description = "always \"preview\": this call wrote nothing"
		} else {
			p.Description = "always \"committed\": this call wrote to Jira"
		}
	}
	t.InputSchema, t.OutputSchema = in, out
	s.args.add(t.Name, in)
	check := newResultCheck(t.Name, out)
	name := t.Name
	commit := resultType == service.ResultCommitted
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		if e := s.args.check(name, raw); e != nil {
			return nil, wire(ctx, e)
		}
		var args In
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, wire(ctx, core.Errorf(core.CodeValidationFailed,
					"The arguments to %s could not be read: %s. Check the tool's inputSchema and call it again.", name, oneLine(err.Error())).
					WithDetails(core.Detail{Field: "arguments", Message: oneLine(err.Error())}))
			}
		}
		b, err := s.backend(ctx)
		if err != nil {
			return nil, wire(ctx, err)
		}
		if !commit { // a commit reads the policy itself (gatePolicy)
			s.readPolicy(ctx, b)
		}
		res, result, err := f(agentContext(ctx, req), req, b, args)
		if err != nil {
			return nil, wire(ctx, withNextStep(name, core.AsError(cancelled(ctx, name, err))))
		}
		if res != nil {
			return res, nil // an elicitation request (multi round-trip)
		}
		body, err := check.encode(result)
		if err != nil {
			return nil, wire(ctx, err)
		}
		return &mcp.CallToolResult{StructuredContent: body, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
	}
	if commit {
		s.commitTools[name] = commitTool{tool: t, base: t.Description, handler: handler}
		return // registered by describePolicy, with the policy in force
	}
	ms.AddTool(t, handler)
}

// cancelled explains an uncoded failure of a call whose context ended:
// the client cancelled it, or the server is stopping.
func cancelled(ctx context.Context, tool string, err error) error {
	var ce *core.Error
	if ctx.Err() == nil || errors.As(err, &ce) {
		return err
	}
	why := "the client cancelled it"
	if errors.Is(context.Cause(ctx), errServerStopping) {
		why = "the MCP server is stopping"
	}
	return core.Wrap(err, core.CodeInternal,
		"%s stopped before it finished because %s. A preview or read wrote nothing; a commit stops between items and its idempotency key reports what was written. Call it again when ready.", tool, why)
}

// resultCheck encodes a tool's result and validates it against the
// advertised output schema (resolved on first use), so a result that
// breaks the contract is never passed on as a success.
type resultCheck struct {
	tool     string
	schema   *jsonschema.Schema
	once     sync.Once
	resolved *jsonschema.Resolved
	err      error
}

func newResultCheck(tool string, s *jsonschema.Schema) *resultCheck {
	return &resultCheck{tool: tool, schema: s}
}

func (c *resultCheck) encode(v any) (json.RawMessage, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, core.Wrap(err, core.CodeInternal, "The result of %s could not be encoded. Report this with the run id.", c.tool)
	}
	c.once.Do(func() { c.resolved, c.err = c.schema.Resolve(nil) })
	if c.err != nil {
		return nil, core.Wrap(c.err, core.CodeInternal, "The output schema of %s does not resolve. Report this with the server log.", c.tool)
	}
	var inst any
	if err := json.Unmarshal(body, &inst); err != nil {
		return nil, core.Wrap(err, core.CodeInternal, "The result of %s is not valid JSON. Report this with the run id.", c.tool)
	}
	if err := c.resolved.Validate(inst); err != nil {
		return nil, core.Wrap(err, core.CodeInternal,
			"The result of %s does not match its advertised output schema, so it is not passed on. Nothing more was written by this call; report this with the run id.", c.tool)
	}
	return body, nil
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
	reflect.TypeFor[time.Time]():          {Type: "string", Format: "date-time", Description: "ISO-8601 UTC time"},
	reflect.TypeFor[core.Status]():        {Type: "string", Enum: []any{"todo", "in_progress", "done"}},
	reflect.TypeFor[core.Kind]():          {Type: "string", Enum: []any{string(core.KindEpic), string(core.KindStory), string(core.KindSubtask)}},
	reflect.TypeFor[core.Action]():        {Type: "string", Enum: []any{string(core.ActionCreate), string(core.ActionUpdate), string(core.ActionUnchanged), string(core.ActionDrift), string(service.ActionRemoved), string(service.ActionClose), string(service.ActionAdopt)}},
	reflect.TypeFor[core.PreviewKind]():   {Type: "string", Enum: []any{"import", "progress", "pull"}},
	reflect.TypeFor[service.PullAction](): {Type: "string", Enum: enumOf(service.PullActions)},
	reflect.TypeFor[service.PullTake]():   {Type: "string", Enum: enumOf(service.PullTakes)},
	reflect.TypeFor[core.Reference]():     {Type: "string", Description: "<document id>/<item id>, e.g. checkout-v2/s-3"},
}

// enumOf is a schema enum of a domain type's values.
func enumOf[T ~string](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
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

func (s *server) importPreview(ctx context.Context, _ *mcp.CallToolRequest, b backend, in service.ImportPreviewInput) (*mcp.CallToolResult, importPreviewResult, error) {
	path, data, set, err := readSource(b.workspace, in.Path)
	if err != nil {
		return nil, importPreviewResult{}, err
	}
	res, err := b.svc.ImportPreview(ctx, service.ImportPreviewInput{Path: path, Data: data, Set: set, ReleaseHeld: in.ReleaseHeld, Removed: in.Removed})
	if err != nil {
		return nil, importPreviewResult{}, err
	}
	noteRunID(ctx, res.RunID)
	return nil, boundPreview(res), nil
}

func (s *server) importCommit(ctx context.Context, req *mcp.CallToolRequest, b backend, in service.CommitInput) (*mcp.CallToolResult, importCommitResult, error) {
	ask, res, err := commitConfirmed(ctx, s, req, b, ToolImportCommit, core.PreviewImport, in, b.svc.StoredPreview, b.svc.ImportCommit)
	if err != nil || ask != nil {
		return ask, importCommitResult{}, err
	}
	noteRunID(ctx, res.RunID)
	return nil, boundCommit(res), nil
}

// commitConfirmed is what every commit tool does before the commit itself:
// ask the person where the client can be asked (ask is then the answer to
// send) about the stored plan load shows, pin the plan digest of what they
// accepted, and commit with progress notifications.
func commitConfirmed[R any](ctx context.Context, s *server, req *mcp.CallToolRequest, b backend, tool string, kind core.PreviewKind, in service.CommitInput, load previewLoader, commit func(context.Context, service.CommitInput) (R, error)) (ask *mcp.CallToolResult, res R, err error) {
	pol, mode, err := s.gatePolicy(ctx, b)
	if err != nil {
		return nil, res, err
	}
	channel := core.ChannelAgent
	if pol.Agents != core.PolicyPreviewOnly { // no agent commits: nobody is asked
		ask, shown, err := s.confirm(withMode(ctx, mode), req, load, tool, kind, in)
		if errors.Is(err, errDeclined) {
			setAside(ctx, b, in.PreviewHandle)
		}
		if err != nil || ask != nil {
			return ask, res, err
		}
		if shown != "" {
			in.PlanDigest = shown // what the person accepted is what is written
		}
		if answered(req) { // confirm accepted the person's answer
			channel = core.ChannelElicitation
		}
	}
	in.Progress = progressFunc(ctx, req)
	in.Waiting = waitingFunc(ctx, req)
	res, err = commit(core.WithChannel(ctx, channel), in)
	if err != nil {
		err = withReviewStep(core.AsError(err), in.PreviewHandle)
	}
	return nil, res, err
}

func (s *server) progressPreview(ctx context.Context, _ *mcp.CallToolRequest, b backend, in service.ProgressPreviewInput) (*mcp.CallToolResult, service.ProgressPreviewResult, error) {
	res, err := b.svc.ProgressPreview(ctx, in)
	if err != nil {
		return nil, res, err
	}
	noteRunID(ctx, res.RunID)
	return nil, res, nil
}

func (s *server) progressCommit(ctx context.Context, req *mcp.CallToolRequest, b backend, in service.CommitInput) (*mcp.CallToolResult, service.ProgressCommitResult, error) {
	ask, res, err := commitConfirmed(ctx, s, req, b, ToolProgressCommit, core.PreviewProgress, in, b.svc.StoredPreview, b.svc.ProgressCommit)
	if err != nil || ask != nil {
		return ask, service.ProgressCommitResult{}, err
	}
	noteRunID(ctx, res.RunID)
	return nil, res, nil
}

func (s *server) get(ctx context.Context, _ *mcp.CallToolRequest, b backend, in service.GetInput) (*mcp.CallToolResult, getResult, error) {
	res, err := b.svc.Get(ctx, in)
	if err != nil {
		return nil, getResult{}, err
	}
	noteRunID(ctx, res.RunID)
	return nil, boundGet(res), nil
}

func (s *server) query(ctx context.Context, _ *mcp.CallToolRequest, b backend, in service.QueryInput) (*mcp.CallToolResult, service.QueryResult, error) {
	res, err := b.svc.Query(ctx, in)
	if err != nil {
		return nil, res, err
	}
	noteRunID(ctx, res.RunID)
	if res.Items == nil {
		res.Items = []service.ItemView{}
	}
	return nil, res, nil
}

// waitingFunc tells the client, as a progress notification with no
// progress yet, what a commit waits for when the client sent a progress
// token; nil otherwise (the server's log has it either way).
func waitingFunc(ctx context.Context, req *mcp.CallToolRequest) func(service.CommitWait) {
	token := progressToken(req)
	if token == nil {
		return nil
	}
	return func(w service.CommitWait) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: w.String()})
	}
}

// progressToken is the progress token of a call that can be sent
// notifications, nil when it has none.
func progressToken(req *mcp.CallToolRequest) any {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	return req.Params.GetProgressToken()
}

// progressFunc sends MCP progress notifications for a commit when the
// client sent a progress token; nil otherwise.
func progressFunc(ctx context.Context, req *mcp.CallToolRequest) func(done, total int) {
	token := progressToken(req)
	if token == nil {
		return nil
	}
	return func(done, total int) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(done),
			Total:         float64(total),
			Message:       progressMessage(done, total),
		})
	}
}
