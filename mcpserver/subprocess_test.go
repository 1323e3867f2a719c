package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The subprocess tests run internal/mcptest/mcptestserver (the real mcpserver
// over the real core service, fakeprovider and memstore) and talk to it
// over its stdin/stdout.

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func serverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mcptestserver-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcptestserver")
		buildErr = streamtest.GoBuild(binPath, "./internal/mcptest/mcptestserver")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

const checkoutDoc = `---
id: checkout
---
# Checkout v2

## Epic e-1: Guest checkout
Let people buy without an account.

### Story s-1: Pay without an account
Card payments for guests.

Acceptance criteria:
- A guest can pay with a card
- The order confirmation is e-mailed

### Story s-2: Save address for next time
Acceptance criteria:
- The address is offered at the next checkout
`

const invalidDoc = `---
id: broken
---
# Broken

### Story s-1: Orphan
Epic: e-9

### Story s-1:
`

// newWorkspace lays out a workspace with a valid plan, an invalid one, an
// oversized one, and a document outside it.
func newWorkspace(t testing.TB) (ws, outside string) {
	t.Helper()
	root := t.TempDir()
	ws = filepath.Join(root, "ws")
	outside = filepath.Join(root, "elsewhere.md")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "plans"), 0o755))
	must(os.WriteFile(filepath.Join(ws, ".devworkwire.yaml"), []byte("# test workspace\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "plans", "checkout.md"), []byte(checkoutDoc), 0o644))
	must(os.WriteFile(filepath.Join(ws, "plans", "broken.md"), []byte(invalidDoc), 0o644))
	must(os.WriteFile(filepath.Join(ws, "plans", "huge.md"), bytes.Repeat([]byte("# x\n"), (6<<20)/4), 0o644))
	must(os.WriteFile(outside, []byte(checkoutDoc), 0o644))
	return ws, outside
}

// proc is a running mcptestserver with its stdout recorded byte for byte.
type proc struct {
	cmd    *exec.Cmd
	stdout *streamtest.Buffer
	stderr *streamtest.Buffer
	t      mcp.Transport
	done   <-chan struct{} // closed when the process exited
	waited *streamtest.Piped
}

type teeReadCloser struct {
	io.Reader
	c io.Closer
}

func (r teeReadCloser) Close() error { return r.c.Close() }

func startServer(t testing.TB, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(serverBinary(t), args...)
	pp := streamtest.StartWaited(t, cmd)
	p := &proc{cmd: cmd, stdout: &streamtest.Buffer{}, stderr: pp.Stderr, done: pp.Exited(), waited: pp}
	p.t = &mcp.IOTransport{Reader: teeReadCloser{io.TeeReader(pp.Stdout, p.stdout), pp.Stdout}, Writer: pp.Stdin}
	return p
}

// finish waits for the server to exit after the client closed stdin and
// checks that every byte it wrote to stdout is a JSON-RPC message.
func (p *proc) finish(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
		if err := p.waited.Err(); err != nil {
			t.Errorf("server exited with %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("server did not exit after stdin closed")
	}
	assertJSONRPCOnly(t, []byte(p.stdout.String()))
}

func assertJSONRPCOnly(t testing.TB, out []byte) int {
	t.Helper()
	if len(out) == 0 {
		t.Fatal("no output on stdout")
	}
	if out[len(out)-1] != '\n' {
		t.Errorf("stdout does not end with a newline: ...%q", out[max(0, len(out)-80):])
	}
	n := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var env struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(line, &env); err != nil || env.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC 2.0 message: %q", i+1, trunc(line))
			continue
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil && !idlessError(line) {
			t.Errorf("stdout line %d does not decode as JSON-RPC: %v: %q", i+1, err, trunc(line))
		}
		n++
	}
	return n
}

// idlessError reports whether line is an error response without an id:
// the answer to a line that is not a message, which MCP 2025-11-25 allows
// (the SDK's decoder, older, does not).
func idlessError(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	_, hasID := m["id"]
	_, hasErr := m["error"]
	_, hasMethod := m["method"]
	return hasErr && !hasID && !hasMethod && len(m) == 2
}

func trunc(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func callOK(t testing.TB, cs *mcp.ClientSession, tools map[string]*mcp.Tool, name string, args any, meta mcp.Meta) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	validateOutput(t, tools[name], raw)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// callErr calls a tool that must fail with code ("" = any code).
func callErr(t testing.TB, cs *mcp.ClientSession, name string, args any, code core.Code) map[string]any {
	t.Helper()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if code == "" {
		_, data := wireError(t, err)
		return data
	}
	return wantCode(t, err, code)
}

// TestSubprocessEveryTool drives the real binary over stdio with both
// protocol versions: every tool's success path, the gate's refusals,
// argument validation, a panic and huge inputs; then checks that stdout
// held nothing but JSON-RPC messages and stderr has the run ids.
func TestSubprocessEveryTool(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			ws, outside := newWorkspace(t)
			p := startServer(t, "-workspace", ws, "-version", "v9.8.7")
			var asked, progress int
			var mu sync.Mutex
			client := mcp.NewClient(&mcp.Implementation{Name: "subprocess-test", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked++
					mu.Unlock()
					if !strings.Contains(r.Params.Message, "checkout") && !strings.Contains(r.Params.Message, "DEMO-") {
						t.Errorf("confirmation question does not say what is written: %q", r.Params.Message)
					}
					return accept(), nil
				},
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress++
					mu.Unlock()
				},
			})
			cs, err := client.Connect(context.Background(), p.t, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				t.Fatalf("connect: %v; stderr:\n%s", err, p.stderr.String())
			}
			ir := cs.InitializeResult()
			if ir.ServerInfo.Name != "dwire" || ir.ServerInfo.Version != "v9.8.7" || ir.ProtocolVersion != proto {
				t.Errorf("initialize: %+v %s", ir.ServerInfo, ir.ProtocolVersion)
			}
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			for _, tl := range lt.Tools {
				tools[tl.Name] = tl
			}
			if len(tools) != len(toolNames) {
				t.Fatalf("listed %d tools", len(tools))
			}

			// Preview, commit (asked, with progress), replay.
			pv := callOK(t, cs, tools, ToolImportPreview, map[string]any{"path": "plans/checkout.md"}, nil)
			counts, _ := pv["counts"].(map[string]any)
			if counts["create"] != 3.0 || pv["result_type"] != "preview" {
				t.Fatalf("preview: %v", pv)
			}
			handle := pv["preview_handle"].(string)
			commitArgs := map[string]any{"preview_handle": handle, "confirmed": true, "idempotency_key": "k-" + proto}
			cm := callOK(t, cs, tools, ToolImportCommit, commitArgs, mcp.Meta{"progressToken": "p-1"})
			if cm["result_type"] != "committed" || cm["counts"].(map[string]any)["created"] != 3.0 {
				t.Fatalf("commit: %v", cm)
			}
			again := callOK(t, cs, tools, ToolImportCommit, commitArgs, nil)
			if again["replayed"] != true {
				t.Errorf("second commit with the same key is not a replay: %v", again)
			}
			mu.Lock()
			if asked != 1 {
				t.Errorf("the person was asked %d times, want 1", asked)
			}
			if progress < 1 {
				t.Errorf("no progress notification during the commit")
			}
			mu.Unlock()

			// Reads.
			q := callOK(t, cs, tools, ToolWorkItemQuery, map[string]any{"document": "checkout"}, nil)
			if q["returned"] != 3.0 || q["truncated"] != false {
				t.Errorf("query: %v", q)
			}
			g := callOK(t, cs, tools, ToolWorkItemGet, map[string]any{"item": "checkout/s-1"}, nil)
			item := g["item"].(map[string]any)
			key := item["key"].(string)
			if item["title"] != "Pay without an account" || item["epic"] == nil {
				t.Errorf("get: %v", g)
			}
			callOK(t, cs, tools, ToolWorkItemGet, map[string]any{"item": key}, nil)
			epic := item["epic"].(map[string]any)["key"].(string)
			ex := callOK(t, cs, tools, ToolDocumentExport, map[string]any{"epic": epic}, nil)
			if ex["document"] != "checkout" || ex["epics"] != 1.0 || ex["stories"] != 2.0 || !strings.Contains(ex["text"].(string), "Key: "+epic) {
				t.Errorf("export: %v", ex)
			}

			// Progress.
			pp := callOK(t, cs, tools, ToolProgressPreview, map[string]any{"item": key, "status": "in_progress", "comment": "Started."}, nil)
			pc := callOK(t, cs, tools, ToolProgressCommit, map[string]any{"preview_handle": pp["preview_handle"], "confirmed": true}, nil)
			if pc["status"] != "in_progress" || pc["result_type"] != "committed" {
				t.Errorf("progress commit: %v", pc)
			}

			// The gate and the service's refusals.
			callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": handle}, core.CodeConfirmationRequired)
			callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": "imp_0000", "confirmed": true}, core.CodePreviewNotFound)
			callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": pp["preview_handle"], "confirmed": true}, "")
			callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true, "idempotency_key": "other"}, "")
			callErr(t, cs, ToolImportPreview, map[string]any{"path": outside}, core.CodeSourceNotFound)
			callErr(t, cs, ToolImportPreview, map[string]any{"path": "../elsewhere.md"}, core.CodeSourceNotFound)
			v := callErr(t, cs, ToolImportPreview, map[string]any{"path": "plans/broken.md"}, core.CodeValidationFailed)
			if d, _ := v["details"].([]any); len(d) < 2 {
				t.Errorf("validation details should list every problem: %v", v)
			}
			callErr(t, cs, ToolImportPreview, map[string]any{"path": "plans/huge.md"}, core.CodeSourceParseFailed)
			callErr(t, cs, ToolWorkItemGet, map[string]any{"item": "DEMO-999"}, core.CodeWorkItemNotFound)
			callErr(t, cs, ToolWorkItemQuery, map[string]any{"limit": 0}, core.CodeValidationFailed)
			callErr(t, cs, ToolProgressPreview, map[string]any{}, core.CodeValidationFailed)

			// A panic is INTERNAL_ERROR and the server keeps serving.
			callErr(t, cs, ToolWorkItemGet, map[string]any{"item": "PANIC-1"}, core.CodeInternal)
			callOK(t, cs, tools, ToolWorkItemGet, map[string]any{"item": key}, nil)

			// Huge inputs: megabytes of argument text.
			huge := strings.Repeat("x", 3<<20)
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolWorkItemQuery, Arguments: map[string]any{"text": huge}})
			if err != nil {
				wireError(t, err)
			}
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolProgressPreview, Arguments: map[string]any{"item": key, "comment": huge}})
			if err != nil {
				wireError(t, err)
			}
			callOK(t, cs, tools, ToolWorkItemQuery, map[string]any{"status": "in_progress"}, nil)

			cs.Close()
			p.finish(t)
			logs := p.stderr.String()
			if !strings.Contains(logs, `"run_id":"run_`) || !strings.Contains(logs, `"tool":"import_commit"`) {
				t.Errorf("stderr lacks per-call logs with run ids:\n%s", trunc([]byte(logs)))
			}
		})
	}
}

// TestSubprocessGateOptions: elicitation "required" refuses a client that
// cannot ask; a failing create stops the commit with COMMIT_PARTIAL and
// per-item details.
func TestSubprocessGateOptions(t *testing.T) {
	ws, _ := newWorkspace(t)
	p := startServer(t, "-workspace", ws, "-elicitation", "required", "-fail-create", "2")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "no-elicitation", Version: "1"}, nil).Connect(context.Background(), p.t, &mcp.ClientSessionOptions{ProtocolVersion: protoLegacy})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportPreview, Arguments: map[string]any{"path": "plans/checkout.md"}})
	if err != nil {
		t.Fatal(err)
	}
	handle := res.StructuredContent.(map[string]any)["preview_handle"]
	d := callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true}, core.CodeConfirmationRequired)
	if !strings.Contains(d["message"].(string), "does not support elicitation") {
		t.Errorf("message: %v", d["message"])
	}
	cs.Close()
	p.finish(t)

	p = startServer(t, "-workspace", ws, "-elicitation", "off", "-fail-create", "2")
	cs, err = mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), p.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportPreview, Arguments: map[string]any{"path": "plans/checkout.md"}})
	if err != nil {
		t.Fatal(err)
	}
	handle = res.StructuredContent.(map[string]any)["preview_handle"]
	d = callErr(t, cs, ToolImportCommit, map[string]any{"preview_handle": handle, "confirmed": true}, core.CodeCommitPartial)
	outcomes := map[string]int{}
	for _, x := range d["details"].([]any) {
		outcomes[fmt.Sprint(x.(map[string]any)["outcome"])]++
	}
	// Items of one bulk create are tried together, so what follows the
	// failed item may be committed or untried; one failed, one committed.
	if outcomes[core.OutcomeCommitted] < 1 || outcomes[core.OutcomeFailed] != 1 || len(d["details"].([]any)) != 3 {
		t.Errorf("partial commit details: %v", d["details"])
	}
	cs.Close()
	p.finish(t)
}

// TestSubprocessRawStdio speaks raw newline-delimited JSON-RPC to the
// binary: a panic and a non-object arguments value get contract errors,
// and a line that is not JSON ends the session without anything but
// JSON-RPC ever reaching stdout.
func TestSubprocessRawStdio(t *testing.T) {
	ws, _ := newWorkspace(t)
	cmd := exec.Command(serverBinary(t), "-workspace", ws)
	pp := streamtest.Start(t, cmd)
	stdin, out, stderr := pp.Stdin, pp.Stdout, pp.Stderr
	defer cmd.Process.Kill()
	recorded := &streamtest.Buffer{}
	lines := make(chan map[string]any, 16)
	go func() {
		dec := json.NewDecoder(io.TeeReader(out, recorded))
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(lines)
				return
			}
			lines <- m
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workitem.get","arguments":{"item":"PANIC-1"}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workitem.get","arguments":"DEMO-1"}}`)
	got := map[float64]map[string]any{}
	deadline := time.After(20 * time.Second)
	for len(got) < 3 {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended early; stderr:\n%s", stderr.String())
			}
			if id, ok := m["id"].(float64); ok {
				got[id] = m
			}
		case <-deadline:
			t.Fatalf("no answers to requests 1-3; got %v", got)
		}
	}
	for id, code := range map[float64]string{2: "INTERNAL_ERROR", 3: "VALIDATION_FAILED"} {
		e, _ := got[id]["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if data["code"] != code || e["code"] != float64(ErrorCode) {
			t.Errorf("request %v: %v", id, got[id])
		}
	}
	send("this is not JSON")
	stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop when stdin closed after a malformed line")
	}
	assertJSONRPCOnly(t, []byte(recorded.String()))
}
