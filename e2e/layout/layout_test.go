package layout_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const prefix = "github.com/devworkwire/devworkwire/"

// pkg is one package as `go list` describes it.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

// rel is a workspace import path without the repository's prefix.
func rel(p string) string { return strings.TrimPrefix(p, prefix) }

var (
	listOnce sync.Once
	listed   map[string]pkg // by rel path: every package of every module but e2e
	listErr  error
)

// workspace lists every package of the modules in MODULES (e2e, a module
// of tests, excepted) with `go list -deps`.
func workspace(t *testing.T) map[string]pkg {
	t.Helper()
	listOnce.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			listErr = err
			return
		}
		mods, err := os.ReadFile(filepath.Join(root, "MODULES"))
		if err != nil {
			listErr = err
			return
		}
		listed = map[string]pkg{}
		for _, m := range strings.Fields(string(mods)) {
			if m == "e2e" {
				continue
			}
			cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,Standard", "./...")
			cmd.Dir = filepath.Join(root, m)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				listErr = err
				t.Logf("go list in %s: %s", m, stderr.String())
				return
			}
			dec := json.NewDecoder(bytes.NewReader(out))
			for {
				var p pkg
				if err := dec.Decode(&p); err == io.EOF {
					break
				} else if err != nil {
					listErr = err
					return
				}
				listed[rel(p.ImportPath)] = p
			}
		}
	})
	if listErr != nil {
		t.Fatalf("listing the workspace's packages: %v", listErr)
	}
	return listed
}

// workspaceOnly keeps the workspace's packages of paths, as rel paths.
func workspaceOnly(paths []string) []string {
	var r []string
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) {
			r = append(r, rel(p))
		}
	}
	slices.Sort(r)
	return r
}

// isKit says whether a package is a test kit: a path element ending in
// "test" (storetest, providertest/fakeprovider, jiratest, pgtest, ...).
func isKit(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if strings.HasSuffix(e, "test") {
			return true
		}
	}
	return false
}

// kitCommands are the commands that serve a test kit as a process, kept
// beside it: the fake Jira (mockjira, for the demo and the end-to-end
// tests). They are not part of the product.
var kitCommands = map[string]bool{"jira/cmd/mockjira": true}

// No production package imports a test kit or package testing: twins
// and contract suites are for tests, and the binaries carry none of them.
func TestProductionImportsNoTestKit(t *testing.T) {
	for path, p := range workspace(t) {
		if isKit(path) || kitCommands[path] {
			continue
		}
		for _, imp := range p.Imports {
			if imp == "testing" || (strings.HasPrefix(imp, prefix) && isKit(rel(imp))) {
				t.Errorf("%s imports %s, a test kit: production code imports no test kit (move the helper out of the kit, or the caller into one)", path, imp)
			}
		}
	}
}

// The root package core is the vocabulary and the ports: it builds on the
// standard library alone.
func TestCoreImportsOnlyTheStandardLibrary(t *testing.T) {
	p, ok := workspace(t)["core"]
	if !ok {
		t.Fatal("package core not listed")
	}
	for _, d := range p.Deps {
		if strings.Contains(strings.Split(d, "/")[0], ".") {
			t.Errorf("core depends on %s: core imports the standard library only", d)
		}
	}
}

// The front doors name document formats and read field defaults through
// the service: neither imports the parser, core/plan.
func TestFrontDoorsDoNotImportThePlanParser(t *testing.T) {
	for path, p := range workspace(t) {
		if !strings.HasPrefix(path, "mcpserver") && !strings.HasPrefix(path, "cli") {
			continue
		}
		if slices.Contains(p.Imports, prefix+"core/plan") {
			t.Errorf("%s imports core/plan: a front door goes through core/service (FormatName, ParseDefaults, ...)", path)
		}
	}
}
