package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

const mcpTestConfig = "jira:\n  site: https://example.atlassian.net\n  project: DEMO\n  email: me@example.com\n"

// mcpSession runs `dwire mcp` (mcpRun) over pipes with env as its whole
// environment and connects a go-sdk client.
func mcpSession(t *testing.T, dir string, env map[string]string) (*mcp.ClientSession, *cmdutil.Factory, func() error) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ios.In, ios.Out = inR, outW
	prov := fakeprovider.New(fakeprovider.Options{})
	opened := 0
	f := &cmdutil.Factory{
		IOStreams: ios,
		Getenv:    func(k string) string { return env[k] },
		WorkDir:   dir,
		Version:   "v0.0.0-test",
		OpenProvider: func(context.Context, *config.Config, string, *slog.Logger) (core.WorkItemProvider, error) {
			opened++
			return prov, nil
		},
		OpenStore: func(context.Context, *config.Config, *slog.Logger) (core.Store, error) {
			return memstore.New(memstore.Options{}), nil
		},
		NewService: func(p core.WorkItemProvider, s core.Store, _ *config.Config, log *slog.Logger) cmdutil.Service {
			return service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: s, Logger: log})
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcpRun(ctx, &MCPOptions{F: f, Elicitation: "off"})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop := func() error {
		_ = cs.Close()
		select {
		case err := <-done:
			cancel()
			return err
		case <-time.After(20 * time.Second):
			cancel()
			return errors.New("dwire mcp did not return after stdin closed")
		}
	}
	t.Cleanup(func() { cancel() })
	return cs, f, stop
}

func toolError(t *testing.T, err error) map[string]any {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	var data map[string]any
	if err := json.Unmarshal(we.Data, &data); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMCPStartsWithoutConfigOrToken: with no configuration, an invalid
// one, or no token, `dwire mcp` starts, lists its tools, and answers each
// Jira call with the code and a fix for the host; once the file is fixed
// the next call works without a restart.
func TestMCPStartsWithoutConfigOrToken(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cs, _, stop := mcpSession(t, dir, map[string]string{})
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("tools/list without a configuration: %v", err)
	}
	call := func(name string, args map[string]any) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		return err
	}

	// No configuration.
	d := toolError(t, call("workitem_query", map[string]any{}))
	msg, _ := d["message"].(string)
	if d["code"] != "CONFIG_MISSING" || !strings.Contains(msg, "DWIRE_CONFIG") || !strings.Contains(msg, `"env" of this server in your MCP host's configuration`) || !strings.Contains(msg, "no host restart") {
		t.Errorf("no config: %v", d)
	}
	// Invalid configuration, then no token: the file is read again each time.
	must(t, os.WriteFile(filepath.Join(dir, config.FileName), []byte("jira:\n  site: not a url\n"), 0o600))
	d = toolError(t, call("workitem_query", map[string]any{}))
	if d["code"] != "CONFIG_INVALID" || !strings.Contains(d["message"].(string), "no host restart") {
		t.Errorf("invalid config: %v", d)
	}
	must(t, os.WriteFile(filepath.Join(dir, config.FileName), []byte(mcpTestConfig), 0o600))
	d = toolError(t, call("import_preview", map[string]any{"path": "plan.md"}))
	msg, _ = d["message"].(string)
	if d["code"] != "CREDENTIALS_MISSING" || !strings.Contains(msg, "add JIRA_API_TOKEN to the \"env\" of this server") || !strings.Contains(msg, "DWIRE_CONFIG") {
		t.Errorf("no token: %v", d)
	}
	// Arguments are still checked first.
	if d := toolError(t, call("workitem_query", map[string]any{"limit": 0})); d["code"] != "VALIDATION_FAILED" {
		t.Errorf("bad arguments without a token: %v", d)
	}
	if err := stop(); err != nil {
		t.Fatalf("dwire mcp returned %v", err)
	}

	// With the token (and the same file) the service opens on the first call.
	cs, f, stop := mcpSession(t, dir, map[string]string{"JIRA_API_TOKEN": "tok-not-secret-123"})
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workitem_query", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("configured query: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workitem_query", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("second query: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	_ = f
}

// TestMCPConfigMissingNamesDWIRECONFIG: a DWIRE_CONFIG that points nowhere
// is named in the message.
func TestMCPConfigMissingNamesDWIRECONFIG(t *testing.T) {
	cs, _, stop := mcpSession(t, t.TempDir(), map[string]string{"DWIRE_CONFIG": "/nowhere/.devworkwire.yaml", "JIRA_API_TOKEN": "x"})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workitem_get", Arguments: map[string]any{"item": "DEMO-1"}})
	d := toolError(t, err)
	if d["code"] != "CONFIG_MISSING" || !strings.Contains(d["message"].(string), "at /nowhere/.devworkwire.yaml (named by DWIRE_CONFIG)") {
		t.Errorf("%v", d)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestMCPServerJSONFlagPrintsTheRegistryEntry(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }, Version: "v1.4.2"}
	c := NewCmdMCP(f, nil)
	c.SetArgs([]string{"--server-json"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name, Version string
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Name != "io.github.devworkwire/devworkwire" || doc.Version != "1.4.2" {
		t.Errorf("server.json = %s", out)
	}
}
