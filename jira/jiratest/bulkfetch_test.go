package jiratest_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestBulkFetch: issues by key or id (any case), ascending id order, the
// current state even while search lags, the same field and property
// selection as search, unknown and unbrowsable issues left out silently.
func TestBulkFetch(t *testing.T) {
	c := start(t, jiratest.Options{SearchLag: time.Hour})
	var keysMade, ids []string
	for i := 1; i <= 3; i++ {
		k, id := c.create(issueFields("Story", fmt.Sprintf("S%d", i), fmt.Sprintf("doc/s-%d", i)))
		keysMade, ids = append(keysMade, k), append(ids, id)
	}
	r := c.do("PUT", "/rest/api/3/issue/"+keysMade[0]+"/properties/devworkwire", map[string]any{"digest": "d1"})
	if r.status != 200 && r.status != 201 {
		t.Fatalf("set property: %d %s", r.status, r.body)
	}
	// Search has not caught up with any of them.
	if got := keys(t, c.search(map[string]any{"jql": "project = DEMO"})); len(got) != 0 {
		t.Fatalf("search lag not in effect: %v", got)
	}
	r = c.do("POST", "/rest/api/3/issue/bulkfetch", map[string]any{
		"issueIdsOrKeys": []string{keysMade[2], strings.ToLower(keysMade[0]), ids[1], "DEMO-999", "NOPE-1", keysMade[2]},
		"fields":         []string{"summary", jiratest.DefaultFieldID},
		"properties":     []string{"devworkwire"},
	})
	if r.status != 200 {
		t.Fatalf("bulkfetch: %d %s", r.status, r.body)
	}
	m := r.json(t)
	if errs, ok := m["issueErrors"].([]any); !ok || len(errs) != 0 {
		t.Errorf("issueErrors = %v; want []", m["issueErrors"])
	}
	var got []string
	for _, x := range m["issues"].([]any) {
		is := x.(map[string]any)
		got = append(got, is["key"].(string))
		f := is["fields"].(map[string]any)
		if len(f) != 2 || f["summary"] == nil || f[jiratest.DefaultFieldID] == nil {
			t.Errorf("%s fields = %v; want only summary and the reference", is["key"], f)
		}
		props, ok := is["properties"].(map[string]any)
		if !ok {
			t.Errorf("%s: no properties object", is["key"])
		}
		if is["key"] == keysMade[0] && !reflect.DeepEqual(props["devworkwire"], map[string]any{"digest": "d1"}) {
			t.Errorf("%s properties = %v", is["key"], props)
		}
	}
	if !reflect.DeepEqual(got, keysMade) {
		t.Errorf("bulkfetch keys = %v; want %v (ascending id, duplicates and unknowns dropped)", got, keysMade)
	}
	// Default fields are the navigable ones (description, status, …) but
	// not comments.
	r = c.do("POST", "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{keysMade[0]}})
	f := r.json(t)["issues"].([]any)[0].(map[string]any)["fields"].(map[string]any)
	if _, ok := f["status"]; !ok {
		t.Errorf("default fields lack status: %v", f)
	}
	if _, ok := f["comment"]; ok {
		t.Errorf("default fields include comment (not navigable)")
	}
	// An edit shows at once in bulkfetch (search still lags).
	r = c.do("PUT", "/rest/api/3/issue/"+keysMade[1], map[string]any{"fields": map[string]any{"summary": "Edited"}})
	if r.status != 204 {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	r = c.do("POST", "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{keysMade[1]}, "fields": []string{"summary"}})
	if s := r.json(t)["issues"].([]any)[0].(map[string]any)["fields"].(map[string]any)["summary"]; s != "Edited" {
		t.Errorf("bulkfetch after edit: summary %v; want Edited", s)
	}
	// Without browse permission the issues are simply absent.
	c.srv.SetPermissions("DEMO", jiratest.Permissions{})
	r = c.do("POST", "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": keysMade})
	if r.status != 200 || len(r.json(t)["issues"].([]any)) != 0 {
		t.Errorf("bulkfetch without browse: %d %s; want 200 with no issues", r.status, r.body)
	}
}

func TestBulkFetchValidation(t *testing.T) {
	c := start(t, jiratest.Options{})
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("DEMO-%d", i+1)
	}
	for name, body := range map[string]any{
		"missing ids":    map[string]any{"fields": []string{"summary"}},
		"empty ids":      map[string]any{"issueIdsOrKeys": []string{}},
		"101 ids":        map[string]any{"issueIdsOrKeys": many},
		"unknown member": map[string]any{"issueIdsOrKeys": []string{"DEMO-1"}, "jql": "x"},
		"6 properties":   map[string]any{"issueIdsOrKeys": []string{"DEMO-1"}, "properties": []string{"a", "b", "c", "d", "e", "f"}},
		"bad expand":     map[string]any{"issueIdsOrKeys": []string{"DEMO-1"}, "expand": []string{"everything"}},
		"not json":       "{",
	} {
		r := c.do("POST", "/rest/api/3/issue/bulkfetch", body)
		if r.status != 400 {
			t.Errorf("%s: status %d; want 400", name, r.status)
			continue
		}
		if msgs, errs := r.errs(t); len(msgs)+len(errs) == 0 {
			t.Errorf("%s: no error message", name)
		}
	}
	c.auth = "Basic " + "d3Jvbmc6d3Jvbmc="
	if r := c.do("POST", "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{"DEMO-1"}}); r.status != 401 {
		t.Errorf("wrong credentials: %d; want 401", r.status)
	}
}

// TestMyPermissions reflects the per-project permissions.
func TestMyPermissions(t *testing.T) {
	c := start(t, jiratest.Options{})
	const all = "BROWSE_PROJECTS,CREATE_ISSUES,EDIT_ISSUES,TRANSITION_ISSUES,ADD_COMMENTS"
	have := func(q string) map[string]bool {
		t.Helper()
		r := c.do("GET", "/rest/api/3/mypermissions?"+q, nil)
		if r.status != 200 {
			t.Fatalf("mypermissions?%s: %d %s", q, r.status, r.body)
		}
		out := map[string]bool{}
		for k, v := range r.json(t)["permissions"].(map[string]any) {
			p := v.(map[string]any)
			if p["key"] != k || p["type"] != "PROJECT" {
				t.Errorf("permission %s = %v", k, p)
			}
			out[k] = p["havePermission"].(bool)
		}
		return out
	}
	want := map[string]bool{"BROWSE_PROJECTS": true, "CREATE_ISSUES": true, "EDIT_ISSUES": true, "TRANSITION_ISSUES": true, "ADD_COMMENTS": true}
	if got := have("projectKey=DEMO&permissions=" + all); !reflect.DeepEqual(got, want) {
		t.Errorf("all granted: %v", got)
	}
	c.srv.SetPermissions("DEMO", jiratest.Permissions{Browse: true, Create: true, Edit: true})
	want["TRANSITION_ISSUES"], want["ADD_COMMENTS"] = false, false
	if got := have("projectKey=DEMO&permissions=" + all); !reflect.DeepEqual(got, want) {
		t.Errorf("no transition/comment: %v", got)
	}
	if got := have("projectKey=DEMO&permissions=EDIT_ISSUES"); len(got) != 1 || !got["EDIT_ISSUES"] {
		t.Errorf("only the asked permissions are listed: %v", got)
	}
	// Global context: granted if granted in any project.
	c.srv.AddProject("OTHER", "")
	if got := have("permissions=ADD_COMMENTS"); !got["ADD_COMMENTS"] {
		t.Errorf("global ADD_COMMENTS with OTHER granting it: %v", got)
	}
	c.srv.SetPermissions("DEMO", jiratest.Permissions{})
	if got := have("projectKey=DEMO&permissions=BROWSE_PROJECTS"); got["BROWSE_PROJECTS"] {
		t.Errorf("unbrowsable project reports BROWSE_PROJECTS: %v", got)
	}
	for q, status := range map[string]int{
		"projectKey=DEMO":                         400,
		"projectKey=DEMO&permissions=":            400,
		"projectKey=DEMO&permissions=FLY_TO_MOON": 400,
		"projectKey=NOPE&permissions=EDIT_ISSUES": 404,
		"issueKey=DEMO-1&permissions=EDIT_ISSUES": 400,
	} {
		r := c.do("GET", "/rest/api/3/mypermissions?"+q, nil)
		if r.status != status {
			t.Errorf("mypermissions?%s: %d; want %d", q, r.status, status)
			continue
		}
		if msgs, _ := r.errs(t); len(msgs) == 0 {
			t.Errorf("mypermissions?%s: no error message", q)
		}
	}
}

// TestBulkCreateAnswerOrder: bulk create lists issues[] in request order,
// or newest first once SetBulkCreateReversed is on (the order is not
// documented).
func TestBulkCreateAnswerOrder(t *testing.T) {
	c := start(t, jiratest.Options{})
	body := map[string]any{"issueUpdates": []any{
		map[string]any{"fields": issueFields("Story", "A", "doc/a")},
		map[string]any{"fields": issueFields("Story", "B", "doc/b")},
	}}
	order := func() []string {
		t.Helper()
		r := c.do("POST", "/rest/api/3/issue/bulk", body)
		if r.status != 201 {
			t.Fatalf("bulk create: %d %s", r.status, r.body)
		}
		var out []string
		for _, x := range r.json(t)["issues"].([]any) {
			out = append(out, x.(map[string]any)["key"].(string))
		}
		return out
	}
	if got := order(); !reflect.DeepEqual(got, []string{"DEMO-1", "DEMO-2"}) {
		t.Errorf("issues[] = %v; want request order", got)
	}
	c.srv.SetBulkCreateReversed(true)
	if got := order(); !reflect.DeepEqual(got, []string{"DEMO-4", "DEMO-3"}) {
		t.Errorf("issues[] reversed = %v; want newest first", got)
	}
}
