package jira

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestDependsOnDirection pins what "B depends on A" (B's "Depends on: A")
// writes. Atlassian's issue linking model
// (https://developer.atlassian.com/cloud/jira/platform/issue-linking-model/)
// documents the "Blocks" type as inward "is blocked by", outward "blocks",
// and that an issue's view labels a link whose other end is in
// inwardIssue with the inward description. So Jira shows "B is blocked by
// A" on B exactly when GET B has the Blocks link with inwardIssue A, which
// POST /rest/api/3/issueLink makes from inwardIssue A, outwardIssue B (the
// inward issue is the link's source, the one that "blocks"). Three peers
// shipped this inverted; this test fails if the adapter does too.
func TestDependsOnDirection(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	_, outs, _, _ := f.createAll(t, "dir", 2)
	a, b := outs[0].Key, outs[1].Key // b depends on a
	f.srv.ClearRequests()
	if err := f.p.AddDependency(f.ctx, b, a); err != nil {
		t.Fatalf("AddDependency: %v", err)
	}
	var sent struct {
		Type                      struct{ Name string }
		InwardIssue, OutwardIssue struct{ Key string }
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/rest/api/3/issueLink" {
		t.Fatalf("requests: %+v", reqs)
	}
	if err := json.Unmarshal([]byte(reqs[0].Body), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Type.Name != "Blocks" || sent.InwardIssue.Key != a || sent.OutwardIssue.Key != b {
		t.Errorf("sent %+v; want type Blocks, inwardIssue %s (the blocker), outwardIssue %s (the blocked)", sent, a, b)
	}
	// What a person sees on B in Jira: its issuelinks hold the Blocks link
	// with inwardIssue A, labelled with the inward "is blocked by".
	f.srv.ClearRequests()
	r, err := f.p.Get(f.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.BlockedBy) != 1 || r.BlockedBy[0].Key != a || len(r.Blocks) != 0 {
		t.Errorf("%s: blocked by %v, blocks %v; want blocked by %s only", b, r.BlockedBy, r.Blocks, a)
	}
	if ra, _ := f.p.Get(f.ctx, a); len(ra.Blocks) != 1 || ra.Blocks[0].Key != b {
		t.Errorf("%s blocks %v; want %s", a, ra.Blocks, b)
	}
	if ls := f.srv.Links(); len(ls) != 1 || ls[0].From != a || ls[0].To != b {
		t.Errorf("Jira's links: %+v; want one from %s (blocks) to %s (is blocked by)", ls, a, b)
	}
}

// TestAddDependencyUnanswered: a link request whose answer never came is
// reported unknown (core.IsOutcomeUnknown), sent once, and the link it
// made is found by Dependencies.
func TestAddDependencyUnanswered(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	_, outs, _, _ := f.createAll(t, "unans", 2)
	a, b := outs[0].Key, outs[1].Key
	if err := f.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issueLink", Call: 1, Kind: jiratest.FaultDropAfterApply}); err != nil {
		t.Fatal(err)
	}
	err := f.p.AddDependency(f.ctx, b, a)
	if !core.IsOutcomeUnknown(err) {
		t.Fatalf("AddDependency through a dropped connection: %v; want an unknown outcome", err)
	}
	f.assertNoSecrets(t, err.Error())
	if n := f.srv.CountRequests("POST", "/rest/api/3/issueLink"); n != 1 {
		t.Errorf("link requests sent: %d; want 1 (never resent)", n)
	}
	deps, err := f.p.Dependencies(f.ctx, []string{b})
	if err != nil || len(deps) != 1 || deps[0].Blocker != a || deps[0].Blocked != b {
		t.Errorf("Dependencies after the unanswered link: %+v, %v", deps, err)
	}
}

// TestRankPartialSuccess: Jira's 207 becomes per-item outcomes; the items
// it moved are moved.
func TestRankPartialSuccess(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	_, outs, _, _ := f.createAll(t, "rank", 3)
	k := []string{outs[0].Key, outs[1].Key, outs[2].Key}
	if err := f.srv.FailRank(k[1], "Rank field is locked"); err != nil {
		t.Fatal(err)
	}
	ro, err := f.p.Rank(f.ctx, []string{k[2], k[1]}, k[0], true)
	if err != nil {
		t.Fatalf("Rank: %v", err)
	}
	if ro[0].Err != nil || ro[1].Err == nil || core.ErrorCode(ro[1].Err) != core.CodeValidationFailed || !strings.Contains(ro[1].Err.Error(), "locked") {
		t.Errorf("outcomes: %+v", ro)
	}
	if got := f.srv.Backlog("DEMO"); strings.Join(got, ",") != strings.Join([]string{k[2], k[0], k[1]}, ",") {
		t.Errorf("backlog: %v", got)
	}
}

// TestSprintsAndSubtaskDiscovery: the sub-task type and the Sprint and
// Rank fields are discovered; a closed sprint is reported with its state;
// a project without a sub-task type is refused naming the setting.
func TestSprintsAndSubtaskDiscovery(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if _, err := f.srv.AddSprint(1, "Old", jiratest.SprintClosed); err != nil {
		t.Fatal(err)
	}
	b2, _ := f.srv.AddBoard("DEMO", "Second board", "scrum")
	if _, err := f.srv.AddSprint(b2, "Old", jiratest.SprintFuture); err != nil {
		t.Fatal(err)
	}
	sps, err := f.p.Sprints(f.ctx, "old")
	if err != nil || len(sps) != 2 {
		t.Fatalf("Sprints(old): %+v, %v", sps, err)
	}
	states := sps[0].State + "," + sps[1].State
	if states != "closed,future" || sps[0].Board == sps[1].Board {
		t.Errorf("sprints: %+v", sps)
	}
	if err := f.p.CheckSubtasks(f.ctx); err != nil {
		t.Errorf("CheckSubtasks: %v", err)
	}
	g := startJira(t, jiratest.Options{}, nil)
	g.srv.SetIssueTypes("DEMO", "Epic", "Story")
	err = g.p.CheckSubtasks(g.ctx)
	if core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "sub-task") {
		t.Errorf("CheckSubtasks without a sub-task type: %v", err)
	}
}

// TestSubtaskCreateScreenIsChecked: the sub-task type's create screen is
// checked like the epic's and story's once a plan has sub-tasks (a
// required field DevWorkWire does not fill, the reference field off the
// screen), and a sub-task's fields are resolved against its own screen,
// not the story's.
func TestSubtaskCreateScreenIsChecked(t *testing.T) {
	required := startJira(t, jiratest.Options{}, nil)
	if err := required.srv.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{{ID: "customfield_10090", Name: "Severity", Type: jiratest.FieldText}},
		Required:     []jiratest.ScreenField{{IssueType: "Subtask", Field: "Severity"}},
	}); err != nil {
		t.Fatal(err)
	}
	err := required.p.CheckSubtasks(required.ctx)
	if core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "Issue type Subtask in project DEMO requires fields DevWorkWire does not fill: Severity (customfield_10090)") {
		t.Errorf("CheckSubtasks with a required Severity: %v", err)
	}

	offScreen := startJira(t, jiratest.Options{}, nil)
	if err := offScreen.srv.ApplyFields(jiratest.FieldSeed{OffScreen: []jiratest.ScreenField{{IssueType: "Subtask", Field: jiratest.DefaultFieldID}}}); err != nil {
		t.Fatal(err)
	}
	if err := offScreen.p.CheckSubtasks(offScreen.ctx); !strings.Contains(fmt.Sprint(err), "cannot be set on Subtask issues in project DEMO") {
		t.Errorf("CheckSubtasks with the reference field off the screen: %v", err)
	}

	f := companySite(t, nil)
	if err := f.srv.ApplyFields(jiratest.FieldSeed{
		OffScreen: []jiratest.ScreenField{{IssueType: "Subtask", Field: "components"}},
		Required:  []jiratest.ScreenField{{IssueType: "Subtask", Field: "Reviewer"}},
	}); err != nil {
		t.Fatal(err)
	}
	sub := core.FieldRequest{Reference: "d/t-1", Kind: core.KindSubtask, Create: true, Fields: map[string]core.FieldValue{core.FieldComponents: fv("Web")}}
	_, err = f.p.ResolveFields(f.ctx, []core.FieldRequest{sub})
	got := detailLines(err)
	all := strings.Join(got, "\n")
	for _, w := range []string{
		"d/t-1 components: Components (components) is not on the screen of Subtask issues in project DEMO",
		"d/t-1 fields.Reviewer: Reviewer is required for Subtask issues in project DEMO",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("details lack %q:\n%s", w, all)
		}
	}
	if strings.Contains(all, "Story") {
		t.Errorf("a sub-task's fields were checked against the Story screen:\n%s", all)
	}
}

// ReadIssues against the fake Jira: an epic with its children and their
// sub-tasks; a query within the project (its ORDER BY dropped) with the
// sub-tasks of its stories; the whole project; refusals.
func TestReadIssuesSelections(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	seed := func(in jiratest.SeedIssue) string { return f.seed(t, in) }
	epic := seed(jiratest.SeedIssue{IssueType: "Epic", Summary: "Checkout"})
	story := seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Pay", Parent: epic, Labels: []string{"pay"}})
	sub := seed(jiratest.SeedIssue{IssueType: "Subtask", Summary: "Wire", Parent: story})
	loose := seed(jiratest.SeedIssue{IssueType: "Task", Summary: "Loose", Labels: []string{"later"}})
	keys := func(items []core.WorkItem, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range items {
			out = append(out, w.Key)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(k ...string) []string { slices.Sort(k); return k }
	if got := keys(f.p.ReadIssues(f.ctx, core.IssueSelection{Epic: epic})); !slices.Equal(got, sorted(epic, story, sub)) {
		t.Errorf("epic: %v", got)
	}
	if got := keys(f.p.ReadIssues(f.ctx, core.IssueSelection{Query: "labels = pay ORDER BY created DESC"})); !slices.Equal(got, sorted(story, sub)) {
		t.Errorf("query: %v", got)
	}
	all, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Project: "DEMO"})
	if got := keys(all, err); !slices.Equal(got, sorted(epic, story, sub, loose)) {
		t.Errorf("all: %v", got)
	}
	for _, w := range all {
		if w.Key == sub && (w.Kind != core.KindSubtask || w.ParentKey != story) || w.Key == story && (w.ParentKey != epic || !slices.Equal(w.Fields[core.FieldLabels], []string{"pay"})) {
			t.Errorf("%s read as %+v", w.Key, w)
		}
	}
	if _, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Epic: loose}); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("a story as the epic: %v", err)
	}
	if _, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Epic: "OTHER-1"}); core.ErrorCode(err) != core.CodeWorkItemNotFound {
		t.Errorf("another project's epic: %v", err)
	}
	if _, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Project: "OTHER"}); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("another project: %v", err)
	}
	if _, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Query: "nosuchfield = 1"}); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("a query Jira refuses: %v", err)
	}
}

// TestSprintsOfATeamManagedProjectAreFound: a team-managed project's board
// is a simple board with sprints on; its sprints are found like a Scrum
// board's.
func TestSprintsOfATeamManagedProjectAreFound(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleTeamManaged}, nil)
	sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 2")
	if err != nil || len(sps) != 1 || sps[0].State != core.SprintFuture || sps[0].Board != "DEMO board" {
		t.Fatalf("Sprints(DEMO Sprint 2) of a team-managed project: %+v, %v", sps, err)
	}
}

// TestSprintsOfAKanbanOnlyProjectAreRefusedByName: Kanban boards have no
// sprints; a project with no other board says so instead of "does not
// exist", and a Kanban board next to a Scrum board is skipped.
func TestSprintsOfAKanbanOnlyProjectAreRefusedByName(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged}, nil)
	if sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 1"); err != nil || len(sps) != 1 {
		t.Fatalf("Sprints next to a Kanban board: %+v, %v", sps, err)
	}
	if _, err := f.srv.SetBoards("DEMO", "kanban"); err != nil {
		t.Fatal(err)
	}
	sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 1")
	if core.ErrorCode(err) != core.CodeValidationFailed || !strings.Contains(err.Error(), "Kanban boards have no sprints") || !strings.Contains(err.Error(), "DEMO board") {
		t.Fatalf("Sprints of a Kanban-only project: %+v, %v; want VALIDATION_FAILED naming the Kanban board", sps, err)
	}
}
