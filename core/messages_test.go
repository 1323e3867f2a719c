package core_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// frontDoorWords are words only a front door may speak: the MCP tools'
// names (dotted and underscore forms) and the CLI's commands.
var frontDoorWords = []string{
	"import.preview", "import.commit", "progress.preview", "progress.commit", "workitem.get", "workitem.query",
	"import_preview", "import_commit", "progress_preview", "progress_commit", "workitem_get", "workitem_query",
	"dwire ", "`dwire", "--json", "--dry-run",
}

// TestCoreMessagesSpeakNoFrontDoorsWords scans every string literal of the
// packages whose errors and warnings reach people (core, core/plan,
// core/storeerr, core/storetest/memstore, core/providertest/fakeprovider; tests
// excluded) and fails on a front door's words: core says "run the import
// preview again", and each front door adds its own next step. The only
// literals skipped are the service's operation names (the "op" of its log
// lines), passed to begin.
func TestCoreMessagesSpeakNoFrontDoorsWords(t *testing.T) {
	dirs := []string{".", "service", "plan", "storeerr", "storetest/memstore", "providertest/fakeprovider"}
	scanned, sawNeutral := 0, false
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			skip := map[*ast.BasicLit]bool{}
			ast.Inspect(file, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "begin" && len(c.Args) == 2 {
						if lit, ok := c.Args[1].(*ast.BasicLit); ok {
							skip[lit] = true
						}
					}
				}
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || skip[lit] {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
				}
				scanned++
				if strings.Contains(s, "run the import preview again") {
					sawNeutral = true
				}
				for _, w := range frontDoorWords {
					if strings.Contains(s, w) {
						t.Errorf("%s: %q names a front door's %q; say it in core's words (\"run the import preview again\") and let the front door add its next step", fset.Position(lit.Pos()), s, w)
					}
				}
				return true
			})
		}
	}
	if scanned < 200 || !sawNeutral {
		t.Fatalf("scanned %d literals (neutral wording seen: %v): the scan is not reading core's sources", scanned, sawNeutral)
	}
}
