package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

// demoBin builds mockjira and puts it next to dwire (this test binary) in
// a folder for scripts/demo.sh (DWIRE_DEMO_BIN).
func demoBin(t *testing.T) string {
	t.Helper()
	self, err := exec.LookPath("dwire")
	must(t, err)
	dir := t.TempDir()
	must(t, streamtest.GoBuild(filepath.Join(dir, "mockjira"), "github.com/devworkwire/devworkwire/jira/cmd/mockjira"))
	must(t, os.Symlink(self, filepath.Join(dir, "dwire")))
	return dir
}

// make demo on a terminal: no warning on any screen, and it goes through
// import (epics, stories, sub-tasks, fields, dependencies, a sprint),
// ls --ready, progress to done with a comment, an agent's preview over
// dwire mcp that the person reviews and commits, the three-way merge (a
// person's edit in Jira and the document's change both kept: pull, then
// import) and an export of the whole plan.
func TestDemoOnATerminal(t *testing.T) { demoOnATerminal(t, "cloud") }

// DWIRE_DEMO_DEPLOYMENT=datacenter make demo: the same demo against the
// fake's Jira Data Center site.
func TestDemoDataCenterOnATerminal(t *testing.T) { demoOnATerminal(t, "datacenter") }

func demoOnATerminal(t *testing.T, deployment string) {
	bin := demoBin(t)
	cmd := exec.Command("bash", "../../../scripts/demo.sh")
	cmd.Env = append(os.Environ(), "DWIRE_DEMO_BIN="+bin, "DWIRE_DEMO_DEPLOYMENT="+deployment, "TERM=xterm", "NO_COLOR=1", "DWIRE_CONFIG=", "DWIRE_STORE_URL=")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 80})
	must(t, err)
	s := &ptySession{t: t, cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go s.pump()
	t.Cleanup(func() { _ = cmd.Process.Kill(); ptmx.Close() })
	// Each question counts every write by kind: the first import's 8
	// creates with their links, sprint move and backlog order; the
	// progress update; the agent's one story; the pull (the file and the
	// record of s-2); the import of the document's priority.
	for _, step := range []string{
		"Write to Jira (16 writes: create 8 items, add 2 dependency links, move 1",
		"Write this to DEMO-",
		"Write to Jira (2 writes: create 1 item, place 1 item in the backlog",
		"Pull (2 writes: rewrite 1 planning document, record 1 item as matching",
		"Write to Jira (1 write: update 1 item)",
	} {
		s.waitFor(step)
		s.send("y\r")
	}
	if code := s.wait(); code != 0 {
		t.Fatalf("demo exit %d\n%s", code, s.output())
	}
	out := s.output()
	for _, want := range []string{
		"Committed: 8 created",
		"8 unchanged",
		"Sub-task t-1: Card form",
		"Priority: High",
		"s-2 depends on s-1",
		"into sprint DEMO Sprint 1",
		"dwire ls --ready",
		"moved to done, comment added",
		"An agent's turn",
		"Story s-9: Gift cards at checkout",
		"Committed: 1 created",
		"it expires after 90 days",
		"~ priority: Medium → High",
		"Key: DEMO-",
		"Done. The fake Jira is stopped",
		"A fake Jira (" + deployment + ")",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not show %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"Warning:", "Error:"} {
		if strings.Contains(out, bad) {
			t.Errorf("the demo shows %q:\n%s", bad, out)
		}
	}
}

// Without a terminal the demo shows the preview only and never suggests a
// `dwire review` of a handle in a store it is about to delete.
func TestDemoWithoutATerminal(t *testing.T) {
	bin := demoBin(t)
	cmd := exec.Command("bash", "../../../scripts/demo.sh")
	cmd.Env = append(os.Environ(), "DWIRE_DEMO_BIN="+bin, "DWIRE_CONFIG=", "DWIRE_STORE_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, bad := range []string{"dwire review imp_", "Warning:", "Error:"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("the demo without a terminal shows %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(string(out), "Import preview of checkout-v2") || !strings.Contains(string(out), "Sub-task t-1: Card form") || !strings.Contains(string(out), "Run 'make demo' in a terminal") {
		t.Errorf("no preview or no pointer to the terminal run:\n%s", out)
	}
}
