package jiratest_test

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func TestAuth(t *testing.T) {
	c := start(t, jiratest.Options{})
	r := c.do("GET", "/rest/api/3/myself", nil)
	if r.status != 200 || r.json(t)["emailAddress"] != "demo@example.com" {
		t.Fatalf("myself: %d %s", r.status, r.body)
	}
	for name, auth := range map[string]string{
		"none":        "",
		"wrong token": "Basic ZGVtb0BleGFtcGxlLmNvbTp3cm9uZw==",
		"bearer":      "Bearer mockjira-token-not-secret",
		"garbage":     "Basic !!!",
	} {
		c.auth = auth
		r := c.do("GET", "/rest/api/3/myself", nil)
		if r.status != 401 {
			t.Errorf("%s: status %d, want 401", name, r.status)
		}
		msgs, _ := r.errs(t)
		if len(msgs) == 0 {
			t.Errorf("%s: no error message", name)
		}
		if strings.Contains(string(r.body), "mockjira-token-not-secret") {
			t.Errorf("%s: token echoed in body", name)
		}
	}
}

func TestCreateGetEdit(t *testing.T) {
	c := start(t, jiratest.Options{})
	epic, epicID := c.create(issueFields("Epic", "Guest checkout", "checkout-v2/e-1"))
	if epic != "DEMO-1" || epicID == "" {
		t.Fatalf("epic key %s id %s", epic, epicID)
	}
	f := issueFields("Story", "Pay without an account", "checkout-v2/s-1")
	f["parent"] = map[string]any{"key": epic}
	f["description"] = adf("Hello")
	r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f, "properties": []any{map[string]any{"key": "devworkwire", "value": map[string]any{"digest": "abc"}}}})
	if r.status != 201 {
		t.Fatalf("create story: %d %s", r.status, r.body)
	}
	story := r.json(t)["key"].(string)

	r = c.do("GET", "/rest/api/3/issue/"+story+"?fields=summary,parent,status,"+jiratest.DefaultFieldID+"&properties=devworkwire", nil)
	if r.status != 200 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	m := r.json(t)
	fields := m["fields"].(map[string]any)
	if fields["summary"] != "Pay without an account" || fields[jiratest.DefaultFieldID] != "checkout-v2/s-1" {
		t.Errorf("fields: %v", fields)
	}
	if _, ok := fields["description"]; ok {
		t.Errorf("description returned although not requested")
	}
	if p := fields["parent"].(map[string]any); p["key"] != epic {
		t.Errorf("parent: %v", p)
	}
	st := fields["status"].(map[string]any)
	if st["name"] != "To Do" || st["statusCategory"].(map[string]any)["key"] != "new" {
		t.Errorf("status: %v", st)
	}
	if d := m["properties"].(map[string]any)["devworkwire"].(map[string]any); d["digest"] != "abc" {
		t.Errorf("properties: %v", m["properties"])
	}
	before, _ := c.srv.Issue(story)

	// Edit with the same values does not move updated; a change does.
	r = c.do("PUT", "/rest/api/3/issue/"+story, map[string]any{"fields": map[string]any{"summary": "Pay without an account"}})
	if r.status != 204 {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	same, _ := c.srv.Issue(story)
	if !same.Updated.Equal(before.Updated) {
		t.Errorf("no-op edit moved updated")
	}
	r = c.do("PUT", "/rest/api/3/issue/"+story, map[string]any{
		"fields":     map[string]any{"summary": "Pay as a guest", "description": adf("New")},
		"properties": []any{map[string]any{"key": "devworkwire", "value": map[string]any{"digest": "def"}}},
	})
	if r.status != 204 {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	after, _ := c.srv.Issue(story)
	if after.Summary != "Pay as a guest" || string(after.Properties["devworkwire"]) != `{"digest":"def"}` {
		t.Errorf("after edit: %+v", after)
	}
	if after.Updated.Before(before.Updated) {
		t.Errorf("updated went back")
	}
	// Default GET returns all fields including nulls and issuelinks.
	r = c.do("GET", "/rest/api/3/issue/"+epic, nil)
	fields = r.json(t)["fields"].(map[string]any)
	for _, k := range []string{"summary", "description", "issuetype", "project", "status", "created", "updated", "issuelinks", "comment", "labels", jiratest.DefaultFieldID} {
		if _, ok := fields[k]; !ok {
			t.Errorf("GET issue without fields= lacks %s", k)
		}
	}
	if fields["description"] != nil {
		t.Errorf("description of epic should be null, got %v", fields["description"])
	}
}

func TestNotFound(t *testing.T) {
	c := start(t, jiratest.Options{})
	for _, p := range []string{"/rest/api/3/issue/DEMO-99", "/rest/api/3/issue/DEMO-99/transitions", "/rest/api/3/project/NOPE", "/rest/api/3/issue/createmeta/NOPE/issuetypes"} {
		r := c.do("GET", p, nil)
		if r.status != 404 {
			t.Errorf("%s: %d", p, r.status)
		}
		r.errs(t)
	}
	r := c.do("GET", "/rest/api/3/search?jql=project%3DDEMO", nil)
	if r.status != 410 {
		t.Errorf("old search: %d", r.status)
	}
}
