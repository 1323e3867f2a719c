package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
)

const (
	rawInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawToolsList   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// answersByID decodes stdout and indexes the responses by id.
func answersByID(t *testing.T, out []byte) map[float64]map[string]any {
	t.Helper()
	got := map[float64]map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stdout is not JSON-RPC lines: %v\n%s", err, out)
			}
			return got
		}
		if id, ok := m["id"].(float64); ok {
			got[id] = m
		}
	}
}

// TestStdinEndAnswersEveryRequest is `printf '<initialize>\n<initialized>\n
// <tools/list>\n' | server`: every request read before stdin ended is
// answered before the server exits, in 20 of 20 runs (the SDK alone
// answered none: it stops writing when its reader sees the end).
func TestStdinEndAnswersEveryRequest(t *testing.T) {
	ws, _ := newWorkspace(t)
	input := rawInitialize + "\n" + rawInitialized + "\n" + rawToolsList + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workitem_query","arguments":{}}}` + "\n"
	for run := 1; run <= 20; run++ {
		cmd := exec.Command(serverBinary(t), "-workspace", ws)
		cmd.Stdin = strings.NewReader(input)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := streamtest.RunWithin(cmd, 20*time.Second); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
		}
		got := answersByID(t, stdout.Bytes())
		if len(got) != 3 {
			t.Fatalf("run %d: %d of 3 requests answered:\n%s\nstderr:\n%s", run, len(got), stdout.String(), stderr.String())
		}
		tools, _ := got[2]["result"].(map[string]any)["tools"].([]any)
		if len(tools) != len(toolNames) {
			t.Fatalf("run %d: tools/list answered %v", run, got[2])
		}
		if _, ok := got[3]["result"]; !ok {
			t.Fatalf("run %d: workitem_query answered %v", run, got[3])
		}
		assertJSONRPCOnly(t, stdout.Bytes())
	}
}

// rawServer is the test server on pipes, for tests that speak lines.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *streamtest.Buffer
	proc   *streamtest.Piped
}

func startRaw(t *testing.T) *rawServer {
	t.Helper()
	ws, _ := newWorkspace(t)
	cmd := exec.Command(serverBinary(t), "-workspace", ws)
	pp := streamtest.StartWaited(t, cmd)
	r := &rawServer{cmd: cmd, stdin: pp.Stdin, lines: make(chan map[string]any, 64), stderr: pp.Stderr, proc: pp}
	go func() {
		sc := bufio.NewScanner(pp.Stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				r.lines <- m
			}
		}
		close(r.lines)
	}()
	return r
}

func (r *rawServer) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *rawServer) answer(t *testing.T, id float64) map[string]any {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				t.Fatalf("stdout ended before answer %v; stderr:\n%s", id, r.stderr.String())
			}
			if got, _ := m["id"].(float64); got == id {
				return m
			}
		case <-deadline:
			t.Fatalf("no answer %v; stderr:\n%s", id, r.stderr.String())
		}
	}
}

// waitStderr polls the server's stderr for s.
func (r *rawServer) waitStderr(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.stderr.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never showed %q:\n%s", s, r.stderr.String())
		}
		time.Sleep(5 * time.Millisecond) // polling a child's output; the deadline bounds it
	}
}

func (r *rawServer) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-r.proc.Exited():
		err := r.proc.Err()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not exit; stderr:\n%s", r.stderr.String())
		return -1
	}
}

// TestSignalOnIdleServerExitsZero: SIGTERM and SIGINT on an idle server
// are a clean stop (exit 0), not a failure.
func TestSignalOnIdleServerExitsZero(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			r := startRaw(t)
			r.send(t, rawInitialize, rawInitialized, rawToolsList)
			r.answer(t, 2)
			if err := r.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := r.exitCode(t); code != 0 {
				t.Errorf("exit %d after %v on an idle server; stderr:\n%s", code, sig, r.stderr.String())
			}
		})
	}
}

// TestLongCallIsCancellable: notifications/cancelled ends a running call
// (its context), the server keeps serving, and SIGTERM during a running
// call cancels it, answers it and exits 0.
func TestLongCallIsCancellable(t *testing.T) {
	r := startRaw(t)
	r.send(t, rawInitialize, rawInitialized)
	r.answer(t, 1)
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"workitem_get","arguments":{"item":"BLOCK-1"}}}`)
	r.waitStderr(t, "mcptestserver: blocking")
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the person pressed stop"}}`)
	r.waitStderr(t, `"tool":"workitem_get","outcome":"error"`)
	r.send(t, rawToolsList)
	r.answer(t, 2)

	r.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"workitem_get","arguments":{"item":"BLOCK-1"}}}`)
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(r.stderr.String(), "mcptestserver: blocking") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("second call never started:\n%s", r.stderr.String())
		}
		time.Sleep(5 * time.Millisecond) // polling a child's output; the deadline bounds it
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a := r.answer(t, 4)
	e, _ := a["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if msg, _ := data["message"].(string); !strings.Contains(msg, "the MCP server is stopping") {
		t.Errorf("answer to the call running at SIGTERM: %v", a)
	}
	if code := r.exitCode(t); code != 0 {
		t.Errorf("exit %d after SIGTERM during a call; stderr:\n%s", code, r.stderr.String())
	}
}

// TestOneLogLinePerToolCall: at the default level each tools/call writes
// exactly one line with tool, outcome or code, run_id and duration, and
// the SDK's own session chatter stays out.
func TestOneLogLinePerToolCall(t *testing.T) {
	logs := &streamtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c := connect(t, &fakeService{}, Options{Logger: logger}, nil, "")
	c.mustCall(t, ToolWorkItemQuery, map[string]any{})
	_, err := c.call(t, ToolWorkItemGet, map[string]any{"item": 12})
	wantCode(t, err, "VALIDATION_FAILED")
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 log lines for 2 calls, got %d:\n%s", len(lines), logs.String())
	}
	for i, want := range []map[string]any{
		{"tool": ToolWorkItemQuery, "outcome": "ok", "run_id": "run-q"},
		{"tool": ToolWorkItemGet, "outcome": "error", "code": "VALIDATION_FAILED"},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("line %d: %s = %v, want %v (%s)", i+1, k, m[k], v, lines[i])
			}
		}
		if _, ok := m["duration_ms"]; !ok {
			t.Errorf("line %d has no duration_ms: %s", i+1, lines[i])
		}
		if rid, _ := m["run_id"].(string); rid == "" {
			t.Errorf("line %d has no run_id: %s", i+1, lines[i])
		}
	}
}
