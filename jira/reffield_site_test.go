package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A reference field that is not searchable (no search template) makes
// every lookup fail, and one missing from the edit screen every update:
// Check (doctor, init) says which and how to fix it; discovery (every
// preview) refuses an unsearchable one before anything is written.
func TestReferenceFieldSearchableAndOnTheEditScreen(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.srv.SetReferenceSearchable(false)
	err := f.p.Check(f.ctx)
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeReferenceFieldMissing || !strings.Contains(ce.Message, "not searchable") || !strings.Contains(ce.Message, "Free text searcher") {
		t.Errorf("Check of an unsearchable reference field: %v", err)
	}
	g := startJira(t, jiratest.Options{}, nil)
	g.srv.SetReferenceSearchable(false)
	if _, err := g.p.Lookup(g.ctx, []core.Reference{"d/s-1"}, nil); core.ErrorCode(err) != core.CodeReferenceFieldMissing {
		t.Errorf("a lookup with an unsearchable reference field: %v", err)
	}

	h := startJira(t, jiratest.Options{}, nil)
	if err := h.p.Check(h.ctx); err != nil {
		t.Fatalf("Check of an empty project: %v", err)
	}
	if _, err := h.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "S"}); err != nil {
		t.Fatal(err)
	}
	if err := h.srv.ApplyFields(jiratest.FieldSeed{OffEditScreen: []jiratest.ScreenField{{IssueType: "Story", Field: jiratest.DefaultFieldName}}}); err != nil {
		t.Fatal(err)
	}
	err = h.p.Check(h.ctx)
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeReferenceFieldMissing || !strings.Contains(ce.Message, "edit screen of Story issues") {
		t.Errorf("Check with the reference field off the edit screen: %v", err)
	}
}

// A team-managed project whose issue types each got a new field of the
// reference field's name is told how to share one field among them (the
// generic "set the id" advice cannot work there: each id is on one type).
func TestTeamManagedFieldPerIssueTypeIsExplained(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleTeamManaged}, nil)
	err := f.p.Check(f.ctx)
	if ce := core.AsError(err); ce == nil || !strings.Contains(ce.Message, "team-managed") || !strings.Contains(ce.Message, "same field") {
		t.Errorf("Check of a team-managed project with a field per issue type: %v", err)
	}
}
