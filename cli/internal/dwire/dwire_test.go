package dwire

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

const fakeToken = "test-token-not-secret-7f3a9c"

// harness runs dwire in-process over core/providertest/fakeprovider and core/storetest/memstore
// with the real WorkItemService.
type harness struct {
	t     *testing.T
	dir   string
	prov  *fakeprovider.Provider
	store *memstore.Store
	env   map[string]string
	// newService, when set, replaces the service (e.g. to panic).
	newService func(core.WorkItemProvider, core.Store, *config.Config, *slog.Logger) cmdutil.Service
	// findCloudID, when set, answers the site's cloud id.
	findCloudID func(ctx context.Context, site string) (string, error)
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	cfg := "jira:\n  site: https://example.atlassian.net\n  project: DEMO\n  email: dev@example.com\n"
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"plan.md", "bad.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &harness{
		t: t, dir: dir,
		prov:  fakeprovider.New(fakeprovider.Options{Scope: "https://example.atlassian.net/DEMO"}),
		store: memstore.New(memstore.Options{}),
		env:   map[string]string{"JIRA_API_TOKEN": fakeToken},
	}
}

type result struct {
	code        int
	out, errOut string
}

// run runs dwire with args; tty marks stdin/stdout/stderr as terminals and
// stdin carries the typed answers.
func (h *harness) run(stdin string, tty bool, args ...string) result {
	h.t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	ios.SetTTY(tty, tty, tty)
	f := &cmdutil.Factory{
		IOStreams: ios,
		Getenv:    func(k string) string { return h.env[k] },
		WorkDir:   h.dir,
		Version:   "0.0.0-test",
		OpenProvider: func(_ context.Context, cfg *config.Config, token string, _ *slog.Logger) (core.WorkItemProvider, error) {
			if token != fakeToken {
				h.t.Errorf("provider got token %q", token)
			}
			return h.prov, nil
		},
		OpenStore: func(context.Context, *config.Config, *slog.Logger) (core.Store, error) {
			return h.store.Reopen(memstore.Options{}), nil
		},
		FindCloudID: h.findCloudID,
		NewService: func(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) cmdutil.Service {
			if h.newService != nil {
				return h.newService(p, s, cfg, log)
			}
			return newService(p, s, cfg, log)
		},
	}
	code := Run(context.Background(), f, args)
	r := result{code: code, out: out.String(), errOut: errOut.String()}
	for _, s := range []string{r.out, r.errOut} {
		if strings.Contains(s, fakeToken) {
			h.t.Errorf("the token appeared in the output of %v:\n%s", args, s)
		}
	}
	return r
}

func (r result) expect(t *testing.T, code int, substrs ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.errOut)
	}
	all := r.out + r.errOut
	for _, s := range substrs {
		if !strings.Contains(all, s) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", s, r.out, r.errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	h := newHarness(t)
	h.run("", false, "version").expect(t, 0, "dwire version 0.0.0-test")
	r := h.run("", false, "version", "--json")
	var v map[string]string
	if err := json.Unmarshal([]byte(r.out), &v); err != nil || v["version"] != "0.0.0-test" {
		t.Fatalf("version --json = %q (%v)", r.out, err)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	h := newHarness(t)
	h.prov.ForbidWrites(t)
	r := h.run("", false, "import", "plan.md", "--dry-run")
	r.expect(t, 0, "Import preview of checkout-v2", "Epic e-1: Guest checkout", "├─ Story s-1", "5 to create", "Dry run: nothing was written.")
	if !strings.Contains(r.out, "create") || strings.Contains(r.out, "Dry run") {
		t.Errorf("preview must be on stdout and the notice on stderr:\n%s", r.out)
	}
}

func TestImportJSONDryRun(t *testing.T) {
	h := newHarness(t)
	h.prov.ForbidWrites(t)
	r := h.run("", false, "import", "plan.md", "--dry-run", "--json")
	r.expect(t, 0)
	var p service.ImportPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil {
		t.Fatalf("stdout is not one JSON result: %v\n%s", err, r.out)
	}
	if p.ResultType != "preview" || p.Counts.Create != 5 || p.PreviewHandle == "" || p.RunID == "" || len(p.Items) != 5 {
		t.Fatalf("preview JSON = %+v", p)
	}
}

func TestImportWithoutTTYIsRefused(t *testing.T) {
	h := newHarness(t)
	r := h.run("y\n", false, "import", "plan.md")
	r.expect(t, 1, "Error: CONFIRMATION_REQUIRED:", "dwire review imp_", "run_id: run_")
	if h.prov.Writes() != 0 {
		t.Fatalf("%d writes without confirmation", h.prov.Writes())
	}
}

func TestImportEnterDeclines(t *testing.T) {
	for _, answer := range []string{"\n", "", "n\n", "yep\n"} {
		h := newHarness(t)
		r := h.run(answer, true, "import", "plan.md")
		r.expect(t, 0, "[y/N]", "Skipped:")
		if h.prov.Writes() != 0 {
			t.Fatalf("answer %q: %d writes", answer, h.prov.Writes())
		}
	}
}

func TestImportYesCommitsThenUnchanged(t *testing.T) {
	h := newHarness(t)
	r := h.run("y\n", true, "import", "plan.md")
	r.expect(t, 0, "Committed: 5 created", "DEMO-1", "run run_")
	if n := len(h.prov.Items()); n != 5 {
		t.Fatalf("%d items in the tracker, want 5", n)
	}
	h.prov.ForbidWrites(t)
	r = h.run("", false, "import", "plan.md")
	r.expect(t, 0, "0 to create · 0 to update · 5 unchanged", "Nothing to write")
	if strings.Contains(r.errOut, "[y/N]") {
		t.Fatal("asked to confirm a plan that writes nothing")
	}
}

func TestImportCommitJSON(t *testing.T) {
	h := newHarness(t)
	r := h.run("yes\n", true, "import", "plan.md", "--json")
	r.expect(t, 0)
	var c service.ImportCommitResult
	if err := json.Unmarshal([]byte(r.out), &c); err != nil {
		t.Fatalf("stdout is not the commit result: %v\n%s", err, r.out)
	}
	if c.ResultType != "committed" || c.Counts.Created != 5 || len(c.Items) != 5 || c.Items[0].Key == "" {
		t.Fatalf("commit JSON = %+v", c)
	}
	if !strings.Contains(r.errOut, "Import preview of") {
		t.Error("with --json the preview belongs on stderr")
	}
}

func TestValidationFailedListsEveryProblem(t *testing.T) {
	h := newHarness(t)
	r := h.run("", false, "import", "bad.md", "--dry-run")
	r.expect(t, 1, "Error: VALIDATION_FAILED:", "e-9", "s-1", "run_id:")
	if n := strings.Count(r.errOut, "\n  - "); n < 2 {
		t.Errorf("want every problem listed, got %d:\n%s", n, r.errOut)
	}
	r = h.run("", false, "import", "missing.md", "--dry-run")
	r.expect(t, 1, "Error: SOURCE_NOT_FOUND:")
}

func TestConfigErrorsExit2(t *testing.T) {
	h := newHarness(t)
	delete(h.env, "JIRA_API_TOKEN")
	h.run("", false, "ls").expect(t, 2, "Error: CREDENTIALS_MISSING:", "JIRA_API_TOKEN")

	h = newHarness(t)
	h.env["DWIRE_CONFIG"] = filepath.Join(h.dir, "nope.yaml")
	h.run("", false, "ls").expect(t, 2, "Error: CONFIG_MISSING:", "dwire init")

	h = newHarness(t)
	_ = os.WriteFile(filepath.Join(h.dir, config.FileName), []byte("jira:\n  site: https://x.atlassian.net\n  project: DEMO\n  email: a@b.c\n  token: "+fakeToken+"\n"), 0o600)
	h.run("", false, "ls").expect(t, 2, "Error: CONFIG_INVALID:", "jira.token")

	h = newHarness(t)
	h.prov.FailCall(fakeprovider.OpLookup, 0, core.Errorf(core.CodeReferenceFieldMissing, "The field is missing."))
	h.run("", false, "import", "plan.md", "--dry-run").expect(t, 2, "REFERENCE_FIELD_MISSING")
}

func TestJiraErrorsExit3(t *testing.T) {
	for _, c := range []core.Code{core.CodeJiraUnauthorized, core.CodeJiraPermissionDenied, core.CodeJiraRateLimited, core.CodeJiraUnavailable} {
		h := newHarness(t)
		h.prov.FailCall(fakeprovider.OpLookup, 0, core.Errorf(c, "Jira said no."))
		h.run("", false, "import", "plan.md", "--dry-run").expect(t, 3, "Error: "+string(c)+":")
	}
}

func TestPartialCommitExit4(t *testing.T) {
	h := newHarness(t)
	h.prov.FailItem(3, fakeprovider.ItemFail, core.Errorf(core.CodeJiraUnavailable, "Jira did not answer."))
	r := h.run("y\n", true, "import", "plan.md")
	r.expect(t, 4, "Error: COMMIT_PARTIAL:", "committed", "failed", "run_id:")
	if h.prov.Writes() == 0 {
		t.Fatal("a partial commit wrote nothing")
	}
}

func TestPanicBecomesExit70(t *testing.T) {
	h := newHarness(t)
	h.newService = func(core.WorkItemProvider, core.Store, *config.Config, *slog.Logger) cmdutil.Service {
		panic("boom " + fakeToken)
	}
	r := h.run("", false, "import", "plan.md", "--dry-run")
	r.expect(t, 70, "Error: INTERNAL_ERROR:", "run_id: run_")
	if strings.Contains(r.errOut, "goroutine") || strings.Contains(r.errOut, "boom") {
		t.Fatalf("panic details leaked:\n%s", r.errOut)
	}
}

func TestUsageErrorsExit1(t *testing.T) {
	h := newHarness(t)
	h.run("", false, "import", "plan.md", "--yes").expect(t, 1, "Error: unknown flag: --yes", "There is no --yes")
	h.run("", false, "import").expect(t, 1, "Error: `dwire import` takes 1 argument", "dwire import --help")
	h.run("", false, "frobnicate").expect(t, 1, "Error: unknown command \"frobnicate\"")
	h.run("", false, "progress", "DEMO-1", "--status", "finished").expect(t, 1, "--status \"finished\" is not a status")
	h.run("", false, "progress", "DEMO-1").expect(t, 1, "Nothing to report")
	h.run("", false, "ls", "--limit", "500").expect(t, 1, "--limit 500 is out of range")
}

func TestErrorJSONOnStderr(t *testing.T) {
	h := newHarness(t)
	r := h.run("", false, "import", "plan.md", "--json")
	r.expect(t, 1)
	lines := strings.Split(strings.TrimSpace(r.errOut), "\n")
	var e core.Error
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil || e.Code != core.CodeConfirmationRequired || e.RunID == "" {
		t.Fatalf("last stderr line is not the error payload: %v\n%s", err, r.errOut)
	}
}

func TestProgressFlow(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	before := h.prov.Writes()
	h.run("", false, "progress", "checkout-v2/s-1", "--status", "in_progress").expect(t, 1, "CONFIRMATION_REQUIRED")
	h.run("\n", true, "progress", "checkout-v2/s-1", "--status", "in_progress").expect(t, 0, "todo → in_progress", "Skipped:")
	if h.prov.Writes() != before {
		t.Fatal("a declined progress report wrote")
	}
	r := h.run("y\n", true, "progress", "checkout-v2/s-1", "--status", "in-progress", "--comment", "Started.")
	r.expect(t, 0, "Committed: DEMO-", "moved to in_progress", "comment added")
	for _, it := range h.prov.Items() {
		if it.Reference == "checkout-v2/s-1" && it.Status != core.StatusInProgress {
			t.Fatalf("status = %s", it.Status)
		}
	}
	if len(h.prov.Comments(keyOf(t, h, "checkout-v2/s-1"))) != 1 {
		t.Fatal("comment not added")
	}
}

func TestReadCommands(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	h.prov.ForbidWrites(t)
	r := h.run("", false, "ls", "--document", "checkout-v2")
	r.expect(t, 0, "KEY", "STATUS", "Guest checkout")
	r = h.run("", false, "ls", "--json", "--limit", "2")
	var q service.QueryResult
	if err := json.Unmarshal([]byte(r.out), &q); err != nil || q.ResultType != "preview" || q.Returned != 2 || !q.Truncated {
		t.Fatalf("ls --json = %+v %v\n%s", q, err, r.out)
	}
	h.run("", false, "show", "checkout-v2/s-1").expect(t, 0, "Pay without an account", "A guest can pay with a card")
	r = h.run("", false, "show", "DEMO-1", "--json")
	var g service.GetResult
	if err := json.Unmarshal([]byte(r.out), &g); err != nil || g.Item.Key != "DEMO-1" || g.ResultType != "preview" {
		t.Fatalf("show --json = %+v %v", g, err)
	}
	h.run("", false, "show", "DEMO-999").expect(t, 1, "WORK_ITEM_NOT_FOUND")
}

func TestReviewFlow(t *testing.T) {
	h := newHarness(t)
	r := h.run("", false, "import", "plan.md", "--dry-run", "--json")
	var p service.ImportPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil {
		t.Fatal(err)
	}
	h.run("", false, "review", p.PreviewHandle).expect(t, 1, "CONFIRMATION_REQUIRED")
	h.run("\n", true, "review", p.PreviewHandle).expect(t, 0, "5 to create", "Skipped:")
	if h.prov.Writes() != 0 {
		t.Fatal("declined review wrote")
	}
	h.run("y\n", true, "review", p.PreviewHandle).expect(t, 0, "Committed: 5 created")
	h.run("y\n", true, "review", p.PreviewHandle).expect(t, 0, "already committed")
	h.run("y\n", true, "review", "pv_doesnotexist").expect(t, 1, "PREVIEW_NOT_FOUND")
}

func TestDoctor(t *testing.T) {
	h := newHarness(t)
	r := h.run("", false, "doctor")
	r.expect(t, 0, "✓ config", "✓ credentials", "✓ jira", "✓ store")
	delete(h.env, "JIRA_API_TOKEN")
	r = h.run("", false, "doctor")
	r.expect(t, 2, "✗ credentials", "CREDENTIALS_MISSING", "fix:")
	r = h.run("", false, "doctor", "--json")
	var d struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.out), &d); err != nil || d.OK || len(d.Checks) != 9 { // config, credentials, the five of Jira, the sub-task type, store
		t.Fatalf("doctor --json = %+v %v\n%s", d, err, r.out)
	}
}

// With an API token with scopes, jira.api_url is Atlassian's gateway with
// the site's cloud id: doctor asks the site for its id and says whether
// the configured one is it (another id sends every request elsewhere).
func TestDoctorChecksTheGatewaysCloudID(t *testing.T) {
	const siteID, otherID = "3d2c1b0a-5e4f-4a7b-9c8d-0f1e2d3c4b5a", "0e0e0e0e-1111-4222-8333-444444444444"
	h := newHarness(t)
	asked := ""
	h.findCloudID = func(_ context.Context, site string) (string, error) {
		asked = site
		return siteID, nil
	}
	h.run("", false, "doctor").expect(t, 0, "✓ config")
	if asked != "" {
		t.Errorf("without jira.api_url, doctor asked %s for its cloud id", asked)
	}
	setAPIURL := func(id string) {
		cfg := "jira:\n  site: https://example.atlassian.net\n  api_url: https://api.atlassian.com/ex/jira/" + id + "\n  project: DEMO\n  email: dev@example.com\n"
		if err := os.WriteFile(filepath.Join(h.dir, config.FileName), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setAPIURL(siteID)
	h.run("", false, "doctor").expect(t, 0, "✓ site", "✓ gateway          jira.api_url is the scoped-token gateway of https://example.atlassian.net (cloud id "+siteID+")", "✓ jira")
	if asked != "https://example.atlassian.net" {
		t.Errorf("doctor asked %q for the cloud id; want the site", asked)
	}
	setAPIURL(otherID)
	h.run("", false, "doctor").expect(t, 2, "✗ gateway          CONFIG_INVALID: jira.api_url carries cloud id "+otherID+", but https://example.atlassian.net is cloud id "+siteID,
		"fix: set jira.api_url to https://api.atlassian.com/ex/jira/"+siteID)
	h.findCloudID = func(context.Context, string) (string, error) {
		return "", core.Errorf(core.CodeJiraUnavailable, "Jira at example.atlassian.net did not answer (timeout).")
	}
	h.run("", false, "doctor").expect(t, 3, "✗ gateway          JIRA_UNAVAILABLE: Jira at example.atlassian.net did not answer", "fix: check jira.site")
}

func TestVerboseNeverLogsToken(t *testing.T) {
	h := newHarness(t)
	var all bytes.Buffer
	for _, args := range [][]string{
		{"import", "plan.md", "--dry-run", "-v"},
		{"import", "plan.md", "-v"},
		{"ls", "-v", "--json"},
		{"doctor", "-v"},
	} {
		r := h.run("y\n", true, args...) // run() fails the test if the token shows
		all.WriteString(r.out + r.errOut)
	}
	if !strings.Contains(all.String(), "run_id=") {
		t.Fatal("verbose mode logged nothing: the check above proves nothing")
	}
}

func keyOf(t *testing.T, h *harness, ref core.Reference) string {
	t.Helper()
	for _, it := range h.prov.Items() {
		if it.Reference == ref {
			return it.Key
		}
	}
	t.Fatalf("no item %s", ref)
	return ""
}

func TestReviewOfStalePreviewIsRefused(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	// The document changes, a preview is made, then Jira changes under it.
	b, _ := os.ReadFile(filepath.Join(h.dir, "plan.md"))
	_ = os.WriteFile(filepath.Join(h.dir, "plan.md"), []byte(strings.Replace(string(b), "Save address for next time", "Save the address", 1)), 0o600)
	r := h.run("", false, "import", "plan.md", "--dry-run", "--json")
	var p service.ImportPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.Counts.Update != 1 {
		t.Fatalf("preview = %+v %v", p, err)
	}
	if err := h.prov.EditTitle(keyOf(t, h, "checkout-v2/s-2"), "Changed in Jira meanwhile"); err != nil {
		t.Fatal(err)
	}
	before := h.prov.Writes()
	// Core's message is front-door neutral; the CLI says its own next step
	// in place of core's.
	r = h.run("y\n", true, "review", p.PreviewHandle)
	r.expect(t, 1, "Error: PREVIEW_STALE:", "Next: get a new", "(`dwire import <document>`,")
	if strings.Contains(r.errOut, "Run the import preview again") {
		t.Errorf("the next step is said twice:\n%s", r.errOut)
	}
	if h.prov.Writes() != before {
		t.Fatal("a stale plan was written")
	}
	// The new preview shows the item as drift, left alone.
	h.run("", false, "import", "plan.md", "--dry-run").expect(t, 0, "drift", "1 drift (left alone)")
}

func TestProgressAndReviewJSON(t *testing.T) {
	h := newHarness(t)
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	r := h.run("y\n", true, "progress", "checkout-v2/s-2", "--status", "done", "--json")
	r.expect(t, 0)
	var c service.ProgressCommitResult
	if err := json.Unmarshal([]byte(r.out), &c); err != nil || c.ResultType != "committed" || c.Status != core.StatusDone || !c.Transitioned {
		t.Fatalf("progress --json = %+v %v\n%s", c, err, r.out)
	}
	if !strings.Contains(r.errOut, "Progress preview of") {
		t.Error("with --json the progress preview belongs on stderr")
	}
	// Declining with --json prints the preview object: result_type preview.
	r = h.run("\n", true, "progress", "checkout-v2/s-3", "--status", "in_progress", "--json")
	r.expect(t, 0)
	var p service.ProgressPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.ResultType != "preview" || p.TargetStatus != core.StatusInProgress {
		t.Fatalf("declined progress --json = %+v %v\n%s", p, err, r.out)
	}
}

func TestReviewOfExpiredPreviewAndProgressReview(t *testing.T) {
	h := newHarness(t)
	now := time.Now()
	h.newService = func(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) cmdutil.Service {
		return service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: s, Logger: log, PreviewTTL: cfg.PreviewTTL, Now: func() time.Time { return now }})
	}
	r := h.run("", false, "import", "plan.md", "--dry-run", "--json")
	var p service.ImportPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil {
		t.Fatal(err)
	}
	now = now.Add(31 * time.Minute)
	h.run("y\n", true, "review", p.PreviewHandle).expect(t, 1, "Error: PREVIEW_EXPIRED:")
	if h.prov.Writes() != 0 {
		t.Fatal("an expired preview was written")
	}

	// A progress preview made elsewhere, reviewed and committed here.
	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	r = h.run("\n", true, "progress", "checkout-v2/e-1", "--comment", "Kick-off done.", "--json")
	var pp service.ProgressPreviewResult
	if err := json.Unmarshal([]byte(r.out), &pp); err != nil || pp.PreviewHandle == "" {
		t.Fatalf("progress preview: %v\n%s", err, r.out)
	}
	h.run("y\n", true, "review", pp.PreviewHandle).expect(t, 0, "Progress preview of", "Committed: ", "comment added")
	if n := len(h.prov.Comments(keyOf(t, h, "checkout-v2/e-1"))); n != 1 {
		t.Fatalf("%d comments after the reviewed commit", n)
	}
}

// dwire collects garbage less often than Go's default, within a memory
// limit, unless the environment sets GOGC or GOMEMLIMIT: those win.
func TestCollectLessOftenLeavesTheEnvironmentsSettings(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })

	collectLessOften(func(string) string { return "" })
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != gcPercent || l != gcMemoryLimit {
		t.Errorf("without GOGC and GOMEMLIMIT: GC percent %d, memory limit %d; want %d and %d", p, l, gcPercent, gcMemoryLimit)
	}
	collectLessOften(func(k string) string { return map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}[k] })
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC and GOMEMLIMIT set: GC percent %d, memory limit %d; want both left as they were", p, l)
	}
}
