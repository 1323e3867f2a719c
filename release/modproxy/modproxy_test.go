package modproxy

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestReleased: the released modules are MODULES less the e2e suite, in
// its order (core first, the cli, which requires the rest, last).
func TestReleased(t *testing.T) {
	mods, err := Released(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 2 || mods[0] != "core" || mods[len(mods)-1] != "cli" || slices.Contains(mods, "e2e") {
		t.Fatalf("Released = %v; want core first, cli last, no e2e", mods)
	}
	if _, err := Released(t.TempDir()); err == nil {
		t.Fatal("Released of a directory without MODULES: no error")
	}
}

// TestBuildFromWorkspace publishes the real workspace and checks the
// published form of every module: a valid module zip, a go.mod without
// replace directives that requires the siblings at the version.
func TestBuildFromWorkspace(t *testing.T) {
	released, err := Released(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Build(Options{Root: filepath.Join("..", ".."), Modules: released, Version: "v0.1.0", Out: out}); err != nil {
		t.Fatal(err)
	}
	for _, m := range released {
		mv := module.Version{Path: Prefix + m, Version: "v0.1.0"}
		base := filepath.Join(out, "github.com", "devworkwire", "devworkwire", m, "@v")
		if _, err := modzip.CheckZip(mv, filepath.Join(base, "v0.1.0.zip")); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		data, err := os.ReadFile(filepath.Join(base, "v0.1.0.mod"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse("go.mod", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Replace) > 0 {
			t.Errorf("%s: the published go.mod keeps %d replace directives", m, len(f.Replace))
		}
		for _, r := range f.Require {
			if strings.HasPrefix(r.Mod.Path, Prefix) && r.Mod.Version != "v0.1.0" {
				t.Errorf("%s: the published go.mod requires %s %s, want v0.1.0", m, r.Mod.Path, r.Mod.Version)
			}
		}
		if list, err := os.ReadFile(filepath.Join(base, "list")); err != nil || string(list) != "v0.1.0\n" {
			t.Errorf("%s: list = %q, %v", m, list, err)
		}
	}
	files := zipNames(t, filepath.Join(out, "github.com", "devworkwire", "devworkwire", "cli", "@v", "v0.1.0.zip"))
	for _, want := range []string{"go.mod", "go.sum", "cmd/dwire/main.go", "CHANGELOG.md", "LICENSE"} {
		if !files[Prefix+"cli@v0.1.0/"+want] {
			t.Errorf("the cli zip has no %s", want)
		}
	}
}

func zipNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	return names
}

func TestNestedModulesAndIgnoredFilesAreLeftOut(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"a/go.mod":       "module " + Prefix + "a\n\ngo 1.26\n",
		"a/a.go":         "package a\n",
		"a/sub/go.mod":   "module " + Prefix + "a/sub\n\ngo 1.26\n",
		"a/sub/sub.go":   "package sub\n",
		"a/bin/built":    "ignored\n",
		"a/new.go":       "package a // untracked, not ignored\n",
		".gitignore":     "/a/bin/\n",
		"b/go.mod":       "module " + Prefix + "b\n",
		"a/inner/doc.go": "package inner\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	got, err := moduleFiles(root, "a")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a.go go.mod inner/doc.go new.go" {
		t.Errorf("moduleFiles = %v, want [a.go go.mod inner/doc.go new.go]", got)
	}
}

func TestPublishedGoMod(t *testing.T) {
	siblings := map[string]bool{Prefix + "core": true, Prefix + "jira": true}
	in := "module " + Prefix + "cli\n\ngo 1.26\n\nrequire (\n\t" + Prefix + "core v0.0.0-00010101000000-000000000000\n\t" + Prefix + "jira v0.0.0-00010101000000-000000000000\n\tgithub.com/spf13/cobra v1.10.2\n)\n\nreplace (\n\t" + Prefix + "core => ../core\n\t" + Prefix + "jira => ../jira\n)\n"
	out, err := PublishedGoMod([]byte(in), siblings, "v0.3.0")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{Prefix + "core v0.3.0", Prefix + "jira v0.3.0", "github.com/spf13/cobra v1.10.2"} {
		if !strings.Contains(s, want) {
			t.Errorf("published go.mod lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "replace") || strings.Contains(s, "00010101000000") {
		t.Errorf("published go.mod keeps a replace or the placeholder version:\n%s", s)
	}

	foreign := "module " + Prefix + "cli\n\ngo 1.26\n\nreplace github.com/spf13/cobra => ../cobra\n"
	if _, err := PublishedGoMod([]byte(foreign), siblings, "v0.3.0"); err == nil || !strings.Contains(err.Error(), "github.com/spf13/cobra, which is not a sibling") {
		t.Errorf("a replace of a third-party module: err = %v, want it refused", err)
	}
}

func TestBuildRefusesBadVersions(t *testing.T) {
	for _, v := range []string{"0.1.0", "v0.1", "v0.1.0+build", ""} {
		if err := Build(Options{Root: t.TempDir(), Modules: []string{"core"}, Version: v, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "not a canonical release version") {
			t.Errorf("Build(version %q) = %v, want a refusal", v, err)
		}
	}
}
