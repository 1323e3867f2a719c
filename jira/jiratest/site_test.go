package jiratest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// refFields lists GET field's fields named like the reference field:
// id → the project key of its scope ("" for a global field).
func refFields(t *testing.T, c *tc) map[string]string {
	t.Helper()
	r := c.do("GET", "/rest/api/3/field", nil)
	var fs []struct {
		ID, Name string
		Scope    *struct {
			Type    string
			Project struct{ Key string }
		}
		Schema struct{ Custom string }
	}
	if err := json.Unmarshal(r.body, &fs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range fs {
		if f.Name == jiratest.DefaultFieldName {
			out[f.ID] = ""
			if f.Scope != nil {
				if f.Scope.Type != "PROJECT" {
					t.Errorf("field %s: scope type %q, want PROJECT", f.ID, f.Scope.Type)
				}
				out[f.ID] = f.Scope.Project.Key
			}
		}
	}
	return out
}

// createMetaField is the reference field id createmeta lists for a type.
func createMetaRef(t *testing.T, c *tc, project, typeID string) string {
	t.Helper()
	r := c.do("GET", "/rest/api/3/issue/createmeta/"+project+"/issuetypes/"+typeID, nil)
	var out struct {
		Fields []struct{ FieldID, Name string }
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Fields {
		if f.Name == jiratest.DefaultFieldName {
			return f.FieldID
		}
	}
	return ""
}

func TestTeamManagedProjectHasAReferenceFieldPerIssueType(t *testing.T) {
	c := start(t, jiratest.Options{Style: jiratest.StyleTeamManaged})
	refs := refFields(t, c)
	if len(refs) != 4 {
		t.Fatalf("reference fields %v: want one per issue type (4), none global", refs)
	}
	for id, proj := range refs {
		if proj != "DEMO" {
			t.Errorf("field %s scoped to %q, want DEMO", id, proj)
		}
	}
	story := createMetaRef(t, c, "DEMO", jiratest.IssueTypeStoryID)
	epic := createMetaRef(t, c, "DEMO", jiratest.IssueTypeEpicID)
	if story == "" || epic == "" || story == epic || refs[story] == "" && refs[epic] == "" {
		t.Fatalf("createmeta reference fields: story %q, epic %q; want two different fields of GET field", story, epic)
	}
	// The epic's field is not on the story's screen.
	f := issueFields("Story", "S", "")
	f[epic] = "dw-ref-1"
	r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f})
	if _, errs := r.errs(t); r.status != 400 || errs[epic] == nil {
		t.Fatalf("story with the epic's field: %d %s, want 400 naming %s", r.status, r.body, epic)
	}
	delete(f, epic)
	f[story] = "dw-ref-1"
	key, _ := c.create(f)
	num := strings.TrimPrefix(story, "customfield_")
	for _, jql := range []string{"cf[" + num + "] ~ \"dw-ref-1\"", `"DevWorkWire Reference" ~ "dw-ref-1"`} {
		if got := keys(t, c.search(map[string]any{"jql": jql, "fields": []string{"summary"}})); !slices.Equal(got, []string{key}) {
			t.Errorf("%s: %v, want [%s]", jql, got, key)
		}
	}
	if got := keys(t, c.search(map[string]any{"jql": "cf[" + strings.TrimPrefix(epic, "customfield_") + "] ~ \"dw-ref-1\"", "fields": []string{"summary"}})); len(got) != 0 {
		t.Errorf("the epic's field matched %v", got)
	}
	if sn, _ := c.srv.Issue(key); sn.Reference != "dw-ref-1" {
		t.Errorf("snapshot reference %q", sn.Reference)
	}
	got := c.do("GET", "/rest/api/3/issue/"+key+"?fields="+story, nil).json(t)["fields"].(map[string]any)
	if got[story] != "dw-ref-1" {
		t.Errorf("issue fields %v", got)
	}
	p := c.do("GET", "/rest/api/3/project/DEMO", nil).json(t)
	if p["style"] != "next-gen" || p["simplified"] != true {
		t.Errorf("project style %v simplified %v, want next-gen true", p["style"], p["simplified"])
	}
	if !slices.Contains(issueTypeNames(t, p), "Subtask") {
		t.Errorf("issue types %v, want Subtask", issueTypeNames(t, p))
	}
	boards := c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=DEMO", nil).json(t)["values"].([]any)
	if len(boards) != 1 || boards[0].(map[string]any)["type"] != "simple" {
		t.Fatalf("boards %v, want one simple board", boards)
	}
	id := int(boards[0].(map[string]any)["id"].(float64))
	sp := c.do("GET", fmt.Sprintf("/rest/agile/1.0/board/%d/sprint", id), nil)
	if sp.status != 200 || !strings.Contains(string(sp.body), `"DEMO Sprint 1"`) || !strings.Contains(string(sp.body), `"DEMO Sprint 2"`) {
		t.Errorf("simple board sprints: %d %s", sp.status, sp.body)
	}
}

func issueTypeNames(t *testing.T, project map[string]any) []string {
	t.Helper()
	var out []string
	for _, it := range project["issueTypes"].([]any) {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return out
}

func TestCompanyManagedProjectHasGlobalFieldsAndScrumAndKanbanBoards(t *testing.T) {
	c := start(t, jiratest.Options{Style: jiratest.StyleCompanyManaged})
	if refs := refFields(t, c); len(refs) != 1 || refs[jiratest.DefaultFieldID] != "" {
		t.Fatalf("reference fields %v, want the one global field", refs)
	}
	p := c.do("GET", "/rest/api/3/project/DEMO", nil).json(t)
	if p["style"] != "classic" || !slices.Contains(issueTypeNames(t, p), "Sub-task") {
		t.Errorf("project %v %v, want classic with Sub-task", p["style"], issueTypeNames(t, p))
	}
	epic, _ := c.create(issueFields("Epic", "E", ""))
	story, _ := c.create(map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Story"}, "summary": "S", "parent": map[string]any{"key": epic}})
	sub, _ := c.create(map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Sub-task"}, "summary": "T", "parent": map[string]any{"key": story}})
	if got := keys(t, c.search(map[string]any{"jql": `issuetype = "Sub-task"`, "fields": []string{"summary"}})); !slices.Equal(got, []string{sub}) {
		t.Errorf("issuetype = Sub-task: %v", got)
	}
	var types []string
	for _, b := range c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=DEMO", nil).json(t)["values"].([]any) {
		b := b.(map[string]any)
		types = append(types, b["type"].(string))
		r := c.do("GET", fmt.Sprintf("/rest/agile/1.0/board/%d/sprint", int(b["id"].(float64))), nil)
		if want := map[string]int{"scrum": 200, "kanban": 400}[b["type"].(string)]; r.status != want {
			t.Errorf("%s board sprints: %d, want %d", b["type"], r.status, want)
		}
	}
	if !slices.Equal(types, []string{"scrum", "kanban"}) {
		t.Errorf("boards %v, want scrum and kanban", types)
	}
}

func TestClassicWorkflowResolvesThroughAScreenAndClosesOnlyWhenSubtasksAreDone(t *testing.T) {
	c := start(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, Workflow: jiratest.WorkflowClassic})
	story, _ := c.create(issueFields("Story", "S", ""))
	sub, _ := c.create(map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"name": "Sub-task"}, "summary": "T", "parent": map[string]any{"key": story}})
	tr := c.do("GET", "/rest/api/3/issue/"+story+"/transitions?expand=transitions.fields", nil).json(t)["transitions"].([]any)
	var names []string
	var resolve map[string]any
	for _, x := range tr {
		x := x.(map[string]any)
		names = append(names, x["name"].(string))
		if x["id"] == jiratest.TransitionResolveID {
			resolve = x
		}
	}
	if !slices.Equal(names, []string{"Start Progress", "Resolve Issue"}) || resolve == nil {
		t.Fatalf("transitions from To Do: %v", names)
	}
	res, _ := resolve["fields"].(map[string]any)["resolution"].(map[string]any)
	if res == nil || res["required"] != true || len(res["allowedValues"].([]any)) == 0 {
		t.Fatalf("Resolve Issue's screen: %v, want a required resolution with allowed values", resolve["fields"])
	}
	post := func(key, id string, fields map[string]any) resp {
		body := map[string]any{"transition": map[string]any{"id": id}}
		if fields != nil {
			body["fields"] = fields
		}
		return c.do("POST", "/rest/api/3/issue/"+key+"/transitions", body)
	}
	if r := post(story, jiratest.TransitionDoneID, nil); r.status != 400 {
		t.Errorf("the simple workflow's Done: %d, want 400", r.status)
	}
	r := post(story, jiratest.TransitionResolveID, nil)
	if _, errs := r.errs(t); r.status != 400 || errs["resolution"] != "Resolution is required." {
		t.Fatalf("resolve without a resolution: %d %s", r.status, r.body)
	}
	if r := post(story, jiratest.TransitionResolveID, map[string]any{"resolution": map[string]any{"name": "Done"}}); r.status != 204 {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	if sn, _ := c.srv.Issue(story); sn.Status != "Resolved" || sn.StatusCategory != "done" || c.srv.ResolutionOf(story) != "Done" {
		t.Fatalf("after resolve: %s/%s resolution %q", sn.Status, sn.StatusCategory, c.srv.ResolutionOf(story))
	}
	r = post(story, jiratest.TransitionCloseID, nil)
	if msgs, _ := r.errs(t); r.status != 400 || len(msgs) != 1 {
		t.Fatalf("close with an open sub-task: %d %s, want the validator's 400", r.status, r.body)
	}
	if r := post(sub, jiratest.TransitionResolveID, map[string]any{"resolution": map[string]any{"id": "10000"}}); r.status != 204 {
		t.Fatalf("resolve the sub-task: %d %s", r.status, r.body)
	}
	if r := post(story, jiratest.TransitionCloseID, nil); r.status != 204 {
		t.Fatalf("close: %d %s", r.status, r.body)
	}
	f := c.do("GET", "/rest/api/3/issue/"+story+"?fields=status,resolution", nil).json(t)["fields"].(map[string]any)
	if f["status"].(map[string]any)["name"] != "Closed" || f["resolution"].(map[string]any)["name"] != "Done" {
		t.Errorf("closed issue: %v", f)
	}
	if r := post(story, jiratest.TransitionReopenID, nil); r.status != 204 || c.srv.ResolutionOf(story) != "" {
		t.Errorf("reopen: %d, resolution %q", r.status, c.srv.ResolutionOf(story))
	}
}

func TestDeniedPermissionsAreReportedAndEnforced(t *testing.T) {
	c := start(t, jiratest.Options{DeniedPermissions: []string{jiratest.PermLinkIssues, jiratest.PermScheduleIssues, jiratest.PermUserPicker}})
	r := c.do("GET", "/rest/api/3/mypermissions?projectKey=DEMO&permissions=LINK_ISSUES,SCHEDULE_ISSUES,EDIT_ISSUES", nil).json(t)["permissions"].(map[string]any)
	for k, want := range map[string]bool{"LINK_ISSUES": false, "SCHEDULE_ISSUES": false, "EDIT_ISSUES": true} {
		if got := r[k].(map[string]any)["havePermission"]; got != want {
			t.Errorf("%s: %v, want %v", k, got, want)
		}
	}
	g := c.do("GET", "/rest/api/3/mypermissions?permissions=USER_PICKER", nil).json(t)["permissions"].(map[string]any)["USER_PICKER"].(map[string]any)
	if g["havePermission"] != false || g["type"] != "GLOBAL" {
		t.Errorf("USER_PICKER: %v", g)
	}
	a, _ := c.create(issueFields("Story", "A", ""))
	b, _ := c.create(issueFields("Story", "B", ""))
	l := c.link("Blocks", a, b)
	if l.status != 404 || len(c.srv.Links()) != 0 {
		t.Errorf("link without Link issues: %d, %d links", l.status, len(c.srv.Links()))
	}
	if mv := c.do("POST", "/rest/agile/1.0/sprint/1/issue", map[string]any{"issues": []string{a}}); mv.status != 403 {
		t.Errorf("move to sprint without Schedule issues: %d %s", mv.status, mv.body)
	}
	if u := c.do("GET", "/rest/api/3/user/search?query=demo", nil); u.status != 200 || strings.TrimSpace(string(u.body)) != "[]" {
		t.Errorf("user search without Browse users and groups: %d %s, want []", u.status, u.body)
	}
	f := issueFields("Story", "C", "")
	f["duedate"] = "2026-12-24"
	if r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f}); r.status != 400 {
		t.Errorf("due date without Schedule issues: %d %s", r.status, r.body)
	}
}

func TestEpicNameRequiredOnTheEpicType(t *testing.T) {
	c := start(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, EpicNameRequired: true})
	r := c.do("GET", "/rest/api/3/issue/createmeta/DEMO/issuetypes/"+jiratest.IssueTypeEpicID, nil)
	var meta struct {
		Fields []struct {
			FieldID  string
			Required bool
			Schema   struct{ Custom string }
		}
	}
	if err := json.Unmarshal(r.body, &meta); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(meta.Fields, func(f struct {
		FieldID  string
		Required bool
		Schema   struct{ Custom string }
	}) bool {
		return f.FieldID == jiratest.EpicNameFieldID
	})
	if i < 0 || !meta.Fields[i].Required || meta.Fields[i].Schema.Custom != jiratest.EpicNameFieldType {
		t.Fatalf("epic createmeta: %s", r.body)
	}
	if got := createMetaRef(t, c, "DEMO", jiratest.IssueTypeStoryID); got != jiratest.DefaultFieldID {
		t.Errorf("story createmeta reference %q", got)
	}
	cr := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": issueFields("Epic", "E", "")})
	if _, errs := cr.errs(t); cr.status != 400 || errs[jiratest.EpicNameFieldID] != "Epic Name is required." {
		t.Fatalf("epic without Epic Name: %d %s", cr.status, cr.body)
	}
	f := issueFields("Epic", "E", "")
	f[jiratest.EpicNameFieldID] = strings.Repeat("x", 256)
	if r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": f}); r.status != 400 {
		t.Errorf("a 256-character Epic Name: %d", r.status)
	}
	f[jiratest.EpicNameFieldID] = "E"
	c.create(f)
	s := issueFields("Story", "S", "")
	s[jiratest.EpicNameFieldID] = "S"
	if r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": s}); r.status != 400 {
		t.Errorf("Epic Name on a story: %d", r.status)
	}
}

func TestDataCenterSiteAnswers404OnAPIVersion3(t *testing.T) {
	s := jiratest.Start(t, jiratest.Options{Deployment: jiratest.DeploymentDataCenter})
	get := func(path string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.Header.Set("Authorization", s.AuthHeader())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	for _, p := range []string{"/rest/api/3/myself", "/rest/api/3/serverInfo", "/rest/api/3/project/DEMO"} {
		if st, _ := get(p); st != 404 {
			t.Errorf("%s: %d, want 404", p, st)
		}
	}
	if st, m := get("/rest/api/2/serverInfo"); st != 200 || m["deploymentType"] != "Server" {
		t.Errorf("v2 serverInfo: %d %v, want deploymentType Server", st, m)
	}
	cloud := jiratest.Start(t, jiratest.Options{})
	s = cloud
	if st, m := get("/rest/api/2/serverInfo"); st != 200 || m["deploymentType"] != "Cloud" {
		t.Errorf("a Cloud site's v2 serverInfo: %d %v", st, m)
	}
}

func TestSeedFileAndAdminSetTheProfilePerProject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.json")
	seed := `{"style": "company-managed", "workflow": "classic", "denied_permissions": ["LINK_ISSUES"],
		"projects": {"TEAM": {"style": "team-managed", "workflow": "simple", "denied_permissions": []}}}`
	if err := writeFile(path, []byte(seed)); err != nil {
		t.Fatal(err)
	}
	sf, err := jiratest.LoadSeedFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, sf.Options())
	if got := c.srv.ProjectKeys(); !slices.Equal(got, []string{"DEMO", "TEAM"}) {
		t.Fatalf("projects %v", got)
	}
	refs := refFields(t, c)
	scoped := 0
	for _, p := range refs {
		if p == "TEAM" {
			scoped++
		}
	}
	if refs[jiratest.DefaultFieldID] != "" || scoped != 4 {
		t.Errorf("fields %v: want DEMO's global one and TEAM's four", refs)
	}
	perms := func(p string) bool {
		return c.do("GET", "/rest/api/3/mypermissions?projectKey="+p+"&permissions=LINK_ISSUES", nil).json(t)["permissions"].(map[string]any)["LINK_ISSUES"].(map[string]any)["havePermission"].(bool)
	}
	if perms("DEMO") || !perms("TEAM") {
		t.Errorf("LINK_ISSUES: DEMO %v TEAM %v, want false true", perms("DEMO"), perms("TEAM"))
	}
	// The admin API re-profiles the site (no issues yet).
	ad := c.do("POST", "/_mockjira/site", map[string]any{"deployment": "datacenter"})
	if ad.status != 204 || c.srv.Profile().Deployment != jiratest.DeploymentDataCenter {
		t.Fatalf("admin site: %d %s", ad.status, ad.body)
	}
	if bad := c.do("POST", "/_mockjira/site", map[string]any{"style": "next-gen"}); bad.status != 400 {
		t.Errorf("an unknown style: %d", bad.status)
	}
	if err := writeFile(path, []byte(`{"workflow": "custom"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := jiratest.LoadSeedFile(path); err == nil || !strings.Contains(err.Error(), "classic") {
		t.Errorf("an unknown workflow in a seed: %v", err)
	}
}
