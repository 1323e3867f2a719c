package jiratest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Links, sub-tasks and the Agile API of the fake (links.go, subtask.go,
// agile.go), behind the contract middleware for the platform endpoints.

func TestIssueLinkTypes(t *testing.T) {
	c := start(t, jiratest.Options{})
	r := c.do("GET", "/rest/api/3/issueLinkType", nil)
	types := r.json(t)["issueLinkTypes"].([]any)
	got := map[string]string{}
	for _, x := range types {
		m := x.(map[string]any)
		got[m["name"].(string)] = m["inward"].(string) + "/" + m["outward"].(string)
	}
	if got["Blocks"] != "is blocked by/blocks" || got["Relates"] != "relates to/relates to" || got["Duplicate"] != "is duplicated by/duplicates" {
		t.Errorf("link types: %v", got)
	}
	if r := c.do("GET", "/rest/api/3/issueLinkType/10000", nil); r.status != 200 || r.json(t)["name"] != "Blocks" {
		t.Errorf("link type 10000: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/rest/api/3/issueLinkType/999", nil); r.status != 404 {
		t.Errorf("unknown link type: %d", r.status)
	}
}

// TestCreateLinkDirection: POST issueLink with inwardIssue A and
// outwardIssue B of type Blocks makes "A blocks B": B lists it as
// inwardIssue A ("is blocked by"), A as outwardIssue B ("blocks"), as
// Atlassian's issue linking model describes
// (https://developer.atlassian.com/cloud/jira/platform/issue-linking-model/).
func TestCreateLinkDirection(t *testing.T) {
	c := start(t, jiratest.Options{})
	a, _ := c.create(issueFields("Story", "Blocker", ""))
	b, _ := c.create(issueFields("Story", "Blocked", ""))
	before, _ := c.srv.Issue(b)
	r := c.link("Blocks", a, b)
	if r.status != 201 {
		t.Fatalf("create link: %d %s", r.status, r.body)
	}
	if ls := c.srv.Links(); len(ls) != 1 || ls[0].From != a || ls[0].To != b || ls[0].Type != "Blocks" {
		t.Fatalf("links: %+v", ls)
	}
	lb := c.do("GET", "/rest/api/3/issue/"+b+"?fields=issuelinks", nil).json(t)["fields"].(map[string]any)["issuelinks"].([]any)
	if len(lb) != 1 || lb[0].(map[string]any)["inwardIssue"].(map[string]any)["key"] != a {
		t.Errorf("blocked issue's links: %v", lb)
	}
	la := c.do("GET", "/rest/api/3/issue/"+a+"?fields=issuelinks", nil).json(t)["fields"].(map[string]any)["issuelinks"].([]any)
	if len(la) != 1 || la[0].(map[string]any)["outwardIssue"].(map[string]any)["key"] != b {
		t.Errorf("blocker's links: %v", la)
	}
	if after, _ := c.srv.Issue(b); !after.Updated.After(before.Updated) && after.Updated != before.Updated {
		t.Errorf("updated moved backwards")
	}
	id := lb[0].(map[string]any)["id"].(string)
	g := c.do("GET", "/rest/api/3/issueLink/"+id, nil).json(t)
	if g["inwardIssue"].(map[string]any)["key"] != a || g["outwardIssue"].(map[string]any)["key"] != b {
		t.Errorf("GET issueLink: %v", g)
	}
	// A duplicate answers 201 and adds nothing.
	if r := c.do("POST", "/rest/api/3/issueLink", map[string]any{"type": map[string]any{"id": "10000"}, "inwardIssue": map[string]any{"key": a}, "outwardIssue": map[string]any{"key": b}}); r.status != 201 || len(c.srv.Links()) != 1 {
		t.Errorf("duplicate link: %d, %d links", r.status, len(c.srv.Links()))
	}
	if r := c.do("DELETE", "/rest/api/3/issueLink/"+id, nil); r.status != 204 || len(c.srv.Links()) != 0 {
		t.Errorf("delete: %d %+v", r.status, c.srv.Links())
	}
	if r := c.do("DELETE", "/rest/api/3/issueLink/"+id, nil); r.status != 404 {
		t.Errorf("delete again: %d", r.status)
	}
	if r := c.do("DELETE", "/rest/api/3/issueLink/abc", nil); r.status != 400 {
		t.Errorf("delete a bad id: %d", r.status)
	}
}

func TestCreateLinkRefusals(t *testing.T) {
	c := start(t, jiratest.Options{})
	a, _ := c.create(issueFields("Story", "One", ""))
	for _, tc := range []struct {
		typ, in, out string
		status       int
	}{
		{"Blocks", a, "DEMO-99", 404},
		{"Nope", a, a, 404},
		{"Blocks", a, a, 400},
	} {
		if r := c.link(tc.typ, tc.in, tc.out); r.status != tc.status {
			t.Errorf("link %s %s→%s: %d, want %d (%s)", tc.typ, tc.in, tc.out, r.status, tc.status, r.body)
		}
	}
	if r := c.do("POST", "/rest/api/3/issueLink", map[string]any{"inwardIssue": map[string]any{"key": a}}); r.status != 400 {
		t.Errorf("link without type and outward issue: %d", r.status)
	}
	if len(c.srv.Links()) != 0 {
		t.Errorf("refused links were made: %+v", c.srv.Links())
	}
	b, _ := c.create(issueFields("Story", "Two", ""))
	if err := c.srv.LinkTyped("Relates", a, b); err != nil {
		t.Fatal(err)
	}
	l := c.do("GET", "/rest/api/3/issue/"+b+"?fields=issuelinks", nil).json(t)["fields"].(map[string]any)["issuelinks"].([]any)
	if len(l) != 1 || l[0].(map[string]any)["type"].(map[string]any)["name"] != "Relates" {
		t.Errorf("relates link: %v", l)
	}
}

func subtaskFields(summary, parent string) map[string]any {
	f := map[string]any{"project": map[string]any{"key": "DEMO"}, "issuetype": map[string]any{"id": jiratest.IssueTypeSubtaskID}, "summary": summary}
	if parent != "" {
		f["parent"] = map[string]any{"key": parent}
	}
	return f
}

func withFields(f map[string]any) map[string]any { return map[string]any{"fields": f} }

func TestSubtaskNeedsParentStory(t *testing.T) {
	c := start(t, jiratest.Options{})
	epic, _ := c.create(issueFields("Epic", "Epic", ""))
	story, _ := c.create(issueFields("Story", "Story", ""))
	r := c.do("POST", "/rest/api/3/issue", withFields(subtaskFields("Orphan", "")))
	if _, errs := r.errs(t); r.status != 400 || errs["parent"] == nil {
		t.Errorf("sub-task without parent: %d %s", r.status, r.body)
	}
	r = c.do("POST", "/rest/api/3/issue", withFields(subtaskFields("Under an epic", epic)))
	if _, errs := r.errs(t); r.status != 400 || errs["parent"] == nil {
		t.Errorf("sub-task under an epic: %d %s", r.status, r.body)
	}
	r = c.do("POST", "/rest/api/3/issue", withFields(subtaskFields("Fine", story)))
	if r.status != 201 {
		t.Fatalf("sub-task under a story: %d %s", r.status, r.body)
	}
	sub := r.json(t)["key"].(string)
	r = c.do("POST", "/rest/api/3/issue", withFields(subtaskFields("Under a sub-task", sub)))
	if r.status != 400 {
		t.Errorf("sub-task under a sub-task: %d %s", r.status, r.body)
	}
	// A story cannot have a sub-task (or a story) as parent.
	f := issueFields("Story", "Story under a sub-task", "")
	f["parent"] = map[string]any{"key": sub}
	if r := c.do("POST", "/rest/api/3/issue", withFields(f)); r.status != 400 {
		t.Errorf("story under a sub-task: %d", r.status)
	}
	// Clearing a sub-task's parent is refused.
	if r := c.do("PUT", "/rest/api/3/issue/"+sub, map[string]any{"fields": map[string]any{"parent": nil}}); r.status != 400 {
		t.Errorf("clearing a sub-task's parent: %d", r.status)
	}
	got := c.do("GET", "/rest/api/3/issue/"+sub+"?fields=issuetype,parent", nil).json(t)["fields"].(map[string]any)
	if got["issuetype"].(map[string]any)["subtask"] != true || got["parent"].(map[string]any)["key"] != story {
		t.Errorf("sub-task read back: %v", got)
	}
	if keys := keys(t, c.search(map[string]any{"jql": "parent = " + story + " AND issuetype = Subtask", "fields": []string{"summary"}})); len(keys) != 1 || keys[0] != sub {
		t.Errorf("search sub-tasks of the story: %v", keys)
	}
	// Bulk create reports the refusal per element.
	r = c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": []any{withFields(subtaskFields("a", story)), withFields(subtaskFields("b", ""))}})
	bm := r.json(t)
	if errs := bm["errors"].([]any); r.status != 201 || len(bm["issues"].([]any)) != 1 || len(errs) != 1 || errs[0].(map[string]any)["failedElementNumber"].(float64) != 1 {
		t.Errorf("bulk with one orphan sub-task: %d %s", r.status, r.body)
	}
}

func TestDefaultBoardAndSprints(t *testing.T) {
	c := start(t, jiratest.Options{})
	r := c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=DEMO", nil)
	m := r.json(t)
	vals := m["values"].([]any)
	if r.status != 200 || len(vals) != 1 || m["isLast"] != true {
		t.Fatalf("boards: %d %s", r.status, r.body)
	}
	b := vals[0].(map[string]any)
	if b["type"] != "scrum" || b["location"].(map[string]any)["projectKey"] != "DEMO" {
		t.Errorf("board: %v", b)
	}
	id := fmt.Sprint(b["id"])
	r = c.do("GET", "/rest/agile/1.0/board/"+id+"/sprint?state=active,future", nil)
	var names []string
	for _, x := range r.json(t)["values"].([]any) {
		s := x.(map[string]any)
		names = append(names, s["name"].(string)+":"+s["state"].(string))
	}
	if !slices.Equal(names, []string{"DEMO Sprint 1:active", "DEMO Sprint 2:future"}) {
		t.Errorf("sprints: %v", names)
	}
	if r := c.do("GET", "/rest/agile/1.0/board?projectKeyOrId=NOPE", nil); r.status != 400 {
		t.Errorf("boards of an unknown project: %d", r.status)
	}
	if r := c.do("GET", "/rest/agile/1.0/board/999/sprint", nil); r.status != 404 {
		t.Errorf("sprints of an unknown board: %d", r.status)
	}
	kb, _ := c.srv.AddBoard("DEMO", "Kanban", "kanban")
	if r := c.do("GET", fmt.Sprintf("/rest/agile/1.0/board/%d/sprint", kb), nil); r.status != 400 {
		t.Errorf("sprints of a kanban board: %d", r.status)
	}
}

func TestMoveToSprint(t *testing.T) {
	c := start(t, jiratest.Options{})
	story, _ := c.create(issueFields("Story", "Story", ""))
	r := c.do("POST", "/rest/api/3/issue", withFields(subtaskFields("Sub", story)))
	sub := r.json(t)["key"].(string)
	if r := c.do("POST", "/rest/agile/1.0/sprint/2/issue", map[string]any{"issues": []string{story}}); r.status != 204 {
		t.Fatalf("move: %d %s", r.status, r.body)
	}
	if c.srv.SprintOf(story) != "DEMO Sprint 2" || c.srv.SprintOf(sub) != "DEMO Sprint 2" {
		t.Errorf("sprint of story %q, of its sub-task %q", c.srv.SprintOf(story), c.srv.SprintOf(sub))
	}
	f := c.do("GET", "/rest/api/3/issue/"+story+"?fields="+jiratest.SprintFieldID, nil).json(t)["fields"].(map[string]any)
	if sp := f[jiratest.SprintFieldID].([]any); len(sp) != 1 || sp[0].(map[string]any)["name"] != "DEMO Sprint 2" || sp[0].(map[string]any)["state"] != "future" {
		t.Errorf("sprint field: %v", f)
	}
	if r := c.do("POST", "/rest/agile/1.0/sprint/1/issue", map[string]any{"issues": []string{sub}}); r.status != 400 {
		t.Errorf("moving a sub-task alone: %d", r.status)
	}
	closed, _ := c.srv.AddSprint(1, "Old", jiratest.SprintClosed)
	if r := c.do("POST", fmt.Sprintf("/rest/agile/1.0/sprint/%d/issue", closed), map[string]any{"issues": []string{story}}); r.status != 400 {
		t.Errorf("moving to a closed sprint: %d", r.status)
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = story
	}
	if r := c.do("POST", "/rest/agile/1.0/sprint/1/issue", map[string]any{"issues": many}); r.status != 400 {
		t.Errorf("51 issues: %d", r.status)
	}
	if r := c.do("POST", "/rest/agile/1.0/sprint/1/issue", map[string]any{"issues": []string{"DEMO-99"}}); r.status != 400 {
		t.Errorf("unknown issue: %d", r.status)
	}
	if c.srv.SprintOf(story) != "DEMO Sprint 2" {
		t.Errorf("a refused move changed the sprint: %q", c.srv.SprintOf(story))
	}
}

func TestRankAndOrderByRank(t *testing.T) {
	c := start(t, jiratest.Options{})
	var ks []string
	for i := range 4 {
		k, _ := c.create(issueFields("Story", fmt.Sprintf("S%d", i), ""))
		ks = append(ks, k)
	}
	order := func() []string {
		return keys(t, c.search(map[string]any{"jql": "project = DEMO ORDER BY Rank ASC", "fields": []string{"summary"}}))
	}
	if got := order(); !slices.Equal(got, ks) {
		t.Fatalf("creation order is rank order: %v", got)
	}
	// Move the last two before the first.
	if r := c.do("PUT", "/rest/agile/1.0/issue/rank", map[string]any{"issues": []string{ks[3], ks[2]}, "rankBeforeIssue": ks[0]}); r.status != 204 {
		t.Fatalf("rank: %d %s", r.status, r.body)
	}
	want := []string{ks[3], ks[2], ks[0], ks[1]}
	if got := order(); !slices.Equal(got, want) {
		t.Errorf("after rank before: %v, want %v", got, want)
	}
	if got := c.srv.Backlog("DEMO"); !slices.Equal(got, want) {
		t.Errorf("backlog: %v", got)
	}
	// Partial success: one issue fails, the other moves; 207 with entries.
	if err := c.srv.FailRank(ks[3], "scripted"); err != nil {
		t.Fatal(err)
	}
	r := c.do("PUT", "/rest/agile/1.0/issue/rank", map[string]any{"issues": []string{ks[3], ks[2]}, "rankAfterIssue": ks[1]})
	if r.status != 207 {
		t.Fatalf("partial rank: %d %s", r.status, r.body)
	}
	var failed []string
	for _, e := range r.json(t)["entries"].([]any) {
		m := e.(map[string]any)
		if m["status"].(float64) != 200 {
			failed = append(failed, m["issueKey"].(string))
		}
	}
	if !slices.Equal(failed, []string{ks[3]}) {
		t.Errorf("failed entries: %v (%s)", failed, r.body)
	}
	want = []string{ks[3], ks[0], ks[1], ks[2]}
	if got := order(); !slices.Equal(got, want) {
		t.Errorf("after partial rank: %v, want %v", got, want)
	}
	for _, body := range []map[string]any{
		{"issues": []string{ks[0]}},
		{"issues": []string{ks[0]}, "rankBeforeIssue": ks[1], "rankAfterIssue": ks[2]},
		{"issues": []string{ks[0]}, "rankBeforeIssue": "DEMO-99"},
	} {
		if r := c.do("PUT", "/rest/agile/1.0/issue/rank", body); r.status != 400 {
			t.Errorf("rank %v: %d", body, r.status)
		}
	}
	rank := c.do("GET", "/rest/api/3/issue/"+ks[0]+"?fields="+jiratest.RankFieldID, nil).json(t)["fields"].(map[string]any)[jiratest.RankFieldID].(string)
	if !strings.HasPrefix(rank, "0|") {
		t.Errorf("rank field: %q", rank)
	}
	if r := c.do("GET", "/rest/api/3/search/jql?jql="+strings.ReplaceAll("rank = 1", " ", "%20"), nil); r.status != 400 {
		t.Errorf("rank in a clause: %d", r.status)
	}
}

// TestRankRebalances: ranking many times into one gap runs out of room
// and rebalances; the order stays right.
func TestRankRebalances(t *testing.T) {
	c := start(t, jiratest.Options{})
	a, _ := c.create(issueFields("Story", "A", ""))
	b, _ := c.create(issueFields("Story", "B", ""))
	x, _ := c.create(issueFields("Story", "X", ""))
	y, _ := c.create(issueFields("Story", "Y", ""))
	for i := range 30 {
		mover, anchor := x, b
		if i%2 == 1 {
			mover, anchor = y, x
		}
		if r := c.do("PUT", "/rest/agile/1.0/issue/rank", map[string]any{"issues": []string{mover}, "rankBeforeIssue": anchor}); r.status != 204 {
			t.Fatalf("rank %d: %d", i, r.status)
		}
	}
	if got := c.srv.Backlog("DEMO"); !slices.Equal(got, []string{a, y, x, b}) {
		t.Errorf("backlog after 30 ranks: %v", got)
	}
}

func TestStructureAdminEndpoints(t *testing.T) {
	c := start(t, jiratest.Options{})
	a, _ := c.create(issueFields("Story", "A", ""))
	b, _ := c.create(issueFields("Story", "B", ""))
	if r := c.do("POST", "/_mockjira/links/typed", map[string]any{"type": "Duplicate", "from": a, "to": b}); r.status != 201 {
		t.Fatalf("typed link: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/_mockjira/links", nil); r.status != 200 || !strings.Contains(string(r.body), `"type":"Duplicate"`) {
		t.Errorf("links: %d %s", r.status, r.body)
	}
	r := c.do("POST", "/_mockjira/sprints", map[string]any{"board": 1, "name": "Closed one", "state": "closed"})
	if r.status != 201 {
		t.Fatalf("sprint: %d %s", r.status, r.body)
	}
	id := fmt.Sprint(r.json(t)["id"])
	if r := c.do("POST", "/rest/agile/1.0/sprint/"+id+"/issue", map[string]any{"issues": []string{a}}); r.status != 400 {
		t.Errorf("move to the closed sprint: %d", r.status)
	}
	if r := c.do("POST", "/_mockjira/sprints/state", map[string]any{"sprint": 2, "state": "active"}); r.status != 204 {
		t.Errorf("sprint state: %d", r.status)
	}
	c.do("POST", "/rest/agile/1.0/sprint/2/issue", map[string]any{"issues": []string{b}})
	if r := c.do("GET", "/_mockjira/backlog", nil); !strings.Contains(string(r.body), `{"key":"`+b+`","sprint":"DEMO Sprint 2"}`) {
		t.Errorf("backlog: %s", r.body)
	}
	if r := c.do("POST", "/_mockjira/rank-failures", map[string]any{"key": a, "message": "no"}); r.status != 204 {
		t.Errorf("rank failure: %d", r.status)
	}
	if r := c.do("PUT", "/rest/agile/1.0/issue/rank", map[string]any{"issues": []string{a}, "rankAfterIssue": b}); r.status != 207 {
		t.Errorf("scripted rank failure: %d", r.status)
	}
}
