package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// Protocol versions the server must work with: the last one with the
// initialize handshake, and the SDK's newest (stateless, multi round-trip).
const (
	protoLegacy = "2025-11-25"
	protoNewest = "2026-07-28"
)

var protocols = []string{protoLegacy, protoNewest}

type conn struct {
	cs   *mcp.ClientSession
	logs *streamtest.Buffer
}

// connect runs New(svc, o) over in-memory transports and connects a go-sdk
// client speaking the given protocol version.
func connect(t testing.TB, svc Service, o Options, copts *mcp.ClientOptions, version string) *conn {
	t.Helper()
	logs := &streamtest.Buffer{}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.Version == "" {
		o.Version = "v0.1.0-test"
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(svc, o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, copts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return &conn{cs: cs, logs: logs}
}

func (c *conn) call(t testing.TB, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	return c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

// mustCall calls a tool that must succeed and returns its structured
// content, validated against the tool's advertised output schema.
func (c *conn) mustCall(t testing.TB, name string, args any) map[string]any {
	t.Helper()
	res, err := c.call(t, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError result: %v", name, res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	validateOutput(t, c.tool(t, name), raw)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (c *conn) tool(t testing.TB, name string) *mcp.Tool {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("tool %s not listed", name)
	return nil
}

// validateOutput checks a result against the tool's output schema with an
// independent validator (santhosh-tekuri/jsonschema, formats asserted),
// and that it holds no null anywhere.
func validateOutput(t testing.TB, tool *mcp.Tool, raw []byte) {
	t.Helper()
	schema, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	validateAgainst(t, tool.Name, schema, raw)
}

func validateAgainst(t testing.TB, name string, schema, raw []byte) {
	t.Helper()
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://"+name+".json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://" + name + ".json")
	if err != nil {
		t.Fatalf("%s: output schema does not compile: %v", name, err)
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s: result does not match its output schema: %v\n%s", name, err, raw)
	}
	if strings.Contains(string(raw), "null") {
		var v any
		_ = json.Unmarshal(raw, &v)
		if hasNull(v) {
			t.Errorf("%s: result holds a null: %s", name, raw)
		}
	}
}

func hasNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// wireError asserts err is a JSON-RPC error in the contract's shape and
// returns its decoded data.
func wireError(t testing.TB, err error) (*jsonrpc.Error, map[string]any) {
	t.Helper()
	if err == nil {
		t.Fatal("want a JSON-RPC error, got success")
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want *jsonrpc.Error, got %T: %v", err, err)
	}
	if we.Code != ErrorCode {
		t.Errorf("JSON-RPC code = %d, want %d", we.Code, ErrorCode)
	}
	var data map[string]any
	if err := json.Unmarshal(we.Data, &data); err != nil {
		t.Fatalf("error data is not a JSON object: %v: %s", err, we.Data)
	}
	for _, k := range []string{"code", "message", "details", "retryable", "run_id"} {
		if _, ok := data[k]; !ok {
			t.Errorf("error data lacks %q: %s", k, we.Data)
		}
	}
	code, _ := data["code"].(string)
	if !strings.HasPrefix(we.Message, code+": ") {
		t.Errorf("message %q does not start with the code %q", we.Message, code)
	}
	if _, ok := data["details"].([]any); !ok {
		t.Errorf("details is not an array: %s", we.Data)
	}
	if rid, _ := data["run_id"].(string); rid == "" {
		t.Errorf("run_id is empty: %s", we.Data)
	}
	if r, _ := data["retryable"].(bool); r != core.Code(code).Retryable() {
		t.Errorf("retryable = %v for %s", r, code)
	}
	return we, data
}

func wantCode(t testing.TB, err error, code core.Code) map[string]any {
	t.Helper()
	_, data := wireError(t, err)
	if got := data["code"]; got != string(code) {
		t.Fatalf("code = %v, want %s (message: %v)", got, code, data["message"])
	}
	return data
}
