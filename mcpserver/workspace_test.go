package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

func TestWorkspaceConfinement(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(ws, "plans"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, data []byte) {
		t.Helper()
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "plans", "a.md"), []byte("# A\n"))
	write(filepath.Join(outside, "secret.md"), []byte("# secret\n"))
	write(filepath.Join(ws, "big.md"), make([]byte, 6<<20))
	mustLink := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "escape.md"))
	mustLink(outside, filepath.Join(ws, "outdir"))
	mustLink(filepath.Join(ws, "plans", "a.md"), filepath.Join(ws, "inside-link.md"))
	mustLink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "plans", "leak.md"))
	// The workspace itself reached through a symlink still works.
	wsLink := filepath.Join(root, "ws-link")
	mustLink(ws, wsLink)

	ok := []struct{ path, want string }{
		{"plans/a.md", "# A\n"},
		{"./plans/../plans/a.md", "# A\n"},
		{filepath.Join(ws, "plans", "a.md"), "# A\n"},
		{"inside-link.md", "# A\n"},
	}
	bad := []struct {
		path string
		code core.Code
		want string
	}{
		{"../outside/secret.md", core.CodeSourceNotFound, "outside the workspace"},
		{filepath.Join(outside, "secret.md"), core.CodeSourceNotFound, "outside the workspace"},
		{"escape.md", core.CodeSourceNotFound, "symbolic link"},
		{"outdir/secret.md", core.CodeSourceNotFound, "outside the workspace"},
		{"plans/missing.md", core.CodeSourceNotFound, "does not exist"},
		{"outdir", core.CodeSourceNotFound, "outside the workspace"},
		{"", core.CodeSourceNotFound, "No document path"},
		{"big.md", core.CodeSourceParseFailed, "the limit is 5 MiB"},
	}
	for _, workspace := range []string{ws, wsLink} {
		svc := &fakeService{}
		c := connect(t, svc, Options{Workspace: workspace}, nil, "")
		for _, tc := range ok {
			c.mustCall(t, ToolImportPreview, map[string]any{"path": tc.path})
			if string(svc.lastImport.Data) != tc.want {
				t.Errorf("%s: service got data %q", tc.path, svc.lastImport.Data)
			}
			if !filepath.IsAbs(svc.lastImport.Path) || filepath.Base(svc.lastImport.Path) != "a.md" {
				t.Errorf("%s: service got path %q", tc.path, svc.lastImport.Path)
			}
		}
		// A directory inside the workspace is read as a set of documents;
		// a symbolic link in it is skipped, never followed out of it.
		c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans"})
		if set := svc.lastImport.Set; set == nil || len(set.Files) != 1 || string(set.Files[0].Data) != "# A\n" || set.Files[0].Name != "plans/a.md" ||
			len(set.Skipped) != 1 || set.Skipped[0].Name != "plans/leak.md" || !strings.Contains(set.Skipped[0].Why, "symbolic link") || filepath.Base(svc.lastImport.Path) != "plans" {
			t.Errorf("directory: service got path %q, set %+v", svc.lastImport.Path, set)
		}
		before := svc.called("ImportPreview")
		for _, tc := range bad {
			_, err := c.call(t, ToolImportPreview, map[string]any{"path": tc.path})
			data := wantCode(t, err, tc.code)
			if msg := data["message"].(string); !strings.Contains(msg, tc.want) {
				t.Errorf("%q: message %q should say %q", tc.path, msg, tc.want)
			}
		}
		if svc.called("ImportPreview") != before {
			t.Error("the service was called for a refused path")
		}
	}
}

func TestWorkspaceDefaultsToWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte("id: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	svc := &fakeService{}
	c := connect(t, svc, Options{}, nil, "")
	c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.yaml"})
	if string(svc.lastImport.Data) != "id: p\n" {
		t.Errorf("data %q", svc.lastImport.Data)
	}
}

func TestMissingWorkspaceIsConfigInvalid(t *testing.T) {
	c := connect(t, &fakeService{}, Options{Workspace: filepath.Join(t.TempDir(), "gone")}, nil, "")
	_, err := c.call(t, ToolImportPreview, map[string]any{"path": "p.md"})
	wantCode(t, err, core.CodeConfigInvalid)
}

// import_preview passes release_held and removed through to the service.
func TestImportPreviewPassesReleaseHeld(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte("id: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := &fakeService{}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.yaml", "release_held": []string{"s-1", "p/s-2"}, "removed": "close"})
	if got := svc.lastImport.ReleaseHeld; !slices.Equal(got, []string{"s-1", "p/s-2"}) {
		t.Errorf("service got release_held %q", got)
	}
	if got := svc.lastImport.Removed; got != "close" {
		t.Errorf("service got removed %q", got)
	}
}
