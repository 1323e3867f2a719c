package jiratest_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// clock is a manual clock for lag and rate-limit tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// seedSet creates an epic with stories whose references are nasty.
func seedSet(t *testing.T, c *tc) {
	t.Helper()
	for _, in := range []jiratest.SeedIssue{
		{IssueType: "Epic", Summary: "Guest checkout", Reference: "checkout-v2/e-1"},                                          // DEMO-1
		{IssueType: "Story", Summary: "Pay without an account", Reference: "checkout-v2/s-1", Parent: "DEMO-1"},               // DEMO-2
		{IssueType: "Story", Summary: "Save address", Reference: "checkout-v2/s-10", Parent: "DEMO-1", Status: "In Progress"}, // DEMO-3
		{IssueType: "Story", Summary: `Quote "AND" OR NOT (x)`, Reference: `odd/"AND" OR (x)\y`, Status: "Done"},              // DEMO-4
		{IssueType: "Task", Summary: "Other", Reference: "other/checkout-v2/s-1"},                                             // DEMO-5
		{IssueType: "Epic", Summary: "Second epic", Reference: "checkout-v2/e-2"},                                             // DEMO-6
	} {
		if _, err := c.srv.Seed(in); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchJQL(t *testing.T) {
	c := start(t, jiratest.Options{})
	seedSet(t, c)
	cases := []struct {
		jql  string
		want []string
	}{
		{`project = DEMO ORDER BY key`, []string{"DEMO-1", "DEMO-2", "DEMO-3", "DEMO-4", "DEMO-5", "DEMO-6"}},
		{`project = DEMO ORDER BY key DESC`, []string{"DEMO-6", "DEMO-5", "DEMO-4", "DEMO-3", "DEMO-2", "DEMO-1"}},
		{`project = DEMO`, []string{"DEMO-6", "DEMO-5", "DEMO-4", "DEMO-3", "DEMO-2", "DEMO-1"}}, // default created DESC
		{`issuetype = Epic ORDER BY key`, []string{"DEMO-1", "DEMO-6"}},
		{`issuetype = 10000 ORDER BY created ASC`, []string{"DEMO-1", "DEMO-6"}},
		{`key in (DEMO-2, "DEMO-4") ORDER BY key`, []string{"DEMO-2", "DEMO-4"}},
		{`key = demo-3`, []string{"DEMO-3"}},
		{`parent = DEMO-1 ORDER BY key`, []string{"DEMO-2", "DEMO-3"}},
		{`parent in (DEMO-1, DEMO-6) ORDER BY key`, []string{"DEMO-2", "DEMO-3"}},
		{`parent is EMPTY ORDER BY key`, []string{"DEMO-1", "DEMO-4", "DEMO-5", "DEMO-6"}},
		{`parent != DEMO-1`, nil}, // != never matches empty fields
		{`statusCategory = "To Do" ORDER BY key`, []string{"DEMO-1", "DEMO-2", "DEMO-5", "DEMO-6"}},
		{`statusCategory = new AND issuetype = Story`, []string{"DEMO-2"}},
		{`statusCategory in (indeterminate, 3) ORDER BY key`, []string{"DEMO-3", "DEMO-4"}},
		{`statusCategory != Done AND issuetype = Story ORDER BY key`, []string{"DEMO-2", "DEMO-3"}},
		{`status = "In Progress"`, []string{"DEMO-3"}},
		{`status in ("To Do", Done) AND issuetype != Epic ORDER BY key`, []string{"DEMO-2", "DEMO-4", "DEMO-5"}},
		// Reference lookups: phrase search finds the reference and longer
		// references containing it; never s-10 for s-1.
		{`cf[10050] ~ "\"checkout-v2/s-1\"" ORDER BY key`, []string{"DEMO-2", "DEMO-5"}},
		{`"DevWorkWire Reference" ~ "\"checkout-v2/s-1\"" ORDER BY key`, []string{"DEMO-2", "DEMO-5"}},
		{`"devworkwire reference" ~ '"checkout-v2/s-10"'`, []string{"DEMO-3"}},
		{`cf[10050] ~ "\"checkout-v2/s-1\"" AND project = DEMO AND issuetype = Story`, []string{"DEMO-2"}},
		{`cf[10050] ~ "\"odd/\\\"AND\\\" OR (x)\\\\y\""`, []string{"DEMO-4"}},
		{`summary ~ "\"AND\""`, nil}, // a stop word: Jira drops it, nothing matches
		{`summary ~ "\"quote and x\""`, []string{"DEMO-4"}},
		{`summary ~ 'quote'`, []string{"DEMO-4"}},
		{`text ~ "checkout" AND issuetype = Epic ORDER BY key`, []string{"DEMO-1", "DEMO-6"}},
		{`summary ~ "pay" OR summary ~ "save" ORDER BY key`, []string{"DEMO-2", "DEMO-3"}},
		{`project = DEMO AND NOT (issuetype = Story OR issuetype = Task) ORDER BY key`, []string{"DEMO-1", "DEMO-6"}},
		{`project = DEMO AND !(issuetype = Epic) AND summary !~ "other" ORDER BY key`, []string{"DEMO-2", "DEMO-3", "DEMO-4"}},
		{`cf[10050] is EMPTY`, nil},
		{`cf[10050] is not EMPTY AND issuetype = Epic ORDER BY key`, []string{"DEMO-1", "DEMO-6"}},
		{`project = DEMO AND key in (DEMO-1) OR key = DEMO-2 ORDER BY key`, []string{"DEMO-1", "DEMO-2"}},
	}
	for _, cs := range cases {
		got := keys(t, c.search(map[string]any{"jql": cs.jql, "fields": []string{"summary"}}))
		if !reflect.DeepEqual(got, cs.want) {
			t.Errorf("%s\n got %v\nwant %v", cs.jql, got, cs.want)
		}
	}
	// GET form with the same semantics.
	q := url.Values{"jql": {`cf[10050] ~ "\"checkout-v2/s-1\"" ORDER BY key`}, "fields": {"summary," + jiratest.DefaultFieldID}}
	r := c.do("GET", "/rest/api/3/search/jql?"+q.Encode(), nil)
	if got := keys(t, r); !reflect.DeepEqual(got, []string{"DEMO-2", "DEMO-5"}) {
		t.Errorf("GET search: %v", got)
	}
	// approximate-count
	r = c.do("POST", "/rest/api/3/search/approximate-count", map[string]any{"jql": "issuetype = Story"})
	if r.status != 200 || r.json(t)["count"].(float64) != 3 {
		t.Errorf("approximate-count: %d %s", r.status, r.body)
	}
}

func TestSearchErrors(t *testing.T) {
	c := start(t, jiratest.Options{})
	seedSet(t, c)
	cases := map[string]string{
		``:                                       "Unbounded JQL",
		`ORDER BY key`:                           "Unbounded JQL",
		`cf[10050] = "checkout-v2/s-1"`:          "The operator '=' is not supported by the 'cf[10050]' field.",
		`summary = x`:                            "The operator '=' is not supported",
		`issuetype ~ Epic`:                       "The operator '~' is not supported",
		`nosuchfield = x`:                        "Field 'nosuchfield' does not exist",
		`cf[99999] ~ x`:                          "Field 'cf[99999]' does not exist",
		`project = NOPE`:                         "The value 'NOPE' does not exist for the field 'project'.",
		`issuetype = Bug`:                        "The value 'Bug' does not exist for the field 'issuetype'.",
		`statusCategory = Blocked`:               "The value 'Blocked' does not exist for the field 'statusCategory'.",
		`key in (DEMO-1, DEMO-99)`:               "An issue with key 'DEMO-99' does not exist for field 'key'.",
		`key = "not a key"`:                      "The issue key 'not a key' for field 'key' is invalid.",
		`parent = DEMO-77`:                       "An issue with key 'DEMO-77' does not exist for field 'parent'.",
		`cf[10050] ~ checkout-v2/s-1`:            "reserved JQL character",
		`summary ~ ""`:                           "does not support searching for an empty string",
		`summary ~ "*x"`:                         "not allowed to start with a wildcard",
		`project = DEMO ORDER BY nosuch`:         "Field 'nosuch' does not exist",
		`project = DEMO AND issue in linked(X)`:  "Unable to find JQL function",
		`updated > "yesterday"`:                  "Date value 'yesterday'",
		`project = DEMO AND summary ~ or`:        "quotation marks",
		`project = DEMO AND (issuetype = Epic`:   "Expecting ')'",
		`cf[10050] ~ "\"checkout-v2/s-1\"" ANDx`: "Expecting either 'OR' or 'AND'",
	}
	for jql, want := range cases {
		r := c.search(map[string]any{"jql": jql})
		if r.status != 400 {
			t.Errorf("%q: status %d, want 400 (%s)", jql, r.status, r.body)
			continue
		}
		msgs, _ := r.errs(t)
		if len(msgs) == 0 || !strings.Contains(fmt.Sprint(msgs), want) {
			t.Errorf("%q: errors %v, want %q", jql, msgs, want)
		}
	}
	// Several problems are reported together.
	r := c.search(map[string]any{"jql": `project = NOPE AND issuetype = Bug`})
	if msgs, _ := r.errs(t); len(msgs) != 2 {
		t.Errorf("want 2 error messages, got %v", msgs)
	}
	// Unknown body property, bad token, negative maxResults.
	for name, body := range map[string]map[string]any{
		"unknown property": {"jql": "project = DEMO", "nextPagetoken": "x"},
		"bad token":        {"jql": "project = DEMO", "nextPageToken": "garbage"},
		"negative max":     {"jql": "project = DEMO", "maxResults": -1},
		"too many props":   {"jql": "project = DEMO", "properties": []string{"a", "b", "c", "d", "e", "f"}},
	} {
		if r := c.search(body); r.status != 400 {
			t.Errorf("%s: status %d", name, r.status)
		} else {
			r.errs(t)
		}
	}
}

func TestSearchFieldsAndProperties(t *testing.T) {
	c := start(t, jiratest.Options{})
	seedSet(t, c)
	if _, err := c.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "With props", Reference: "p/s-1", Properties: map[string]any{"devworkwire": map[string]any{"digest": "d1"}, "other": 1}}); err != nil {
		t.Fatal(err)
	}
	// Default: ids only, no key.
	r := c.search(map[string]any{"jql": "key = DEMO-7"})
	iss := r.json(t)["issues"].([]any)[0].(map[string]any)
	if iss["id"] == nil || iss["key"] != nil || iss["fields"] != nil {
		t.Errorf("default fields should be id only: %v", iss)
	}
	r = c.search(map[string]any{"jql": "key = DEMO-7", "fields": []string{"summary", jiratest.DefaultFieldID, "nonexistent"}, "properties": []string{"devworkwire"}})
	iss = r.json(t)["issues"].([]any)[0].(map[string]any)
	f := iss["fields"].(map[string]any)
	if len(f) != 2 || f["summary"] != "With props" || f[jiratest.DefaultFieldID] != "p/s-1" {
		t.Errorf("fields: %v", f)
	}
	props := iss["properties"].(map[string]any)
	if len(props) != 1 || props["devworkwire"].(map[string]any)["digest"] != "d1" {
		t.Errorf("properties: %v", props)
	}
	r = c.search(map[string]any{"jql": "key = DEMO-2", "fields": []string{"*all", "-comment"}})
	f = r.json(t)["issues"].([]any)[0].(map[string]any)["fields"].(map[string]any)
	if _, ok := f["comment"]; ok {
		t.Error("-comment did not exclude comment")
	}
	if f["parent"].(map[string]any)["key"] != "DEMO-1" || f["status"] == nil || f["issuetype"].(map[string]any)["name"] != "Story" {
		t.Errorf("*all fields: %v", f)
	}
}

func TestSearchPagination(t *testing.T) {
	c := start(t, jiratest.Options{})
	const n = 263
	for i := 0; i < n; i++ {
		if _, err := c.srv.Seed(jiratest.SeedIssue{IssueType: "Task", Summary: fmt.Sprintf("Task %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(body map[string]any) (pages int, all []string) {
		t.Helper()
		for {
			r := c.search(body)
			m := r.json(t)
			all = append(all, keys(t, r)...)
			pages++
			tok, has := m["nextPageToken"]
			if m["isLast"] == true {
				if has {
					t.Fatalf("last page carries nextPageToken %v", tok)
				}
				return
			}
			if !has {
				t.Fatalf("page %d: isLast=false without nextPageToken", pages)
			}
			body["nextPageToken"] = tok
			if pages > 100 {
				t.Fatal("pagination does not end")
			}
		}
	}
	pages, all := walk(map[string]any{"jql": "project = DEMO ORDER BY key", "maxResults": 10, "fields": []string{"summary"}})
	if pages != 27 || len(all) != n {
		t.Fatalf("pages %d, issues %d", pages, len(all))
	}
	seen := map[string]bool{}
	for i, k := range all {
		if seen[k] {
			t.Fatalf("duplicate %s", k)
		}
		seen[k] = true
		if want := fmt.Sprintf("DEMO-%d", i+1); k != want {
			t.Fatalf("position %d: %s, want %s", i, k, want)
		}
	}
	// Default 50; full-field pages cap at 100; id-only pages at 5000.
	r := c.search(map[string]any{"jql": "project = DEMO", "fields": []string{"summary"}})
	if got := len(keys(t, r)); got != 50 {
		t.Errorf("default page size %d", got)
	}
	r = c.search(map[string]any{"jql": "project = DEMO", "fields": []string{"summary"}, "maxResults": 1000})
	if got := len(keys(t, r)); got != 100 {
		t.Errorf("full-field page size %d, want cap 100", got)
	}
	r = c.search(map[string]any{"jql": "project = DEMO", "maxResults": 1000})
	m := r.json(t)
	if got := len(m["issues"].([]any)); got != n || m["isLast"] != true {
		t.Errorf("id-only page size %d isLast %v", got, m["isLast"])
	}
	// A token only works for the query it was issued for.
	r = c.search(map[string]any{"jql": "project = DEMO", "maxResults": 5})
	tok := r.json(t)["nextPageToken"]
	r = c.search(map[string]any{"jql": "project = DEMO AND issuetype = Task", "nextPageToken": tok})
	if r.status != 400 {
		t.Errorf("token reused for another query: %d", r.status)
	}
	// GET paging.
	q := url.Values{"jql": {"project = DEMO ORDER BY key"}, "maxResults": {"100"}, "fields": {"id"}}
	var got []any
	for i := 0; i < 10; i++ {
		r := c.do("GET", "/rest/api/3/search/jql?"+q.Encode(), nil)
		m := r.json(t)
		got = append(got, m["issues"].([]any)...)
		if m["isLast"] == true {
			break
		}
		q.Set("nextPageToken", m["nextPageToken"].(string))
	}
	if len(got) != n {
		t.Errorf("GET paging returned %d issues", len(got))
	}
}

func TestSearchLagAndReconcile(t *testing.T) {
	clk := newClock()
	c := start(t, jiratest.Options{SearchLag: 5 * time.Second, Now: clk.Now})
	seeded, _ := c.srv.Seed(jiratest.SeedIssue{IssueType: "Epic", Summary: "Seeded", Reference: "doc/e-0"})
	key, id := c.create(issueFields("Epic", "Fresh", "doc/e-1"))
	find := func(body map[string]any) []string {
		t.Helper()
		body["fields"] = []string{"summary"}
		return keys(t, c.search(body))
	}
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-1\""`}); len(got) != 0 {
		t.Fatalf("new issue visible to search before the lag: %v", got)
	}
	if got := find(map[string]any{"jql": `project = DEMO`}); !reflect.DeepEqual(got, []string{seeded}) {
		t.Fatalf("seeded issue should be indexed: %v", got)
	}
	// GET issue reads the current state at once.
	if r := c.do("GET", "/rest/api/3/issue/"+key, nil); r.status != 200 {
		t.Fatalf("GET new issue: %d", r.status)
	}
	var idNum int64
	fmt.Sscan(id, &idNum)
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-1\""`, "reconcileIssues": []int64{idNum}}); !reflect.DeepEqual(got, []string{key}) {
		t.Fatalf("reconcileIssues did not bypass the lag: %v", got)
	}
	q := url.Values{"jql": {`cf[10050] ~ "\"doc/e-1\""`}, "reconcileIssues": {id}, "fields": {"summary"}}
	if got := keys(t, c.do("GET", "/rest/api/3/search/jql?"+q.Encode(), nil)); !reflect.DeepEqual(got, []string{key}) {
		t.Fatalf("GET reconcileIssues: %v", got)
	}
	clk.Advance(5 * time.Second)
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-1\""`}); !reflect.DeepEqual(got, []string{key}) {
		t.Fatalf("issue not visible after the lag: %v", got)
	}
	// An edit is invisible (old values match and are returned) until the lag passes.
	r := c.do("PUT", "/rest/api/3/issue/"+key, map[string]any{"fields": map[string]any{"summary": "Renamed", jiratest.DefaultFieldID: "doc/e-9"}})
	if r.status != 204 {
		t.Fatal(r.status)
	}
	r = c.search(map[string]any{"jql": `cf[10050] ~ "\"doc/e-1\""`, "fields": []string{"summary"}})
	if got := keys(t, r); !reflect.DeepEqual(got, []string{key}) {
		t.Fatalf("stale index should still match the old reference: %v", got)
	}
	if s := r.json(t)["issues"].([]any)[0].(map[string]any)["fields"].(map[string]any)["summary"]; s != "Fresh" {
		t.Errorf("stale index returned summary %v", s)
	}
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-9\""`}); len(got) != 0 {
		t.Fatalf("edit visible before the lag: %v", got)
	}
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-9\""`, "reconcileIssues": []int64{idNum}}); !reflect.DeepEqual(got, []string{key}) {
		t.Fatalf("reconcile of edited issue: %v", got)
	}
	clk.Advance(5 * time.Second)
	if got := find(map[string]any{"jql": `cf[10050] ~ "\"doc/e-1\""`}); len(got) != 0 {
		t.Fatalf("old value still indexed after the lag: %v", got)
	}
	// approximate-count sees the index, not reconcileIssues.
	c.create(issueFields("Story", "Not yet", ""))
	r = c.do("POST", "/rest/api/3/search/approximate-count", map[string]any{"jql": "issuetype = Story"})
	if r.json(t)["count"].(float64) != 0 {
		t.Errorf("count saw an unindexed issue: %s", r.body)
	}
	// SetSearchLag(0) makes everything visible.
	c.srv.SetSearchLag(0)
	if got := find(map[string]any{"jql": "issuetype = Story"}); len(got) != 1 {
		t.Errorf("after SetSearchLag(0): %v", got)
	}
	if !slices.Contains([]string{"DEMO-1"}, seeded) {
		t.Errorf("seeded key %s", seeded)
	}
}

func TestSearchStopWordsInReferences(t *testing.T) {
	c := start(t, jiratest.Options{})
	for _, ref := range []string{"the-plan/s-1", "a-plan/s-1", "plan/s-1", "plan/s-1/x"} {
		if _, err := c.srv.Seed(jiratest.SeedIssue{IssueType: "Task", Summary: "T", Reference: ref}); err != nil {
			t.Fatal(err)
		}
	}
	// Stop words vanish from phrases, so the phrase for "the-plan/s-1"
	// finds four different references: only an exact comparison in the
	// client tells them apart.
	got := keys(t, c.search(map[string]any{"jql": `cf[10050] ~ "\"the-plan/s-1\"" ORDER BY key`, "fields": []string{"summary"}}))
	if want := []string{"DEMO-1", "DEMO-2", "DEMO-3", "DEMO-4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
