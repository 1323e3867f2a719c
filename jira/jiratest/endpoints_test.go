package jiratest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"pgregory.net/rapid"

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

func TestDiscovery(t *testing.T) {
	c := start(t, jiratest.Options{})
	r := c.do("GET", "/rest/api/3/serverInfo", nil)
	if r.status != 200 || r.json(t)["deploymentType"] != "Cloud" {
		t.Errorf("serverInfo: %d %s", r.status, r.body)
	}
	// Like Jira: serverInfo answers anonymous calls (so it proves nothing
	// about credentials), but a wrong token is still refused.
	auth := c.auth
	c.auth = ""
	if r := c.do("GET", "/rest/api/3/serverInfo", nil); r.status != 200 {
		t.Errorf("anonymous serverInfo: %d", r.status)
	}
	c.auth = "Basic ZGVtb0BleGFtcGxlLmNvbTp3cm9uZw=="
	if r := c.do("GET", "/rest/api/3/serverInfo", nil); r.status != 401 {
		t.Errorf("serverInfo with a wrong token: %d", r.status)
	}
	c.auth = auth
	r = c.do("GET", "/rest/api/3/project/DEMO", nil)
	if m := r.json(t); r.status != 200 || m["key"] != "DEMO" || len(m["issueTypes"].([]any)) != 4 { // Epic, Story, Task, Subtask
		t.Errorf("project: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/rest/api/3/project/10000", nil); r.status != 200 {
		t.Errorf("project by id: %d", r.status)
	}
	r = c.do("GET", "/rest/api/3/field", nil)
	var found map[string]any
	var list []any
	if err := jsonUnmarshal(r.body, &list); err != nil {
		t.Fatal(err)
	}
	for _, f := range list {
		m := f.(map[string]any)
		if m["id"] == jiratest.DefaultFieldID {
			found = m
		}
	}
	if found == nil || found["name"] != jiratest.DefaultFieldName || found["schema"].(map[string]any)["custom"] != jiratest.TextFieldType {
		t.Errorf("reference field: %v", found)
	}
	r = c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes", nil)
	m := r.json(t)
	if r.status != 200 || m["total"].(float64) != 4 || len(m["issueTypes"].([]any)) != 4 {
		t.Errorf("createmeta types: %d %s", r.status, r.body)
	}
	r = c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes?startAt=1&maxResults=1", nil)
	m = r.json(t)
	if its := m["issueTypes"].([]any); len(its) != 1 || its[0].(map[string]any)["name"] != "Story" {
		t.Errorf("createmeta paging: %s", r.body)
	}
	if r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes?maxResults=201", nil); r.status != 400 {
		t.Errorf("maxResults 201: %d", r.status)
	}
	r = c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeStoryID, nil)
	m = r.json(t)
	ids := map[string]bool{}
	for _, f := range m["fields"].([]any) {
		fm := f.(map[string]any)
		ids[fm["fieldId"].(string)] = fm["required"].(bool)
	}
	if !ids["summary"] || ids["description"] || !hasKey(ids, "parent") || !hasKey(ids, jiratest.DefaultFieldID) {
		t.Errorf("createmeta fields: %v", ids)
	}
	if r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/999", nil); r.status != 404 {
		t.Errorf("unknown issue type: %d", r.status)
	}
	// A field made required shows as required and is enforced.
	c.srv.RequireField("DEMO", jiratest.IssueTypeStoryID, jiratest.DefaultFieldID)
	r = c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeStoryID, nil)
	for _, f := range r.json(t)["fields"].([]any) {
		if fm := f.(map[string]any); fm["fieldId"] == jiratest.DefaultFieldID && fm["required"] != true {
			t.Errorf("required reference field not marked required")
		}
	}
	r = c.do("POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Story", "No ref", "")})
	if _, errs := r.errs(t); r.status != 400 || errs[jiratest.DefaultFieldID] == nil {
		t.Errorf("missing required field: %d %s", r.status, r.body)
	}
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }

func TestCreateValidation(t *testing.T) {
	c := start(t, jiratest.Options{})
	epic, _ := c.create(issueFields("Epic", "Epic", "d/e-1"))
	story, _ := c.create(issueFields("Story", "Story", "d/s-1"))
	with := func(k string, v any) map[string]any {
		f := issueFields("Story", "A story", "d/s-2")
		if v == nil {
			delete(f, k)
		} else {
			f[k] = v
		}
		return f
	}
	long := strings.Repeat("x", 256)
	cases := []struct {
		name   string
		fields map[string]any
		field  string // key expected in errors
		msg    string
	}{
		{"no project", with("project", nil), "project", "Specify a valid project ID or key"},
		{"unknown project", with("project", map[string]any{"key": "NOPE"}), "project", "valid project is required"},
		{"no issue type", with("issuetype", nil), "issuetype", "Specify an issue type"},
		{"unknown issue type", with("issuetype", map[string]any{"name": "Bug"}), "issuetype", "Specify a valid issue type"},
		{"unknown issue type id", with("issuetype", map[string]any{"id": "42"}), "issuetype", "Specify a valid issue type"},
		{"no summary", with("summary", nil), "summary", "You must specify a summary of the issue."},
		{"blank summary", with("summary", "   "), "summary", "You must specify a summary of the issue."},
		{"long summary", with("summary", long), "summary", "Summary must be less than 255 characters."},
		{"newline summary", with("summary", "a\nb"), "summary", "newline"},
		{"unknown field", with("customfield_99999", "x"), "customfield_99999", "cannot be set"},
		{"status not settable", with("status", map[string]any{"name": "Done"}), "status", "cannot be set"},
		{"description as string", with("description", "plain text"), "description", "Atlassian Document"},
		{"invalid ADF", with("description", map[string]any{"type": "doc", "version": 1, "content": []any{map[string]any{"type": "nope"}}}), "description", "Atlassian Document"},
		{"missing parent", with("parent", map[string]any{"key": "DEMO-99"}), "parent", "Could not find issue"},
		{"parent not an epic", with("parent", map[string]any{"key": story}), "parent", "appropriate hierarchy"},
		{"reference not a string", with(jiratest.DefaultFieldID, 5), jiratest.DefaultFieldID, "string"},
		{"reference too long", with(jiratest.DefaultFieldID, long), jiratest.DefaultFieldID, "255"},
		{"label with space", with("labels", []string{"a b"}), "labels", "spaces"},
		{"description too long", with("description", adf(strings.Repeat("word ", 6600))), "description", "32,767"},
	}
	for _, cs := range cases {
		r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": cs.fields})
		if r.status != 400 {
			t.Errorf("%s: status %d %s", cs.name, r.status, r.body)
			continue
		}
		_, errs := r.errs(t)
		if got, _ := errs[cs.field].(string); !strings.Contains(got, cs.msg) {
			t.Errorf("%s: errors %v, want %s: %q", cs.name, errs, cs.field, cs.msg)
		}
	}
	// An epic cannot have a parent.
	f := issueFields("Epic", "Child epic", "")
	f["parent"] = map[string]any{"key": epic}
	if r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f}); r.status != 400 {
		t.Errorf("epic with parent: %d", r.status)
	}
	// Several problems at once; nothing is created on failure.
	before := len(c.srv.Issues())
	r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": map[string]any{"project": map[string]any{"key": "DEMO"}}})
	if _, errs := r.errs(t); len(errs) < 2 {
		t.Errorf("want several field errors, got %v", errs)
	}
	for name, body := range map[string]any{
		"not JSON":   "{nope",
		"bad props":  map[string]any{"fields": issueFields("Story", "x", ""), "properties": []any{map[string]any{"key": "", "value": 1}}},
		"null prop":  map[string]any{"fields": issueFields("Story", "x", ""), "properties": []any{map[string]any{"key": "k"}}},
		"huge prop":  map[string]any{"fields": issueFields("Story", "x", ""), "properties": []any{map[string]any{"key": "k", "value": strings.Repeat("x", 40000)}}},
		"update ops": map[string]any{"fields": issueFields("Story", "x", ""), "update": map[string]any{"labels": []any{map[string]any{"add": "x"}}}},
	} {
		if r := c.do("POST", "/rest/api/3/issue", body); r.status != 400 {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		} else {
			r.errs(t)
		}
	}
	if n := len(c.srv.Issues()); n != before {
		t.Errorf("failed creates created issues: %d → %d", before, n)
	}
	// Parent by id, project by id, issue type by id all work.
	epic2, epicID := c.create(issueFields("Epic", "E2", ""))
	f = map[string]any{"project": map[string]any{"id": "10000"}, "issuetype": map[string]any{"id": jiratest.IssueTypeStoryID}, "summary": "By ids", "parent": map[string]any{"id": epicID}}
	key, _ := c.create(f)
	if sn, _ := c.srv.Issue(key); sn.Parent != epic2 || sn.IssueType != "Story" {
		t.Errorf("by ids: %+v", sn)
	}
}

func TestBulkCreate(t *testing.T) {
	c := start(t, jiratest.Options{})
	epic, _ := c.create(issueFields("Epic", "Epic", "d/e-1"))
	ok1 := issueFields("Story", "One", "d/s-1")
	ok1["parent"] = map[string]any{"key": epic}
	bad := issueFields("Story", strings.Repeat("y", 300), "d/s-2")
	ok2 := issueFields("Story", "Two", "d/s-3")
	r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{
		map[string]any{"fields": ok1, "properties": []any{map[string]any{"key": "devworkwire", "value": map[string]any{"digest": "x"}}}},
		map[string]any{"fields": bad},
		map[string]any{"fields": ok2},
	}})
	if r.status != 201 {
		t.Fatalf("partial bulk: %d %s", r.status, r.body)
	}
	m := r.json(t)
	issues := m["issues"].([]any)
	errs := m["errors"].([]any)
	if len(issues) != 2 || len(errs) != 1 {
		t.Fatalf("bulk result: %s", r.body)
	}
	if e := errs[0].(map[string]any); e["failedElementNumber"].(float64) != 1 || e["status"].(float64) != 400 ||
		e["elementErrors"].(map[string]any)["errors"].(map[string]any)["summary"] == nil {
		t.Errorf("element error: %v", e)
	}
	if issues[0].(map[string]any)["key"] != "DEMO-2" || issues[1].(map[string]any)["key"] != "DEMO-3" {
		t.Errorf("created keys: %v", issues)
	}
	if sn, _ := c.srv.Issue("DEMO-2"); sn.Parent != epic || string(sn.Properties["devworkwire"]) != `{"digest":"x"}` {
		t.Errorf("bulk-created issue: %+v", sn)
	}
	// All fail → 400 with issues [].
	r = c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{map[string]any{"fields": bad}, map[string]any{"fields": map[string]any{}}}})
	if r.status != 400 {
		t.Fatalf("all-failed bulk: %d", r.status)
	}
	m = r.json(t)
	if len(m["issues"].([]any)) != 0 || len(m["errors"].([]any)) != 2 || m["errors"].([]any)[1].(map[string]any)["failedElementNumber"].(float64) != 1 {
		t.Errorf("all-failed body: %s", r.body)
	}
	// More than 50, or none.
	var many []any
	for i := 0; i < 51; i++ {
		many = append(many, map[string]any{"fields": issueFields("Task", "t", "")})
	}
	if r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": many}); r.status != 400 {
		t.Errorf("51 issues: %d", r.status)
	}
	if r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": many[:50]}); r.status != 201 || len(r.json(t)["issues"].([]any)) != 50 {
		t.Errorf("50 issues: %d", r.status)
	}
	if r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{}}); r.status != 400 {
		t.Errorf("empty bulk: %d", r.status)
	}
}

func TestEditValidation(t *testing.T) {
	c := start(t, jiratest.Options{})
	epic, _ := c.create(issueFields("Epic", "Epic", "d/e-1"))
	story, _ := c.create(issueFields("Story", "Story", "d/s-1"))
	for name, fields := range map[string]map[string]any{
		"issuetype":     {"issuetype": map[string]any{"name": "Task"}},
		"project":       {"project": map[string]any{"key": "DEMO"}},
		"unknown":       {"foo": 1},
		"invalid ADF":   {"description": map[string]any{"type": "paragraph"}},
		"empty summary": {"summary": ""},
		"self parent":   {"parent": map[string]any{"key": story}},
	} {
		r := c.do("PUT", "/rest/api/3/issue/"+story, map[string]any{"fields": fields})
		if r.status != 400 {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		} else {
			r.errs(t)
		}
	}
	if r := c.do("PUT", "/rest/api/3/issue/DEMO-99", map[string]any{"fields": map[string]any{"summary": "x"}}); r.status != 404 {
		t.Errorf("edit missing issue: %d", r.status)
	}
	// Set then clear parent and reference; returnIssue.
	r := c.do("PUT", "/rest/api/3/issue/"+story+"?returnIssue=true", map[string]any{"fields": map[string]any{"parent": map[string]any{"key": epic}}})
	if r.status != 200 || r.json(t)["fields"].(map[string]any)["parent"].(map[string]any)["key"] != epic {
		t.Errorf("returnIssue: %d %s", r.status, r.body)
	}
	r = c.do("PUT", "/rest/api/3/issue/"+story, map[string]any{"fields": map[string]any{"parent": nil, jiratest.DefaultFieldID: nil, "description": nil}})
	if sn, _ := c.srv.Issue(story); r.status != 204 || sn.Parent != "" || sn.Reference != "" {
		t.Errorf("clear: %d %+v", r.status, sn)
	}
}

func TestTransitions(t *testing.T) {
	c := start(t, jiratest.Options{})
	key, _ := c.create(issueFields("Story", "S", ""))
	r := c.do("GET", "/rest/api/3/issue/"+key+"/transitions", nil)
	ts := r.json(t)["transitions"].([]any)
	if len(ts) != 2 {
		t.Fatalf("transitions from To Do: %s", r.body)
	}
	names := map[string]string{}
	for _, x := range ts {
		m := x.(map[string]any)
		names[m["id"].(string)] = m["to"].(map[string]any)["statusCategory"].(map[string]any)["key"].(string)
	}
	if names[jiratest.TransitionInProgressID] != "indeterminate" || names[jiratest.TransitionDoneID] != "done" {
		t.Errorf("transitions: %v", names)
	}
	before, _ := c.srv.Issue(key)
	r = c.do("POST", "/rest/api/3/issue/"+key+"/transitions", map[string]any{"transition": map[string]any{"id": jiratest.TransitionDoneID}})
	if r.status != 204 {
		t.Fatalf("transition: %d %s", r.status, r.body)
	}
	sn, _ := c.srv.Issue(key)
	if sn.Status != "Done" || sn.StatusCategory != "done" || sn.Updated.Before(before.Updated) {
		t.Errorf("after transition: %+v", sn)
	}
	for name, body := range map[string]any{
		"to current status": map[string]any{"transition": map[string]any{"id": jiratest.TransitionDoneID}},
		"unknown id":        map[string]any{"transition": map[string]any{"id": "99"}},
		"missing":           map[string]any{},
		"with fields":       map[string]any{"transition": map[string]any{"id": "11"}, "fields": map[string]any{"resolution": map[string]any{"name": "Fixed"}}},
	} {
		r := c.do("POST", "/rest/api/3/issue/"+key+"/transitions", body)
		if r.status != 400 {
			t.Errorf("%s: %d", name, r.status)
		} else {
			r.errs(t)
		}
	}
	if r := c.do("POST", "/rest/api/3/issue/DEMO-9/transitions", map[string]any{"transition": map[string]any{"id": "11"}}); r.status != 404 {
		t.Errorf("missing issue: %d", r.status)
	}
}

func TestCommentsAndProperties(t *testing.T) {
	c := start(t, jiratest.Options{})
	key, _ := c.create(issueFields("Story", "S", ""))
	r := c.do("POST", "/rest/api/3/issue/"+key+"/comment", map[string]any{"body": adf("Progress: done with searchable words")})
	if r.status != 201 || r.json(t)["id"] == nil {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	for name, body := range map[string]any{
		"no body":     map[string]any{},
		"string body": map[string]any{"body": "plain"},
		"invalid ADF": map[string]any{"body": map[string]any{"type": "doc"}},
		"too long":    map[string]any{"body": adf(strings.Repeat("word ", 6600))},
	} {
		if r := c.do("POST", "/rest/api/3/issue/"+key+"/comment", body); r.status != 400 {
			t.Errorf("%s: %d", name, r.status)
		}
	}
	r = c.do("GET", "/rest/api/3/issue/"+key+"/comment", nil)
	if m := r.json(t); m["total"].(float64) != 1 {
		t.Errorf("comments: %s", r.body)
	}
	if got := keys(t, c.search(map[string]any{"jql": `comment ~ "searchable words"`, "fields": []string{"summary"}})); len(got) != 1 {
		t.Errorf("comment search: %v", got)
	}
	// Properties.
	p := "/rest/api/3/issue/" + key + "/properties/devworkwire"
	if r := c.do("GET", p, nil); r.status != 404 {
		t.Errorf("missing property: %d", r.status)
	}
	if r := c.do("PUT", p, map[string]any{"digest": "1"}); r.status != 201 {
		t.Errorf("create property: %d", r.status)
	}
	if r := c.do("PUT", p, map[string]any{"digest": "2"}); r.status != 200 {
		t.Errorf("update property: %d", r.status)
	}
	r = c.do("GET", p, nil)
	if m := r.json(t); m["key"] != "devworkwire" || m["value"].(map[string]any)["digest"] != "2" {
		t.Errorf("get property: %s", r.body)
	}
	r = c.do("GET", "/rest/api/3/issue/"+key+"/properties", nil)
	if ks := r.json(t)["keys"].([]any); len(ks) != 1 {
		t.Errorf("property keys: %s", r.body)
	}
	if r := c.do("PUT", p, `"`+strings.Repeat("x", 33000)+`"`); r.status != 400 {
		t.Errorf("too-long property: %d", r.status)
	}
	if r := c.do("PUT", p, "not json"); r.status != 400 {
		t.Errorf("non-JSON property: %d", r.status)
	}
	if r := c.do("DELETE", p, nil); r.status != 204 {
		t.Errorf("delete property: %d", r.status)
	}
	if r := c.do("DELETE", p, nil); r.status != 404 {
		t.Errorf("delete again: %d", r.status)
	}
}

func TestPermissions(t *testing.T) {
	c := start(t, jiratest.Options{})
	key, _ := c.create(issueFields("Story", "S", "d/s-1"))
	c.srv.SetPermissions("DEMO", jiratest.Permissions{Browse: true})
	checks := []struct {
		method, path string
		body         any
	}{
		{"POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Story", "x", "")}},
		{"PUT", "/rest/api/3/issue/" + key, map[string]any{"fields": map[string]any{"summary": "y"}}},
		{"POST", "/rest/api/3/issue/" + key + "/transitions", map[string]any{"transition": map[string]any{"id": "21"}}},
		{"POST", "/rest/api/3/issue/" + key + "/comment", map[string]any{"body": adf("x")}},
		{"PUT", "/rest/api/3/issue/" + key + "/properties/p", map[string]any{"a": 1}},
	}
	for _, ch := range checks {
		r := c.do(ch.method, ch.path, ch.body)
		if r.status != 403 {
			t.Errorf("%s %s without permission: %d", ch.method, ch.path, r.status)
			continue
		}
		if msgs, _ := r.errs(t); len(msgs) == 0 {
			t.Errorf("%s %s: 403 without message", ch.method, ch.path)
		}
	}
	r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{map[string]any{"fields": issueFields("Story", "x", "")}}})
	if r.status != 400 || r.json(t)["errors"].([]any)[0].(map[string]any)["status"].(float64) != 403 {
		t.Errorf("bulk without create permission: %d %s", r.status, r.body)
	}
	// No browse: the project and its issues do not exist.
	c.srv.SetPermissions("DEMO", jiratest.Permissions{})
	for _, p := range []string{"/rest/api/3/issue/" + key, "/rest/api/3/project/DEMO"} {
		if r := c.do("GET", p, nil); r.status != 404 {
			t.Errorf("GET %s without browse: %d", p, r.status)
		}
	}
	if r := c.search(map[string]any{"jql": "project = DEMO"}); r.status != 400 {
		t.Errorf("search in invisible project: %d", r.status)
	}
	if !c.srv.AddProject("OTHER", "Other") || c.srv.AddProject("OTHER", "") {
		t.Error("AddProject")
	}
	o := issueFields("Task", "In other", "")
	o["project"] = map[string]any{"key": "OTHER"}
	c.create(o)
	if got := keys(t, c.search(map[string]any{"jql": "issuetype = Task", "fields": []string{"summary"}})); len(got) != 1 || got[0] != "OTHER-1" {
		t.Errorf("search across projects: %v", got)
	}
}

func TestIssueLinks(t *testing.T) {
	c := start(t, jiratest.Options{})
	a, _ := c.create(issueFields("Story", "Blocked one", ""))
	b, _ := c.create(issueFields("Story", "Blocker", ""))
	c.do("POST", "/rest/api/3/issue/"+b+"/transitions", map[string]any{"transition": map[string]any{"id": jiratest.TransitionInProgressID}})
	if err := c.srv.Link(a, b); err != nil {
		t.Fatal(err)
	}
	if err := c.srv.Link(a, "DEMO-99"); err == nil {
		t.Error("link to a missing issue accepted")
	}
	r := c.do("GET", "/rest/api/3/issue/"+a+"?fields=issuelinks", nil)
	links := r.json(t)["fields"].(map[string]any)["issuelinks"].([]any)
	if len(links) != 1 {
		t.Fatalf("links: %s", r.body)
	}
	l := links[0].(map[string]any)
	in := l["inwardIssue"].(map[string]any)
	st := in["fields"].(map[string]any)["status"].(map[string]any)
	if l["type"].(map[string]any)["inward"] != "is blocked by" || in["key"] != b || st["statusCategory"].(map[string]any)["key"] != "indeterminate" {
		t.Errorf("link: %v", l)
	}
	r = c.do("GET", "/rest/api/3/issue/"+b+"?fields=issuelinks", nil)
	if l := r.json(t)["fields"].(map[string]any)["issuelinks"].([]any)[0].(map[string]any); l["outwardIssue"].(map[string]any)["key"] != a {
		t.Errorf("outward link: %v", l)
	}
}

// TestScopedTokenBasePath: the site's cloud id is answered at
// /_edge/tenant_info without credentials, and the gateway path serves the
// REST API under that id only (another cloud id is no site: 404).
func TestScopedTokenBasePath(t *testing.T) {
	c := start(t, jiratest.Options{})
	resp, err := http.Get(c.srv.URL + "/_edge/tenant_info")
	if err != nil {
		t.Fatal(err)
	}
	var ti struct{ CloudID string }
	if err := json.NewDecoder(resp.Body).Decode(&ti); err != nil || resp.StatusCode != 200 || ti.CloudID != jiratest.CloudID {
		t.Errorf("tenant_info without credentials: %d %+v %v", resp.StatusCode, ti, err)
	}
	resp.Body.Close()
	if r := c.do("GET", "/ex/jira/"+ti.CloudID+"/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("scoped base path: %d", r.status)
	}
	if r := c.do("GET", "/ex/jira/11111111-2222-3333-4444-555555555555/rest/api/3/myself", nil); r.status != 404 {
		t.Errorf("another cloud id: %d, want 404", r.status)
	}
}

func TestIssueTypesPerProjectAndDecoyField(t *testing.T) {
	c := start(t, jiratest.Options{DuplicateFieldName: true})
	if !c.srv.SetIssueTypes("DEMO", "Epic", "Story") || c.srv.SetIssueTypes("DEMO", "Bug") || c.srv.SetIssueTypes("NOPE", "Epic") {
		t.Fatal("SetIssueTypes results")
	}
	r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Task", "A task", "")})
	if _, errs := r.errs(t); r.status != 400 || errs["issuetype"] != "The issue type selected is invalid." {
		t.Errorf("type not in project: %d %s", r.status, r.body)
	}
	r = c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes", nil)
	if m := r.json(t); m["total"].(float64) != 2 {
		t.Errorf("createmeta after SetIssueTypes: %s", r.body)
	}
	if r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeTaskID, nil); r.status != 404 {
		t.Errorf("createmeta fields of a type not in the project: %d", r.status)
	}
	// Two fields share the reference field's name; only one is a textfield.
	var list []map[string]any
	if err := jsonUnmarshal(c.do("GET", "/rest/api/3/field", nil).body, &list); err != nil {
		t.Fatal(err)
	}
	var same []string
	for _, f := range list {
		if f["name"] == jiratest.DefaultFieldName {
			same = append(same, f["id"].(string)+"="+f["schema"].(map[string]any)["custom"].(string))
		}
	}
	want := []string{jiratest.DefaultFieldID + "=" + jiratest.TextFieldType, jiratest.DecoyFieldID + "=" + jiratest.TextAreaFieldType}
	if strings.Join(same, ",") != strings.Join(want, ",") {
		t.Errorf("same-named fields: %v", same)
	}
	f := issueFields("Story", "Uses the decoy", "")
	f[jiratest.DecoyFieldID] = "doc/s-1"
	if r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f}); r.status != 400 {
		t.Errorf("setting the decoy field: %d", r.status)
	}
}

func TestContentType(t *testing.T) {
	c := start(t, jiratest.Options{})
	req, _ := http.NewRequest("POST", c.srv.URL+"/rest/api/3/issue", strings.NewReader(`{"fields":{}}`))
	req.Header.Set("Authorization", c.srv.AuthHeader())
	req.Header.Set("Content-Type", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body: %d, want 415", res.StatusCode)
	}
	// application/json with a charset is fine; so is an empty update list.
	req, _ = http.NewRequest("POST", c.srv.URL+"/rest/api/3/issue", strings.NewReader(`{"fields":{"project":{"key":"DEMO"},"issuetype":{"name":"Task"},"summary":"x"},"update":{"labels":[]}}`))
	req.Header.Set("Authorization", c.srv.AuthHeader())
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Errorf("application/json; charset=utf-8: %d", res.StatusCode)
	}
}

// TestBulkCreateProperty: for any mix of valid and invalid elements, bulk
// create creates exactly the valid ones, in order, with sequential keys,
// and reports every invalid one by its 0-based index.
func TestBulkCreateProperty(t *testing.T) {
	c := start(t, jiratest.Options{})
	rapid.Check(t, func(rt *rapid.T) {
		before := len(c.srv.Issues())
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		var ups []any
		var valid []int
		var invalid []int
		for i := 0; i < n; i++ {
			f := issueFields("Task", fmt.Sprintf("T%d", i), fmt.Sprintf("p/t-%d", i))
			switch rapid.IntRange(0, 3).Draw(rt, "defect") {
			case 1:
				f["summary"] = strings.Repeat("x", 256)
			case 2:
				delete(f, "issuetype")
			case 3:
				f["nope"] = 1
			default:
				valid = append(valid, i)
			}
			if len(valid) == 0 || valid[len(valid)-1] != i {
				invalid = append(invalid, i)
			}
			ups = append(ups, map[string]any{"fields": f})
		}
		r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": ups})
		wantStatus := 201
		if len(valid) == 0 {
			wantStatus = 400
		}
		if r.status != wantStatus {
			rt.Fatalf("status %d, want %d: %s", r.status, wantStatus, r.body)
		}
		m := r.json(t)
		created := m["issues"].([]any)
		errs := m["errors"].([]any)
		if len(created) != len(valid) || len(errs) != len(invalid) {
			rt.Fatalf("created %d (want %d), errors %d (want %d)", len(created), len(valid), len(errs), len(invalid))
		}
		for j, e := range errs {
			if got := int(e.(map[string]any)["failedElementNumber"].(float64)); got != invalid[j] {
				rt.Fatalf("error %d: failedElementNumber %d, want %d", j, got, invalid[j])
			}
		}
		for j, ci := range created {
			want := fmt.Sprintf("DEMO-%d", before+j+1)
			if got := ci.(map[string]any)["key"]; got != want {
				rt.Fatalf("created %d: key %v, want %s", j, got, want)
			}
			sn, _ := c.srv.Issue(want)
			if sn.Summary != fmt.Sprintf("T%d", valid[j]) {
				rt.Fatalf("%s has summary %q, want T%d", want, sn.Summary, valid[j])
			}
		}
		if after := len(c.srv.Issues()); after != before+len(valid) {
			rt.Fatalf("issue count %d → %d, want +%d", before, after, len(valid))
		}
	})
}
