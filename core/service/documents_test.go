package service_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// previewAt previews doc as read from path.
func (e *env) previewAt(path, doc string) (service.ImportPreviewResult, error) {
	e.t.Helper()
	e.p.ForbidWrites(e.t)
	defer e.p.AllowWrites()
	return e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path, Data: []byte(doc)})
}

// The store remembers the file each document id was last imported from:
// another file reusing the id is a warning naming both files (it takes
// over the id's items), an error when it lists none of them; the same
// file, or the file after a commit from the new place, is quiet.
func TestAnotherFileReusingADocumentID(t *testing.T) {
	e := newEnv(t)
	first, err := e.previewAt("/w/plans/checkout.md", checkoutDoc())
	if err != nil {
		t.Fatal(err)
	}
	e.commit(first.PreviewHandle, "")
	if again, err := e.previewAt("/w/plans/checkout.md", checkoutDoc()); err != nil || len(again.Warnings) != 0 {
		t.Fatalf("the same file again: %v, warnings %q", err, again.Warnings)
	}
	moved, err := e.previewAt("/w/plans/moved.md", markdown("checkout", checkoutItems[:3]...))
	if err != nil {
		t.Fatal(err)
	}
	if len(moved.Warnings) == 0 || !strings.Contains(moved.Warnings[0], "Document id checkout was last imported from /w/plans/checkout.md; this file (/w/plans/moved.md) would take over its 6 items in the tracker (it lists 3 of them)") {
		t.Errorf("warnings %q", moved.Warnings)
	}
	other := markdown("checkout", epic("x-1", "Another plan"), story("x-2", "Its story", "x-1"))
	_, err = e.previewAt("/w/other/plan.md", other)
	wantErr(t, err, core.CodeValidationFailed, "Document id checkout was last imported from /w/plans/checkout.md", "(/w/other/plan.md) lists none of the 6 items", "Give this document its own id")

	// Committed from the new place, the id belongs there.
	e.commit(moved.PreviewHandle, "")
	if again, err := e.previewAt("/w/plans/moved.md", markdown("checkout", checkoutItems[:3]...)); err != nil || len(again.Warnings) != 0 {
		t.Errorf("after the move: %v, warnings %q", err, again.Warnings)
	}
	if _, err := e.previewAt("/w/plans/checkout.md", checkoutDoc()); err != nil {
		t.Errorf("the old file again (it shares the items): %v", err)
	}
}

func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "p.md"), []byte("# P\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"/w/plans/p.md", "/w/plans/./p.md", true},
		{"/w/plans/p.md", "/w/plans/q.md", false},
		{filepath.Join(dir, "link", "p.md"), filepath.Join(real, "p.md"), true},
		{filepath.Join(dir, "link", "gone.md"), filepath.Join(real, "gone.md"), false},
	} {
		if got := service.SamePath(c.a, c.b); got != c.want {
			t.Errorf("SamePath(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// writeTree writes files (slash-separated path → content) under a new
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plans")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// previewDir previews the directory dir, failing the test on any write.
func (e *env) previewDir(dir string) (service.ImportPreviewResult, error) {
	e.t.Helper()
	before := e.p.Writes()
	e.p.ForbidWrites(e.t)
	defer e.p.AllowWrites()
	res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: dir})
	if w := e.p.Writes(); w != before {
		e.t.Fatalf("ImportPreview made %d writes", w-before)
	}
	return res, err
}

// A directory is one preview and one commit: every planning document in
// it, recursively (hidden entries, other files and a README without items
// skipped, and said so), rows grouped by document in file order and
// naming their document; a story of one document naming an epic of
// another by reference gets that epic's key although the epic is created
// by the same commit (epics first, across documents); a retried commit
// replays; each document's file is recorded.
func TestDirectoryImport(t *testing.T) {
	e := newEnv(t)
	dir := writeTree(t, map[string]string{
		"infra.md":         markdown("infra", epic("e-1", "Platform"), story("s-1", "Provision", "e-1")),
		"team/app.md":      strings.Replace(markdown("app", story("s-1", "Use the platform", "infra/e-1"), epic("e-2", "App"), story("s-2", "Screens", "e-2")), "Epic: infra/e-1\n", "Epic: infra/e-1\nDepends on: infra/s-1\n", 1),
		"README.md":        "# Plans\n\nOne file per team.\n",
		"notes.txt":        "not a plan",
		".drafts/wip.md":   markdown("wip", epic("e-9", "Draft")),
		".hidden.md":       markdown("hidden", epic("e-8", "Hidden")),
		"team/release.yml": "id: release\nstories:\n  - id: s-1\n    title: Ship it\n    epic: app/e-2\n",
	})
	pre, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range pre.Items {
		got = append(got, it.Document+" "+string(it.Reference)+" "+string(it.Action)+" parent="+string(it.Parent))
		if it.Document != it.Reference.Document() {
			t.Errorf("row %s names document %q", it.Reference, it.Document)
		}
	}
	want := []string{
		"infra infra/e-1 create parent=",
		"infra infra/s-1 create parent=infra/e-1",
		"app app/s-1 create parent=infra/e-1",
		"app app/e-2 create parent=",
		"app app/s-2 create parent=app/e-2",
		"release release/s-1 create parent=app/e-2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if pre.Document != "" || len(pre.Documents) != 3 || pre.Documents[0] != (service.PlanDocument{ID: "infra", File: "plans/infra.md"}) ||
		pre.Documents[1] != (service.PlanDocument{ID: "app", File: "plans/team/app.md"}) || pre.Documents[2].File != "plans/team/release.yml" {
		t.Errorf("document %q, documents %+v", pre.Document, pre.Documents)
	}
	skipped := strings.Join(pre.Warnings, "\n")
	for _, f := range []string{"4 entries of the directory were not read", "plans/.drafts/ (hidden)", "plans/.hidden.md (hidden)", "plans/notes.txt (not a .md, .markdown, .yaml or .yml file)", "plans/README.md (no epics, stories or document id"} {
		if !strings.Contains(skipped, f) {
			t.Errorf("warnings %q lack %q", pre.Warnings, f)
		}
	}

	// A person reviewing pending previews sees which documents it holds.
	pending, err := e.svc.PendingPreviews(e.ctx, 10)
	if err != nil || len(pending.Previews) != 1 || strings.Join(pending.Previews[0].Documents, " ") != "infra app release" {
		t.Errorf("pending %+v, %v", pending.Previews, err)
	}
	res := e.commit(pre.PreviewHandle, "dir-1")
	if res.Counts.Created != 6 {
		t.Fatalf("commit %+v", res.Counts)
	}
	refs := e.byRef()
	for story, ep := range map[core.Reference]core.Reference{"app/s-1": "infra/e-1", "infra/s-1": "infra/e-1", "release/s-1": "app/e-2"} {
		if refs[story].ParentKey == "" || refs[story].ParentKey != refs[ep].Key {
			t.Errorf("%s has parent %q; want %s's key %q", story, refs[story].ParentKey, ep, refs[ep].Key)
		}
	}
	for _, it := range res.Items {
		if it.Document != it.Reference.Document() {
			t.Errorf("committed %s names document %q", it.Reference, it.Document)
		}
	}
	// A dependency on an item of another document, both created by this
	// commit, is linked after the items.
	if deps := e.p.Deps(); !slices.Contains(deps, refs["app/s-1"].Key+"<-"+refs["infra/s-1"].Key) {
		t.Errorf("dependencies %q; want app/s-1 blocked by infra/s-1", deps)
	}
	// The retried commit replays, writing nothing.
	writes := e.p.Writes()
	if again := e.commit(pre.PreviewHandle, "dir-1"); !again.Replayed || e.p.Writes() != writes {
		t.Errorf("retried commit: replayed %v, %d writes", again.Replayed, e.p.Writes()-writes)
	}
	// Each document's file is recorded: the same directory again is
	// quiet and unchanged; another file taking an id over is warned about.
	again, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Counts.Unchanged != 6 || len(again.Warnings) != 1 {
		t.Errorf("again: %+v, warnings %q", again.Counts, again.Warnings)
	}
	moved, err := e.previewAt(filepath.Join(t.TempDir(), "infra.md"), markdown("infra", epic("e-1", "Platform")))
	if err != nil {
		t.Fatal(err)
	}
	if len(moved.Warnings) == 0 || !strings.Contains(moved.Warnings[0], "Document id infra was last imported from "+filepath.Join(dir, "infra.md")) {
		t.Errorf("warnings %q", moved.Warnings)
	}
	for _, doc := range []string{"infra", "app", "release"} {
		e.wantLockFree(doc)
	}
}

// An epic a story names in a document outside the directory is taken from
// the tracker; one that is nowhere is refused, naming file, item and line.
func TestDirectoryImportReferences(t *testing.T) {
	e := newEnv(t)
	base := e.preview(markdown("plan", epic("e-1", "Existing")))
	e.commit(base.PreviewHandle, "")
	epicKey := e.byRef()["plan/e-1"].Key

	dir := writeTree(t, map[string]string{"a.md": markdown("a", story("s-1", "Under an existing epic", "plan/e-1"))})
	pre, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pre.Items) != 1 || pre.Items[0].Parent != "plan/e-1" {
		t.Fatalf("rows %+v", pre.Items)
	}
	e.commit(pre.PreviewHandle, "")
	if got := e.byRef()["a/s-1"].ParentKey; got != epicKey {
		t.Errorf("a/s-1 has parent %q; want %s", got, epicKey)
	}

	dir = writeTree(t, map[string]string{
		"a.md": markdown("a", story("s-1", "Under an existing epic", "plan/e-1")),
		"b.md": markdown("b", epic("e-1", "B"), story("s-2", "Lost", "nowhere/e-7")),
	})
	_, err = e.previewDir(dir)
	ce := wantErr(t, err, core.CodeValidationFailed, "1 story names an epic that does not exist", "in plans/b.md line 11", "Story s-2 references epic nowhere/e-7, which is neither in the documents of this preview nor in the tracker")
	if len(ce.Details) != 1 || ce.Details[0].File != "plans/b.md" || ce.Details[0].Item != "b/s-2" || ce.Details[0].Line != 11 {
		t.Errorf("details %+v", ce.Details)
	}
}

// What a directory preview refuses, every problem at once, each naming
// its file: two documents with one id, an epic reference the set's other
// document does not define, an item problem; a directory without plans.
func TestDirectoryImportRefusals(t *testing.T) {
	e := newEnv(t)
	dir := writeTree(t, map[string]string{
		"one.md":     markdown("shared", epic("e-1", "One")),
		"sub/two.md": markdown("shared", epic("e-1", "Two")),
		"three.md":   markdown("three", story("s-1", "Names a story", "shared/e-9")),
		"four.md":    markdown("four", epic("bad id", "Four")),
	})
	_, err := e.previewDir(dir)
	ce := wantErr(t, err, core.CodeValidationFailed, "3 problems in the planning documents")
	var all []string
	for _, d := range ce.Details {
		if d.File == "" {
			t.Errorf("detail without a file: %+v", d)
		}
		all = append(all, d.File+": "+d.Message)
	}
	joined := strings.Join(all, "\n")
	for _, f := range []string{
		"plans/sub/two.md: plans/one.md and plans/sub/two.md both have the document id shared",
		"plans/three.md: Story s-1 references epic shared/e-9, which plans/one.md (document shared) does not define",
		`plans/four.md: Epic id "bad id"`,
	} {
		if !strings.Contains(joined, f) {
			t.Errorf("details\n%s\nlack %q", joined, f)
		}
	}

	_, err = e.previewDir(writeTree(t, map[string]string{"README.md": "# Nothing here\n", ".x/p.md": markdown("p", epic("e-1", "P"))}))
	ce = wantErr(t, err, core.CodeSourceNotFound, "plans holds no planning document", "2 entries were skipped")
	if len(ce.Details) != 2 {
		t.Errorf("details %+v", ce.Details)
	}
	_, err = e.previewDir(writeTree(t, nil))
	wantErr(t, err, core.CodeSourceNotFound, "plans holds no planning document", "hidden files and directories are skipped")
}

// Two documents of a directory adopting one issue: refused (by the set's
// parser) like two items of one document; each adopting its own is fine.
func TestAdoptAcrossADirectory(t *testing.T) {
	e := newEnv(t)
	backlog(e)
	dir := writeTree(t, map[string]string{
		"a.md": "---\nid: a\n---\n## Story s-1: Pay\nKey: DEMO-2\n",
		"b.md": "---\nid: b\n---\n## Story s-1: Loose\nKey: DEMO-2\n",
	})
	_, err := e.previewDir(dir)
	wantErr(t, err, core.CodeValidationFailed, "Story s-1 adopts DEMO-2 (Key: line 5), which Story s-1 in plans/a.md adopts too")
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("---\nid: b\n---\n## Story s-1: Loose\nKey: DEMO-4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pre, err := e.previewDir(dir)
	if err != nil || pre.Counts.Adopt != 2 {
		t.Fatalf("two adopts: %+v, %v", pre.Counts, err)
	}
	if res := e.commit(pre.PreviewHandle, ""); res.Counts.Adopted != 2 || e.byRef()["a/s-1"].Key != "DEMO-2" || e.byRef()["b/s-1"].Key != "DEMO-4" {
		t.Errorf("commit %+v", res.Counts)
	}
}
