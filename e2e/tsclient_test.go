package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
)

// tsReport is what e2e/tsclient/client.mjs prints.
type tsReport struct {
	Mode       string `json:"mode"`
	Fatal      string `json:"fatal"`
	Stderr     string `json:"stderr"`
	ServerInfo struct {
		Name, Version string
	} `json:"serverInfo"`
	Tools []struct {
		Name        string `json:"name"`
		Annotations struct {
			ReadOnlyHint    bool  `json:"readOnlyHint"`
			DestructiveHint *bool `json:"destructiveHint"`
			OpenWorldHint   *bool `json:"openWorldHint"`
		} `json:"annotations"`
		HasOutputSchema bool   `json:"hasOutputSchema"`
		OutputType      string `json:"outputType"`
	} `json:"tools"`
	ToolsAfter int `json:"toolsAfter"`
	Calls      []struct {
		Name    string         `json:"name"`
		IsError bool           `json:"isError"`
		Result  map[string]any `json:"result"`
		Error   *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	} `json:"calls"`
}

// tsClient returns the client script, or skips (fails with
// DWIRE_REQUIRE_NODE=1) when node or the pinned SDK is not installed.
func tsClient(t *testing.T) (node, script string) {
	t.Helper()
	dir := repoPath(t, "e2e", "tsclient")
	missing := func(why string) {
		t.Helper()
		msg := why + "; install Node.js 18+ and run `npm ci` in e2e/tsclient (.ci/run does)"
		if os.Getenv("DWIRE_REQUIRE_NODE") == "1" {
			t.Fatal("DWIRE_REQUIRE_NODE=1: " + msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the TypeScript MCP SDK is not installed in e2e/tsclient/node_modules")
	}
	return node, filepath.Join(dir, "client.mjs")
}

func runTSClient(t *testing.T, e *env, mode, workdir string) tsReport {
	t.Helper()
	node, script := tsClient(t)
	cmd := exec.Command(node, script)
	// The host's own environment: the SDK passes HOME and PATH on, and the
	// token only through the entry's env.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.dir,
		"JIRA_API_TOKEN=" + token,
		"DWIRE_BIN=" + bins.Dwire,
		"DWIRE_WORKDIR=" + workdir,
		"DWIRE_MODE=" + mode,
		"DWIRE_PLAN=plan.md",
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := streamtest.RunWithin(cmd, 2*time.Minute); err != nil {
		t.Fatalf("node client (%s): %v\n%s", mode, err, stderr.String())
	}
	e.record(stdout.String() + stderr.String())
	var r tsReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("node client output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if r.Fatal != "" {
		t.Fatalf("node client (%s) failed: %s\nserver stderr:\n%s", mode, r.Fatal, r.Stderr)
	}
	return r
}

var hostName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func checkTSTools(t *testing.T, r tsReport) {
	t.Helper()
	if r.ServerInfo.Name != "dwire" || r.ServerInfo.Version != "0.0.0-e2e" {
		t.Errorf("serverInfo = %+v", r.ServerInfo)
	}
	readOnly := map[string]bool{"import_preview": true, "import_commit": false, "progress_preview": true, "progress_commit": false, "workitem_get": true, "workitem_query": true, "document_export": true, "pull_preview": true, "pull_commit": false}
	if len(r.Tools) != len(readOnly) {
		t.Fatalf("%d tools listed", len(r.Tools))
	}
	for _, tl := range r.Tools {
		ro, ok := readOnly[tl.Name]
		if !ok || !hostName.MatchString(tl.Name) {
			t.Errorf("tool %q", tl.Name)
		}
		a := tl.Annotations
		if a.ReadOnlyHint != ro || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("%s annotations %+v", tl.Name, a)
		}
		if !tl.HasOutputSchema || tl.OutputType != "object" {
			t.Errorf("%s has no object output schema", tl.Name)
		}
	}
}

// TestTypeScriptSDKClient drives the real `dwire mcp` with the official
// TypeScript SDK client as a host does, configured, without a
// configuration and without a token (the SDK passes the server only HOME,
// PATH, … plus the entry's env: the token reaches it only from there).
func TestTypeScriptSDKClient(t *testing.T) {
	tsClient(t)
	t.Run("configured", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		p := planSpec{id: "tsdk", epics: 1, stories: 2}
		e.write("plan.md", p.markdown())
		r := runTSClient(t, e, "configured", e.dir)
		checkTSTools(t, r)
		if len(r.Calls) != 5 {
			t.Fatalf("calls: %+v", r.Calls)
		}
		pv, refused, commit, replay, query := r.Calls[0], r.Calls[1], r.Calls[2], r.Calls[3], r.Calls[4]
		if pv.Error != nil || pv.Result["result_type"] != "preview" || pv.Result["counts"].(map[string]any)["create"] != 3.0 {
			t.Fatalf("import_preview: %+v", pv)
		}
		if refused.Error == nil || refused.Error.Code != -32000 || refused.Error.Data["code"] != "CONFIRMATION_REQUIRED" || !strings.HasPrefix(refused.Error.Message, "MCP error -32000: CONFIRMATION_REQUIRED: ") {
			t.Errorf("confirmed: false: %+v", refused)
		}
		if commit.Error != nil || commit.Result["result_type"] != "committed" || commit.Result["counts"].(map[string]any)["created"] != 3.0 {
			t.Fatalf("import_commit: %+v", commit)
		}
		if replay.Error != nil || replay.Result["replayed"] != true {
			t.Errorf("replay: %+v", replay)
		}
		if query.Error != nil || query.Result["returned"] != 3.0 {
			t.Errorf("workitem_query: %+v", query)
		}
		e.matches(p)
		// One stderr line per tool call at the default verbosity, with
		// tool, outcome or code, run_id and duration.
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		if len(lines) != len(r.Calls) {
			t.Errorf("%d stderr lines for %d tool calls:\n%s", len(lines), len(r.Calls), r.Stderr)
		}
		for i, l := range lines {
			if !strings.Contains(l, "tool="+r.Calls[i].Name) || !strings.Contains(l, "run_id=") || !strings.Contains(l, "duration_ms=") || !(strings.Contains(l, "outcome=ok") || strings.Contains(l, "code=")) {
				t.Errorf("log line %d: %s", i+1, l)
			}
		}
	})
	for _, tc := range []struct {
		mode, code, says string
	}{
		{"noconfig", "CONFIG_MISSING", "DWIRE_CONFIG"},
		{"notoken", "CREDENTIALS_MISSING", `add JIRA_API_TOKEN to the "env" of this server`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.write("plan.md", planSpec{id: "tsdk", epics: 1, stories: 1}.markdown())
			dir := e.dir
			if tc.mode == "noconfig" {
				dir = t.TempDir()
			}
			r := runTSClient(t, e, tc.mode, dir)
			checkTSTools(t, r)
			if r.ToolsAfter != mcpTools || len(r.Calls) != 3 {
				t.Fatalf("server not alive after the failures: %d tools, calls %+v", r.ToolsAfter, r.Calls)
			}
			for _, c := range r.Calls {
				if c.Error == nil || c.Error.Data["code"] != tc.code || !strings.Contains(c.Error.Data["message"].(string), tc.says) {
					t.Errorf("%s: %+v", c.Name, c)
				}
			}
			if w := e.writes(); w != 0 {
				t.Errorf("%d writes", w)
			}
		})
	}
}
