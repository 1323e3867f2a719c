package e2e

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput: malformed and hostile documents and configuration get the
// documented code and exit code, write nothing, and never panic.
func TestBadInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	huge := "---\nid: huge\n---\n## Epic e-1: Big\n" + strings.Repeat("lorem ipsum dolor sit amet\n", 6<<20/27+1)
	binary := make([]byte, 4096)
	_, _ = rand.Read(binary)
	binary[10] = 0
	deep := "---\nid: deep\n---\n## Epic e-1: Deep\n" + strings.Repeat("> ", 20000) + "x\n" + strings.Repeat("- ", 20000) + "y\n"
	e.write("huge.md", huge)
	e.write("binary.md", string(binary))
	e.write("deep.md", deep)
	e.write("invalid.md", "---\nid: bad\n---\n### Story s-1: Orphan\nEpic: e-9\n\n## Epic e-1: \n## Task t-1: A task\n")
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte(planSpec{id: "outside", epics: 1, stories: 1}.markdown()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.dir, "escape.md")); err != nil {
		t.Fatal(err)
	}

	cli := []struct {
		name string
		args []string
		exit int
		code string
	}{
		{"huge document", []string{"import", "huge.md", "--dry-run"}, 1, "SOURCE_PARSE_FAILED"},
		{"binary document", []string{"import", "binary.md", "--dry-run"}, 1, "SOURCE_PARSE_FAILED"},
		{"missing document", []string{"import", "nope.md", "--dry-run"}, 1, "SOURCE_NOT_FOUND"},
		{"invalid document", []string{"import", "invalid.md", "--dry-run"}, 1, "VALIDATION_FAILED"},
		{"unknown item", []string{"show", "DEMO-999"}, 1, "WORK_ITEM_NOT_FOUND"},
		{"unknown handle", []string{"review", "imp_doesnotexist"}, 1, "PREVIEW_NOT_FOUND"},
	}
	for _, c := range cli {
		r := e.dwire(c.args...)
		if r.code != c.exit || !strings.Contains(r.stderr, c.code) {
			t.Errorf("%s: want exit %d with %s, got %s", c.name, c.exit, c.code, r)
		}
	}
	r := e.dwire("import", "invalid.md", "--dry-run")
	for _, want := range []string{"e-9", "s-1", "Task"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("validation errors do not name %q:\n%s", want, r.stderr)
		}
	}
	// A hostile but well-formed document parses or is refused cleanly.
	if r := e.dwire("import", "deep.md", "--dry-run"); r.code != 0 && r.code != 1 {
		t.Errorf("deeply nested document: %s", r)
	}

	// Configuration.
	cfgs := []struct {
		name, file, env string
		exit            int
		code            string
	}{
		{"config is not YAML", "jira: [unclosed\n", "", 2, "CONFIG_INVALID"},
		{"token written in the file", "jira:\n  site: " + e.jira.URL + "\n  project: DEMO\n  email: demo@example.com\n  token: " + token + "\n", "", 2, "CONFIG_INVALID"},
		{"project missing", "jira:\n  site: " + e.jira.URL + "\n  email: demo@example.com\n", "", 2, "CONFIG_INVALID"},
		{"token not set", "jira:\n  site: " + e.jira.URL + "\n  project: DEMO\n  email: demo@example.com\n  token_env: DWIRE_E2E_UNSET_TOKEN\n", "", 2, "CREDENTIALS_MISSING"},
		{"wrong token", "jira:\n  site: " + e.jira.URL + "\n  project: DEMO\n  email: demo@example.com\n  token_env: WRONG_TOKEN\n", "WRONG_TOKEN=not-the-token", 3, "JIRA_UNAUTHORIZED"},
	}
	for _, c := range cfgs {
		p := e.write(filepath.Join("configs", strings.ReplaceAll(c.name, " ", "-")+".yaml"), c.file)
		cmdArgs := []string{"--config", p, "import", filepath.Join(e.dir, "invalid.md"), "--dry-run"}
		if c.code == "JIRA_UNAUTHORIZED" || c.code == "CREDENTIALS_MISSING" {
			e.write("ok.md", planSpec{id: "ok", epics: 1, stories: 1}.markdown())
			cmdArgs[3] = filepath.Join(e.dir, "ok.md")
		}
		saved := e.extra
		if c.env != "" {
			e.extra = append(e.extra, c.env)
		}
		r := e.dwire(cmdArgs...)
		e.extra = saved
		if r.code != c.exit || !strings.Contains(r.stderr, c.code) {
			t.Errorf("%s: want exit %d with %s, got %s", c.name, c.exit, c.code, r)
		}
	}
	empty := t.TempDir()
	c := e.cmd("import", "x.md", "--dry-run")
	c.Dir = empty
	out, _ := c.CombinedOutput()
	e.record(string(out))
	if c.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "CONFIG_MISSING") {
		t.Errorf("no configuration: exit %d\n%s", c.ProcessState.ExitCode(), out)
	}

	// The agents' door: confinement to the workspace and the same codes.
	cs, _ := e.mcp()
	for _, m := range []struct {
		name, path, code string
	}{
		{"parent folder", "../outside.md", "SOURCE_NOT_FOUND"},
		{"absolute path outside", outside, "SOURCE_NOT_FOUND"},
		{"symlink escape", "escape.md", "SOURCE_NOT_FOUND"},
		{"system file", "/etc/passwd", "SOURCE_NOT_FOUND"},
		{"huge document", "huge.md", "SOURCE_PARSE_FAILED"},
		{"binary document", "binary.md", "SOURCE_PARSE_FAILED"},
		{"invalid document", "invalid.md", "VALIDATION_FAILED"},
	} {
		d := e.call(cs, "import_preview", map[string]any{"path": m.path}, nil)
		if got := codeOf(d); got != m.code {
			t.Errorf("mcp %s: code %q, want %s (%v)", m.name, got, m.code, d)
		}
	}
	if d := e.call(cs, "workitem_query", map[string]any{"limit": 1000}, nil); codeOf(d) != "VALIDATION_FAILED" {
		t.Errorf("query limit 1000: %v", d)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("bad input made %d writes", w)
	}
	if n := len(e.issues()); n != 0 {
		t.Errorf("bad input created %d issues", n)
	}
}
