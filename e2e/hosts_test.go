package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/e2e/harness"
)

// hostServer is one host's entry for dwire, as its snippet file gives it.
type hostServer struct {
	file    string
	command string
	args    []string
	env     map[string]string
	// inProject: the host starts the server in the project folder (else
	// somewhere else, so only DWIRE_CONFIG can lead it to the file).
	inProject bool
}

// hostSnippets parses every file under docs/hosts.
func hostSnippets(t *testing.T) []hostServer {
	t.Helper()
	dir := repoPath(t, "docs", "hosts")
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type entry struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	one := func(name string, raw []byte, key string) entry {
		t.Helper()
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var servers map[string]entry
		if err := json.Unmarshal(doc[key], &servers); err != nil || len(servers) != 1 {
			t.Fatalf("%s: %q must hold exactly one server (%v)", name, key, err)
		}
		e, ok := servers["devworkwire"]
		if !ok {
			t.Fatalf("%s: the server is not named devworkwire", name)
		}
		if e.Type != "" && e.Type != "stdio" {
			t.Fatalf("%s: type %q", name, e.Type)
		}
		return e
	}
	var out []hostServer
	add := func(name string, e entry, inProject bool) {
		out = append(out, hostServer{file: name, command: e.Command, args: e.Args, env: e.Env, inProject: inProject})
	}
	add("claude-desktop.json", one("claude-desktop.json", read("claude-desktop.json"), "mcpServers"), false)
	add("claude-code.mcp.json", one("claude-code.mcp.json", read("claude-code.mcp.json"), "mcpServers"), true)
	add("cursor.mcp.json", one("cursor.mcp.json", read("cursor.mcp.json"), "mcpServers"), false)

	vs := read("vscode.mcp.json")
	var inputs struct {
		Inputs []struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Password bool   `json:"password"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(vs, &inputs); err != nil {
		t.Fatal(err)
	}
	e := one("vscode.mcp.json", vs, "servers")
	secret := false
	for _, in := range inputs.Inputs {
		if in.Type == "promptString" && in.Password && e.Env["JIRA_API_TOKEN"] == "${input:"+in.ID+"}" {
			secret = true
		}
	}
	if !secret {
		t.Errorf("vscode.mcp.json: the token must come from a promptString input with \"password\": true")
	}
	add("vscode.mcp.json", e, false)

	var g entry
	if err := json.Unmarshal(read("generic-stdio.json"), &g); err != nil {
		t.Fatal(err)
	}
	add("generic-stdio.json", g, false)

	// claude mcp add <name> -e K=V … -- <command> <args…>
	line := strings.TrimSpace(string(read("claude-code.sh")))
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "claude" || f[1] != "mcp" || f[2] != "add" || f[3] != "devworkwire" {
		t.Fatalf("claude-code.sh: %q", line)
	}
	cc := hostServer{file: "claude-code.sh", env: map[string]string{}}
	rest := f[4:]
	for len(rest) > 0 && rest[0] != "--" {
		if rest[0] != "-e" || len(rest) < 2 {
			t.Fatalf("claude-code.sh: unexpected %q", rest[0])
		}
		// A placeholder with spaces ("<your Jira API token>") is one value.
		kv := rest[1]
		rest = rest[2:]
		for strings.HasPrefix(strings.SplitN(kv, "=", 2)[1], "<") && !strings.HasSuffix(kv, ">") && len(rest) > 0 {
			kv, rest = kv+" "+rest[0], rest[1:]
		}
		k, v, _ := strings.Cut(kv, "=")
		cc.env[k] = v
	}
	if len(rest) < 2 {
		t.Fatalf("claude-code.sh: no command after --")
	}
	cc.command, cc.args = rest[1], rest[2:]
	out = append(out, cc)
	return out
}

// Cursor and Claude Code must not hold a literal token in a file meant to
// be committed: they reference the environment.
var tokenReference = map[string]string{
	"claude-code.mcp.json": "${JIRA_API_TOKEN}",
	"cursor.mcp.json":      "${env:JIRA_API_TOKEN}",
}

// TestHostSnippetsWorkAsWritten starts `dwire mcp` the way each host
// snippet says, with exactly its environment (nothing inherited), and
// lists the tools and queries the fake Jira.
func TestHostSnippetsWorkAsWritten(t *testing.T) {
	snippets := hostSnippets(t)
	if len(snippets) != 6 {
		t.Fatalf("%d host snippets", len(snippets))
	}
	doc, err := os.ReadFile(repoPath(t, "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range snippets {
		b, _ := os.ReadFile(repoPath(t, "docs", "hosts", h.file))
		if !strings.Contains(string(doc), strings.TrimSpace(string(b))) {
			t.Errorf("docs/mcp.md does not show docs/hosts/%s as it is", h.file)
		}
	}
	e := newEnv(t, envOptions{})
	e.write("plan.md", planSpec{id: "hosts", epics: 1, stories: 1}.markdown())
	cfgPath := filepath.Join(e.dir, ".devworkwire.yaml")
	placeholders := map[string]string{
		"<your Jira API token>":               token,
		"${JIRA_API_TOKEN}":                   token,
		"${env:JIRA_API_TOKEN}":               token,
		"${input:jira-api-token}":             token,
		"/home/me/src/shop/.devworkwire.yaml": cfgPath,
		"/absolute/path/to/.devworkwire.yaml": cfgPath,
		"${workspaceFolder}":                  e.dir,
	}
	unresolved := regexp.MustCompile(`\$\{|<[^>]*>`)
	for _, h := range snippets {
		t.Run(h.file, func(t *testing.T) {
			if want, ok := tokenReference[h.file]; ok && h.env["JIRA_API_TOKEN"] != want {
				t.Errorf("the token must be referenced as %s, not written in the file", want)
			}
			if h.command != "dwire" && h.command != "/usr/local/bin/dwire" {
				t.Fatalf("command %q", h.command)
			}
			if strings.Join(h.args, " ") != "mcp" {
				t.Fatalf("args %q", h.args)
			}
			var env []string
			for k, v := range h.env {
				for p, r := range placeholders {
					v = strings.ReplaceAll(v, p, r)
				}
				if unresolved.MatchString(v) {
					t.Fatalf("%s=%q has a placeholder this test does not know", k, h.env[k])
				}
				env = append(env, k+"="+v)
			}
			sort.Strings(env)
			cmd := exec.Command(bins.Dwire, h.args...)
			cmd.Env = env
			cmd.Dir = t.TempDir() // the host's own folder
			if h.inProject {
				cmd.Dir = e.dir
			}
			var stderr harness.SyncBuffer
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "host-" + h.file, Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connect with env %v: %v\n%s", env, err, stderr.String())
			}
			defer func() { _ = cs.Close(); e.record(stderr.String()) }()
			tl, err := cs.ListTools(ctx, nil)
			if err != nil || len(tl.Tools) != mcpTools {
				t.Fatalf("tools/list: %v", err)
			}
			var q struct {
				ResultType string `json:"result_type"`
				Returned   int    `json:"returned"`
			}
			if d := e.call(cs, "workitem_query", map[string]any{}, &q); d != nil {
				t.Fatalf("workitem_query with env %v: %v\nstderr:\n%s", env, d, stderr.String())
			}
			if q.ResultType != "preview" {
				t.Errorf("workitem_query = %+v", q)
			}
			var pv previewJSON
			if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv); d != nil || pv.Counts.Create != 2 {
				t.Errorf("import_preview: %v %+v", d, pv)
			}
		})
	}
}
