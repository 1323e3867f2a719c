package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
)

func TestNewCmdGraphParses(t *testing.T) {
	got, _ := parse(t, NewCmdGraph, "plan.md", "--status")
	if got.Path != "plan.md" || !got.Status {
		t.Fatalf("options = %+v", got)
	}
}

// TestGraphWithoutStatusNeedsNoTracker: `dwire graph doc` reads only the
// document (no configuration, no service) and prints Mermaid.
func TestGraphWithoutStatusNeedsNoTracker(t *testing.T) {
	dir := t.TempDir()
	doc := "---\nid: g\n---\n## Epic e-1: E\n\n### Story s-1: One\n\n### Story s-2: Two\nDepends on: s-1\n"
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }, WorkDir: dir}
	c := NewCmdGraph(f, nil)
	c.SetArgs([]string{"plan.md"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"flowchart TD\n", `n_e_1[["Epic e-1: E"]]`, "n_e_1 -.- n_s_2", "n_s_1 --> n_s_2"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
