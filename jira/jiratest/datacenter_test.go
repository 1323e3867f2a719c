package jiratest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// dcClient is a client of a Data Center site, with its personal access
// token as a Bearer token.
func dcClient(t *testing.T) *tc {
	t.Helper()
	c := start(t, jiratest.Options{Deployment: jiratest.DeploymentDataCenter})
	c.auth = "Bearer " + jiratest.DefaultToken
	return c
}

// dcCreate creates an issue in DEMO with fields and returns its key.
func (c *tc) dcCreate(fields map[string]any) string {
	c.t.Helper()
	fields["project"] = map[string]any{"key": "DEMO"}
	r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": fields})
	if r.status != 201 {
		c.t.Fatalf("create %v: %d %s", fields, r.status, r.body)
	}
	return r.json(c.t)["key"].(string)
}

func TestDataCenterTakesAPersonalAccessTokenAsBearer(t *testing.T) {
	c := dcClient(t)
	for _, auth := range []string{c.srv.AuthHeader(), "Bearer wrong-token", ""} {
		c.auth = auth
		if r := c.do("GET", "/rest/api/2/myself", nil); r.status != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", auth, r.status)
		}
	}
	c.auth = "Bearer " + jiratest.DefaultToken
	r := c.do("GET", "/rest/api/2/myself", nil)
	if r.status != 200 {
		t.Fatalf("myself with the token: %d %s", r.status, r.body)
	}
	m := r.json(t)
	if m["name"] != "demo" || m["key"] == nil || m["accountId"] != nil {
		t.Errorf("Data Center names people by name and key, not accountId: %v", m)
	}
}

func TestDataCenterTextIsWikiMarkup(t *testing.T) {
	c := dcClient(t)
	desc := "h2. Goal\n\n*bold*, {{code}} and [~demo]\n\n* one\n* two"
	r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{
		"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Story"},
		"summary": "wiki", "description": desc,
	}})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	m := r.json(t)
	key := m["key"].(string)
	if self, _ := m["self"].(string); !strings.Contains(self, "/rest/api/2/issue/") {
		t.Errorf("self %q is not a v2 address", self)
	}
	got := c.do("GET", "/rest/api/2/issue/"+key+"?fields=description", nil).json(t)
	if d := got["fields"].(map[string]any)["description"]; d != desc {
		t.Errorf("description reads back as %#v, want %q", d, desc)
	}
	// A document (Cloud's format) is refused, as Data Center takes text.
	bad := c.do("PUT", "/rest/api/2/issue/"+key, map[string]any{"fields": map[string]any{"description": adf("x")}})
	if bad.status != 400 {
		t.Errorf("an ADF description: %d, want 400", bad.status)
	}
}

func TestDataCenterStoriesHaveAnEpicLinkSubtasksAParent(t *testing.T) {
	c := dcClient(t)
	create := func(fields map[string]any) string { return c.dcCreate(fields) }
	if r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Epic"}, "summary": "epic"}}); r.status != 400 || !strings.Contains(string(r.body), "Epic Name is required") {
		t.Errorf("an epic without Epic Name: %d %s; want 400 Epic Name is required (Jira Software on Data Center)", r.status, r.body)
	}
	epic := create(map[string]any{"issuetype": map[string]any{"name": "Epic"}, "summary": "epic", jiratest.EpicNameFieldID: "epic"})
	story := create(map[string]any{"issuetype": map[string]any{"name": "Story"}, "summary": "story", jiratest.EpicLinkFieldID: epic})
	sub := create(map[string]any{"issuetype": map[string]any{"name": "Subtask"}, "summary": "sub", "parent": map[string]any{"key": story}})
	f := c.do("GET", "/rest/api/2/issue/"+story, nil).json(t)["fields"].(map[string]any)
	if f[jiratest.EpicLinkFieldID] != epic || f["parent"] != nil {
		t.Errorf("story: Epic Link %v, parent %v; want Epic Link %s and no parent", f[jiratest.EpicLinkFieldID], f["parent"], epic)
	}
	f = c.do("GET", "/rest/api/2/issue/"+sub, nil).json(t)["fields"].(map[string]any)
	if p, _ := f["parent"].(map[string]any); p == nil || p["key"] != story {
		t.Errorf("sub-task parent %v, want %s", f["parent"], story)
	}
	if r := c.do("PUT", "/rest/api/2/issue/"+story, map[string]any{"fields": map[string]any{jiratest.EpicLinkFieldID: nil}}); r.status != 204 {
		t.Fatalf("clear Epic Link: %d %s", r.status, r.body)
	}
	f = c.do("GET", "/rest/api/2/issue/"+story, nil).json(t)["fields"].(map[string]any)
	if f[jiratest.EpicLinkFieldID] != nil {
		t.Errorf("Epic Link still %v after clearing it", f[jiratest.EpicLinkFieldID])
	}
	var found bool
	for _, x := range c.do("GET", "/rest/api/2/field", nil).jsonArray(t) {
		found = found || x.(map[string]any)["name"] == "Epic Link"
	}
	if !found {
		t.Error("GET /rest/api/2/field does not list Epic Link")
	}
}

// TestDataCenterParentInJQLIsForSubtasks: on Data Center, parent in JQL
// finds sub-tasks only (a story's epic is its Epic Link, searched as
// "Epic Link" or cf[10008]), where Cloud's parent finds an epic's stories.
func TestDataCenterParentInJQLIsForSubtasks(t *testing.T) {
	c := dcClient(t)
	create := func(fields map[string]any) string { return c.dcCreate(fields) }
	epic := create(map[string]any{"issuetype": map[string]any{"name": "Epic"}, "summary": "epic", jiratest.EpicNameFieldID: "epic"})
	story := create(map[string]any{"issuetype": map[string]any{"name": "Story"}, "summary": "story", jiratest.EpicLinkFieldID: epic})
	sub := create(map[string]any{"issuetype": map[string]any{"name": "Subtask"}, "summary": "sub", "parent": map[string]any{"key": story}})
	keys := func(q string) string {
		t.Helper()
		r := c.do("POST", "/rest/api/2/search", map[string]any{"jql": q + " ORDER BY key", "fields": []string{"summary"}})
		if r.status != 200 {
			t.Fatalf("%s: %d %s", q, r.status, r.body)
		}
		var out []string
		for _, is := range r.json(t)["issues"].([]any) {
			out = append(out, is.(map[string]any)["key"].(string))
		}
		return strings.Join(out, ",")
	}
	for q, want := range map[string]string{
		"parent = " + epic:                       "",
		"parent = " + story:                      sub,
		"parent in (" + epic + "," + story + ")": sub,
		`"Epic Link" = ` + epic:                  story,
		"cf[10008] = " + epic:                    story,
		`"Epic Link" = ` + story:                 "",
		"parent is EMPTY AND project = DEMO":     epic + "," + story,
	} {
		if got := keys(q); got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
}

func TestDataCenterSearchPagesByStartAt(t *testing.T) {
	c := dcClient(t)
	for i := range 5 {
		r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{
			"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Task"}, "summary": "t" + string(rune('a'+i)),
		}})
		if r.status != 201 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
	}
	all := c.do("GET", "/rest/api/2/search?jql=project%3DDEMO&maxResults=0", nil).json(t)
	total := int(all["total"].(float64))
	if total < 5 || len(all["issues"].([]any)) != 0 {
		t.Fatalf("total %d with %d issues, want ≥ 5 and none", total, len(all["issues"].([]any)))
	}
	var seen []string
	for start := 0; start < total; start += 2 {
		page := c.do("POST", "/rest/api/2/search", map[string]any{"jql": "project = DEMO ORDER BY key", "startAt": start, "maxResults": 2, "fields": []string{"summary"}}).json(t)
		if page["nextPageToken"] != nil || int(page["startAt"].(float64)) != start || int(page["total"].(float64)) != total {
			t.Fatalf("page at %d: %v", start, page)
		}
		for _, is := range page["issues"].([]any) {
			seen = append(seen, is.(map[string]any)["key"].(string))
		}
	}
	if len(seen) != total {
		t.Errorf("paging by startAt saw %d issues, want %d: %v", len(seen), total, seen)
	}
	for _, p := range []string{"/rest/api/2/search/jql", "/rest/api/2/issue/bulkfetch"} {
		if r := c.do("POST", p, map[string]any{"jql": "project = DEMO"}); r.status != 404 {
			t.Errorf("%s on Data Center: %d, want 404", p, r.status)
		}
	}
}

func TestDataCenterCreateMetaAnswersValues(t *testing.T) {
	c := dcClient(t)
	m := c.do("GET", "/rest/api/2/issue/createmeta/DEMO/issuetypes", nil).json(t)
	if _, ok := m["values"].([]any); !ok || m["issueTypes"] != nil {
		t.Errorf("createmeta issue types: %v, want values", m)
	}
}

func (r resp) jsonArray(t *testing.T) []any {
	t.Helper()
	var a []any
	if err := jsonUnmarshal(r.body, &a); err != nil {
		t.Fatalf("response is not a JSON array: %v\n%s", err, r.body)
	}
	return a
}

func TestDataCenterPeopleByName(t *testing.T) {
	c := dcClient(t)
	users := c.do("GET", "/rest/api/2/user/search?username=demo", nil).jsonArray(t)
	if len(users) != 1 || users[0].(map[string]any)["name"] != "demo" {
		t.Fatalf("user search by username: %v", users)
	}
	r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{
		"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Task"}, "summary": "mine",
		"assignee": map[string]any{"name": "demo"},
	}})
	if r.status != 201 {
		t.Fatalf("create assigned by name: %d %s", r.status, r.body)
	}
	f := c.do("GET", "/rest/api/2/issue/"+r.json(t)["key"].(string)+"?fields=assignee", nil).json(t)["fields"].(map[string]any)
	if a, _ := f["assignee"].(map[string]any); a == nil || a["name"] != "demo" || a["accountId"] != nil {
		t.Errorf("assignee reads back as %v, want name demo", f["assignee"])
	}
}

func TestDataCenterAgileAPITakesTheBearerToken(t *testing.T) {
	c := dcClient(t)
	if r := c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=DEMO", nil); r.status != 200 {
		t.Errorf("boards with the token: %d %s", r.status, r.body)
	}
	c.auth = c.srv.AuthHeader()
	if r := c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=DEMO", nil); r.status != http.StatusUnauthorized {
		t.Errorf("boards with basic auth: %d, want 401", r.status)
	}
}

// TestDataCenterAnswersInItsOwnTerms: serverInfo answers a request
// carrying the personal access token (as an anonymous one), and the user
// pickers' autoCompleteUrl in editmeta is Data Center's user search.
func TestDataCenterAnswersInItsOwnTerms(t *testing.T) {
	c := dcClient(t)
	if r := c.do("GET", "/rest/api/2/serverInfo", nil); r.status != 200 || r.json(t)["deploymentType"] != "Server" {
		t.Errorf("serverInfo with the personal access token: %d %s", r.status, r.body)
	}
	c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{
		"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Task"}, "summary": "t"}})
	meta := c.do("GET", "/rest/api/2/issue/DEMO-1/editmeta", nil).json(t)["fields"].(map[string]any)
	u, _ := meta["assignee"].(map[string]any)["autoCompleteUrl"].(string)
	if !strings.Contains(u, "/rest/api/2/user/assignable/search?") || !strings.Contains(u, "username=") || strings.Contains(u, "query=") {
		t.Errorf("assignee autoCompleteUrl %q, want Data Center's /rest/api/2/user/assignable/search?…username=", u)
	}
}

// TestDataCenterKeepsWikiTextAsWritten: a Data Center site stores wiki
// markup as it was written — a create's, a bulk create's, an edit's, a
// comment's and a person's — and answers it unchanged in an issue, a
// search and the comments, however jira/wiki would write the same
// document (blank lines, "- " lists, "bq.", +underline+, images). A
// description changed since in another way reads as that change.
func TestDataCenterKeepsWikiTextAsWritten(t *testing.T) {
	c := dcClient(t)
	texts := []string{
		"h2. Title\n\n\n\nPara with trailing spaces  ",
		"- a\n- b\n\nbq. quoted",
		"_it_ and +underlined+ and !diagram.png!",
		"{noformat}x{noformat}\r\nafter",
	}
	fields := func(summary, desc string) map[string]any {
		return map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Task"}, "summary": summary, "description": desc}
	}
	r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": fields("one", texts[0])})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	one := r.json(t)["key"].(string)
	r = c.do("POST", "/rest/api/2/issue/bulk", map[string]any{"issueUpdates": []any{
		map[string]any{"fields": map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Task"}}}, // fails: no summary
		map[string]any{"fields": fields("two", texts[1])},
	}})
	issues, _ := r.json(t)["issues"].([]any)
	if r.status != 201 || len(issues) != 1 {
		t.Fatalf("bulk create: %d %s", r.status, r.body)
	}
	two := issues[0].(map[string]any)["key"].(string)
	if r := c.do("PUT", "/rest/api/2/issue/"+one, map[string]any{"fields": map[string]any{"description": texts[2]}}); r.status != 204 {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/rest/api/2/issue/"+one+"/comment", map[string]any{"body": texts[3]}); r.status != 201 || r.json(t)["body"] != texts[3] {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	desc := func(key string) any {
		t.Helper()
		return c.do("GET", "/rest/api/2/issue/"+key+"?fields=description", nil).json(t)["fields"].(map[string]any)["description"]
	}
	if d := desc(one); d != texts[2] {
		t.Errorf("edited description reads %q, want %q as written", d, texts[2])
	}
	if d := desc(two); d != texts[1] {
		t.Errorf("bulk-created description reads %q, want %q as written", d, texts[1])
	}
	page := c.do("POST", "/rest/api/2/search", map[string]any{"jql": "key = " + two, "fields": []string{"description"}}).json(t)
	if d := page["issues"].([]any)[0].(map[string]any)["fields"].(map[string]any)["description"]; d != texts[1] {
		t.Errorf("search reads %q, want %q as written", d, texts[1])
	}
	cs := c.do("GET", "/rest/api/2/issue/"+one+"/comment", nil).json(t)["comments"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["body"] != texts[3] {
		t.Errorf("comments read %v, want one with %q as written", cs, texts[3])
	}

	// A person writes wiki markup in Jira: kept as written too.
	person := "h3. Notes\n- x\n- y"
	if err := c.srv.EditAsPerson(two, jiratest.PersonEdit{DescriptionWiki: &person}); err != nil {
		t.Fatal(err)
	}
	if d := desc(two); d != person {
		t.Errorf("a person's description reads %q, want %q as written", d, person)
	}
	// Changed in another way since: read as that change.
	plain := "plain"
	if err := c.srv.EditAsPerson(two, jiratest.PersonEdit{DescriptionMarkdownText: &plain}); err != nil {
		t.Fatal(err)
	}
	if d := desc(two); d != "plain" {
		t.Errorf("after another change the description reads %q, want %q", d, "plain")
	}
}

// TestDataCenterSearchFindsAWriteAtOnce measures what the fake models of
// Data Center's index: one node, which indexes a write before answering
// it, so the very next search finds every create (by key, by text, by
// Epic Link) and an edit's new values; with SearchLag (a cluster node
// behind the one that wrote) the same searches do not find them yet.
func TestDataCenterSearchFindsAWriteAtOnce(t *testing.T) {
	found := func(c *tc, jql string) int {
		t.Helper()
		r := c.do("POST", "/rest/api/2/search", map[string]any{"jql": jql, "fields": []string{"summary"}, "validateQuery": false})
		if r.status != 200 {
			t.Fatalf("%s: %d %s", jql, r.status, r.body)
		}
		return int(r.json(t)["total"].(float64))
	}
	run := func(c *tc) (keys, text, epic, edited int) {
		t.Helper()
		r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{"project": map[string]any{"key": "DEMO"},
			"issuetype": map[string]any{"name": "Epic"}, "summary": "indexed epic", jiratest.EpicNameFieldID: "e"}})
		epicKey := r.json(t)["key"].(string)
		var created []string
		for i := range 10 {
			r := c.do("POST", "/rest/api/2/issue", map[string]any{"fields": map[string]any{"project": map[string]any{"key": "DEMO"},
				"issuetype": map[string]any{"name": "Story"}, "summary": "indexed story " + string(rune('a'+i)), jiratest.EpicLinkFieldID: epicKey}})
			created = append(created, r.json(t)["key"].(string))
		}
		c.do("PUT", "/rest/api/2/issue/"+created[0], map[string]any{"fields": map[string]any{"summary": "renamed zebra"}})
		return found(c, "key in ("+strings.Join(created, ",")+")"), found(c, `summary ~ "indexed story"`),
			found(c, `"Epic Link" = `+epicKey), found(c, `summary ~ "zebra"`)
	}
	if k, x, e, ed := run(dcClient(t)); k != 10 || x != 9 || e != 10 || ed != 1 {
		t.Errorf("one node: by key %d, by text %d, by Epic Link %d, the edit %d; want 10, 9 (one renamed), 10, 1 at once", k, x, e, ed)
	}
	lagging := start(t, jiratest.Options{Deployment: jiratest.DeploymentDataCenter, SearchLag: time.Hour})
	lagging.auth = "Bearer " + jiratest.DefaultToken
	if k, x, e, ed := run(lagging); k != 0 || x != 0 || e != 0 || ed != 0 {
		t.Errorf("a node an hour behind: by key %d, by text %d, by Epic Link %d, the edit %d; want none yet", k, x, e, ed)
	}
}
