package e2e

import (
	"strings"
	"testing"
)

// backlogPreview is an import preview with what the removed-items rows
// and counts carry.
type backlogPreview struct {
	PreviewHandle string `json:"preview_handle"`
	Counts        struct {
		Unchanged, Removed, Close int
	} `json:"counts"`
	Items []struct {
		Reference, Action, Key, Status, Transition string
	} `json:"items"`
	Warnings []string `json:"warnings"`
}

func (p backlogPreview) row(ref string) (action, status string) {
	for _, it := range p.Items {
		if it.Reference == ref {
			return it.Action, it.Status
		}
	}
	return "", ""
}

// TestRemovedItemsAndDocumentIDsBothDoors through the
// real processes: a story deleted from the document is shown as removed
// and left alone; closed only when chosen (MCP removed: close) and
// confirmed; marked by workitem_get; the CLI shows it as removed once
// done. Another file reusing the document id is warned about naming both
// files (CLI), and refused when it lists none of the id's items (both
// doors), with zero writes.
func TestRemovedItemsAndDocumentIDsBothDoors(t *testing.T) {
	e, p := newEnv(t, envOptions{}), planSpec{id: "rm-plan", epics: 1, stories: 3}
	e.write("plan.md", p.markdown())
	cs, _ := e.mcp()
	if o := e.scCommitImport(cs, e.scPreview(cs, "plan.md").PreviewHandle, ""); o.code() != "" {
		t.Fatalf("first import: %v", o.errData)
	}
	var pv backlogPreview

	p.stories = 2 // s-3 deleted from the document
	e.write("plan.md", p.markdown())
	w0 := e.writes()
	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv); d != nil {
		t.Fatalf("import_preview after the delete: %v", d)
	}
	if a, st := pv.row("rm-plan/s-3"); a != "removed" || st != "todo" || pv.Counts.Removed != 1 || pv.Counts.Unchanged != 3 {
		t.Fatalf("removed row %q/%q, counts %+v", a, st, pv.Counts)
	}
	var c struct {
		Counts struct{ Removed, Closed int } `json:"counts"`
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil || c.Counts.Removed != 1 {
		t.Fatalf("commit of a plan with a removed item: %+v, %v", c, d)
	}
	if w := e.writes(); w != w0 {
		t.Fatalf("a removed item left alone cost %d writes", w-w0)
	}
	if is := e.issuesByRef()["rm-plan/s-3"]; is.StatusCategory == "done" {
		t.Fatal("the removed item was closed without being asked")
	}

	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md", "removed": "close"}, &pv); d != nil {
		t.Fatalf("import_preview removed close: %v", d)
	}
	if a, _ := pv.row("rm-plan/s-3"); a != "close" || pv.Counts.Close != 1 {
		t.Fatalf("close row %q, counts %+v", a, pv.Counts)
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil || c.Counts.Closed != 1 {
		t.Fatalf("commit of the close: %+v, %v", c, d)
	}
	if is := e.issuesByRef()["rm-plan/s-3"]; is.StatusCategory != "done" {
		t.Errorf("s-3 is %q after the close", is.StatusCategory)
	}
	if len(e.scComments(e.issuesByRef()["rm-plan/s-3"].Key)) != 1 {
		t.Error("the close added no comment")
	}
	var g struct {
		Item struct {
			Removed bool `json:"removed"`
		} `json:"item"`
	}
	if d := e.call(cs, "workitem_get", map[string]any{"item": "rm-plan/s-3"}, &g); d != nil || !g.Item.Removed {
		t.Errorf("workitem_get of the removed item: %+v, %v", g, d)
	}

	// The CLI: the closed item is shown as removed, left alone.
	var cli backlogPreview
	if r := e.dwireJSON(&cli, "import", "plan.md", "--dry-run"); r.code != 0 {
		t.Fatalf("dry run: %s", r)
	}
	if a, st := cli.row("rm-plan/s-3"); a != "removed" || st != "done" {
		t.Errorf("CLI row of the closed item %q/%q", a, st)
	}

	// Another file with the same id: a warning naming both files when it
	// shares the items, a refusal when it shares none.
	e.write("copy.md", p.markdown())
	w1 := e.writes()
	r := e.dwire("import", "copy.md", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stderr, "Document id rm-plan was last imported from") || !strings.Contains(r.stderr, "plan.md; this file (") || !strings.Contains(r.stderr, "copy.md) would take over its 4 items") {
		t.Errorf("a copy of the plan: %s", r)
	}
	e.write("other.md", "---\nid: rm-plan\n---\n# Another plan\n\n## Epic x-1: Something else\n")
	if r := e.dwire("import", "other.md", "--dry-run"); r.code != 1 || !strings.Contains(r.stderr, "VALIDATION_FAILED") || !strings.Contains(r.stderr, "lists none of the 4 items") {
		t.Errorf("another plan reusing the id (CLI): %s", r)
	}
	if got := codeOf(e.call(cs, "import_preview", map[string]any{"path": "other.md"}, nil)); got != "VALIDATION_FAILED" {
		t.Errorf("another plan reusing the id (MCP): %q", got)
	}
	if w := e.writes(); w != w1 {
		t.Errorf("previews of colliding files made %d writes", w-w1)
	}
}
