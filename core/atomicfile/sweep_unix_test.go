//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A temporary file a killed write left next to the file is removed by
// the next write of that file (by Write and WriteWithin alike); one a
// write in progress holds (locked) stays, and so do names that are not
// this file's temporary files.
func TestWriteSweepsWhatAKilledWriteLeft(t *testing.T) {
	for name, write := range map[string]func(dir, path string, data []byte) error{
		"Write":       func(_, path string, data []byte) error { return Write(path, data) },
		"WriteWithin": WriteWithin,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "plan.md")
			stale := filepath.Join(dir, ".plan.md.dwire-0123456789ab")
			held := filepath.Join(dir, ".plan.md.dwire-ba9876543210")
			others := []string{".plan.md.dwire-notours", ".other.md.dwire-0123456789ab", "plan.md.dwire-0123456789ab"}
			for _, n := range append([]string{stale, held}, others...) {
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(n)), []byte("a copy"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h, err := os.Open(held)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if !lock(h) {
				t.Fatal("the test directory's file system cannot lock files (flock); the sweep test needs one that can")
			}
			if err := write(dir, path, []byte("new")); err != nil {
				t.Fatal(err)
			}
			wantContent(t, path, "new")
			want := append([]string{filepath.Base(held), "plan.md"}, others...)
			slices.Sort(want)
			if got := entries(t, dir); !slices.Equal(got, want) {
				t.Errorf("after the write the folder holds %q, want %q", got, want)
			}
		})
	}
}
