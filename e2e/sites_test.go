package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// siteSeed gives the fake a user-picker field and the people it can hold.
const siteFieldsSeed = `{
 "custom_fields": [{"id": "customfield_10071", "name": "Reviewer", "type": "user"}],
 "users": [{"account_id": "acc-ana", "email": "ana@example.com", "display_name": "Ana Lima"}]
}`

const sitePlan = `---
id: site
---
## Epic e-1: Guest checkout

### Story s-1: Pay without an account
Reviewer: ana@example.com
Priority: High

A guest pays by card.

### Story s-2: Save the address
Depends on: s-1
Sprint: DEMO Sprint 2

#### Sub-task t-1: Migration for the address table

Text.
`

// siteEnv is a workspace against a fake Jira set up like a site teams
// run: the profile (POST /_mockjira/site: style, workflow, …), a
// user-picker field and the configuration that maps it.
func siteEnv(t *testing.T, profile, jiraConfig string) *env {
	t.Helper()
	return siteEnvWith(t, envOptions{jira: jiraConfig}, profile)
}

// siteEnvWith is siteEnv with the workspace's options o (o.jira: lines
// added to the configuration's jira section).
func siteEnvWith(t *testing.T, o envOptions, profile string) *env {
	t.Helper()
	e := newEnv(t, o)
	for path, body := range map[string]string{"/_mockjira/site": profile, "/_mockjira/fields": siteFieldsSeed} {
		resp, err := http.Post(e.jira.URL+path, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("POST %s: %v %v", path, err, resp)
		}
		resp.Body.Close()
	}
	cfg := filepath.Join(e.dir, ".devworkwire.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.write(".devworkwire.yaml", string(b)+"fields:\n  Reviewer: Reviewer\n")
	return e
}

// siteCase is one kind of site the scenario runs on.
type siteCase struct {
	name, profile string
	classic       bool   // Resolve's screen sets the resolution on the way to done
	subtask       string // the sub-task type's name on the site
	epicName      bool   // the site requires an Epic Name on epics
	config        string // added to the configuration
}

// TestSitesThroughTheBinary: on a company-managed site with the classic
// workflow and a required Epic Name, and on a team-managed site (a
// reference field per issue type, a simple board with sprints), the real
// binary imports a plan with a user picker, a dependency, a sub-task, a
// sprint and rank; progresses a story to done (on the classic workflow
// through the Resolve screen, whose value the preview shows); pulls
// (nothing to take); exports a person's epic, whose import only adopts
// (each reference written to its type's field); and refuses at preview,
// with zero writes, a plan whose link the account may not make.
func TestSitesThroughTheBinary(t *testing.T) {
	for _, c := range []siteCase{
		{name: "company-managed classic", profile: `{"style": "company-managed", "workflow": "classic", "epic_name_required": true}`, classic: true, subtask: "Sub-task", epicName: true,
			config: "  transition_fields:\n    Resolution: Won't Do\n"},
		{name: "team-managed", profile: `{"style": "team-managed"}`, subtask: "Subtask"},
	} {
		t.Run(c.name, func(t *testing.T) { siteScenario(t, c) })
	}
}

func siteScenario(t *testing.T, c siteCase) {
	e := siteEnv(t, c.profile, c.config)
	if r := e.dwire("doctor"); r.code != 0 || !strings.Contains(r.stdout, "✓ site") || !strings.Contains(r.stdout, "✓ permissions") || !strings.Contains(r.stdout, "✓ reference field") {
		t.Fatalf("doctor: %s", r)
	}
	e.write("plan.md", sitePlan)
	// Where the site requires an Epic Name, the preview names the value
	// the commit writes (from the title), in text and in --json.
	var prev struct {
		Items []struct {
			Reference string
			Fills     []struct{ Field, Value, Why string }
		}
	}
	if r := e.dwireJSON(&prev, "import", "plan.md", "--dry-run"); r.code != 0 || len(prev.Items) != 4 {
		t.Fatalf("preview: %s", r)
	}
	for _, it := range prev.Items {
		want := 0
		if it.Reference == "site/e-1" && c.epicName {
			want = 1
		}
		if len(it.Fills) != want || want == 1 && (it.Fills[0].Field != "Epic Name" || it.Fills[0].Value != "Guest checkout" || it.Fills[0].Why == "") {
			t.Errorf("%s fills %+v; want %d (the Epic Name from the title)", it.Reference, it.Fills, want)
		}
	}
	r := e.dwirePTY("y\r", "import", "plan.md")
	if shown := strings.Contains(r.stdout, "fills Epic Name: Guest checkout (Jira requires it on epics in"); shown != c.epicName {
		t.Errorf("the preview shows the Epic Name: %v, want %v:\n%s", shown, c.epicName, r.stdout)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "s-2 depends on s-1") || !strings.Contains(r.stdout, "DEMO Sprint 2") || !strings.Contains(r.stdout, "rank ") {
		t.Fatalf("import: %s", r)
	}
	issues := e.issuesByRef()
	e1, s1, s2, t1 := issues["site/e-1"], issues["site/s-1"], issues["site/s-2"], issues["site/t-1"]
	if len(issues) != 4 || t1.Parent != s2.Key || s1.Parent != e1.Key || t1.IssueType != c.subtask || s1.Key == "" {
		t.Fatalf("issues after the import: %+v", issues)
	}
	var again struct {
		Counts struct{ Create, Update, Unchanged, Adopt int } `json:"counts"`
	}
	if r := e.dwireJSON(&again, "import", "plan.md", "--dry-run"); r.code != 0 || again.Counts.Unchanged != 4 {
		t.Fatalf("re-import: %s counts %+v; want 4 unchanged", r, again.Counts)
	}

	var pv struct {
		TransitionSets []string `json:"transition_sets"`
	}
	wantSets := ""
	if c.classic {
		wantSets = "Resolution: Won't Do" // the configuration names it
	}
	if r := e.dwireJSON(&pv, "progress", s1.Key, "--status", "done", "--dry-run"); r.code != 0 || strings.Join(pv.TransitionSets, ",") != wantSets {
		t.Fatalf("progress preview: %s (sets %v; want %q)", r, pv.TransitionSets, wantSets)
	}
	r = e.dwirePTY("y\r", "progress", s1.Key, "--status", "done")
	if r.code != 0 || !strings.Contains(r.stdout, wantSets) {
		t.Fatalf("progress to done: %s", r)
	}
	if got := e.issuesByRef()["site/s-1"]; got.StatusCategory != "done" {
		t.Errorf("s-1 after progress: %+v", got)
	}
	if r := e.dwire("pull", "plan.md", "--dry-run"); r.code != 0 {
		t.Errorf("pull: %s", r)
	}

	// A person's epic, story and sub-task: the export's import adopts
	// them, nothing else, and writes each reference to its type's field.
	epic := e.seedAsPerson("Epic", "Returns", "")
	story := e.seedAsPerson("Story", "Return a parcel", epic)
	sub := e.seedAsPerson(c.subtask, "Label printer", story)
	if r := e.dwire("export", epic, "-o", "exported.md", "--id", "returns"); r.code != 0 {
		t.Fatalf("export: %s", r)
	}
	w0 := e.writes()
	if r := e.dwireJSON(&again, "import", "exported.md", "--dry-run"); r.code != 0 || again.Counts != (struct{ Create, Update, Unchanged, Adopt int }{Adopt: 3}) {
		t.Fatalf("import of the export: %s counts %+v; want 3 adoptions only", r, again.Counts)
	}
	if r := e.dwirePTY("y\r", "import", "exported.md"); r.code != 0 || !strings.Contains(r.stdout, "0 created, 3 adopted") {
		t.Fatalf("commit of the export's import: %s", r)
	}
	byRef := e.issuesByRef()
	for ref, key := range map[string]string{"returns/" + strings.ToLower(epic): epic, "returns/" + strings.ToLower(story): story, "returns/" + strings.ToLower(sub): sub} {
		if byRef[ref].Key != key {
			t.Errorf("adopted %s holds %q; want reference %s", key, byRef[ref].Key, ref)
		}
	}
	if w := e.writes() - w0; w != 3 {
		t.Errorf("the adoption made %d writes; want 3 (one edit each)", w)
	}

	// The account may no longer link issues: a plan with a dependency is
	// refused at preview, naming the permission, with zero writes.
	denied := strings.TrimSuffix(c.profile, "}") + `, "denied_permissions": ["LINK_ISSUES"]}`
	resp, err := http.Post(e.jira.URL+"/_mockjira/site", "application/json", strings.NewReader(denied))
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /_mockjira/site: %v %v", err, resp)
	}
	resp.Body.Close()
	e.write("more.md", "---\nid: more\n---\n## Story m-1: One\n\n## Story m-2: Two\nDepends on: m-1\n")
	w0 = e.writes()
	if r := e.dwire("import", "more.md", "--dry-run"); r.code == 0 || !strings.Contains(r.stderr, "JIRA_PERMISSION_DENIED") || !strings.Contains(r.stderr, "Link Issues") {
		t.Errorf("preview of a link without Link issues: %s", r)
	}
	if w := e.writes() - w0; w != 0 {
		t.Errorf("the refused preview made %d writes", w)
	}
}
