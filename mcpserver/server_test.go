package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/goldentest"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsListGolden snapshots the full tools/list output (names,
// descriptions, input and output schemas, annotations). A change to the
// agent-facing surface fails here until the golden file is updated on
// purpose with -update and reviewed against the versioning rules.
func TestToolsListGolden(t *testing.T) {
	c := connect(t, &fakeService{}, Options{}, nil, "")
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(map[string]any{"tools": res.Tools}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if !goldentest.Check(t, filepath.Join("testdata", "tools.golden.json"), got) {
		t.Log("tools/list changed: if intended, check the versioning rules before running with -update")
	}
}

func TestToolsDescribeTierAndWrites(t *testing.T) {
	c := connect(t, &fakeService{}, Options{}, nil, "")
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{ToolImportPreview: true, ToolProgressPreview: true, ToolWorkItemGet: true, ToolWorkItemQuery: true, ToolImportCommit: false, ToolProgressCommit: false, ToolDocumentExport: true, ToolPullPreview: true, ToolPullCommit: false}
	if len(res.Tools) != len(readOnly) {
		t.Fatalf("listed %d tools, want %d", len(res.Tools), len(readOnly))
	}
	for _, tl := range res.Tools {
		ro, ok := readOnly[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tl.Name)
			continue
		}
		a := tl.Annotations
		if a == nil {
			t.Fatalf("%s: no annotations", tl.Name)
		}
		if a.ReadOnlyHint != ro {
			t.Errorf("%s: readOnlyHint = %v", tl.Name, a.ReadOnlyHint)
		}
		if a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: destructiveHint must be false", tl.Name)
		}
		if a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be true (Jira)", tl.Name)
		}
		if ro {
			if !strings.HasPrefix(tl.Description, "Trust tier: read-only") || !strings.Contains(tl.Description, "Writes nothing") {
				t.Errorf("%s: description must state the read-only tier and that it writes nothing: %q", tl.Name, tl.Description)
			}
		} else {
			if !strings.HasPrefix(tl.Description, "Trust tier: externally visible") || !strings.Contains(tl.Description, "Writes to Jira irreversibly") {
				t.Errorf("%s: description must state the externally visible tier and irreversible writes: %q", tl.Name, tl.Description)
			}
		}
		// Inputs are closed (a misspelt argument is an error); results are
		// open (a new result field is a minor change).
		in, _ := json.Marshal(tl.InputSchema)
		out, _ := json.Marshal(tl.OutputSchema)
		if !strings.Contains(string(in), `"additionalProperties":false`) || strings.Contains(string(out), "additionalProperties") {
			t.Errorf("%s: input schema must be closed and output schema open", tl.Name)
		}
		// snake_case, no nullable types anywhere in the schemas.
		for _, s := range []any{tl.InputSchema, tl.OutputSchema} {
			b, _ := json.Marshal(s)
			if strings.Contains(string(b), `"null"`) {
				t.Errorf("%s: schema allows null: %s", tl.Name, b)
			}
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			for _, k := range propertyNames(m) {
				if k != strings.ToLower(k) || strings.Contains(k, "-") {
					t.Errorf("%s: property %q is not snake_case", tl.Name, k)
				}
			}
		}
	}
}

func propertyNames(m map[string]any) []string {
	var out []string
	if p, ok := m["properties"].(map[string]any); ok {
		for k, v := range p {
			out = append(out, k)
			if vm, ok := v.(map[string]any); ok {
				out = append(out, propertyNames(vm)...)
			}
		}
	}
	if it, ok := m["items"].(map[string]any); ok {
		out = append(out, propertyNames(it)...)
	}
	return out
}

func TestServerInfo(t *testing.T) {
	for _, v := range []struct{ in, want string }{{"v1.2.3", "v1.2.3"}, {"(devel)", "0.0.0-unknown"}, {"", "0.0.0-unknown"}} {
		for _, proto := range protocols {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := New(&fakeService{}, Options{Version: v.in}).Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatal(err)
			}
			ir := cs.InitializeResult()
			if ir.ServerInfo.Name != "dwire" || ir.ServerInfo.Version != v.want {
				t.Errorf("%s: serverInfo = %+v, want dwire %s", proto, ir.ServerInfo, v.want)
			}
			if ir.ProtocolVersion != proto {
				t.Errorf("negotiated %s, want %s", ir.ProtocolVersion, proto)
			}
			cs.Close()
			ss.Wait()
		}
	}
}

// TestEveryToolSucceeds calls each tool under both protocol versions and
// validates each result against the tool's advertised output schema.
func TestEveryToolSucceeds(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			svc := &fakeService{}
			c := connect(t, svc, Options{Workspace: dir, Elicitation: ElicitationOff}, nil, proto)
			cases := []struct {
				tool       string
				args       map[string]any
				resultType string
			}{
				{ToolImportPreview, map[string]any{"path": "plan.md"}, "preview"},
				{ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true}, "committed"},
				{ToolProgressPreview, map[string]any{"item": "DEMO-7", "status": "in_progress", "comment": "Started work"}, "preview"},
				{ToolProgressCommit, map[string]any{"preview_handle": "h-progress", "confirmed": true, "idempotency_key": "k-2"}, "committed"},
				{ToolWorkItemGet, map[string]any{"item": "DEMO-7"}, "preview"},
				{ToolWorkItemQuery, map[string]any{"status": "todo", "ready": true, "limit": 10}, "preview"},
				{ToolDocumentExport, map[string]any{"epic": "DEMO-1"}, "preview"},
			}
			for _, tc := range cases {
				m := c.mustCall(t, tc.tool, tc.args)
				if m["result_type"] != tc.resultType {
					t.Errorf("%s: result_type = %v, want %s", tc.tool, m["result_type"], tc.resultType)
				}
				if m["run_id"] == "" || m["run_id"] == nil {
					t.Errorf("%s: no run_id", tc.tool)
				}
			}
			if svc.lastCommit.IdempotencyKey != "k-2" || !svc.lastCommit.Confirmed || svc.lastCommit.PreviewHandle != "h-progress" {
				t.Errorf("commit input not passed through: %+v", svc.lastCommit)
			}
			if !strings.Contains(c.logs.String(), `"run_id":"run-q"`) {
				t.Errorf("logs lack the run id of the query: %s", c.logs.String())
			}
		})
	}
}

// TestEmptyCollectionsAreArrays: a service result with nil slices still
// gives arrays (never null) that match the output schema.
func TestEmptyCollectionsAreArrays(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.md"), []byte("x"), 0o644)
	svc := &fakeService{
		query: func(context.Context, service.QueryInput) (service.QueryResult, error) {
			return service.QueryResult{ResultType: service.ResultPreview, RunID: "r"}, nil
		},
		importPreview: func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error) {
			return service.ImportPreviewResult{ResultType: service.ResultPreview, RunID: "r", PreviewHandle: "h", ExpiresAt: fixedTime, Document: "p", Scope: "s"}, nil
		},
	}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	if m := c.mustCall(t, ToolWorkItemQuery, map[string]any{}); m["items"] == nil {
		t.Errorf("items missing: %v", m)
	}
	if m := c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"}); m["items"] == nil {
		t.Errorf("items missing: %v", m)
	}
}

// TestEveryCodeThroughJSONRPC: every stable code the service can raise
// reaches the client on the JSON-RPC error channel with the contract's
// data, unchanged.
func TestEveryCodeThroughJSONRPC(t *testing.T) {
	for _, code := range core.Codes() {
		t.Run(string(code), func(t *testing.T) {
			want := core.Errorf(code, "Story s-3 failed with %s; do the thing.", code).
				WithRunID("run-" + strings.ToLower(string(code))).
				WithDetails(core.Detail{Item: "checkout-v2/s-3", Field: "title", Line: 12, Key: "DEMO-3", Outcome: core.OutcomeFailed, Code: code, Message: "detail"})
			svc := &fakeService{get: func(context.Context, service.GetInput) (service.GetResult, error) { return service.GetResult{}, want }}
			c := connect(t, svc, Options{}, nil, "")
			_, err := c.call(t, ToolWorkItemGet, map[string]any{"item": "DEMO-3"})
			we, data := wireError(t, err)
			if we.Message != want.Error() {
				t.Errorf("message = %q, want %q", we.Message, want.Error())
			}
			var got core.Error
			if err := json.Unmarshal(we.Data, &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want.Details, got.Details); d != "" || got.RunID != want.RunID || got.Code != code || got.Retryable != code.Retryable() {
				t.Errorf("data = %s (details diff %s)", we.Data, d)
			}
			_ = data
		})
	}
}

// TestCommitCodesThroughCommitTools: the gate's refusals from the service
// reach the agent from both commit tools.
func TestCommitCodesThroughCommitTools(t *testing.T) {
	codes := []core.Code{core.CodePreviewNotFound, core.CodePreviewExpired, core.CodePreviewStale, core.CodeConfirmationRequired,
		core.CodeIdempotencyKeyReused, core.CodeCommitInterrupted, core.CodeCommitPartial}
	for _, code := range codes {
		svc := &fakeService{
			importCommit: func(context.Context, service.CommitInput) (service.ImportCommitResult, error) {
				return service.ImportCommitResult{}, core.Errorf(code, "refused").WithRunID("r1")
			},
			progressCommit: func(context.Context, service.CommitInput) (service.ProgressCommitResult, error) {
				return service.ProgressCommitResult{}, core.Errorf(code, "refused").WithRunID("r2")
			},
		}
		c := connect(t, svc, Options{Elicitation: ElicitationOff}, nil, "")
		_, err := c.call(t, ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true})
		wantCode(t, err, code)
		_, err = c.call(t, ToolProgressCommit, map[string]any{"preview_handle": "h-progress", "confirmed": true})
		wantCode(t, err, code)
	}
}

func TestConfirmedMissingOrFalseIsConfirmationRequired(t *testing.T) {
	for _, args := range []map[string]any{{"preview_handle": "h-import"}, {"preview_handle": "h-import", "confirmed": false}} {
		svc := &fakeService{}
		c := connect(t, svc, Options{}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the person must not be asked before confirmed: true")
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}, "")
		_, err := c.call(t, ToolImportCommit, args)
		wantCode(t, err, core.CodeConfirmationRequired)
		if svc.lastCommit.Confirmed {
			t.Error("service saw confirmed: true")
		}
	}
}

func TestArgumentValidationFailures(t *testing.T) {
	cases := []struct {
		tool   string
		args   any
		field  string
		detail string
	}{
		{ToolWorkItemGet, map[string]any{}, "item", "required, but missing"},
		{ToolWorkItemGet, nil, "item", "required, but missing"},
		{ToolWorkItemGet, map[string]any{"item": 12}, "item", "got number, want string"},
		{ToolWorkItemQuery, map[string]any{"limit": 500}, "limit", "maximum: got 500, want 100"},
		{ToolWorkItemQuery, map[string]any{"status": "blocked"}, "status", "todo"},
		{ToolProgressPreview, map[string]any{"item": "DEMO-1", "colour": "red"}, "colour", "not an argument of this tool"},
		{ToolImportCommit, map[string]any{"confirmed": true}, "preview_handle", "required, but missing"},
		{ToolImportCommit, map[string]any{"preview_handle": "h", "confirmed": "yes"}, "confirmed", "want boolean"},
		{ToolImportPreview, []any{"plans/a.md"}, "arguments", "must be an object"},
	}
	for _, proto := range protocols {
		svc := &fakeService{}
		c := connect(t, svc, Options{}, nil, proto)
		for _, tc := range cases {
			_, err := c.call(t, tc.tool, tc.args)
			data := wantCode(t, err, core.CodeValidationFailed)
			msg, _ := data["message"].(string)
			if !strings.Contains(msg, tc.field) || !strings.Contains(msg, tc.tool) {
				t.Errorf("%s %v: message %q should name %q and the tool", tc.tool, tc.args, msg, tc.field)
			}
			found := false
			for _, d := range data["details"].([]any) {
				dm := d.(map[string]any)
				if dm["field"] == tc.field && strings.Contains(dm["message"].(string), tc.detail) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %v: no detail {field: %s, message: ~%q} in %v", tc.tool, tc.args, tc.field, tc.detail, data["details"])
			}
		}
		if n := len(svc.calls); n != 0 {
			t.Errorf("service called %d times with invalid arguments", n)
		}
	}
}

// TestUndecodableArgumentsAreValidationFailed: arguments that pass the
// schema check but cannot be decoded into the tool's Go input (the step
// where the SDK's own decoding used to reject them) are VALIDATION_FAILED
// with the reason, and the service is not called.
func TestUndecodableArgumentsAreValidationFailed(t *testing.T) {
	svc := &fakeService{}
	s, ms := newServer(t.Context(), svc, Options{})
	_ = ms
	// A schema that admits anything, so only decoding can fail.
	s.args.add(ToolWorkItemGet, &jsonschema.Schema{})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolWorkItemGet, Arguments: map[string]any{"item": 12}})
	data := wantCode(t, err, core.CodeValidationFailed)
	if msg := data["message"].(string); !strings.Contains(msg, "could not be read") || !strings.Contains(msg, ToolWorkItemGet) {
		t.Errorf("message: %v", msg)
	}
	if len(svc.calls) != 0 {
		t.Errorf("service called: %v", svc.calls)
	}
}

func TestUnknownToolIsValidationFailed(t *testing.T) {
	c := connect(t, &fakeService{}, Options{}, nil, "")
	_, err := c.call(t, "import.delete", map[string]any{})
	data := wantCode(t, err, core.CodeValidationFailed)
	if msg := data["message"].(string); !strings.Contains(msg, `"import.delete"`) || !strings.Contains(msg, ToolImportPreview) {
		t.Errorf("message %q", msg)
	}
}

// TestPanicIsInternalErrorAndServerSurvives: a panicking handler gives
// INTERNAL_ERROR and the next call on the same session works.
func TestPanicIsInternalErrorAndServerSurvives(t *testing.T) {
	var n atomic.Int32
	svc := &fakeService{get: func(context.Context, service.GetInput) (service.GetResult, error) {
		if n.Add(1) == 1 {
			panic("boom: test-token-not-secret must not leak")
		}
		return service.GetResult{ResultType: service.ResultPreview, RunID: "run-g", Item: sampleView()}, nil
	}}
	c := connect(t, svc, Options{}, nil, "")
	_, err := c.call(t, ToolWorkItemGet, map[string]any{"item": "DEMO-7"})
	data := wantCode(t, err, core.CodeInternal)
	if strings.Contains(data["message"].(string), "test-token-not-secret") || strings.Contains(data["message"].(string), "boom") {
		t.Errorf("panic value leaked to the client: %v", data["message"])
	}
	if !strings.Contains(c.logs.String(), data["run_id"].(string)) {
		t.Error("the panic's run id is not in the logs")
	}
	c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "DEMO-7"})
}

func TestUncodedErrorIsInternalWithoutCause(t *testing.T) {
	svc := &fakeService{query: func(context.Context, service.QueryInput) (service.QueryResult, error) {
		return service.QueryResult{}, errors.New("raw jira body {\"errorMessages\":[]}")
	}}
	c := connect(t, svc, Options{}, nil, "")
	_, err := c.call(t, ToolWorkItemQuery, map[string]any{})
	data := wantCode(t, err, core.CodeInternal)
	if strings.Contains(data["message"].(string), "errorMessages") {
		t.Errorf("cause leaked: %v", data["message"])
	}
}

// TestOutputContractViolationIsInternal: a service result that breaks the
// advertised output schema is never passed on as a success.
func TestOutputContractViolationIsInternal(t *testing.T) {
	svc := &fakeService{get: func(context.Context, service.GetInput) (service.GetResult, error) {
		v := sampleView()
		v.Status = "blocked"
		return service.GetResult{ResultType: service.ResultPreview, RunID: "r", Item: v}, nil
	}}
	c := connect(t, svc, Options{}, nil, "")
	_, err := c.call(t, ToolWorkItemGet, map[string]any{"item": "DEMO-7"})
	wantCode(t, err, core.CodeInternal)
}

func TestProgressNotifications(t *testing.T) {
	for _, proto := range protocols {
		svc := &fakeService{importCommit: func(ctx context.Context, in service.CommitInput) (service.ImportCommitResult, error) {
			if in.Progress == nil {
				return service.ImportCommitResult{}, errors.New("no progress func")
			}
			for i := 1; i <= 3; i++ {
				in.Progress(i, 3)
			}
			return service.ImportCommitResult{ResultType: service.ResultCommitted, RunID: "r", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k", Items: []service.CommittedItem{}, CommittedAt: fixedTime}, nil
		}}
		got := make(chan float64, 10)
		c := connect(t, svc, Options{Elicitation: ElicitationOff}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				if r.Params.Total == 3 && r.Params.ProgressToken == "tok-1" {
					got <- r.Params.Progress
				}
			},
		}, proto)
		_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{
			Name: ToolImportCommit, Arguments: map[string]any{"preview_handle": "h-import", "confirmed": true},
			Meta: mcp.Meta{"progressToken": "tok-1"},
		})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.After(5 * time.Second)
		for want := 1.0; want <= 3; want++ {
			select {
			case p := <-got:
				if p != want {
					t.Errorf("%s: progress %v, want %v", proto, p, want)
				}
			case <-deadline:
				t.Fatalf("%s: progress notification %v not received", proto, want)
			}
		}
		// Without a token the service gets no progress func.
		svc2 := &fakeService{}
		c2 := connect(t, svc2, Options{Elicitation: ElicitationOff}, nil, proto)
		c2.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": "h-import", "confirmed": true})
		if svc2.lastCommit.Progress != nil {
			t.Error("progress func set without a progress token")
		}
	}
}

// TestCancellationReachesTheService: cancelling the client's call cancels
// the service's context (the service stops between items).
func TestCancellationReachesTheService(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	svc := &fakeService{importCommit: func(ctx context.Context, in service.CommitInput) (service.ImportCommitResult, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return service.ImportCommitResult{}, core.Errorf(core.CodeCommitPartial, "stopped between items").WithRunID("r")
	}}
	c := connect(t, svc, Options{Elicitation: ElicitationOff}, nil, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolImportCommit, Arguments: map[string]any{"preview_handle": "h-import", "confirmed": true}})
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("service ctx err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the service never saw the cancellation")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("client err = %v", err)
	}
	// The session is still usable.
	c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "DEMO-7"})
}

// TestPullSchemaEnumsTheActionsAndTakes: pull_preview's output schema
// lists every row action and change take core has (core.PullActions,
// core.PullTakes), as the import's rows list theirs.
func TestPullSchemaEnumsTheActionsAndTakes(t *testing.T) {
	c := connect(t, &fakeService{}, Options{}, nil, "")
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tool *mcp.Tool
	for _, tl := range res.Tools {
		if tl.Name == ToolPullPreview {
			tool = tl
		}
	}
	if tool == nil {
		t.Fatal("no pull_preview")
	}
	b, _ := json.Marshal(tool.OutputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	row := s.Properties["items"].Items
	if got, want := row.Properties["action"].Enum, enumOf(service.PullActions); cmp.Diff(got, want) != "" || len(want) != 6 {
		t.Errorf("action enum %v; want %v", got, want)
	}
	if got, want := row.Properties["changes"].Items.Properties["take"].Enum, enumOf(service.PullTakes); cmp.Diff(got, want) != "" || len(want) != 2 {
		t.Errorf("take enum %v; want %v", got, want)
	}
}
