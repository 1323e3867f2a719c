package jiratest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// fieldsSite is a fake with a company-style field setup: components,
// versions, users (one with a hidden e-mail) and a custom field of every
// modelled type, Team and Components required on stories.
func fieldsSite(t *testing.T) *tc {
	t.Helper()
	c := start(t, jiratest.Options{})
	err := c.srv.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{
			{ID: "customfield_10070", Name: "Team", Type: jiratest.FieldSelect, Options: []string{"Payments", "Web"}},
			{ID: "customfield_10071", Name: "Areas", Type: jiratest.FieldMultiSelect, Options: []string{"EU", "US"}},
			{ID: "customfield_10072", Name: "Notes", Type: jiratest.FieldText},
			{ID: "customfield_10073", Name: "Risk score", Type: jiratest.FieldNumber},
			{ID: "customfield_10074", Name: "Launch", Type: jiratest.FieldDate},
			{ID: "customfield_10075", Name: "Reviewer", Type: jiratest.FieldUser},
			{ID: "customfield_10076", Name: "Tags", Type: jiratest.FieldLabels, IssueTypes: []string{"Story"}},
		},
		Users: []jiratest.User{
			{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"},
			{AccountID: "acc-bo", Email: "bo@example.com", DisplayName: "Bo Berg", EmailHidden: true},
			{AccountID: "acc-cy", Email: "cy@example.com", DisplayName: "Cy Other", Projects: []string{"NOPE"}},
		},
		Components: []jiratest.Component{{Name: "Payments"}, {Name: "Web"}},
		Versions:   []jiratest.Version{{Name: "2027.1"}, {Name: "2026.4", Released: true}, {Name: "2025.1", Released: true, Archived: true}},
		Required:   []jiratest.ScreenField{{IssueType: "Story", Field: "Team"}, {IssueType: "Story", Field: "components"}},
		OffScreen:  []jiratest.ScreenField{{IssueType: "Epic", Field: "Risk score"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createStory(fields map[string]any) map[string]any {
	f := map[string]any{"project": map[string]string{"key": "DEMO"}, "issuetype": map[string]string{"id": jiratest.IssueTypeStoryID}, "summary": "A story"}
	for k, v := range fields {
		f[k] = v
	}
	return map[string]any{"fields": f}
}

func TestFieldsDefaultSiteIsATeamManagedProject(t *testing.T) {
	c := start(t, jiratest.Options{})
	r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeStoryID+"?maxResults=200", nil)
	var meta struct {
		Fields []struct {
			FieldID       string           `json:"fieldId"`
			Required      bool             `json:"required"`
			AllowedValues []map[string]any `json:"allowedValues"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(r.body, &meta); err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, f := range meta.Fields {
		byID[f.FieldID] = i
	}
	for _, id := range []string{"labels", "duedate", "priority", "assignee", "components", "fixVersions", jiratest.StoryPointEstimateID} {
		if _, ok := byID[id]; !ok {
			t.Errorf("createmeta has no %s", id)
		}
	}
	var prios []string
	for _, v := range meta.Fields[byID["priority"]].AllowedValues {
		prios = append(prios, v["name"].(string))
	}
	if !slices.Equal(prios, jiratest.DefaultPriorities) {
		t.Errorf("priorities = %v, want Jira Cloud's default scheme %v", prios, jiratest.DefaultPriorities)
	}
	if n := len(meta.Fields[byID["components"]].AllowedValues); n != 0 {
		t.Errorf("a new project has %d components, want none", n)
	}
	// A new issue gets the default priority; the demo user is assignable.
	r = c.do("POST", "/rest/api/3/issue", createStory(map[string]any{"assignee": map[string]string{"accountId": jiratest.DemoAccountID}, jiratest.StoryPointEstimateID: 5}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	sn, _ := c.srv.Issue("DEMO-1")
	if got := sn.Fields["priority"]; !slices.Equal(got, []string{"Medium"}) {
		t.Errorf("priority = %v, want the default Medium", got)
	}
	if got := sn.Fields[jiratest.StoryPointEstimateID]; !slices.Equal(got, []string{"5"}) {
		t.Errorf("estimate = %v, want 5", got)
	}
}

func TestFieldsWriteAndReadBack(t *testing.T) {
	c := fieldsSite(t)
	r := c.do("POST", "/rest/api/3/issue", createStory(map[string]any{
		"priority":          map[string]string{"name": "high"},
		"assignee":          map[string]string{"accountId": "acc-ana"},
		"duedate":           "2027-03-01",
		"components":        []map[string]string{{"name": "Payments"}, {"name": "Web"}},
		"fixVersions":       []map[string]string{{"name": "2027.1"}, {"name": "2026.4"}},
		"customfield_10070": map[string]string{"value": "Payments"},
		"customfield_10071": []map[string]string{{"value": "EU"}},
		"customfield_10072": "free text",
		"customfield_10073": 2.5,
		"customfield_10074": "2027-01-31",
		"customfield_10075": map[string]string{"accountId": "acc-bo"},
		"customfield_10076": []string{"a", "b"},
	}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	got := c.do("GET", "/rest/api/3/issue/DEMO-1", nil).json(t)["fields"].(map[string]any)
	check := func(id string, want any) {
		t.Helper()
		g, _ := json.Marshal(pick(got[id]))
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s = %s, want %s", id, g, w)
		}
	}
	check("priority", "High")
	check("assignee", "acc-ana")
	check("duedate", "2027-03-01")
	check("components", []string{"Payments", "Web"})
	check("fixVersions", []string{"2027.1", "2026.4"})
	check("customfield_10070", "Payments")
	check("customfield_10071", []string{"EU"})
	check("customfield_10072", "free text")
	check("customfield_10073", 2.5)
	check("customfield_10074", "2027-01-31")
	check("customfield_10075", "acc-bo")
	check("customfield_10076", []string{"a", "b"})
	if _, shown := got["customfield_10075"].(map[string]any)["emailAddress"]; shown {
		t.Error("a user whose e-mail is hidden is shown with it")
	}

	// null clears; fields left out stay.
	r = c.do("PUT", "/rest/api/3/issue/DEMO-1", map[string]any{"fields": map[string]any{"assignee": nil, "components": []any{}, "customfield_10070": map[string]string{"value": "Web"}}})
	if r.status != http.StatusNoContent {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	got = c.do("GET", "/rest/api/3/issue/DEMO-1", nil).json(t)["fields"].(map[string]any)
	check("assignee", nil)
	check("components", []string{})
	check("customfield_10070", "Web")
	check("priority", "High")
}

// pick reduces a rendered field value to its name, value or account id.
func pick(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"accountId", "value", "name"} {
			if s, ok := x[k]; ok {
				return s
			}
		}
	case []any:
		out := []any{}
		for _, e := range x {
			out = append(out, pick(e))
		}
		return out
	}
	return v
}

func TestFieldsErrorsAreKeyedByFieldID(t *testing.T) {
	c := fieldsSite(t)
	r := c.do("POST", "/rest/api/3/issue", createStory(map[string]any{
		"priority":          map[string]string{"name": "Urgent"},
		"assignee":          map[string]string{"accountId": "acc-cy"},
		"duedate":           "next week",
		"fixVersions":       []map[string]string{{"name": "2025.1"}},
		"customfield_10070": map[string]string{"value": "Mobile"},
		"customfield_10073": "high",
	}))
	if r.status != http.StatusBadRequest {
		t.Fatalf("create: %d %s, want 400", r.status, r.body)
	}
	_, errs := r.errs(t)
	want := map[string]string{
		"priority":          "Specify a valid 'id' or 'name' for Priority",
		"assignee":          "User 'Cy Other' cannot be assigned issues.",
		"duedate":           "Error parsing date string: next week",
		"fixVersions":       "Version '2025.1' is archived and cannot be set.",
		"customfield_10070": "Option value 'Mobile' is not valid",
		"customfield_10073": "Operation value must be a number. 'high' is invalid.",
		"components":        "Components is required.",
	}
	for k, w := range want {
		if errs[k] != w {
			t.Errorf("errors[%s] = %v, want %q", k, errs[k], w)
		}
	}
	if len(c.srv.Issues()) != 0 {
		t.Fatal("a refused create created an issue")
	}
	// Team is required too (its error is only absent above because the
	// value was wrong).
	r = c.do("POST", "/rest/api/3/issue", createStory(map[string]any{"components": []map[string]string{{"name": "Web"}}}))
	if _, errs := r.errs(t); errs["customfield_10070"] != "Team is required." {
		t.Errorf("errors = %v, want Team is required", errs)
	}
	// Off the epic's screen.
	r = c.do("POST", "/rest/api/3/issue", map[string]any{"fields": map[string]any{"project": map[string]string{"key": "DEMO"}, "issuetype": map[string]string{"id": jiratest.IssueTypeEpicID}, "summary": "E", "customfield_10073": 1}})
	if _, errs := r.errs(t); !strings.Contains(errs["customfield_10073"].(string), "cannot be set") {
		t.Errorf("errors = %v, want a field that is not on the screen refused", errs)
	}
}

func TestFieldsAssignableSearch(t *testing.T) {
	c := fieldsSite(t)
	names := func(q string) []string {
		t.Helper()
		r := c.do("GET", "/rest/api/3/user/assignable/search?project=DEMO&"+q, nil)
		var us []struct {
			AccountID string `json:"accountId"`
		}
		if err := json.Unmarshal(r.body, &us); err != nil {
			t.Fatalf("%s: %v %s", q, err, r.body)
		}
		var out []string
		for _, u := range us {
			out = append(out, u.AccountID)
		}
		return out
	}
	for q, want := range map[string][]string{
		"query=ana@example.com": {"acc-ana"},
		"query=lima":            {"acc-ana"},
		"query=bo@example.com":  nil, // hidden e-mail: not matched
		"query=Bo":              {"acc-bo"},
		"query=cy":              nil, // not assignable in DEMO
		"accountId=acc-bo":      {"acc-bo"},
	} {
		if got := names(q); !slices.Equal(got, want) {
			t.Errorf("%s → %v, want %v", q, got, want)
		}
	}
	if r := c.do("GET", "/rest/api/3/user/assignable/search?query=x", nil); r.status != http.StatusBadRequest {
		t.Errorf("no project: %d, want 400", r.status)
	}
}

func TestFieldsEditMetaAndPersonEdit(t *testing.T) {
	c := fieldsSite(t)
	key, err := c.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "S", Fields: map[string]json.RawMessage{"Team": json.RawMessage(`{"value":"Web"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.do("GET", "/rest/api/3/issue/"+key+"/editmeta", nil)
	var em struct {
		Fields map[string]struct {
			AllowedValues []map[string]any `json:"allowedValues"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(r.body, &em); err != nil {
		t.Fatal(err)
	}
	if n := len(em.Fields["customfield_10070"].AllowedValues); n != 2 {
		t.Errorf("editmeta Team has %d allowed values, want 2", n)
	}
	if err := c.srv.EditAsPerson(key, jiratest.PersonEdit{Fields: map[string]json.RawMessage{"assignee": json.RawMessage(`{"accountId":"acc-bo"}`)}}); err != nil {
		t.Fatal(err)
	}
	sn, _ := c.srv.Issue(key)
	if !slices.Equal(sn.Fields["assignee"], []string{"acc-bo"}) || !slices.Equal(sn.Fields["customfield_10070"], []string{"Web"}) {
		t.Errorf("fields = %v", sn.Fields)
	}
	if err := c.srv.EditAsPerson(key, jiratest.PersonEdit{Fields: map[string]json.RawMessage{"priority": json.RawMessage(`{"name":"Nope"}`)}}); err == nil {
		t.Error("a person set a priority that does not exist")
	}
}

func TestFieldsSeedIsCheckedWhole(t *testing.T) {
	c := start(t, jiratest.Options{})
	err := c.srv.ApplyFields(jiratest.FieldSeed{Components: []jiratest.Component{{Name: "A"}}, CustomFields: []jiratest.CustomField{{Name: "X", Type: "colour"}}})
	if err == nil {
		t.Fatal("an unknown field type was accepted")
	}
	r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeStoryID, nil)
	if strings.Contains(string(r.body), `"name":"A"`) {
		t.Error("a refused seed added its component")
	}
}
