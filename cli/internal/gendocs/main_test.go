package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateWritesManPagesAndCompletions(t *testing.T) {
	out := t.TempDir()
	if err := run([]string{"-out", out, "-version", "1.2.3-test", "-date", "1764547200"}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "man", "dwire-import.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.TH "DWIRE" "1" "Dec 2025" "dwire 1.2.3-test"`, "dwire-import", "--dry-run"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("man/dwire-import.1 lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(string(page), "Auto generated") {
		t.Errorf("man/dwire-import.1 carries cobra's auto-generated tag (it dates the page by the build)")
	}
	for _, f := range []string{"man/dwire.1", "man/dwire-mcp.1", "man/dwire-completion.1",
		"completions/dwire.bash", "completions/_dwire", "completions/dwire.fish", "completions/dwire.ps1"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v (size %v)", f, err, fi)
		}
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-out", t.TempDir()},
		{"-version", "1.0.0"},
		{"-out", t.TempDir(), "-version", "1.0.0", "extra"},
		{"-out", t.TempDir(), "-version", "1.0.0", "-date", "yesterday"},
	} {
		if err := run(args); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}
