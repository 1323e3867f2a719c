package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// listedRefs is the part of a list result (dwire ls --json,
// workitem_query) the structure tests read.
type listedRefs struct {
	Items []struct {
		Reference string `json:"reference"`
	} `json:"items"`
}

// sorted returns the listed references, sorted.
func (l listedRefs) sorted() []string {
	var refs []string
	for _, it := range l.Items {
		refs = append(refs, it.Reference)
	}
	slices.Sort(refs)
	return refs
}

// TestCLIStructureAndReady: a plan with dependencies across epics, a
// sub-task and a sprint, imported through the CLI's prompt against the
// fake Jira; `dwire ls --ready` lists exactly the unblocked stories and
// sub-tasks; after `dwire progress` marks the blocker done, the blocked
// story becomes ready; `dwire show` says what a person sees on it in Jira.
func TestCLIStructureAndReady(t *testing.T) {
	e := newEnv(t, envOptions{})
	doc := `---
id: shop
---
## Epic e-1: Checkout

### Story s-1: Pay as a guest

Text.

## Epic e-2: Accounts

### Story s-2: Save the address
Depends on: s-1
Sprint: DEMO Sprint 2

#### Sub-task t-1: Migration for the address table

Text.
`
	e.write("plan.md", doc)
	r := e.dwirePTY("y\r", "import", "plan.md")
	if r.code != 0 {
		t.Fatalf("import: %s", r)
	}
	if !strings.Contains(r.stdout, "s-2 depends on s-1") || !strings.Contains(r.stdout, "s-2 into sprint DEMO Sprint 2") {
		t.Errorf("the preview did not show the structure:\n%s", r.stdout)
	}
	issues := e.issuesByRef()
	s1, s2, t1 := issues["shop/s-1"], issues["shop/s-2"], issues["shop/t-1"]
	if t1.Parent != s2.Key || t1.IssueType != "Subtask" {
		t.Errorf("t-1: %+v; want a Subtask under %s", t1, s2.Key)
	}
	ready := func() []string {
		var out listedRefs
		if r := e.dwireJSON(&out, "ls", "--ready"); r.code != 0 {
			t.Fatalf("ls --ready: %s", r)
		}
		return out.sorted()
	}
	if got, want := ready(), []string{"shop/s-1", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready before: %v; want %v", got, want)
	}
	if r := e.dwire("show", s2.Key); r.code != 0 || !strings.Contains(r.stdout, "blocked by "+s1.Key+" Pay as a guest (todo)") || !strings.Contains(r.stdout, "DEMO Sprint 2") {
		t.Errorf("show %s: %s", s2.Key, r)
	}
	if r := e.dwirePTY("y\r", "progress", s1.Key, "--status", "done"); r.code != 0 {
		t.Fatalf("progress: %s", r)
	}
	if got, want := ready(), []string{"shop/s-2", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready after the blocker is done: %v; want %v", got, want)
	}
	if r := e.dwire("graph", "plan.md"); r.code != 0 || !strings.Contains(r.stdout, "n_s_1 --> n_s_2") {
		t.Errorf("graph: %s", r)
	}
}

// TestMCPStructureAndReady: the same through the MCP door. A plan with
// dependencies across epics, sub-tasks (one of them blocked), a sprint
// and an order, through import_preview / import_commit; the backlog
// follows the document; workitem_query ready lists exactly the unblocked
// stories and sub-tasks; workitem_get shows the dependency, the sprint
// and the sub-task; after progress_commit marks the blocker done, the
// blocked story and sub-task are ready.
func TestMCPStructureAndReady(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plan.md", `---
id: shop
---
## Epic e-1: Checkout

### Story s-1: Pay as a guest

### Story s-3: Show the receipt

#### Sub-task t-2: Receipt template
Depends on: s-1

## Epic e-2: Accounts

### Story s-2: Save the address
Depends on: s-1
Sprint: DEMO Sprint 2

#### Sub-task t-1: Migration for the address table
`)
	cs, _ := e.mcp()
	var pv struct {
		PreviewHandle string `json:"preview_handle"`
		Counts        struct{ Create, Structure int }
		Structure     []struct{ Action, Item, Message string }
	}
	if d := e.call(cs, "import_preview", map[string]any{"path": "plan.md"}, &pv); d != nil {
		t.Fatalf("import_preview: %v", d)
	}
	var shown []string
	for _, c := range pv.Structure {
		shown = append(shown, c.Action+": "+c.Message)
	}
	// 2 links, 1 sprint move, 4 rank moves (the 5 epics and stories after
	// the first; sub-tasks are not ranked).
	want := []string{"link: s-2 depends on s-1", "link: t-2 depends on s-1", "sprint: s-2 moves to sprint DEMO Sprint 2", "rank: 4 new items (s-1 … s-2) are placed after e-1"}
	for _, w := range want {
		if !slices.ContainsFunc(shown, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("preview structure lacks %q: %q", w, shown)
		}
	}
	if pv.Counts.Create != 7 || pv.Counts.Structure != 7 {
		t.Errorf("preview counts %+v; want 7 creates, 7 structure changes", pv.Counts)
	}
	var c struct {
		ResultType string `json:"result_type"`
		Counts     struct{ Created, Linked, Sprinted, Ranked int }
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil {
		t.Fatalf("import_commit: %v", d)
	}
	if c.ResultType != "committed" || c.Counts.Created != 7 || c.Counts.Linked != 2 || c.Counts.Sprinted != 1 || c.Counts.Ranked != 4 {
		t.Errorf("commit %+v", c)
	}
	issues := e.issuesByRef()
	key := func(id string) string { return issues["shop/"+id].Key }
	if t1, t2 := issues["shop/t-1"], issues["shop/t-2"]; t1.Parent != key("s-2") || t2.Parent != key("s-3") || t1.IssueType != "Subtask" {
		t.Errorf("sub-tasks: %+v %+v", t1, t2)
	}
	backlog, err := e.jira.Backlog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, k := range backlog {
		for _, id := range []string{"e-1", "s-1", "s-3", "e-2", "s-2"} {
			if k == key(id) {
				order = append(order, id)
			}
		}
	}
	if want := []string{"e-1", "s-1", "s-3", "e-2", "s-2"}; !slices.Equal(order, want) {
		t.Errorf("backlog order %v; want the document's %v", order, want)
	}

	ready := func() []string {
		var q listedRefs
		if d := e.call(cs, "workitem_query", map[string]any{"ready": true, "document": "shop"}, &q); d != nil {
			t.Fatalf("workitem_query: %v", d)
		}
		return q.sorted()
	}
	if got, want := ready(), []string{"shop/s-1", "shop/s-3", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready before: %v; want %v", got, want)
	}
	var g struct {
		Item struct {
			BlockedBy []struct{ Key, Status string } `json:"blocked_by"`
			Subtasks  []struct{ Key string }         `json:"subtasks"`
			Sprint    string                         `json:"sprint"`
		} `json:"item"`
	}
	if d := e.call(cs, "workitem_get", map[string]any{"item": "shop/s-2"}, &g); d != nil {
		t.Fatalf("workitem_get: %v", d)
	}
	if len(g.Item.BlockedBy) != 1 || g.Item.BlockedBy[0].Key != key("s-1") || g.Item.BlockedBy[0].Status != "todo" ||
		len(g.Item.Subtasks) != 1 || g.Item.Subtasks[0].Key != key("t-1") || g.Item.Sprint != "DEMO Sprint 2" {
		t.Errorf("workitem_get shop/s-2: %+v", g.Item)
	}

	var pp struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if d := e.call(cs, "progress_preview", map[string]any{"item": "shop/s-1", "status": "done"}, &pp); d != nil {
		t.Fatalf("progress_preview: %v", d)
	}
	if d := e.call(cs, "progress_commit", map[string]any{"preview_handle": pp.PreviewHandle, "confirmed": true}, nil); d != nil {
		t.Fatalf("progress_commit: %v", d)
	}
	if got, want := ready(), []string{"shop/s-2", "shop/s-3", "shop/t-1", "shop/t-2"}; !slices.Equal(got, want) {
		t.Errorf("ready after the blocker is done: %v; want %v", got, want)
	}
}
