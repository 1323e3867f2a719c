package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	_ "modernc.org/sqlite"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/e2e/harness"
)

type commitJSON struct {
	ResultType string `json:"result_type"`
	Replayed   bool   `json:"replayed"`
	Counts     struct {
		Created, Updated, Unchanged, Drift int
	} `json:"counts"`
}

func codeOf(data map[string]any) string {
	if data == nil {
		return ""
	}
	s, _ := data["code"].(string)
	return s
}

// expirePreviews moves every preview's expiry 30 minutes into the past in
// the workspace's SQLite store: time passing, without waiting for it.
func (e *env) expirePreviews() {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "state.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE previews SET expires_at = created_at - (expires_at - created_at)`); err != nil {
		e.t.Fatalf("expire previews: %v", err)
	}
}

// TestMCPGate drives every gate rule through the real `dwire mcp` process:
// preview → commit, and the refusals, each with zero extra writes.
func TestMCPGate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{})
	p := planSpec{id: "mcp-plan", epics: 2, stories: 2}
	e.write("plan.md", p.markdown())
	cs, _ := e.mcp()

	var pv previewJSON
	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv); d != nil {
		t.Fatalf("import_preview failed: %v", d)
	}
	if pv.ResultType != "preview" || pv.Counts.Create != 6 || pv.PreviewHandle == "" {
		t.Fatalf("preview = %+v", pv)
	}
	if w := e.writes(); w != 0 {
		t.Fatalf("a preview made %d writes", w)
	}

	refusals := []struct {
		name string
		args map[string]any
		code string
	}{
		{"confirmed false", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": false}, "CONFIRMATION_REQUIRED"},
		{"confirmed missing", map[string]any{"preview_handle": pv.PreviewHandle}, "CONFIRMATION_REQUIRED"},
		{"no preview", map[string]any{"preview_handle": "imp_doesnotexist0000000000000000", "confirmed": true}, "PREVIEW_NOT_FOUND"},
	}
	for _, r := range refusals {
		if got := codeOf(e.call(cs, "import_commit", r.args, nil)); got != r.code {
			t.Errorf("%s: code %q, want %q", r.name, got, r.code)
		}
	}
	if w := e.writes(); w != 0 {
		t.Fatalf("refused commits made %d writes", w)
	}

	key := newKey()
	var c commitJSON
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": key}, &c); d != nil {
		t.Fatalf("import_commit failed: %v", d)
	}
	if c.ResultType != "committed" || c.Counts.Created != 6 {
		t.Fatalf("commit = %+v", c)
	}
	e.matches(p)
	w0 := e.writes()

	// The same key and handle again: the stored result, zero new writes.
	var again commitJSON
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": key}, &again); d != nil {
		t.Fatalf("repeat commit failed: %v", d)
	}
	if !again.Replayed || again.Counts.Created != 6 {
		t.Errorf("repeat commit = %+v, want the replayed result", again)
	}

	// One key with another handle is a client error.
	p.titles = map[string]string{"s-1": "Story 1, edited"}
	e.write("plan.md", p.markdown())
	var pv2 previewJSON
	e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv2)
	if pv2.Counts.Update != 1 {
		t.Fatalf("second preview = %+v", pv2.Counts)
	}
	if got := codeOf(e.call(cs, "import_commit", map[string]any{"preview_handle": pv2.PreviewHandle, "confirmed": true, "idempotency_key": key}, nil)); got != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("one key, two handles: %q", got)
	}

	// A progress handle is not an import handle.
	var pp struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if d := e.call(cs, "progress_preview", map[string]any{"item": "mcp-plan/s-1", "status": "in_progress"}, &pp); d != nil {
		t.Fatalf("progress_preview: %v", d)
	}
	if got := codeOf(e.call(cs, "import_commit", map[string]any{"preview_handle": pp.PreviewHandle, "confirmed": true}, nil)); got != "PREVIEW_NOT_FOUND" {
		t.Errorf("progress handle to import_commit: %q", got)
	}

	// After expiry.
	e.expirePreviews()
	d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv2.PreviewHandle, "confirmed": true}, nil)
	if got := codeOf(d); got != "PREVIEW_EXPIRED" {
		t.Errorf("expired preview: %q (%v)", got, d)
	}
	if w := e.writes(); w != w0 {
		t.Errorf("replay and refusals made %d extra writes", w-w0)
	}

	// Reads: what is ready, one item, and progress through the gate.
	var q struct {
		ResultType string `json:"result_type"`
		Items      []struct {
			Key, Title, Status string
		} `json:"items"`
		Returned  int  `json:"returned"`
		Truncated bool `json:"truncated"`
	}
	if d := e.call(cs, "workitem_query", map[string]any{"ready": true, "limit": 3}, &q); d != nil {
		t.Fatalf("workitem_query: %v", d)
	}
	if q.ResultType != "preview" || q.Returned != 3 || len(q.Items) != 3 || !q.Truncated {
		t.Errorf("query = %+v", q)
	}
	var pp2 struct {
		PreviewHandle string `json:"preview_handle"`
	}
	e.call(cs, "progress_preview", map[string]any{"item": "mcp-plan/s-2", "status": "done", "comment": "Shipped in **#42**"}, &pp2)
	var pc struct {
		ResultType   string `json:"result_type"`
		Status       string `json:"status"`
		CommentAdded bool   `json:"comment_added"`
	}
	if d := e.call(cs, "progress_commit", map[string]any{"preview_handle": pp2.PreviewHandle, "confirmed": true}, &pc); d != nil {
		t.Fatalf("progress_commit: %v", d)
	}
	if pc.ResultType != "committed" || pc.Status != "done" || !pc.CommentAdded {
		t.Errorf("progress commit = %+v", pc)
	}
	var g struct {
		Item struct {
			Status             string   `json:"status"`
			AcceptanceCriteria []string `json:"acceptance_criteria"`
			Epic               *struct {
				Title string `json:"title"`
			} `json:"epic"`
		} `json:"item"`
	}
	e.call(cs, "workitem_get", map[string]any{"item": "mcp-plan/s-2"}, &g)
	if g.Item.Status != "done" || len(g.Item.AcceptanceCriteria) != 2 || g.Item.Epic == nil || g.Item.Epic.Title != "Epic 1" {
		t.Errorf("workitem_get = %+v", g.Item)
	}
	if is := e.issuesByRef()["mcp-plan/s-2"]; is.StatusCategory != "done" {
		t.Errorf("tracker status of s-2 = %q", is.StatusCategory)
	}
	_ = ctx
}

// TestIndependentMCPClient drives the real `dwire mcp` with a different MCP
// implementation (mark3labs/mcp-go) in both protocol versions.
func TestIndependentMCPClient(t *testing.T) {
	for _, proto := range []string{"2025-11-25", mcpgo.LATEST_PROTOCOL_VERSION} {
		t.Run(proto, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			p := planSpec{id: "indep", epics: 1, stories: 2}
			e.write("plan.md", p.markdown())
			cmd := e.cmd("mcp")
			var stderr harness.SyncBuffer
			c, err := mcpgoclient.NewStdioMCPClientWithOptions(bins.Dwire, cmd.Env, []string{"mcp"},
				transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
					return e.cmd(args...), nil
				}),
				transport.WithCommandStderrWriter(&stderr))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = c.Close(); e.record(stderr.String()) }()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			init := mcpgo.InitializeRequest{}
			init.Params.ProtocolVersion = proto
			init.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-e2e", Version: "1.0.0"}
			ir, err := c.Initialize(ctx, init)
			if err != nil {
				t.Fatalf("initialize %s: %v", proto, err)
			}
			if ir.ServerInfo.Name != "dwire" || ir.ServerInfo.Version == "" || ir.ServerInfo.Version == "(devel)" {
				t.Errorf("serverInfo = %+v", ir.ServerInfo)
			}
			tl, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
			if err != nil || len(tl.Tools) != mcpTools {
				t.Fatalf("tools/list: %v, %d tools", err, len(tl.Tools))
			}
			callJSON := func(name string, args map[string]any, out any) {
				t.Helper()
				req := mcpgo.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = name, args
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", name, err, res)
				}
				b, _ := json.Marshal(res.StructuredContent)
				e.record(string(b))
				if err := json.Unmarshal(b, out); err != nil {
					t.Fatalf("%s: %v (%s)", name, err, b)
				}
			}
			var pv previewJSON
			callJSON("import_preview", map[string]any{"path": "plan.md"}, &pv)
			if pv.Counts.Create != 3 {
				t.Fatalf("preview = %+v", pv)
			}

			// A refused commit, read at the transport level since mcp-go's
			// CallTool keeps only the message: the data is the contract's
			// error payload.
			resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
				JSONRPC: "2.0", ID: mcpgo.NewRequestId(int64(900)), Method: "tools/call",
				Params: map[string]any{"name": "import_commit", "arguments": map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": false}},
			})
			if err != nil || resp.Error == nil {
				t.Fatalf("refused commit: err=%v resp=%+v", err, resp)
			}
			b, _ := json.Marshal(resp.Error.Data)
			e.record(string(b))
			var data struct {
				Code      string `json:"code"`
				Message   string `json:"message"`
				Retryable *bool  `json:"retryable"`
				RunID     string `json:"run_id"`
				Details   []any  `json:"details"`
			}
			if err := json.Unmarshal(b, &data); err != nil || data.Code != "CONFIRMATION_REQUIRED" || data.Retryable == nil || data.RunID == "" || data.Details == nil {
				t.Errorf("error data = %s (%v)", b, err)
			}

			var cm commitJSON
			callJSON("import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &cm)
			if cm.Counts.Created != 3 {
				t.Errorf("commit = %+v", cm)
			}
			var q struct {
				Returned int `json:"returned"`
			}
			callJSON("workitem_query", map[string]any{"document": "indep"}, &q)
			if q.Returned != 3 {
				t.Errorf("query returned %d, want 3", q.Returned)
			}
			e.matches(p)
		})
	}
}

const (
	rawInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawList        = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// TestMCPPrintfAnswersAll is `printf '<initialize>\n<initialized>\n
// <tools/list>\n' | dwire mcp`, 20 times, configured and with nothing at
// all (no configuration, no token): both answers every time.
func TestMCPPrintfAnswersAll(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, withConfig := range []bool{true, false} {
		for run := 1; run <= 20; run++ {
			c := e.cmd("mcp")
			if !withConfig {
				c = exec.Command(bins.Dwire, "mcp")
				c.Dir, c.Env = t.TempDir(), []string{}
			}
			c.Stdin = strings.NewReader(rawInit + "\n" + rawInitialized + "\n" + rawList + "\n")
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			if err := streamtest.RunWithin(c, time.Minute); err != nil {
				t.Fatalf("run %d (config %v): %v\n%s", run, withConfig, err, errb.String())
			}
			e.record(out.String() + errb.String())
			ids := 0
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(line), &m) != nil {
					t.Fatalf("stdout line is not JSON: %q", line)
				}
				if _, ok := m["result"]; ok {
					ids++
				}
			}
			if ids != 2 {
				t.Fatalf("run %d (config %v): %d of 2 answers:\n%s\nstderr:\n%s", run, withConfig, ids, out.String(), errb.String())
			}
		}
	}
}

// TestMCPSignalExitsZero: SIGTERM and SIGINT on an idle `dwire mcp` exit 0.
func TestMCPSignalExitsZero(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		c := e.cmd("mcp")
		p := streamtest.StartWaited(t, c)
		errb := p.Stderr
		if _, err := io.WriteString(p.Stdin, rawInit+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(p.Stdout).ReadString('\n'); err != nil {
			t.Fatalf("no answer to initialize: %v\n%s", err, errb.String())
		}
		if err := c.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Exited():
			if err := p.Err(); err != nil {
				t.Errorf("%v on an idle dwire mcp: %v\n%s", sig, err, errb.String())
			}
		case <-time.After(30 * time.Second):
			kill(c)
			t.Fatalf("dwire mcp did not stop on %v", sig)
		}
		e.record(errb.String())
	}
}
