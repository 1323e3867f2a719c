package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The independent client: github.com/mark3labs/mcp-go, a different MCP
// implementation, drives the subprocess server over stdio. (The e2e suite
// repeats this against `dwire mcp` and mockjira.)

type mcpgoAsker struct{ n atomic.Int32 }

func (a *mcpgoAsker) Elicit(_ context.Context, r mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	a.n.Add(1)
	return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{
		Action: mcpgo.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true},
	}}, nil
}

func TestMCPGoClient(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws, _ := newWorkspace(t)
			ctx := context.Background()
			tr := transport.NewStdio(serverBinary(t), nil, "-workspace", ws, "-version", "v1.2.3")
			if err := tr.Start(ctx); err != nil {
				t.Fatal(err)
			}
			asker := &mcpgoAsker{}
			c := mcpclient.NewClient(tr, mcpclient.WithProtocolVersion(proto), mcpclient.WithElicitationHandler(asker))
			defer c.Close()
			if err := c.Start(ctx); err != nil { // registers the elicitation request handler
				t.Fatal(err)
			}
			ir, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ProtocolVersion: proto,
				ClientInfo:      mcpgo.Implementation{Name: "mcp-go-test", Version: "1.0.0"},
			}})
			if err != nil {
				t.Fatalf("initialize %s: %v", proto, err)
			}
			if ir.ProtocolVersion != proto || ir.ServerInfo.Name != "dwire" || ir.ServerInfo.Version != "v1.2.3" {
				t.Errorf("initialize: version %s, server %+v", ir.ProtocolVersion, ir.ServerInfo)
			}

			lt, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]mcpgo.Tool{}
			for _, tl := range lt.Tools {
				names[tl.Name] = tl
			}
			for _, n := range []string{ToolImportPreview, ToolImportCommit, ToolProgressPreview, ToolProgressCommit, ToolWorkItemGet, ToolWorkItemQuery} {
				if _, ok := names[n]; !ok {
					t.Errorf("tool %s not listed", n)
				}
			}
			if a := names[ToolImportCommit].Annotations; a.ReadOnlyHint == nil || *a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("import.commit annotations as read by mcp-go: %+v", a)
			}

			call := func(name string, args map[string]any) map[string]any {
				t.Helper()
				res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.IsError {
					t.Fatalf("%s: isError result", name)
				}
				b, _ := json.Marshal(res.StructuredContent)
				var m map[string]any
				_ = json.Unmarshal(b, &m)
				return m
			}
			pv := call(ToolImportPreview, map[string]any{"path": "plans/checkout.md"})
			if pv["result_type"] != "preview" {
				t.Fatalf("preview: %v", pv)
			}
			handle := pv["preview_handle"].(string)

			// A refused commit: the error reaches mcp-go as a JSON-RPC
			// error whose message starts with the code...
			_, err = c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: ToolImportCommit, Arguments: map[string]any{"preview_handle": handle}}})
			if err == nil || !strings.HasPrefix(err.Error(), "CONFIRMATION_REQUIRED: ") {
				t.Errorf("refused commit through mcp-go: %v", err)
			}
			// ...and its data is readable from the raw response.
			params := map[string]any{"name": ToolImportCommit, "arguments": map[string]any{"preview_handle": handle, "confirmed": false}}
			if proto == protoNewest {
				params["_meta"] = map[string]any{
					"io.modelcontextprotocol/protocolVersion":    proto,
					"io.modelcontextprotocol/clientCapabilities": map[string]any{},
				}
			}
			resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcpgo.NewRequestId(int64(1_000_000)), Method: "tools/call", Params: params})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error == nil {
				t.Fatalf("refused commit answered with a result: %s", resp.Result)
			}
			if int64(resp.Error.Code) != ErrorCode || !strings.HasPrefix(resp.Error.Message, "CONFIRMATION_REQUIRED: ") {
				t.Errorf("error: %d %q", resp.Error.Code, resp.Error.Message)
			}
			b, _ := json.Marshal(resp.Error.Data)
			var data core.Error
			if err := json.Unmarshal(b, &data); err != nil || data.Code != core.CodeConfirmationRequired || data.RunID == "" || data.Retryable {
				t.Errorf("error data %s (%v)", b, err)
			}
			if !strings.Contains(string(b), `"details":[]`) {
				t.Errorf("details is not an array: %s", b)
			}

			cm := call(ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true})
			if cm["result_type"] != "committed" || cm["counts"].(map[string]any)["created"] != 3.0 {
				t.Errorf("commit: %v", cm)
			}
			if asker.n.Load() != 1 {
				t.Errorf("mcp-go elicitation handler called %d times, want 1", asker.n.Load())
			}
			q := call(ToolWorkItemQuery, map[string]any{"document": "checkout", "limit": 2})
			if q["returned"] != 2.0 || q["truncated"] != true {
				t.Errorf("query: %v", q)
			}
		})
	}
}
