package jiratest_test

import (
	"encoding/json"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestIsWriteMatchesWhatChanges sends one successful request to every
// endpoint the fake models and checks jiratest.IsWrite against what the
// request did: it is a write exactly when the fake's issues (fields,
// properties, comments, statuses) changed, and each row also says which it
// is. A POST that only reads (bulk fetch, searches) counted as a write
// would make zero-write checks through Writes() fail; the e2e harness's
// Request.IsWrite is this same rule, so these cases are its cases too.
func TestIsWriteMatchesWhatChanges(t *testing.T) {
	c := start(t, jiratest.Options{})
	key, _ := c.create(issueFields("Epic", "Epic one", "doc/e-1"))
	c.do("PUT", "/rest/api/3/issue/"+key+"/properties/gone", map[string]any{"x": 1})
	state := func() string {
		b, err := json.Marshal(c.srv.Issues())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, e := range []struct {
		method, path string
		body         any
		write        bool // what the request is: the tracker changes exactly when it is a write
	}{
		{"GET", "/rest/api/3/myself", nil, false},
		{"GET", "/rest/api/3/serverInfo", nil, false},
		{"GET", "/rest/api/3/project/DEMO", nil, false},
		{"GET", "/rest/api/3/field", nil, false},
		{"GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes", nil, false},
		{"GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/" + jiratest.IssueTypeStoryID, nil, false},
		{"GET", "/rest/api/3/mypermissions?projectKey=DEMO&permissions=BROWSE_PROJECTS", nil, false},
		{"GET", "/rest/api/3/issue/" + key, nil, false},
		{"GET", "/rest/api/3/issue/" + key + "/transitions", nil, false},
		{"GET", "/rest/api/3/issue/" + key + "/comment", nil, false},
		{"GET", "/rest/api/3/issue/" + key + "/properties", nil, false},
		{"GET", "/rest/api/3/issue/" + key + "/properties/gone", nil, false},
		{"GET", "/rest/api/3/search/jql?jql=project%20%3D%20DEMO", nil, false},
		{"POST", "/rest/api/3/search/jql", map[string]any{"jql": "project = DEMO"}, false},
		{"POST", "/rest/api/3/search/approximate-count", map[string]any{"jql": "project = DEMO"}, false},
		{"POST", "/rest/api/3/issue/bulkfetch", map[string]any{"issueIdsOrKeys": []string{key}}, false},
		{"POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Story", "Story one", "doc/s-1")}, true},
		{"POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{map[string]any{"fields": issueFields("Story", "Story two", "doc/s-2")}}}, true},
		{"PUT", "/rest/api/3/issue/" + key, map[string]any{"fields": map[string]any{"summary": "Epic renamed"}}, true},
		{"POST", "/rest/api/3/issue/" + key + "/transitions", map[string]any{"transition": map[string]any{"id": jiratest.TransitionDoneID}}, true},
		{"POST", "/rest/api/3/issue/" + key + "/comment", map[string]any{"body": adf("A comment")}, true},
		{"PUT", "/rest/api/3/issue/" + key + "/properties/p", map[string]any{"x": 1}, true},
		{"DELETE", "/rest/api/3/issue/" + key + "/properties/gone", nil, true},
	} {
		before := state()
		r := c.do(e.method, e.path, e.body)
		if r.status >= 300 {
			t.Fatalf("%s %s: %d %s", e.method, e.path, r.status, r.body)
		}
		changed := state() != before
		got := jiratest.IsWrite(e.method, e.path)
		if got != changed {
			t.Errorf("%s %s: IsWrite = %v, but the request changed the tracker: %v", e.method, e.path, got, changed)
		}
		if got != e.write {
			t.Errorf("%s %s: IsWrite = %v, want %v", e.method, e.path, got, e.write)
		}
	}
	if got := jiratest.IsWrite("POST", "/_mockjira/faults"); got {
		t.Errorf("POST /_mockjira/faults: IsWrite = %v, want false (an admin request is no tracker write)", got)
	}
	var writes []string
	for _, r := range c.srv.Writes() {
		writes = append(writes, r.Method+" "+r.Path)
	}
	if len(writes) != 9 { // create + property in setup, then the 7 writes above
		t.Errorf("Writes() = %d %v, want 9", len(writes), writes)
	}
}

// Data Center's search is a POST that only reads: not a write, so that a
// dry run against a Data Center site counts zero writes.
func TestIsWriteDataCenterSearch(t *testing.T) {
	if jiratest.IsWrite("POST", "/rest/api/2/search") {
		t.Error("POST /rest/api/2/search counted as a write")
	}
	if !jiratest.IsWrite("POST", "/rest/api/2/issue/bulk") || !jiratest.IsWrite("PUT", "/rest/api/2/issue/DEMO-1") {
		t.Error("Data Center's creates and edits not counted as writes")
	}
}
