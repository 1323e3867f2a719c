package jira

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A classic workflow's Resolve Issue has a screen whose Resolution is
// required, and Close Issue a validator (every sub-task done). The
// adapter lists what it will set, sets it, and a refusal carries Jira's
// reason instead of "not available now".
func TestClassicWorkflowScreenAndValidator(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, Workflow: jiratest.WorkflowClassic}, nil)
	story, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "S"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Sub-task", Summary: "T", Parent: story}); err != nil {
		t.Fatal(err)
	}
	ts, err := f.p.Transitions(f.ctx, story)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ts, func(t core.Transition) bool { return t.To == core.StatusDone })
	if i < 0 || ts[i].Name != "Resolve Issue" || !slices.Equal(ts[i].Sets, []string{"Resolution: Done"}) || ts[i].Blocked != "" {
		t.Fatalf("transitions to done: %+v", ts)
	}
	if err := f.p.Transition(f.ctx, story, ts[i].ID); err != nil {
		t.Fatalf("resolve through the screen: %v", err)
	}
	if got := f.srv.ResolutionOf(story); got != "Done" {
		t.Errorf("resolution %q; want Done", got)
	}
	err = f.p.Transition(f.ctx, story, jiratest.TransitionCloseID)
	ce := core.AsError(err)
	if ce == nil || ce.Code != core.CodeValidationFailed || !strings.Contains(ce.Message, "All sub-tasks must be done") || !strings.Contains(ce.Message, `"Close Issue"`) ||
		strings.Contains(ce.Message, "not available") || strings.ContainsAny(ce.Message, "{}") {
		t.Errorf("close with an open sub-task: %v", err)
	}
}

// TestTransitionScreenTakesTheValueThePersonNames: jira.transition_fields
// names the value of a required screen field (Resolution: Won't Do): the
// preview shows it and the transition sets it; a value the screen does
// not allow is named at the preview, with the allowed ones, and nothing is
// sent.
func TestTransitionScreenTakesTheValueThePersonNames(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, Workflow: jiratest.WorkflowClassic}, func(c *Config) {
		c.TransitionFields = map[string]string{"resolution": "won't do"}
	})
	story := f.seed(t, jiratest.SeedIssue{IssueType: "Story", Summary: "S"})
	ts, err := f.p.Transitions(f.ctx, story)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ts, func(t core.Transition) bool { return t.To == core.StatusDone })
	if i < 0 || !slices.Equal(ts[i].Sets, []string{"Resolution: Won't Do"}) || ts[i].Blocked != "" {
		t.Fatalf("transitions to done: %+v", ts)
	}
	if err := f.p.Transition(f.ctx, story, ts[i].ID); err != nil {
		t.Fatalf("resolve through the screen: %v", err)
	}
	if got := f.srv.ResolutionOf(story); got != "Won't Do" {
		t.Errorf("resolution %q; want Won't Do", got)
	}

	g := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, Workflow: jiratest.WorkflowClassic}, func(c *Config) {
		c.TransitionFields = map[string]string{"Resolution": "Fixed"}
	})
	other := g.seed(t, jiratest.SeedIssue{IssueType: "Story", Summary: "S"})
	ts, err = g.p.Transitions(g.ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	i = slices.IndexFunc(ts, func(t core.Transition) bool { return t.To == core.StatusDone })
	if i < 0 || !strings.Contains(ts[i].Blocked, `"Fixed"`) || !strings.Contains(ts[i].Blocked, "Won't Do") {
		t.Fatalf("a resolution the screen does not allow: %+v", ts)
	}
	if err := g.p.Transition(g.ctx, other, ts[i].ID); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("Transition with a value the screen does not allow = %v", err)
	}
	if n := len(g.srv.Writes()); n != 0 {
		t.Errorf("%d writes; want none", n)
	}
}
