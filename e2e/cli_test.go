package e2e

import (
	"context"
	"strings"
	"testing"
)

type previewJSON struct {
	ResultType    string `json:"result_type"`
	PreviewHandle string `json:"preview_handle"`
	Counts        struct {
		Create, Update, Unchanged, Drift int
	} `json:"counts"`
	Items []struct {
		Reference string `json:"reference"`
		Action    string `json:"action"`
		Key       string `json:"key"`
	} `json:"items"`
}

func (p previewJSON) action(ref string) string {
	for _, i := range p.Items {
		if i.Reference == ref {
			return i.Action
		}
	}
	return ""
}

// TestCLIImportLifecycle: first import through the prompt, unchanged
// re-import with zero writes, a document edit updating only that item, an
// edit made in Jira shown as drift and never overwritten, Enter alone and
// no terminal writing nothing.
func TestCLIImportLifecycle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{})
	p := planSpec{id: "cli-plan", epics: 2, stories: 3}
	e.write("plan.md", p.markdown())

	r := e.dwirePTY("y\r", "import", "plan.md")
	if r.code != 0 {
		t.Fatalf("first import: %s", r)
	}
	e.matches(p)
	if n := len(e.issues()); n != 8 {
		t.Fatalf("tracker holds %d issues, want 8", n)
	}
	issues := e.issuesByRef()
	if got, want := issues["cli-plan/s-1"].Parent, issues["cli-plan/e-1"].Key; got != want {
		t.Errorf("story s-1 parent = %q, want epic key %q", got, want)
	}

	// Unchanged re-import: a preview classifies everything unchanged and
	// writes nothing.
	_ = e.jira.ClearRequests(ctx)
	var pv previewJSON
	if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 {
		t.Fatalf("dry-run: %s", r)
	}
	if pv.ResultType != "preview" || pv.Counts.Unchanged != 8 || pv.Counts.Create+pv.Counts.Update+pv.Counts.Drift != 0 {
		t.Fatalf("unchanged re-import preview = %+v", pv.Counts)
	}
	if w := e.writes(); w != 0 {
		t.Fatalf("an unchanged re-import made %d writes", w)
	}

	// Edit one story in the document: only that item is updated.
	p.titles = map[string]string{"s-2": "Story 2, renamed in the document"}
	e.write("plan.md", p.markdown())
	_ = e.jira.ClearRequests(ctx)
	e.importConfirmed("plan.md")
	if w := e.writes(); w != 1 {
		t.Errorf("editing one story made %d writes, want 1", w)
	}
	if got := e.issuesByRef()["cli-plan/s-2"].Summary; got != "Story 2, renamed in the document" {
		t.Errorf("s-2 summary = %q", got)
	}

	// An edit made in Jira by a person that the document changes too,
	// differently, is drift: shown, never overwritten. (A person's edit the
	// document did not change is kept, and the item's other changes are
	// written: core's TestContentMergePerPart.)
	s3 := e.issuesByRef()["cli-plan/s-3"].Key
	if err := e.jira.EditAsPerson(ctx, s3, "Renamed by a person in Jira"); err != nil {
		t.Fatal(err)
	}
	p.titles["s-3"] = "Story 3, renamed in the document"
	e.write("plan.md", p.markdown())
	pv = previewJSON{}
	if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 {
		t.Fatalf("dry-run after Jira edit: %s", r)
	}
	if a := pv.action("cli-plan/s-3"); a != "drift" {
		t.Fatalf("s-3 after a Jira edit is %q, want drift; preview: %+v; tracker: %+v", a, pv, e.issuesByRef()["cli-plan/s-3"])
	}
	_ = e.jira.ClearRequests(ctx)
	r = e.dwirePTY("y\r", "import", "plan.md")
	if r.code != 0 {
		t.Fatalf("import with drift: %s", r)
	}
	if !strings.Contains(r.stdout, "drift") {
		t.Errorf("the terminal did not show the drift:\n%s", r.stdout)
	}
	if got := e.issuesByRef()["cli-plan/s-3"].Summary; got != "Renamed by a person in Jira" {
		t.Errorf("drifted s-3 was overwritten: %q", got)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("an import whose only difference is drift made %d writes", w)
	}

	// Enter alone at the prompt writes nothing; so does having no terminal.
	p.titles["s-1"] = "Story 1, renamed"
	e.write("plan.md", p.markdown())
	_ = e.jira.ClearRequests(ctx)
	if r := e.dwirePTY("\r", "import", "plan.md"); r.code != 0 {
		t.Fatalf("declined import: %s", r)
	}
	r = e.dwire("import", "plan.md")
	if r.code != 1 || !strings.Contains(r.stderr, "CONFIRMATION_REQUIRED") {
		t.Errorf("import without a terminal: want exit 1 with CONFIRMATION_REQUIRED, got %s", r)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("declining and no-terminal imports made %d writes", w)
	}
	e.matches(p)
}
