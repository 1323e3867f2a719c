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

// row is one package's row of docs/architecture.md's package table.
type row struct {
	line    int
	imports []string // the workspace packages of its "may import" column
}

// packageTable reads the table under "## Packages": a row per package
// (its first column one backticked path), the workspace packages its
// "may import" column names in backticks.
func packageTable(t *testing.T) map[string]row {
	t.Helper()
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]row{}
	in := false
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Packages"
			continue
		case !in || !strings.HasPrefix(l, "| `"):
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		names := ticked(cells[0])
		if len(names) != 1 || strings.Contains(cells[0], "(") {
			continue // e2e's packages and the release module: not listed by the test
		}
		var imps []string
		for _, n := range ticked(cells[len(cells)-1]) {
			if n == "core" || strings.HasPrefix(n, "core/") || n == "mcpserver" || strings.HasPrefix(n, "mcpserver/") ||
				n == "jira" || strings.HasPrefix(n, "jira/") || strings.HasPrefix(n, "store-") || strings.HasPrefix(n, "cli/") {
				imps = append(imps, n)
			}
		}
		slices.Sort(imps)
		rows[names[0]] = row{line: i + 1, imports: imps}
	}
	return rows
}

// ticked returns the `backticked` words of s.
func ticked(s string) []string {
	var r []string
	for {
		_, after, ok := strings.Cut(s, "`")
		if !ok {
			return r
		}
		w, rest, ok := strings.Cut(after, "`")
		if !ok {
			return r
		}
		r = append(r, w)
		s = rest
	}
}

// The package table of docs/architecture.md is true: a row for every
// package, and its "may import" column is what the package imports (so
// following the table's arrows gives what `go list -deps` says).
func TestArchitectureTableIsTrue(t *testing.T) {
	ws := workspace(t)
	table := packageTable(t)
	for path, p := range ws {
		r, ok := table[path]
		if !ok {
			t.Errorf("docs/architecture.md has no row for package %s (imports %v): add one", path, workspaceOnly(p.Imports))
			continue
		}
		if got := workspaceOnly(p.Imports); !slices.Equal(got, r.imports) {
			t.Errorf("docs/architecture.md:%d: %s may import %v, but it imports %v", r.line, path, r.imports, got)
		}
	}
	for path, r := range table {
		if _, ok := ws[path]; !ok {
			t.Errorf("docs/architecture.md:%d: a row for %s, which is no package", r.line, path)
		}
	}
	// The table's arrows, followed, are what go list -deps says.
	for path, p := range ws {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(q string) {
			for _, d := range table[q].imports {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(path)
		var want []string
		for _, d := range workspaceOnly(p.Deps) {
			if d != path {
				want = append(want, d)
			}
		}
		got := slices.Sorted(func(yield func(string) bool) {
			for d := range seen {
				if !yield(d) {
					return
				}
			}
		})
		if !slices.Equal(got, want) {
			t.Errorf("following docs/architecture.md's arrows from %s gives %v; go list -deps gives %v", path, got, want)
		}
	}
}
