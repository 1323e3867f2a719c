package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries are the names in dir (a temporary file left behind shows here).
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s = %q, %v; want %q", filepath.Base(path), got, err, want)
	}
}

// An existing file is replaced whole and keeps its mode; the new content
// is synced before the rename puts it in place (the old file is still
// there then, and the temporary file holds all of the new).
func TestWriteReplacesAndKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	synced := false
	defer func() { syncFile = (*os.File).Sync }()
	syncFile = func(f *os.File) error {
		synced = true
		wantContent(t, path, "old")
		wantContent(t, f.Name(), "new content")
		if fi, _ := f.Stat(); fi.Mode().Perm() != 0o600 {
			t.Errorf("temporary file mode %v while written; want 0600 from the start", fi.Mode().Perm())
		}
		return f.Sync()
	}
	if err := Write(path, []byte("new content")); err != nil {
		t.Fatal(err)
	}
	if !synced {
		t.Error("the content was not synced before the rename")
	}
	wantContent(t, path, "new content")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600 kept", fi.Mode().Perm())
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("folder holds %q; want plan.md alone", got)
	}
	// Mode 0000 is a mode too (not "no file").
	syncFile = (*os.File).Sync
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("locked")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0 {
		t.Errorf("mode %v; want 0000 kept", fi.Mode().Perm())
	}
}

// A symbolic link (to a link, relative) is written through: the target
// gets the content and keeps its mode, the links stay links.
func TestWriteFollowsSymbolicLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "docs", "plan.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	mid, link := filepath.Join(dir, "mid.md"), filepath.Join(dir, "plan.md")
	if err := os.Symlink("docs/plan.md", mid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mid, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("through the link")); err != nil {
		t.Fatal(err)
	}
	wantContent(t, real, "through the link")
	for _, l := range []string{link, mid} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link: %v %v", filepath.Base(l), fi.Mode(), err)
		}
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v; want 0640 kept", fi.Mode().Perm())
	}
	if got := entries(t, filepath.Dir(real)); len(got) != 1 {
		t.Errorf("target folder holds %q; want plan.md alone", got)
	}
	// A link to a file that does not exist yet creates the file.
	if err := os.Symlink("docs/new.md", filepath.Join(dir, "new.md")); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "new.md"), []byte("created")); err != nil {
		t.Fatal(err)
	}
	wantContent(t, filepath.Join(dir, "docs", "new.md"), "created")
}

// A file that does not exist yet is created with the mode os.OpenFile
// gives NewFileMode under this process's umask; a missing folder is
// fs.ErrNotExist and creates nothing.
func TestWriteCreatesANewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.md")
	if err := Write(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, "first")
	ref := filepath.Join(dir, "reference")
	f, err := os.OpenFile(ref, os.O_WRONLY|os.O_CREATE|os.O_EXCL, NewFileMode)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	a, _ := os.Stat(path)
	b, _ := os.Stat(ref)
	if a.Mode().Perm() != b.Mode().Perm() || a.Mode().Perm()&0o600 != 0o600 {
		t.Errorf("new file mode %v; want %v (0644 under the umask)", a.Mode().Perm(), b.Mode().Perm())
	}
	err = Write(filepath.Join(dir, "no-such-folder", "plan.md"), []byte("x"))
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || strings.Contains(pe.Err.Error(), dir) {
		t.Errorf("missing folder: %v; want fs.ErrNotExist with the reason alone inside", err)
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("folder holds %q; want plan.md and reference", got)
	}
	if err := Write(dir, []byte("x")); err == nil {
		t.Error("writing over a folder: no error")
	}
}

// A failure at any step leaves the old file as it was and no temporary
// file behind.
func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	boom := errors.New("disk full")
	for _, step := range []string{"sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "plan.md")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			defer func() { syncFile, rename = (*os.File).Sync, os.Rename }()
			if step == "sync" {
				syncFile = func(*os.File) error { return boom }
			} else {
				rename = func(string, string) error { return &os.LinkError{Op: "rename", Old: "a", New: "b", Err: boom} }
			}
			err := Write(path, []byte("new"))
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Err != boom || pe.Path != path {
				t.Errorf("error %#v; want a PathError for the file holding the reason", err)
			}
			wantContent(t, path, "old")
			if got := entries(t, dir); len(got) != 1 {
				t.Errorf("folder holds %q after the failure; want plan.md alone", got)
			}
		})
	}
}

// WriteWithin writes inside its folder as Write does (a link inside it
// followed, relative or absolute), refuses a path or a link that leads
// out of it, and refuses a folder swapped for a link out of it between
// resolving the file and writing it (the beforeCreate seam), where Write
// would follow the swapped link and write outside.
func TestWriteWithinStaysInItsFolder(t *testing.T) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "plans"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	doc := filepath.Join(ws, "plans", "doc.md")
	if err := os.WriteFile(doc, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteWithin(ws, doc, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(doc); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(doc); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600 kept", fi.Mode().Perm())
	}
	for name, target := range map[string]string{"rel.md": "plans/doc.md", "abs.md": doc} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
		if err := WriteWithin(ws, name, []byte(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(doc); string(b) != name {
			t.Errorf("%s: the link's target holds %q", name, b)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "doc.md"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "doc.md"), filepath.Join(ws, "away.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ws, "away.md"), filepath.Join(out, "doc.md"), "../out/doc.md"} {
		if err := WriteWithin(ws, p, []byte("escaped")); err == nil {
			t.Errorf("%s: written", p)
		}
	}
	// The folder swapped for a link out of the workspace mid-write.
	swap := func() {
		if err := os.Rename(filepath.Join(ws, "plans"), filepath.Join(ws, "plans.old")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(out, filepath.Join(ws, "plans")); err != nil {
			t.Fatal(err)
		}
	}
	unswap := func() {
		_ = os.Remove(filepath.Join(ws, "plans"))
		_ = os.Rename(filepath.Join(ws, "plans.old"), filepath.Join(ws, "plans"))
	}
	defer func() { beforeCreate = func() {} }()
	beforeCreate = swap
	err := WriteWithin(ws, doc, []byte("escaped"))
	unswap()
	if err == nil {
		t.Error("WriteWithin followed a folder swapped for a link out of its folder")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "doc.md")); string(b) != "outside" {
		t.Errorf("the file outside holds %q", b)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("outside holds %d entries; want the one it had", len(ents))
	}
	// Write, unconfined, follows the swapped link: the hole WriteWithin closes.
	beforeCreate = swap
	err = Write(doc, []byte("escaped"))
	unswap()
	if b, _ := os.ReadFile(filepath.Join(out, "doc.md")); err != nil || string(b) != "escaped" {
		t.Errorf("Write with the folder swapped: %v, outside holds %q (the seam does not reach the race)", err, b)
	}
}
