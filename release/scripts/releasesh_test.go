package scripts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const prefix = "github.com/devworkwire/devworkwire/"

// mod describes one module of a test repository.
type mod struct {
	requires map[string]string // sibling → version
	replace  []string          // siblings replaced by ../<sibling>
	sections []string          // CHANGELOG sections besides Unreleased
}

// newRepo makes a git repository with the release scripts and mods,
// commits it and creates tags.
func newRepo(t *testing.T, mods map[string]mod, tags ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range []string{"scripts/release.sh", "scripts/changelog-section.sh", "MODULES"} {
		b, err := os.ReadFile(filepath.Join("..", "..", s))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, s), string(b))
	}
	for name, m := range mods {
		var gomod strings.Builder
		fmt.Fprintf(&gomod, "module %s%s\n\ngo 1.26\n", prefix, name)
		for s, v := range m.requires {
			fmt.Fprintf(&gomod, "\nrequire %s%s %s\n", prefix, s, v)
		}
		for _, s := range m.replace {
			fmt.Fprintf(&gomod, "\nreplace %s%s => ../%s\n", prefix, s, s)
		}
		write(t, filepath.Join(dir, name, "go.mod"), gomod.String())
		cl := "# Changelog — " + name + "\n\n## [Unreleased]\n\n"
		for _, v := range m.sections {
			cl += "## [" + v + "] - 2026-12-01\n\n### Added\n\n- Something in " + v + ".\n\n"
		}
		write(t, filepath.Join(dir, name, "CHANGELOG.md"), cl)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "fixture")
	for _, tag := range tags {
		git(t, dir, "tag", tag)
	}
	return dir
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func runRelease(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"scripts/release.sh"}, args...)...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code := exitCode(t, cmd.Run())
	return code, out.String(), errOut.String()
}

// exitCode is the exit code of a command that ran with err (0 for nil);
// an error that is not an exit fails t.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// good is a releasable set: cli → jira → core, all at 0.1.0.
func good() map[string]mod {
	return map[string]mod{
		"core": {sections: []string{"0.1.0"}},
		"jira": {requires: map[string]string{"core": "v0.1.0"}, sections: []string{"0.1.0"}},
		"cli":  {requires: map[string]string{"core": "v0.1.0", "jira": "v0.1.0"}, sections: []string{"0.1.0"}},
	}
}

func TestReleasePrintsTagsInDependencyOrder(t *testing.T) {
	dir := newRepo(t, good())
	code, out, errOut := runRelease(t, dir, "cli", "0.1.0")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := []string{
		"git tag -a core/v0.1.0 -m 'core v0.1.0'",
		"git tag -a jira/v0.1.0 -m 'jira v0.1.0'",
		"git tag -a cli/v0.1.0 -m 'cli v0.1.0'",
		"git push origin core/v0.1.0 jira/v0.1.0 cli/v0.1.0",
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tag commands (-want +got):\n-%s\n+%s", strings.Join(want, "\n-"), strings.Join(got, "\n+"))
	}
}

func TestReleaseLeavesOutSiblingsAlreadyTagged(t *testing.T) {
	dir := newRepo(t, good(), "core/v0.1.0")
	code, out, errOut := runRelease(t, dir, "cli", "v0.1.0")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "core/v0.1.0") {
		t.Errorf("core/v0.1.0 is tagged already but is in the plan:\n%s", out)
	}
	if !strings.Contains(out, "git tag -a jira/v0.1.0") || !strings.Contains(out, "git tag -a cli/v0.1.0") {
		t.Errorf("plan misses jira or cli:\n%s", out)
	}
}

func TestReleaseRefuses(t *testing.T) {
	tests := []struct {
		name  string
		mods  func(map[string]mod)
		tags  []string
		dirty bool
		args  []string
		code  int
		want  []string
	}{
		{name: "replace left in go.mod", mods: func(m map[string]mod) {
			c := m["cli"]
			c.replace = []string{"core"}
			m["cli"] = c
		}, args: []string{"cli", "0.1.0"}, code: 1, want: []string{"cli/go.mod has 'replace " + prefix + "core'", "go mod edit -dropreplace=" + prefix + "core"}},
		{name: "sibling at the workspace's placeholder version", mods: func(m map[string]mod) {
			c := m["cli"]
			c.requires = map[string]string{"core": "v0.0.0-00010101000000-000000000000", "jira": "v0.1.0"}
			m["cli"] = c
		}, args: []string{"cli", "0.1.0"}, code: 1, want: []string{"cli/go.mod requires core v0.0.0-00010101000000-000000000000, which is not a released version"}},
		{name: "no CHANGELOG section of a sibling in the plan", mods: func(m map[string]mod) {
			j := m["jira"]
			j.sections = nil
			m["jira"] = j
		}, args: []string{"cli", "0.1.0"}, code: 1, want: []string{"jira/CHANGELOG.md has no section for 0.1.0", "rename the Unreleased section"}},
		{name: "version tagged already", tags: []string{"cli/v0.1.0"}, args: []string{"cli", "0.1.0"}, code: 1, want: []string{"cli/v0.1.0 is tagged already"}},
		{name: "uncommitted changes", dirty: true, args: []string{"core", "0.1.0"}, code: 1, want: []string{"uncommitted changes"}},
		{name: "two versions of one sibling", mods: func(m map[string]mod) {
			m["core"] = mod{sections: []string{"0.2.0", "0.1.0"}}
			c := m["cli"]
			c.requires = map[string]string{"core": "v0.2.0", "jira": "v0.1.0"}
			m["cli"] = c
		}, args: []string{"cli", "0.1.0"}, code: 1, want: []string{"make them require the same version"}},
		{name: "requires a module later in the order", mods: func(m map[string]mod) {
			m["core"] = mod{requires: map[string]string{"cli": "v0.1.0"}, sections: []string{"0.1.0"}}
		}, args: []string{"core", "0.1.0"}, code: 1, want: []string{"core/go.mod requires cli, which comes after core"}},
		{name: "no arguments", code: 2, want: []string{"usage: scripts/release.sh MODULE VERSION"}},
		{name: "one argument", args: []string{"cli"}, code: 2, want: []string{"usage:"}},
		{name: "the e2e suite", args: []string{"e2e", "0.1.0"}, code: 2, want: []string{"e2e is the end-to-end test suite and is not released"}},
		{name: "unknown module", args: []string{"web", "0.1.0"}, code: 2, want: []string{"unknown module 'web'"}},
		{name: "not semver", args: []string{"cli", "0.1"}, code: 2, want: []string{"version '0.1' is not a release version"}},
		{name: "build metadata", args: []string{"cli", "0.1.0+meta"}, code: 2, want: []string{"is not a release version"}},
		{name: "leading zero", args: []string{"cli", "01.0.0"}, code: 2, want: []string{"is not a release version"}},
		{name: "major version 2", args: []string{"cli", "2.0.0"}, code: 2, want: []string{"needs the path suffix /v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mods := good()
			if tt.mods != nil {
				tt.mods(mods)
			}
			dir := newRepo(t, mods, tt.tags...)
			if tt.dirty {
				write(t, filepath.Join(dir, "core", "new.go"), "package core\n")
			}
			code, out, errOut := runRelease(t, dir, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if strings.Contains(out, "git tag") {
				t.Errorf("a refused release printed tag commands:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestChangelogSection(t *testing.T) {
	dir := t.TempDir()
	cl := filepath.Join(dir, "CHANGELOG.md")
	write(t, cl, "# C\n\n## [Unreleased]\n\n- next\n\n## [0.2.0] - 2026-12-01\n\n### Added\n\n- two\n\n## [0.1.0] - 2026-11-01\n\n- one\n\n## [0.0.9] - 2026-10-01\n\n")
	for _, tt := range []struct {
		version string
		code    int
		want    string
		not     string
	}{
		{"0.2.0", 0, "- two", "- one"},
		{"v0.1.0", 0, "- one", "- two"},
		{"0.3.0", 1, "no section for 0.3.0", ""},
		{"0.0.9", 1, "is empty", ""},
		{"0.2", 1, "no section for 0.2", ""},
	} {
		cmd := exec.Command("sh", filepath.Join("..", "..", "scripts", "changelog-section.sh"), cl, tt.version)
		out, err := cmd.CombinedOutput()
		code := exitCode(t, err)
		if code != tt.code || !strings.Contains(string(out), tt.want) || (tt.not != "" && strings.Contains(string(out), tt.not)) {
			t.Errorf("changelog-section %s: exit %d (want %d), output:\n%s\nwant it to contain %q and not %q", tt.version, code, tt.code, out, tt.want, tt.not)
		}
	}
}
