package e2e

import (
	"slices"
	"strings"
	"testing"
)

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
	if !strings.Contains(r.stdout, "s-2 depends on s-1") || !strings.Contains(r.stdout, "moves to sprint DEMO Sprint 2") {
		t.Errorf("the preview did not show the structure:\n%s", r.stdout)
	}
	issues := e.issuesByRef()
	s1, s2, t1 := issues["shop/s-1"], issues["shop/s-2"], issues["shop/t-1"]
	if t1.Parent != s2.Key || t1.IssueType != "Subtask" {
		t.Errorf("t-1: %+v; want a Subtask under %s", t1, s2.Key)
	}
	ready := func() []string {
		var out struct {
			Items []struct {
				Reference string `json:"reference"`
			} `json:"items"`
		}
		if r := e.dwireJSON(&out, "ls", "--ready"); r.code != 0 {
			t.Fatalf("ls --ready: %s", r)
		}
		var refs []string
		for _, it := range out.Items {
			refs = append(refs, it.Reference)
		}
		slices.Sort(refs)
		return refs
	}
	if got, want := ready(), []string{"shop/s-1", "shop/t-1"}; !slices.Equal(got, want) {
		t.Errorf("ready before: %v; want %v", got, want)
	}
	if r := e.dwire("show", s2.Key); r.code != 0 || !strings.Contains(r.stdout, "blocked by "+s1.Key+" (todo)") || !strings.Contains(r.stdout, "DEMO Sprint 2") {
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
