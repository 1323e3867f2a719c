package jiratest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestAdminViewNamesTheSubtaskTypeAsRESTDoes: the admin view (what
// tests read back) names an issue's type as GET issue does — "Sub-task"
// in a company-managed project, "Subtask" in a team-managed one.
func TestAdminViewNamesTheSubtaskTypeAsRESTDoes(t *testing.T) {
	for style, want := range map[string]string{jiratest.StyleCompanyManaged: "Sub-task", jiratest.StyleTeamManaged: "Subtask"} {
		t.Run(style, func(t *testing.T) {
			c := start(t, jiratest.Options{Style: style})
			story, _ := c.create(issueFields("Story", "S", ""))
			sub, _ := c.create(map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": want}, "summary": "T", "parent": map[string]any{"key": story}})
			rest := c.do("GET", "/rest/api/3/issue/"+sub+"?fields=issuetype", nil).json(t)
			name := rest["fields"].(map[string]any)["issuetype"].(map[string]any)["name"]
			snap, ok := c.srv.Issue(sub)
			if !ok || name != want || snap.IssueType != want {
				t.Errorf("sub-task type: REST %q, admin view %q; want %q in both", name, snap.IssueType, want)
			}
		})
	}
}

// TestParentOffAnEditScreenIsRefusedEvenAsNull: where parent is not on a
// company-managed project's edit screen, an edit that names it — even as
// null, to a story that has no parent — is refused the way Jira refuses a
// field off the screen, and editmeta does not list it; the create screen
// still takes it.
func TestParentOffAnEditScreenIsRefusedEvenAsNull(t *testing.T) {
	c := start(t, jiratest.Options{Style: jiratest.StyleCompanyManaged})
	if err := c.srv.ApplyFields(jiratest.FieldSeed{OffEditScreen: []jiratest.ScreenField{{IssueType: "Story", Field: "parent"}}}); err != nil {
		t.Fatal(err)
	}
	epic, _ := c.create(issueFields("Epic", "E", ""))
	loose, _ := c.create(issueFields("Story", "Loose", ""))
	under, _ := c.create(map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Story"}, "summary": "Under", "parent": map[string]any{"key": epic}})
	if snap, _ := c.srv.Issue(under); snap.Parent != epic {
		t.Fatalf("create with a parent: parent %q, want %s", snap.Parent, epic)
	}
	r := c.do("PUT", "/rest/api/3/issue/"+loose, map[string]any{"fields": map[string]any{"parent": nil}})
	if _, errs := r.errs(t); r.status != 400 || errs["parent"] != "Field 'parent' cannot be set. It is not on the appropriate screen, or unknown." {
		t.Errorf("parent: null off the edit screen: %d %s; want 400 naming parent", r.status, r.body)
	}
	if r := c.do("PUT", "/rest/api/3/issue/"+under, map[string]any{"fields": map[string]any{"parent": nil}}); r.status != 400 {
		t.Errorf("parent: null to a story under an epic, off the edit screen: %d %s; want 400", r.status, r.body)
	}
	if r := c.do("PUT", "/rest/api/3/issue/"+loose, map[string]any{"fields": map[string]any{"summary": "Still loose"}}); r.status != 204 {
		t.Errorf("an edit without parent: %d %s", r.status, r.body)
	}
	fields := c.do("GET", "/rest/api/3/issue/"+loose+"/editmeta", nil).json(t)["fields"].(map[string]any)
	if _, ok := fields["parent"]; ok || fields["summary"] == nil {
		t.Errorf("editmeta off the screen lists parent (or lost summary): %v", fields)
	}
	epicEdit := c.do("PUT", "/rest/api/3/issue/"+epic, map[string]any{"fields": map[string]any{"summary": "E2"}})
	if epicEdit.status != 204 {
		t.Errorf("edit of the epic: %d %s", epicEdit.status, epicEdit.body)
	}
}

// TestTransitionsNameOnlyWhatTheSpecDocuments: every property of a
// transition in GET transitions is one Atlassian's description of
// IssueTransition documents (the spec's "looped", not "isLooped"; the
// schema allows more, so the contract check alone cannot catch a wrong
// name).
func TestTransitionsNameOnlyWhatTheSpecDocuments(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "openapi", "jira-platform-v3-subset.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	documented := spec.Components.Schemas["IssueTransition"].Properties
	if len(documented) == 0 {
		t.Fatal("the spec has no IssueTransition properties")
	}
	for _, wf := range []string{"", jiratest.WorkflowClassic} {
		c := start(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, Workflow: wf})
		story, _ := c.create(issueFields("Story", "S", ""))
		tr := c.do("GET", "/rest/api/3/issue/"+story+"/transitions?expand=transitions.fields", nil).json(t)["transitions"].([]any)
		if len(tr) == 0 {
			t.Fatalf("workflow %q: no transitions", wf)
		}
		for _, x := range tr {
			for k := range x.(map[string]any) {
				if _, ok := documented[k]; !ok {
					t.Errorf("workflow %q: transition property %q is not in the spec's IssueTransition", wf, k)
				}
			}
		}
	}
}
