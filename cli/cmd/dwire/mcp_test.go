package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
)

// TestMCPOverStdio runs `dwire mcp` as a harness would: JSON-RPC lines on
// stdin (kept open), only JSON-RPC on stdout, logs on stderr.
func TestMCPOverStdio(t *testing.T) {
	f := newPTYFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, "one.md"), []byte("---\nid: one\n---\n# One\n\n## Epic e-1: One\n"), 0o600))
	cmd := exec.Command("dwire", "mcp", "-v")
	cmd.Dir = f.dir
	cmd.Env = f.env
	pp := streamtest.StartWaited(t, cmd)
	stdin, stdout, stderr := pp.Stdin, pp.Stdout, pp.Stderr

	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) { _, err := stdin.Write([]byte(s + "\n")); must(t, err) }
	recv := func(id int) map[string]any {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed; stderr:\n%s", stderr.String())
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("stdout carried a non-JSON-RPC line: %q", l)
				}
				if v, ok := m["id"].(float64); ok && int(v) == id {
					return m
				}
			case <-deadline:
				t.Fatalf("no response %d; stderr:\n%s", id, stderr.String())
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`)
	init := recv(1)
	info := init["result"].(map[string]any)["serverInfo"].(map[string]any)
	if info["name"] != "dwire" || info["version"] == "" {
		t.Fatalf("serverInfo = %v", info)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
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
	stdin.Close()
	if err := pp.WaitExit(t, 20*time.Second, "when stdin closed"); err != nil {
		t.Fatalf("dwire mcp exited with %v after stdin closed\n%s", err, stderr.String())
	}
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
