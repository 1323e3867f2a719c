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

// siteEnv is a workspace against a fake Jira set up like an older
// company-managed site: the profile (POST /_mockjira/site), a user-picker
// field and the configuration that maps it.
func siteEnv(t *testing.T, profile string) *env {
	t.Helper()
	e := newEnv(t, envOptions{})
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

// TestCompanyManagedClassicSiteThroughTheBinary: on a company-managed
// site with the classic workflow and a required Epic Name, the real
// binary imports a plan with a user picker, a dependency, a sub-task, a
// sprint and rank; progresses a story to done through the Resolve
// screen (the preview says what it sets); and pulls (nothing to take).
func TestCompanyManagedClassicSiteThroughTheBinary(t *testing.T) {
	e := siteEnv(t, `{"style": "company-managed", "workflow": "classic", "epic_name_required": true}`)
	if r := e.dwire("doctor"); r.code != 0 || !strings.Contains(r.stdout, "✓ site") || !strings.Contains(r.stdout, "✓ permissions") {
		t.Fatalf("doctor: %s", r)
	}
	e.write("plan.md", sitePlan)
	r := e.dwirePTY("y\r", "import", "plan.md")
	if r.code != 0 || !strings.Contains(r.stdout, "s-2 depends on s-1") || !strings.Contains(r.stdout, "DEMO Sprint 2") {
		t.Fatalf("import: %s", r)
	}
	issues := e.issuesByRef()
	s1, s2, t1 := issues["site/s-1"], issues["site/s-2"], issues["site/t-1"]
	if len(issues) != 4 || t1.Parent != s2.Key || s1.Key == "" {
		t.Fatalf("issues after the import: %+v", issues)
	}

	var pv struct {
		TransitionSets []string `json:"transition_sets"`
	}
	if r := e.dwireJSON(&pv, "progress", s1.Key, "--status", "done", "--dry-run"); r.code != 0 || strings.Join(pv.TransitionSets, ",") != "Resolution: Done" {
		t.Fatalf("progress preview: %s (sets %v)", r, pv.TransitionSets)
	}
	r = e.dwirePTY("y\r", "progress", s1.Key, "--status", "done")
	if r.code != 0 || !strings.Contains(r.stdout, "Resolution: Done") {
		t.Fatalf("progress through the Resolve screen: %s", r)
	}
	if got := e.issuesByRef()["site/s-1"]; got.Status != "Resolved" || got.StatusCategory != "done" {
		t.Errorf("s-1 after progress: %+v", got)
	}

	if r := e.dwire("pull", "plan.md", "--dry-run"); r.code != 0 {
		t.Errorf("pull: %s", r)
	}
}
