package dwire

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

func dryRunHandle(t *testing.T, h *harness, args ...string) string {
	t.Helper()
	r := h.run("", false, append(args, "--dry-run", "--json")...)
	var p struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.PreviewHandle == "" {
		t.Fatalf("%v: %v\n%s%s", args, err, r.out, r.errOut)
	}
	return p.PreviewHandle
}

// waitingHandle runs a command that previews without a terminal, so the
// preview is left waiting for a person (CONFIRMATION_REQUIRED naming
// dwire review), and returns its handle.
func waitingHandle(t *testing.T, h *harness, args ...string) string {
	t.Helper()
	r := h.run("", false, args...)
	r.expect(t, 1, "CONFIRMATION_REQUIRED")
	m := regexp.MustCompile(`dwire review ((imp|prg|pul)_[0-9a-f]+)`).FindStringSubmatch(r.errOut)
	if m == nil {
		t.Fatalf("%v names no handle to review:\n%s", args, r.errOut)
	}
	return m[1]
}

// Reviewing a preview whose commit stopped part-way says how far it got,
// what to run next, and exits 4 — not "already committed", exit 0 (issue
// 19 #1). A finished commit stays "already committed".
func TestReviewOfAStoppedCommit(t *testing.T) {
	h := newHarness(t)
	handle := dryRunHandle(t, h, "import", "plan.md")
	h.prov.FailItem(3, fakeprovider.ItemFail, core.Errorf(core.CodeJiraUnavailable, "Jira did not answer."))
	h.run("y\n", true, "review", handle).expect(t, 4, "COMMIT_PARTIAL")
	writes := h.prov.Writes()
	r := h.run("", false, "review", handle)
	// 5 items and, ranking being on by default, 4 rank moves (the first
	// of the 5 epics and stories anchors, each other is placed after the
	// one before it): 9 operations, the 4 moves not tried.
	r.expect(t, 4, "Error: COMMIT_PARTIAL: This preview's commit (run run_", "of 9 items (4 written, 1 failed, 4 not tried)", "Next: run `dwire import` of document checkout-v2 again")
	if strings.Count(r.errOut, "Next:") != 1 {
		t.Errorf("the next step is said more than once:\n%s", r.errOut)
	}
	if strings.Contains(r.errOut, "already committed") || strings.Contains(r.errOut, "idk_") {
		t.Errorf("the stopped commit is reported as committed, or by its idempotency key:\n%s", r.errOut)
	}
	if h.prov.Writes() != writes {
		t.Fatal("reviewing a stopped commit wrote")
	}

	// A commit recorded as still running (its process died).
	h = newHarness(t)
	handle = dryRunHandle(t, h, "import", "plan.md")
	ctx := t.Context()
	if _, _, err := h.store.StartRun(ctx, core.StartRunRequest{Key: "idk_dead", Handle: handle, RunID: "run_dead", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := h.store.RecordOutcomes(ctx, "idk_dead", []core.ItemOutcome{{Reference: "checkout-v2/e-1", Action: core.ActionCreate, Outcome: core.OutcomeCommitted, Key: "DEMO-1"}}); err != nil {
		t.Fatal(err)
	}
	h.run("", false, "review", handle).expect(t, 4, "Error: COMMIT_INTERRUPTED: This preview's commit (run run_dead", "written 1 of 9 items", "committed DEMO-1 checkout-v2/e-1")

	// A finished commit: already committed, exit 0.
	h = newHarness(t)
	handle = dryRunHandle(t, h, "import", "plan.md")
	h.run("y\n", true, "review", handle).expect(t, 0, "Committed: 5 created")
	h.run("y\n", true, "review", handle).expect(t, 0, "Skipped: preview "+handle+" was already committed on", "(run run_", "Committed: 5 created", "its result is shown again and nothing new was written")
}

// dwire review without a handle lists the previews a person waits on:
// newest first, with what each writes and who made it; --json too. Not a
// dry run, a preview declined at the prompt, a committed one, one that
// writes nothing, nor one a newer preview of the same document
// supersedes.
func TestReviewListsPendingPreviews(t *testing.T) {
	h := newHarness(t)
	h.env["USER"] = "ana"
	now := time.Now()
	h.newService = func(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) cmdutil.Service {
		now = now.Add(time.Minute) // each run a minute later: "newest first" is defined
		return service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: s, Logger: log, Now: func() time.Time { return now }})
	}
	h.run("", false, "review").expect(t, 0, "No previews are waiting for review")
	dry := dryRunHandle(t, h, "import", "plan.md")
	h.run("n\n", true, "import", "plan.md").expect(t, 0, "Skipped: not confirmed")
	h.run("y\n", true, "import", "plan.md").expect(t, 0) // consumes its own preview
	h.run("", false, "import", "plan.md").expect(t, 0, "Nothing to write")
	prg := waitingHandle(t, h, "progress", "checkout-v2/s-1", "--status", "done")
	b, _ := os.ReadFile(filepath.Join(h.dir, "plan.md"))
	_ = os.WriteFile(filepath.Join(h.dir, "plan.md"), []byte(strings.Replace(string(b), "Save address for next time", "Save the address", 1)), 0o600)
	older := waitingHandle(t, h, "import", "plan.md")
	first := waitingHandle(t, h, "import", "plan.md")
	r := h.run("", false, "review")
	r.expect(t, 0, first, prg, "import of checkout-v2", "0 to create · 1 to update", "progress of DEMO-", "move to done", "by dwire import, as ana", "by dwire progress, as ana", "Review one with: dwire review <handle>")
	if strings.Index(r.out, first) > strings.Index(r.out, prg) {
		t.Errorf("not newest first:\n%s", r.out)
	}
	if n := strings.Count(r.out, "imp_"); n != 1 || strings.Contains(r.out, older) || strings.Contains(r.out, dry) {
		t.Errorf("%d imports listed (want 1: not the dry run %s, the declined, the committed, the unchanged or the superseded %s):\n%s", n, dry, older, r.out)
	}
	r = h.run("", false, "review", "--json")
	var res service.PendingResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.Returned != 2 || res.Previews[0].PreviewHandle != first || res.Previews[0].Counts == nil || res.Previews[0].Counts.Update != 1 {
		t.Fatalf("review --json = %+v %v\n%s", res, err, r.out)
	}
	// Declined at dwire review: it leaves the list.
	h.run("n\n", true, "review", first).expect(t, 0, "Skipped: not confirmed")
	if r := h.run("", false, "review"); strings.Contains(r.out, first) || !strings.Contains(r.out, prg) {
		t.Errorf("after declining %s at review:\n%s", first, r.out)
	}
}

// show and progress complete the keys and references the dedup index
// knows, offline; review completes pending handles.
func TestCompletionFromTheStore(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	h.prov.ForbidWrites(t)
	calls := h.prov.Writes()
	r := h.run("", false, "__complete", "show", "")
	r.expect(t, 0, "checkout-v2/s-1\tDEMO-", "DEMO-1\tcheckout-v2/", ":4")
	if strings.Contains(r.out, "plan.md") {
		t.Errorf("file names offered:\n%s", r.out)
	}
	r = h.run("", false, "__complete", "progress", "checkout-v2/e")
	r.expect(t, 0, "checkout-v2/e-1\tDEMO-")
	if strings.Contains(r.out, "checkout-v2/s-1") {
		t.Errorf("not filtered by what was typed:\n%s", r.out)
	}
	handle := waitingHandle(t, h, "progress", "checkout-v2/s-1", "--status", "done")
	h.run("", false, "__complete", "review", "").expect(t, 0, handle+"\tprogress of DEMO-")
	if h.prov.Writes() != calls {
		t.Fatal("completion wrote")
	}
}
