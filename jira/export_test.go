package jira

import (
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// ReadIssues against the fake Jira: an epic with its children and their
// sub-tasks; a query within the project (its ORDER BY dropped) with the
// sub-tasks of its stories; the whole project; refusals.
func TestReadIssuesSelections(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	seed := func(in jiratest.SeedIssue) string {
		k, err := f.srv.Seed(in)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
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
