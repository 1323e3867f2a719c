package service_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
	"github.com/devworkwire/devworkwire/core/service"
)

// boxDoc writes its criteria with a capital "[X]" and a tab after a box:
// GitHub reads both as task-list items, and so does every reader here.
const boxDoc = `---
id: boxes
---
# Boxes

## Story s-1: Pay
Acceptance criteria:
- [X] Upper done
- [x]	Tabbed done
- [ ] Todo
`

const boxYAML = "id: boxes\nstories:\n  - id: s-1\n    title: Pay\n    acceptance_criteria:\n      - \"[X] Upper done\"\n      - \"[x]\\tTabbed done\"\n      - \"[ ] Todo\"\n"

// wantBoxed is how the tracker holds boxDoc's criteria.
var wantBoxed = []string{"[x] Upper done", "[x] Tabbed done", "[ ] Todo"}

// The import reads "[X]" and a tab after the box as a ticked box, in
// Markdown and YAML alike, and writes them to the tracker as "[x] text".
func TestCriteriaBoxesImport(t *testing.T) {
	for name, doc := range map[string]string{"boxes.md": boxDoc, "boxes.yaml": boxYAML} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: name, Data: []byte(doc)})
			if err != nil {
				t.Fatal(err)
			}
			e.commit(pre.PreviewHandle, "")
			if got := e.byRef()["boxes/s-1"].AcceptanceCriteria; !slices.Equal(got, wantBoxed) {
				t.Errorf("tracker criteria %q; want %q", got, wantBoxed)
			}
		})
	}
}

// The export reads a tracker's "[X] text" (a person's literal checklist
// line) and "[x]<tab>text" as the document readers do: written back as
// "- [x] text", read back exactly (no warning), and imported as adopt with
// no change.
func TestCriteriaBoxesExport(t *testing.T) {
	for _, format := range []string{plan.FormatMarkdown, plan.FormatYAML} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t)
			e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay", AcceptanceCriteria: []string{"[X] Upper done", "[x]\tTabbed done", "[ ] Todo"}})
			res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: format})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("warnings %q", res.Warnings)
			}
			for _, want := range []string{"[x] Upper done", "[x] Tabbed done", "[ ] Todo"} {
				if !strings.Contains(res.Text, want) {
					t.Errorf("export lacks %q:\n%s", want, res.Text)
				}
			}
			name := "plan.md"
			if format == plan.FormatYAML {
				name = "plan.yaml"
			}
			doc, err := plan.Options{}.Parse(name, []byte(res.Text))
			if err != nil {
				t.Fatal(err)
			}
			if it := doc.Items[0]; !slices.Equal(it.AcceptanceCriteria, []string{"Upper done", "Tabbed done", "Todo"}) || !slices.Equal(it.CriteriaBoxes, []string{plan.BoxDone, plan.BoxDone, plan.BoxTodo}) {
				t.Errorf("read back: %q %q", it.AcceptanceCriteria, it.CriteriaBoxes)
			}
			if _, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: name, Data: []byte(res.Text)}); err != nil {
				t.Errorf("import of the export: %v", err)
			}
		})
	}
}

// The pull keeps a document's "[X]" where the tracker still agrees and
// rewrites only the boxes a person changed; the next import is unchanged.
// A tracker's literal "[X] text" and "[x]<tab>text" (a person's typed
// lines, not a checklist) are read by the same rule and pulled in as
// ticked boxes.
func TestCriteriaBoxesPull(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		tracker   []string
		want      string // the file's end after the pull
		unchanged bool   // the next import is unchanged
	}{
		{"document", boxDoc, []string{"[x] Upper done", "[ ] Tabbed done", "[x] Todo"}, "- [X] Upper done\n- [ ] Tabbed done\n- [x] Todo\n", true},
		{"tracker", strings.NewReplacer("[X]", "[ ]", "[x]", "[ ]").Replace(boxDoc), []string{"[X] Upper done", "[x]\tTabbed done", "[ ] Todo"}, "- [x] Upper done\n- [x] Tabbed done\n- [ ] Todo\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			path := e.importFile("boxes.md", c.doc)
			if err := e.p.Edit(e.byRef()["boxes/s-1"].Key, func(w *core.WorkItem) { w.AcceptanceCriteria = c.tracker }); err != nil {
				t.Fatal(err)
			}
			pullAll(e, path)
			if got, _ := os.ReadFile(path); !strings.HasSuffix(string(got), c.want) {
				t.Errorf("file after the pull:\n%s\nwant it to end in\n%s", got, c.want)
			}
			if c.unchanged {
				e.wantUnchangedImport(path)
			}
		})
	}
}

// pullAll previews a pull of path that pulls one item and commits it.
func pullAll(e *env, path string) {
	e.t.Helper()
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if res.Counts.Pull != 1 {
		e.t.Fatalf("%+v", res)
	}
	e.pullCommit(res.PreviewHandle)
}
