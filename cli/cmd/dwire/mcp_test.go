package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestMCPOverStdio runs `dwire mcp` as a harness would: JSON-RPC lines on
// stdin (kept open), only JSON-RPC on stdout, logs on stderr.
func TestMCPOverStdio(t *testing.T) {
	f := newPTYFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, "one.md"), []byte("---\nid: one\n---\n# One\n\n## Epic e-1: One\n"), 0o600))
	m := startMCP(t, f)
	send, recv, stderr := m.send, m.recv, m.stderr
	init := m.initialize()
	info := init["result"].(map[string]any)["serverInfo"].(map[string]any)
	if info["name"] != "dwire" || info["version"] == "" {
		t.Fatalf("serverInfo = %v", info)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"import.preview","arguments":{"path":"one.md"}}}`)
	res := recv(2)
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `\"result_type\": \"preview\"`) && !strings.Contains(string(b), `"result_type":"preview"`) {
		t.Fatalf("import.preview result = %s", b)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"import.commit","arguments":{"preview_handle":"imp_00000000000000000000000000000000","confirmed":false}}}`)
	res = recv(3)
	b, _ = json.Marshal(res)
	if !strings.Contains(string(b), "CONFIRMATION_REQUIRED") && !strings.Contains(string(b), "PREVIEW_NOT_FOUND") {
		t.Fatalf("unconfirmed commit = %s", b)
	}
	m.close(t)
	if len(f.srv.Writes()) != 0 {
		t.Fatalf("%d writes over MCP without a confirmed commit", len(f.srv.Writes()))
	}
	if strings.Contains(stderr.String(), testToken) {
		t.Fatal("token in the MCP server's logs")
	}
	if !strings.Contains(stderr.String(), "run_id=") {
		t.Fatalf("-v logged nothing to stderr:\n%s", stderr.String())
	}
}

// mcpSession is `dwire mcp -v` running as a harness runs it: JSON-RPC
// lines on its stdin (kept open), its stdout read line by line.
type mcpSession struct {
	pp     *streamtest.Piped
	stdin  io.WriteCloser
	stderr *streamtest.Buffer
	lines  chan string
	send   func(s string)
	recv   func(id int) map[string]any // the answer to request id (others skipped)
	next   func() map[string]any       // the next message
}

func startMCP(t *testing.T, f *ptyFixture) *mcpSession {
	t.Helper()
	cmd := exec.Command("dwire", "mcp", "-v")
	cmd.Dir = f.dir
	cmd.Env = f.env
	pp := streamtest.StartWaited(t, cmd)
	m := &mcpSession{pp: pp, stdin: pp.Stdin, stderr: pp.Stderr, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(pp.Stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m.lines <- sc.Text()
		}
		close(m.lines)
	}()
	m.send = func(s string) { _, err := m.stdin.Write([]byte(s + "\n")); must(t, err) }
	// next is the next message on stdout, before deadline.
	next := func(deadline <-chan time.Time, what string) map[string]any {
		t.Helper()
		select {
		case l, ok := <-m.lines:
			if !ok {
				t.Fatalf("stdout closed; stderr:\n%s", m.stderr.String())
			}
			var msg map[string]any
			if err := json.Unmarshal([]byte(l), &msg); err != nil {
				t.Fatalf("stdout carried a non-JSON-RPC line: %q", l)
			}
			return msg
		case <-deadline:
			t.Fatalf("no %s; stderr:\n%s", what, m.stderr.String())
		}
		return nil
	}
	m.next = func() map[string]any { t.Helper(); return next(time.After(20*time.Second), "answer") }
	m.recv = func(id int) map[string]any {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			msg := next(deadline, fmt.Sprintf("response %d", id))
			if v, ok := msg["id"].(float64); ok && int(v) == id {
				return msg
			}
		}
	}
	return m
}

// export calls document_export with args (a JSON object) as request 2
// and returns the result's structured content and its warnings; an error
// result fails the test.
func (m *mcpSession) export(t *testing.T, args string) (sc map[string]any, warnings []string) {
	t.Helper()
	m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"document_export","arguments":` + args + `}}`)
	res := m.recv(2)
	r, _ := res["result"].(map[string]any)
	sc, _ = r["structuredContent"].(map[string]any)
	if sc == nil || r["isError"] == true {
		t.Fatalf("document_export = %v", res)
	}
	ws, _ := sc["warnings"].([]any)
	for _, w := range ws {
		s, ok := w.(string)
		if !ok {
			t.Fatalf("document_export warning %v is not a string", w)
		}
		warnings = append(warnings, s)
	}
	return sc, warnings
}

// close closes stdin, as a harness ends a session, and fails the test
// unless dwire mcp then exits cleanly.
func (m *mcpSession) close(t *testing.T) {
	t.Helper()
	m.stdin.Close()
	if err := m.pp.WaitExit(t, 20*time.Second, "when stdin closed"); err != nil {
		t.Fatalf("dwire mcp exited with %v after stdin closed\n%s", err, m.stderr.String())
	}
}

// initialize is the harness's handshake (protocol version 2025-06-18).
func (m *mcpSession) initialize() map[string]any { return m.initializeAs("2025-06-18") }

// initializeAs is the handshake asking for the protocol version.
func (m *mcpSession) initializeAs(version string) map[string]any {
	m.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`)
	init := m.recv(1)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return init
}

// document_export's warnings are one per kind, each naming at most 5
// issues with the count of all, however many issues they concern; the
// result says warnings_truncated and how a person sees every one.
func TestMCPExportWarningsAreBounded(t *testing.T) {
	f := newPTYFixture(t)
	story, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Owned story", Reference: "shop/s-1"})
	must(t, err)
	for i := range 60 {
		_, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Sub-task", Summary: fmt.Sprintf("Task %d", i), Parent: story})
		must(t, err)
	}
	_, err = f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Loose idea"})
	must(t, err)
	m := startMCP(t, f)
	m.initialize()
	sc, warnings := m.export(t, `{"project":"DEMO","document":"plan"}`)
	if len(warnings) != 3 || sc["warnings_truncated"] != true {
		t.Fatalf("%d warnings (warnings_truncated %v), want 3 and true:\n%s", len(warnings), sc["warnings_truncated"], strings.Join(warnings, "\n"))
	}
	if !strings.Contains(warnings[1], "60 sub-tasks have no story in the document") || !strings.HasSuffix(warnings[1], "… 55 more.") {
		t.Errorf("the sub-task warning does not count all 60: %s", warnings[1])
	}
	if !strings.Contains(warnings[2], "a person sees every one with dwire export --full") {
		t.Errorf("no warning says how to see every one: %s", warnings[2])
	}
	for _, w := range warnings {
		if n := strings.Count(w, "DEMO-"); n > 5 {
			t.Errorf("a warning names %d issues: %s", n, w)
		}
	}
}

// A line that is not JSON, or JSON that is not a JSON-RPC message, is a
// client's mistake: dwire mcp answers it with JSON-RPC's parse error
// (-32700, no id: MCP 2025-11-25 makes it optional for this) or invalid
// request (-32600, the line's id), and keeps serving (it ended with exit
// 70, INTERNAL_ERROR, "report it").
func TestMCPAnswersALineThatIsNotJSONAndKeepsServing(t *testing.T) {
	f := newPTYFixture(t)
	m := startMCP(t, f)
	m.initializeAs("2025-11-25")
	m.send(`this is not json`)
	parse := m.next()
	e, _ := parse["error"].(map[string]any)
	if _, has := parse["id"]; e == nil || e["code"] != float64(-32700) || has || parse["jsonrpc"] != "2.0" {
		t.Fatalf("answer to a line that is not JSON = %v, want a parse error (-32700) without an id", parse)
	}
	m.send(`{"id": 7, "hello": "world"}`)
	inv := m.next()
	if e, _ := inv["error"].(map[string]any); e == nil || e["code"] != float64(-32600) || inv["id"] != float64(7) {
		t.Fatalf("answer to JSON that is not JSON-RPC = %v, want an invalid request (-32600) with id 7", inv)
	}
	m.send(``)
	m.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if tools := m.recv(5); tools["result"] == nil {
		t.Fatalf("tools/list after the bad lines = %v", tools)
	}
	m.close(t)
	if !strings.Contains(m.stderr.String(), "not a JSON-RPC message") {
		t.Errorf("no warning on stderr:\n%s", m.stderr.String())
	}
	if strings.Contains(m.stderr.String(), "INTERNAL_ERROR") {
		t.Errorf("a client's bad line was reported as our internal error:\n%s", m.stderr.String())
	}
}

// On an older protocol version (2025-06-18), whose error responses must
// carry an id, a line that is not JSON cannot be answered validly: it is
// dropped with a warning on stderr, and the server keeps serving.
func TestMCPDropsALineThatIsNotJSONOnAnOlderProtocol(t *testing.T) {
	f := newPTYFixture(t)
	m := startMCP(t, f)
	m.initialize()
	m.send(`this is not json`)
	m.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if msg := m.next(); msg["id"] != float64(5) || msg["result"] == nil {
		t.Fatalf("the first message after the bad line is %v, want the answer to tools/list", msg)
	}
	m.close(t)
	if !strings.Contains(m.stderr.String(), "not a JSON-RPC message") {
		t.Errorf("no warning on stderr:\n%s", m.stderr.String())
	}
}

// The tool list says what an agent may send: import_preview's removed is
// one of leave or close (an enum, refused before any read otherwise), and
// workitem_query's description names its kind filter.
func TestMCPToolListNamesRemovedChoicesAndQueryKind(t *testing.T) {
	f := newPTYFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, "one.md"), []byte("---\nid: one\n---\n# One\n\n## Epic e-1: One\n"), 0o600))
	m := startMCP(t, f)
	m.initializeAs("2025-11-25")
	m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	res, _ := m.recv(2)["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	found := 0
	for _, x := range tools {
		tool := x.(map[string]any)
		switch tool["name"] {
		case "import_preview":
			found++
			props := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
			removed, _ := props["removed"].(map[string]any)
			if b, _ := json.Marshal(removed["enum"]); string(b) != `["leave","close"]` {
				t.Errorf("import_preview's removed enum = %s, want [leave close]", b)
			}
		case "workitem_query":
			found++
			if d, _ := tool["description"].(string); !strings.Contains(d, "kind") {
				t.Errorf("workitem_query's description does not name kind: %s", d)
			}
		}
	}
	if found != 2 {
		t.Fatalf("tools/list lacks import_preview or workitem_query: %v", res)
	}
	m.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"import_preview","arguments":{"path":"one.md","removed":"drop"}}}`)
	b, _ := json.Marshal(m.recv(3))
	if !strings.Contains(string(b), "VALIDATION_FAILED") || !strings.Contains(string(b), "inputSchema") || !strings.Contains(string(b), `"field":"removed"`) {
		t.Errorf("removed: drop = %s, want VALIDATION_FAILED against the inputSchema naming removed", b)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests to Jira for a call the schema refuses", n)
	}
}

// Exporting part of an imported document warns once, in dwire export and
// in document_export, that importing the export as that document marks the
// items it leaves out removed, naming them; the whole document's export
// does not.
func TestExportOfPartOfADocumentSaysTheRestWouldBeRemoved(t *testing.T) {
	f := importedPTYFixture(t)
	const warning = "This export holds only part of document checkout-v2: importing it as document checkout-v2 marks the 2 items it leaves out removed (checkout-v2/e-2, checkout-v2/s-3)."
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "dwire", args...)
		cmd.Dir, cmd.Env = f.dir, f.env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("dwire %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		return strings.Join(strings.Fields(errb.String()), " ")
	}
	if got := run("export", "DEMO-1"); strings.Count(got, warning) != 1 {
		t.Errorf("dwire export DEMO-1 does not warn once that the rest would be removed (%q):\n%s", warning, got)
	}
	if got := run("export", "--project", "DEMO"); strings.Contains(got, "only part of document") {
		t.Errorf("the whole document's export warns that part of it would be removed:\n%s", got)
	}

	m := startMCP(t, f)
	m.initialize()
	_, warnings := m.export(t, `{"epic":"DEMO-1"}`)
	n := 0
	for _, w := range warnings {
		if w == warning[:len(warning)-1]+". Select all of the document's issues to export it whole, or give another document id to import the export as a document of its own." {
			n++
		}
	}
	if n != 1 {
		t.Errorf("document_export warns %d times that the rest would be removed; want once: %q", n, warnings)
	}
}

// A wrong kind or status in workitem_query is answered with the one that
// was probably meant, as `dwire ls --kind` answers it.
func TestMCPQueryAnswersAWrongKindWithDidYouMean(t *testing.T) {
	f := newPTYFixture(t)
	m := startMCP(t, f)
	m.initializeAs("2025-11-25")
	m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workitem_query","arguments":{"kind":"sub-task","status":"in-progress"}}}`)
	b, _ := json.Marshal(m.recv(2))
	for _, want := range []string{"VALIDATION_FAILED", "kind: value must be one of 'epic', 'story', 'subtask' (did you mean subtask?)", "status: value must be one of 'todo', 'in_progress', 'done' (did you mean in_progress?)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("workitem_query with kind sub-task lacks %s: %s", want, b)
		}
	}
	if n := len(f.srv.Writes()); n != 0 {
		t.Errorf("%d writes for a refused query", n)
	}
}

// import_commit's refusal of an unknown handle says what to do next once,
// in the tool's words (call import_preview again), not also in the
// service's ("Run the preview again and commit the new handle.").
func TestMCPRefusalSaysTheNextStepOnce(t *testing.T) {
	f := newPTYFixture(t)
	m := startMCP(t, f)
	m.initialize()
	m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"import_commit","arguments":{"preview_handle":"imp_0123456789abcdef","confirmed":true}}}`)
	res := m.recv(2)
	b, _ := json.Marshal(res)
	said := string(b)
	if !strings.Contains(said, "PREVIEW_NOT_FOUND") || !strings.Contains(said, "Next: call import_preview again") || strings.Contains(said, "preview again and commit the new handle") {
		t.Errorf("the refusal does not say its next step once, in the tool's words:\n%s", said)
	}
}
