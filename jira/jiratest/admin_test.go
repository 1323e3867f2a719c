package jiratest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func TestAdminEndpoints(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{Now: clk.Now})
	admin := &tc{t: t, srv: c.srv, hc: c.hc} // no auth on admin endpoints
	key, _ := c.create(issueFields("Epic", "Epic one", "doc/e-1"))
	c.create(issueFields("Story", "Story one", "doc/s-1"))

	// Requests log.
	r := admin.do("GET", "/_mockjira/requests", nil)
	var reqs []jiratest.RecordedRequest
	if err := json.Unmarshal(r.body, &reqs); err != nil || len(reqs) != 2 {
		t.Fatalf("requests: %v %s", err, r.body)
	}
	if reqs[0].Method != "POST" || reqs[0].Path != "/rest/api/3/issue" || reqs[0].Status != 201 || !strings.Contains(reqs[0].Body, "Epic one") || reqs[0].At.IsZero() {
		t.Errorf("request entry: %+v", reqs[0])
	}
	if strings.Contains(string(r.body), c.srv.Token()) {
		t.Error("request log contains the token")
	}
	if r := admin.do("DELETE", "/_mockjira/requests", nil); r.status != 204 || len(c.srv.Requests()) != 0 {
		t.Errorf("clear requests: %d", r.status)
	}

	// Issues.
	r = admin.do("GET", "/_mockjira/issues", nil)
	var iss []map[string]any
	if err := json.Unmarshal(r.body, &iss); err != nil || len(iss) != 2 {
		t.Fatalf("issues: %v %s", err, r.body)
	}
	for _, k := range []string{"key", "id", "project", "issuetype", "summary", "reference", "parent", "status", "status_category", "description", "properties", "created", "updated"} {
		if _, ok := iss[0][k]; !ok {
			t.Errorf("admin issue lacks %q", k)
		}
	}
	if iss[0]["reference"] != "doc/e-1" || iss[0]["status_category"] != "new" {
		t.Errorf("admin issue: %v", iss[0])
	}

	// Person-style edit bumps updated and changes the description.
	before, _ := c.srv.Issue(key)
	clk.Advance(time.Minute)
	r = admin.do("POST", "/_mockjira/issues/"+key+"/edit", map[string]any{"summary": "Edited by a person", "description_markdown_text": "Typed in Jira"})
	if r.status != 200 {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	after, _ := c.srv.Issue(key)
	if after.Summary != "Edited by a person" || !after.Updated.After(before.Updated) || !strings.Contains(string(after.Description), "Typed in Jira") {
		t.Errorf("after person edit: %+v", after)
	}
	if r := admin.do("POST", "/_mockjira/issues/DEMO-99/edit", map[string]any{"summary": "x"}); r.status != 400 {
		t.Errorf("edit missing issue: %d", r.status)
	}
	if r := admin.do("POST", "/_mockjira/issues/"+key+"/edit", map[string]any{"status": "Done"}); r.status != 200 {
		t.Errorf("status edit: %d", r.status)
	} else if sn, _ := c.srv.Issue(key); sn.StatusCategory != "done" {
		t.Errorf("status edit: %+v", sn)
	}

	// Links.
	if r := admin.do("POST", "/_mockjira/links", map[string]any{"blocked": "DEMO-2", "blocker": "DEMO-1"}); r.status != 201 {
		t.Errorf("link: %d %s", r.status, r.body)
	}
	r = c.do("GET", "/rest/api/3/issue/DEMO-2?fields=issuelinks", nil)
	if links := r.json(t)["fields"].(map[string]any)["issuelinks"].([]any); len(links) != 1 {
		t.Errorf("links after admin link: %s", r.body)
	}
	if r := admin.do("POST", "/_mockjira/links", map[string]any{"blocked": "DEMO-2", "blocker": "NOPE-1"}); r.status != 400 {
		t.Errorf("bad link: %d", r.status)
	}

	// Faults.
	if r := admin.do("POST", "/_mockjira/faults", []map[string]any{{"method": "GET", "path": "/rest/api/3/myself", "call": 1, "kind": "503", "retry_after": "2"}}); r.status != 204 {
		t.Fatalf("faults: %d %s", r.status, r.body)
	}
	if r := admin.do("GET", "/_mockjira/faults", nil); !strings.Contains(string(r.body), `"retry_after":"2"`) {
		t.Errorf("GET faults: %s", r.body)
	}
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 503 || r.header.Get("Retry-After") != "2" {
		t.Errorf("scripted fault: %d", r.status)
	}
	if r := admin.do("POST", "/_mockjira/faults", []map[string]any{{"path": "/x", "kind": "teapot"}}); r.status != 400 {
		t.Errorf("bad fault: %d", r.status)
	}
	admin.do("POST", "/_mockjira/faults", []map[string]any{{"path": "/rest/api/3/myself", "kind": "500"}})
	if r := admin.do("DELETE", "/_mockjira/faults", nil); r.status != 204 {
		t.Errorf("delete faults: %d", r.status)
	}
	if r := c.do("GET", "/rest/api/3/myself", nil); r.status != 200 {
		t.Errorf("after delete faults: %d", r.status)
	}

	// Config.
	if r := admin.do("POST", "/_mockjira/config", map[string]any{"latency_ms": 0, "search_lag_ms": 60000, "rate_limit_per_sec": 0}); r.status != 204 {
		t.Errorf("config: %d", r.status)
	}
	c.create(issueFields("Task", "Lagging", ""))
	if got := keys(t, c.search(map[string]any{"jql": "issuetype = Task", "fields": []string{"summary"}})); len(got) != 0 {
		t.Errorf("search lag from config not applied: %v", got)
	}
	// Permissions.
	if r := admin.do("POST", "/_mockjira/permissions", map[string]any{"project": "DEMO", "browse": true, "create": true}); r.status != 204 {
		t.Errorf("permissions: %d %s", r.status, r.body)
	}
	pr := c.do("GET", "/rest/api/3/mypermissions?projectKey=DEMO&permissions=CREATE_ISSUES,EDIT_ISSUES", nil).json(t)["permissions"].(map[string]any)
	if pr["CREATE_ISSUES"].(map[string]any)["havePermission"] != true || pr["EDIT_ISSUES"].(map[string]any)["havePermission"] != false {
		t.Errorf("permissions after admin change: %v", pr)
	}
	if r := admin.do("POST", "/_mockjira/permissions", map[string]any{"project": "NOPE", "browse": true}); r.status != 400 {
		t.Errorf("permissions of an unknown project: %d", r.status)
	}
	admin.do("POST", "/_mockjira/permissions", map[string]any{"browse": true, "create": true, "edit": true, "transition": true, "comment": true})
	// Seed through the admin API.
	r = admin.do("POST", "/_mockjira/issues", map[string]any{"issuetype": "Story", "summary": "Seeded", "reference": "doc/s-9", "parent": key})
	if r.status != 201 || r.json(t)["parent"] != key {
		t.Errorf("admin seed: %d %s", r.status, r.body)
	}
	if r := admin.do("POST", "/_mockjira/issues", map[string]any{"issuetype": "Bug", "summary": "x"}); r.status != 400 {
		t.Errorf("admin seed bad type: %d", r.status)
	}
	for _, p := range []string{"/_mockjira/nope", "/_mockjira/config"} {
		if r := admin.do("GET", p, nil); r.status != 404 {
			t.Errorf("GET %s: %d", p, r.status)
		}
	}
	if r := admin.do("POST", "/_mockjira/config", "{bad"); r.status != 400 {
		t.Errorf("bad JSON: %d", r.status)
	}
	// Admin calls are not in the request log.
	for _, rr := range c.srv.Requests() {
		if strings.HasPrefix(rr.Path, "/_mockjira") {
			t.Errorf("admin call logged: %+v", rr)
		}
	}
}

func TestSeedFile(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/seed.json"
	sf := jiratest.SeedFile{
		Project: "SHOP", Email: "qa@example.com", Token: "seed-token-not-secret", FieldName: "Plan Ref",
		SearchLagMS: 10,
		Issues: []jiratest.SeedIssue{
			{IssueType: "Epic", Summary: "E", Reference: "p/e-1"},
			{IssueType: "Story", Summary: "S", Reference: "p/s-1", Parent: "SHOP-1", Status: "Done"},
		},
		Links:  []jiratest.SeedLink{{Blocked: "SHOP-2", Blocker: "SHOP-1"}},
		Faults: []jiratest.Fault{{Path: "/rest/api/3/issue/bulk", Call: 1, Kind: "reset"}},
	}
	b, _ := json.Marshal(sf)
	if err := writeFile(path, b); err != nil {
		t.Fatal(err)
	}
	got, err := jiratest.LoadSeedFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := jiratest.New(got.Options())
	if err := s.ApplySeed(got); err != nil {
		t.Fatal(err)
	}
	if s.ProjectKey() != "SHOP" || s.Email() != "qa@example.com" || s.FieldName() != "Plan Ref" {
		t.Errorf("options from seed: %s %s %s", s.ProjectKey(), s.Email(), s.FieldName())
	}
	if sn, ok := s.Issue("SHOP-2"); !ok || sn.Parent != "SHOP-1" || sn.StatusCategory != "done" {
		t.Errorf("seeded story: %+v", sn)
	}
	if len(s.Faults()) != 1 {
		t.Errorf("faults from seed: %v", s.Faults())
	}
	if err := writeFile(path, []byte(`{"projekt":"X"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := jiratest.LoadSeedFile(path); err == nil {
		t.Error("unknown seed key accepted")
	}
	if err := writeFile(path, []byte(`[{"path":"/x","kind":"boom"}]`)); err != nil {
		t.Fatal(err)
	}
	if _, err := jiratest.LoadFaultsFile(path); err == nil {
		t.Error("bad faults file accepted")
	}
	bad := jiratest.New(jiratest.Options{})
	if err := bad.ApplySeed(jiratest.SeedFile{Issues: []jiratest.SeedIssue{{IssueType: "Story", Summary: "S", Parent: "DEMO-5"}}}); err == nil {
		t.Error("seed with a missing parent accepted")
	}
}
