package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/e2e/harness"
)

// serverJSON runs `dwire mcp --server-json` (the registry entry of this
// build) and validates it against the registry's published schema.
func serverJSON(t *testing.T) map[string]any {
	t.Helper()
	out, err := exec.Command(bins.Dwire, "mcp", "--server-json").Output()
	if err != nil {
		t.Fatalf("dwire mcp --server-json: %v", err)
	}
	raw, err := os.ReadFile(repoPath(t, "mcpserver", "testdata", "registry", "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := sjs.UnmarshalJSON(bytes.NewReader(raw))
	c := sjs.NewCompiler()
	c.AssertFormat()
	const id = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
	if err := c.AddResource(id, schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("server.json of this build does not match the registry schema: %v\n%s", err, out)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	return m
}

func TestServerJSONOfTheBuild(t *testing.T) {
	m := serverJSON(t)
	if m["version"] != "0.0.0-e2e" || m["packages"].([]any)[0].(map[string]any)["version"] != "0.0.0-e2e" {
		t.Errorf("server.json does not carry the build's version: %v", m)
	}
}

// TestDockerImage builds the FROM scratch image of dwire locally (no
// image is pulled) and runs it as a host would: docker run -i --rm -e
// JIRA_API_TOKEN -v "$PWD:/work" -w /work dwire mcp (with host networking
// to reach the fake Jira on loopback).
func TestDockerImage(t *testing.T) {
	ctx := context.Background()
	docker, err := exec.LookPath("docker")
	if err != nil || !harness.DockerAvailable(ctx) {
		t.Skip("no Docker engine: the image is tested where one is available (.ci/run starts one)")
	}
	build := t.TempDir()
	copyInto := func(from, to string, mode os.FileMode) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(build, to), b, mode); err != nil {
			t.Fatal(err)
		}
	}
	copyInto(bins.Dwire, "dwire", 0o755)
	copyInto(repoPath(t, "cli", "cmd", "dwire", "Dockerfile"), "Dockerfile", 0o644)
	copyInto("/etc/ssl/certs/ca-certificates.crt", "ca-certificates.crt", 0o644)
	const tag = "dwire:e2e"
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command(docker, args...)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := streamtest.RunWithin(c, 3*time.Minute); err != nil {
			t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return strings.TrimSpace(out.String())
	}
	run("build", "--pull=false", "--network", "host", "-t", tag, build)
	if label := run("image", "inspect", "--format", `{{index .Config.Labels "io.modelcontextprotocol.server.name"}}`, tag); label != serverJSON(t)["name"] {
		t.Errorf("image label io.modelcontextprotocol.server.name = %q, want the server.json name", label)
	}

	e := newEnv(t, envOptions{})
	p := planSpec{id: "docker", epics: 1, stories: 2}
	e.write("plan.md", p.markdown())
	cmd := exec.Command(docker, "run", "-i", "--rm", "--network", "host", "-e", "JIRA_API_TOKEN", "-v", e.dir+":/work", "-w", "/work", tag, "mcp")
	cmd.Env = append(os.Environ(), "JIRA_API_TOKEN="+token)
	var stderr harness.SyncBuffer
	cmd.Stderr = &stderr
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docker-e2e", Version: "1"}, nil).Connect(cctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to the container: %v\n%s", err, stderr.String())
	}
	defer func() { _ = cs.Close(); e.record(stderr.String()) }()
	if tl, err := cs.ListTools(cctx, nil); err != nil || len(tl.Tools) != mcpTools {
		t.Fatalf("tools/list: %v", err)
	}
	var pv previewJSON
	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv); d != nil || pv.Counts.Create != 3 {
		t.Fatalf("import_preview in the container: %v %+v\n%s", d, pv, stderr.String())
	}
	var c commitJSON
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil || c.Counts.Created != 3 {
		t.Fatalf("import_commit in the container: %v %+v", d, c)
	}
	e.matches(p)
}
