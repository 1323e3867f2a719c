package e2e

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readsPlan sets every built-in field and two custom fields on a story,
// gives it a sub-task, and makes a second story depend on it.
const readsPlan = fieldsPlan + `
#### Sub-task t-1: Card form

### Story s-2: Save the address
Depends on: s-1
Components: Web
Team: Web
`

// doorsCase is one question asked through both front doors: the MCP
// tool with args, and dwire with cli and --json.
type doorsCase struct {
	tool string
	args map[string]any
	cli  []string
}

// ask asks c through both doors and returns both answers; a refusal
// fails the test.
func (c doorsCase) ask(t *testing.T, e *env, cs *mcp.ClientSession) (viaMCP, viaCLI map[string]any) {
	t.Helper()
	if d := e.call(cs, c.tool, c.args, &viaMCP); d != nil {
		t.Fatalf("%s: %v", c.tool, d)
	}
	if r := e.dwireJSON(&viaCLI, c.cli...); r.code != 0 {
		t.Fatalf("dwire %v --json: %s", c.cli, r)
	}
	return viaMCP, viaCLI
}

type readItem struct {
	Key       string `json:"key"`
	Reference string `json:"reference"`
	BlockedBy []struct {
		Key, Title, Status string
	} `json:"blocked_by"`
	Subtasks []struct {
		Key, Title, Status string
	} `json:"subtasks"`
	Fields []struct {
		Field, Value string
	} `json:"fields"`
}

// importOverMCP previews the document and commits it, confirmed.
func (e *env) importOverMCP(cs *mcp.ClientSession, path string) {
	e.t.Helper()
	if o := e.scCommitImport(cs, e.scPreview(cs, path).PreviewHandle, ""); o.errData != nil {
		e.t.Fatalf("import_commit %s: %v", path, o.errData)
	}
}

func (it readItem) fields() map[string]string {
	out := map[string]string{}
	for _, f := range it.Fields {
		out[f.Field] = f.Value
	}
	return out
}

// TestReadsShowManagedFieldsAndLinkedTitles: after an import writes
// managed fields, a sub-task and a dependency, `dwire show`,
// `workitem_get` and `workitem_query` show every managed field with its
// value, and name the blocking item and the sub-task by title, not by key
// alone.
func TestReadsShowManagedFieldsAndLinkedTitles(t *testing.T) {
	e := fieldsEnv(t)
	e.write("plan.md", readsPlan)
	cs, _ := e.mcp()
	e.importOverMCP(cs, "plan.md")
	issues := e.issuesByRef()
	s1, t1 := issues["fields-plan/s-1"].Key, issues["fields-plan/t-1"].Key
	want := map[string]string{
		"assignee": "acc-ana", "components": "Payments, Web", "due": "2027-03-01", "estimate": "5",
		"fields.Team": "Payments", "fields.Risk": "2.5", "fix_versions": "2027.1", "labels": "checkout, guest", "priority": "Medium",
	}
	checkFields := func(door string, it readItem) {
		t.Helper()
		got := it.fields()
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %s: field %s = %q; want %q (all: %v)", door, it.Reference, k, got[k], v, got)
			}
		}
	}

	var g struct{ Item readItem }
	if d := e.call(cs, "workitem_get", map[string]any{"item": "fields-plan/s-1"}, &g); d != nil {
		t.Fatalf("workitem_get: %v", d)
	}
	checkFields("workitem_get", g.Item)
	if len(g.Item.Subtasks) != 1 || g.Item.Subtasks[0].Key != t1 || g.Item.Subtasks[0].Title != "Card form" {
		t.Errorf("workitem_get s-1 sub-tasks %+v; want %s \"Card form\"", g.Item.Subtasks, t1)
	}
	if d := e.call(cs, "workitem_get", map[string]any{"item": "fields-plan/s-2"}, &g); d != nil {
		t.Fatalf("workitem_get: %v", d)
	}
	if len(g.Item.BlockedBy) != 1 || g.Item.BlockedBy[0].Key != s1 || g.Item.BlockedBy[0].Title != "Pay without an account" {
		t.Errorf("workitem_get s-2 blocked_by %+v; want %s \"Pay without an account\"", g.Item.BlockedBy, s1)
	}

	var q struct{ Items []readItem }
	if d := e.call(cs, "workitem_query", map[string]any{"document": "fields-plan", "kind": "story"}, &q); d != nil {
		t.Fatalf("workitem_query: %v", d)
	}
	found := false
	for _, it := range q.Items {
		if it.Reference == "fields-plan/s-1" {
			found = true
			checkFields("workitem_query", it)
		}
	}
	if !found {
		t.Fatalf("workitem_query lacks fields-plan/s-1: %+v", q.Items)
	}

	var sj struct{ Item readItem }
	if r := e.dwireJSON(&sj, "show", "fields-plan/s-1"); r.code != 0 {
		t.Fatalf("dwire show --json: %s", r)
	}
	checkFields("dwire show --json", sj.Item)

	// One shape for one thing: dwire show --json is workitem_get's result,
	// dwire ls --json workitem_query's (their run ids aside).
	for _, c := range []doorsCase{
		{"workitem_get", map[string]any{"item": "fields-plan/s-1"}, []string{"show", "fields-plan/s-1"}},
		{"workitem_get", map[string]any{"item": "fields-plan/e-1"}, []string{"show", "fields-plan/e-1"}},
		{"workitem_query", map[string]any{"document": "fields-plan"}, []string{"ls", "--document", "fields-plan"}},
	} {
		viaMCP, viaCLI := c.ask(t, e, cs)
		delete(viaMCP, "run_id")
		delete(viaCLI, "run_id")
		if !reflect.DeepEqual(viaMCP, viaCLI) {
			t.Errorf("dwire %v --json differs from %s:\n%v\n%v", c.cli, c.tool, viaCLI, viaMCP)
		}
	}

	// The previews and the export too: dwire import --dry-run --json has
	// import_preview's fields, dwire pull --dry-run --json pull_preview's
	// and dwire export --json document_export's (the values differ: each
	// call is a preview or an export of its own).
	epic := issues["fields-plan/e-1"].Key
	for _, c := range []doorsCase{
		{"import_preview", map[string]any{"path": "plan.md"}, []string{"import", "plan.md", "--dry-run"}},
		{"pull_preview", map[string]any{"path": "plan.md"}, []string{"pull", "plan.md", "--dry-run"}},
		{"document_export", map[string]any{"epic": epic}, []string{"export", epic}},
	} {
		viaMCP, viaCLI := c.ask(t, e, cs)
		if m, l := slices.Sorted(maps.Keys(viaMCP)), slices.Sorted(maps.Keys(viaCLI)); !slices.Equal(m, l) {
			t.Errorf("dwire %v --json has the fields %v; %s has %v", c.cli, l, c.tool, m)
		}
	}

	r := e.dwire("show", "fields-plan/s-1")
	if r.code != 0 {
		t.Fatalf("dwire show: %s", r)
	}
	for _, line := range []string{
		"  sub-tasks  " + t1 + " Card form (todo)",
		"  fields",
		"    Assignee      Ana Lima (acc-ana)",
		"    Components    Payments, Web",
		"    Due           2027-03-01",
		"    Estimate      5",
		"    Fix versions  2027.1",
		"    Labels        checkout, guest",
		"    Priority      Medium",
		"    Risk          2.5",
		"    Team          Payments",
	} {
		if !strings.Contains(r.stdout, line+"\n") {
			t.Errorf("dwire show lacks the line %q:\n%s", line, r.stdout)
		}
	}
	r = e.dwire("show", "fields-plan/s-2")
	if want := "  blocked by " + s1 + " Pay without an account (todo)\n"; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("dwire show s-2 lacks %q:\n%s", want, r)
	}
}

// TestListingsFollowTheDocumentPastOneBatch: a document of more than one
// create batch (2 epics, 70 stories) gets keys in the order its creates
// reached Jira (epics first, story batches in flight together), not the
// document's; `dwire ls`, `workitem_query`, and the stories `dwire show`
// and `workitem_get` list under an epic follow the document's order
// (the backlog's, which the import ranks).
func TestListingsFollowTheDocumentPastOneBatch(t *testing.T) {
	e := newEnv(t, envOptions{})
	var doc strings.Builder
	doc.WriteString("---\nid: big\n---\n# Big\n")
	var order []string // references in document order
	n := 0
	for ep := 1; ep <= 2; ep++ {
		fmt.Fprintf(&doc, "\n## Epic e-%d: Epic number %d\n", ep, ep)
		order = append(order, fmt.Sprintf("big/e-%d", ep))
		for range 35 {
			n++
			fmt.Fprintf(&doc, "\n### Story s-%d: Story number %d\n", n, n)
			order = append(order, fmt.Sprintf("big/s-%d", n))
		}
	}
	e.write("big.md", doc.String())
	cs, _ := e.mcp()
	e.importOverMCP(cs, "big.md")
	refsOf := func(items []readItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Reference)
		}
		return out
	}

	var q struct{ Items []readItem }
	if d := e.call(cs, "workitem_query", map[string]any{"document": "big", "limit": 100}, &q); d != nil {
		t.Fatalf("workitem_query: %v", d)
	}
	if got := refsOf(q.Items); !slices.Equal(got, order) {
		t.Errorf("workitem_query lists\n%v\nwant the document's order\n%v", got, order)
	}
	var ls struct{ Items []readItem }
	if r := e.dwireJSON(&ls, "ls", "--document", "big", "--limit", "100"); r.code != 0 {
		t.Fatalf("dwire ls: %s", r)
	}
	if got := refsOf(ls.Items); !slices.Equal(got, order) {
		t.Errorf("dwire ls lists\n%v\nwant the document's order\n%v", got, order)
	}

	issues := e.issuesByRef()
	var want []string // the second epic's stories, as keys, in document order
	for _, ref := range order[37:] {
		want = append(want, issues[ref].Key)
	}
	var g struct {
		Item struct{ Children []struct{ Key string } } `json:"item"`
	}
	if d := e.call(cs, "workitem_get", map[string]any{"item": "big/e-2"}, &g); d != nil {
		t.Fatalf("workitem_get: %v", d)
	}
	var got []string
	for _, c := range g.Item.Children {
		got = append(got, c.Key)
	}
	if !slices.Equal(got, want) {
		t.Errorf("workitem_get big/e-2 lists its stories\n%v\nwant the document's order\n%v", got, want)
	}
	r := e.dwire("show", "big/e-2")
	if r.code != 0 {
		t.Fatalf("dwire show: %s", r)
	}
	at := 0
	for _, k := range want {
		i := strings.Index(r.stdout[at:], "    "+k+"  ")
		if i < 0 {
			t.Fatalf("dwire show big/e-2 lists %s out of the document's order %v:\n%s", k, want, r.stdout)
		}
		at += i + 1
	}
}
