package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// previewAt previews doc as read from path.
func (e *env) previewAt(path, doc string) (core.ImportPreviewResult, error) {
	e.t.Helper()
	e.p.ForbidWrites(e.t)
	defer e.p.AllowWrites()
	return e.svc.ImportPreview(e.ctx, core.ImportPreviewInput{Path: path, Data: []byte(doc)})
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
		if got := core.SamePath(c.a, c.b); got != c.want {
			t.Errorf("SamePath(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
