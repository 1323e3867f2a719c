package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestLiveCheckThroughTheBinary: `dwire probe` against the fake set up as a
// throwaway site with a company-managed project (parent off the Story
// edit screen) and a team-managed one. The preview writes nothing and
// lists every create; without a terminal it refuses
// CONFIRMATION_REQUIRED (exit 1) with nothing written; a "no" writes
// nothing; a "yes" creates exactly the listed issues, prints a table
// answering every question in both projects and names the keys it left
// and how to remove them.
func TestLiveCheckThroughTheBinary(t *testing.T) {
	e := newEnv(t, envOptions{})
	for path, body := range map[string]string{
		"/_mockjira/site": `{"style": "company-managed", "projects": {"TEAM": {"style": "team-managed"}}}`,
		"/_mockjira/fields": `{"users": [{"account_id": "acc-hid", "email": "hid@example.com", "display_name": "Hid Den", "email_hidden": true}],
			"off_edit_screen": [{"project": "DEMO", "issuetype": "Story", "field": "parent"}]}`,
	} {
		resp, err := http.Post(e.jira.URL+path, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("POST %s: %v %v", path, err, resp)
		}
		resp.Body.Close()
	}
	args := []string{"probe", "--project", "DEMO", "--project", "TEAM", "--hidden-email", "hid@example.com"}
	w0 := e.writes()

	var plan struct {
		ResultType string `json:"result_type"`
		Plans      []struct {
			Project, Style string
			Creates        []struct{ Summary string }
		} `json:"plans"`
	}
	if r := e.dwireJSON(&plan, append(args, "--dry-run")...); r.code != 0 || plan.ResultType != "preview" || len(plan.Plans) != 2 ||
		plan.Plans[0].Style != "company-managed" || plan.Plans[1].Style != "team-managed" || len(plan.Plans[1].Creates) != 4 {
		t.Fatalf("dry run: %+v\n%s", plan, r)
	}
	if r := e.dwire(args...); r.code != 1 || !strings.Contains(r.stderr, "CONFIRMATION_REQUIRED") || !strings.Contains(r.stdout, "create Story") {
		t.Fatalf("without a terminal: %s", r)
	}
	if r := e.dwirePTY("n\r", args...); r.code != 0 || !strings.Contains(r.stdout, "not confirmed") {
		t.Fatalf("declined: %s", r)
	}
	if w := e.writes(); w != w0 {
		t.Fatalf("%d writes before a yes", w-w0)
	}

	r := e.dwirePTY("y\r", args...)
	if r.code != 0 {
		t.Fatalf("probe: %s", r)
	}
	var rows []string // the table's rows, spaces collapsed
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "DEMO ") || strings.HasPrefix(l, "TEAM ") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	has := func(prefix string) bool {
		for _, row := range rows {
			if strings.HasPrefix(row, prefix) {
				return true
			}
		}
		return false
	}
	for _, p := range []string{"DEMO", "TEAM"} {
		for _, q := range []string{
			"Does search keep dw<hex>0 as one token? ✓ yes", "Does a bulk create list issues[] in request order? ✓ yes",
			"Is a task list inside a list item accepted? ✓ yes", "Does stored ADF come back unchanged? ✓ yes",
		} {
			if !has(p + " " + q) {
				t.Errorf("no row %q %q:\n%s", p, q, strings.Join(rows, "\n"))
			}
		}
	}
	for _, q := range []string{
		"DEMO Is parent: null refused where parent is off the edit screen? ✓ yes",
		"TEAM Is parent: null refused where parent is off the edit screen? ? not asked parent is on TEAM-3's edit screen",
		"TEAM Do simple boards list sprints? ✓ yes board TEAM board lists 2 sprints: TEAM Sprint 1 (active)",
		"DEMO Do simple boards list sprints? ? not asked DEMO has no simple board",
		"DEMO Is a hidden-e-mail user found by a full e-mail query? ✓ no",
	} {
		if !has(q) {
			t.Errorf("no row %q:\n%s", q, strings.Join(rows, "\n"))
		}
	}
	if len(rows) != 15 {
		t.Errorf("%d rows, want 7 questions in each project and the hidden e-mail once:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	if !strings.Contains(r.stdout, "Left on the site: DEMO-1, DEMO-2, DEMO-3, DEMO-4, TEAM-1, TEAM-2, TEAM-3, TEAM-4; to remove them") {
		t.Errorf("no word of what was left behind:\n%s", r.stdout)
	}
	made := 0
	for _, is := range e.issues() {
		if strings.HasPrefix(is.Reference, "livecheck-") && strings.Contains(is.Summary, "[dwire live check ") {
			made++
		}
	}
	if w := e.writes() - w0; made != 8 || w != 3 {
		t.Errorf("%d live check issues, %d writes; want 8 and 3 (two bulk creates, the refused edit)", made, w)
	}
}
