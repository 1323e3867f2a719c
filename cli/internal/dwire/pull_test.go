package dwire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// pullHarness imports plan.md and has a person change s-1's description
// in the tracker; it returns the harness and the file's path.
func pullHarness(t *testing.T) (*harness, string) {
	t.Helper()
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	if err := h.prov.Edit(keyOf(t, h, "checkout-v2/s-1"), func(w *core.WorkItem) { w.Description = "A guest pays by card or wallet." }); err != nil {
		t.Fatal(err)
	}
	return h, filepath.Join(h.dir, "plan.md")
}

func TestPullWithoutTTYIsRefused(t *testing.T) {
	h, path := pullHarness(t)
	before, _ := os.ReadFile(path)
	w := h.prov.Writes()
	h.run("y\n", false, "pull", "plan.md").expect(t, 1, "Error: CONFIRMATION_REQUIRED:", "dwire pull plan.md", "in a terminal", "run_id: run_")
	if after, _ := os.ReadFile(path); string(after) != string(before) || h.prov.Writes() != w {
		t.Fatal("a refused pull wrote")
	}
}

func TestPullDeclinedWritesNothing(t *testing.T) {
	h, path := pullHarness(t)
	before, _ := os.ReadFile(path)
	w := h.prov.Writes()
	r := h.run("\n", true, "pull", "plan.md")
	r.expect(t, 0, "Pull from Jira into plan.md", "-A guest pays by card.", "+A guest pays by card or wallet.", "[y/N]", "Skipped:")
	if after, _ := os.ReadFile(path); string(after) != string(before) || h.prov.Writes() != w {
		t.Fatal("a declined pull wrote")
	}
	h.run("", false, "pull", "plan.md", "--dry-run").expect(t, 0, "1 to pull", "Dry run: nothing was written.")
}

func TestPullYesWritesThenImportIsUnchanged(t *testing.T) {
	h, path := pullHarness(t)
	r := h.run("y\n", true, "pull", "plan.md")
	r.expect(t, 0, "Pull (2 writes: rewrite 1 planning document, record 1 item as matching the\ndocument; no issue is edited)? [y/N]", "Pulled: wrote plan.md; Jira records 1 item as matching the document (DEMO-3).")
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "\nA guest pays by card or wallet.\n") {
		t.Fatalf("file after the pull:\n%s", b)
	}
	h.prov.ForbidWrites(t)
	h.run("", false, "import", "plan.md").expect(t, 0, "5 unchanged", "Nothing to write")
	r = h.run("", false, "pull", "plan.md", "--json")
	r.expect(t, 0)
	var p service.PullPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.Writes || p.Counts.Unchanged != 5 {
		t.Fatalf("the second pull: %v %+v\n%s", err, p, r.out)
	}
}

// A conflict is shown with both values; --take-jira takes Jira's.
func TestPullConflictNeedsAChoice(t *testing.T) {
	h, path := pullHarness(t)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "A guest pays by card.", "A guest pays by card, quickly.", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.run("", true, "pull", "plan.md").expect(t, 0, "conflict", "! description (conflict, neither taken):", "in the document: A guest pays by card, quickly.", "in Jira: A guest pays by card or wallet.", "--take-jira or --take-document", "To resolve: `dwire pull plan.md --take-jira s-1`")
	h.run("y\n", true, "pull", "plan.md", "--take-jira", "s-1").expect(t, 0, "~ description (conflict, Jira's taken):", "Pulled: wrote plan.md")
	h.run("", false, "import", "plan.md").expect(t, 0, "5 unchanged")
}

// The configuration's users: reversed: how a pull writes a person.
func TestPeopleFromUsers(t *testing.T) {
	got := people(map[string]string{"ana@example.com": "acc-1", "Ana": "acc-1", "bo@example.com": "acc-2"})
	if len(got) != 2 || got["acc-1"] != "Ana" || got["acc-2"] != "bo@example.com" {
		t.Fatalf("people = %v", got)
	}
}

// `dwire review` of a pull's handle shows the diff, asks, and writes the
// file as dwire pull does (the handle is not an import's, so it was
// refused as PREVIEW_NOT_FOUND); a second review says it was committed;
// without a terminal it names the review to run.
func TestReviewOfAPullHandle(t *testing.T) {
	h, path := pullHarness(t)
	r := h.run("", false, "pull", "plan.md", "--dry-run", "--json")
	var p service.PullPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.PreviewHandle == "" {
		t.Fatalf("%v %+v", err, p)
	}
	before, _ := os.ReadFile(path)
	w := h.prov.Writes()
	h.run("", false, "review", p.PreviewHandle).expect(t, 1, "CONFIRMATION_REQUIRED", "dwire review "+p.PreviewHandle)
	h.run("\n", true, "review", p.PreviewHandle).expect(t, 0, "+A guest pays by card or wallet.", "[y/N]", "Skipped:")
	if after, _ := os.ReadFile(path); string(after) != string(before) || h.prov.Writes() != w {
		t.Fatal("a declined review wrote")
	}
	h.run("y\n", true, "review", p.PreviewHandle).expect(t, 0, "record 1 item as matching the\ndocument; no issue is edited)?", "Pulled: wrote "+path)
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "\nA guest pays by card or wallet.\n") {
		t.Fatalf("file after the review:\n%s", b)
	}
	h.run("y\n", true, "review", p.PreviewHandle).expect(t, 0, "already committed")
	h.run("", false, "import", "plan.md").expect(t, 0, "5 unchanged")
}
