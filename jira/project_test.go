package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestKeysOfAnotherProjectAreRefusedBeforeAnyRequest: with a site of two
// projects (mockjira -project DEMO,OTHER) and the Provider configured for
// DEMO, every read or write of one item by a key of OTHER is
// WORK_ITEM_NOT_FOUND naming the key and the project, and nothing is sent;
// the same calls on a DEMO key work.
func TestKeysOfAnotherProjectAreRefusedBeforeAnyRequest(t *testing.T) {
	f := startJira(t, jiratest.Options{Project: "DEMO,OTHER"}, nil)
	if got := f.srv.ProjectKeys(); len(got) != 2 || got[0] != "DEMO" || got[1] != "OTHER" || f.srv.ProjectKey() != "DEMO" {
		t.Fatalf("projects %v (default %s); want DEMO, OTHER", got, f.srv.ProjectKey())
	}
	other, err := f.srv.Seed(jiratest.SeedIssue{Project: "OTHER", IssueType: "Story", Summary: "Not ours"})
	if err != nil || !strings.HasPrefix(other, "OTHER-") {
		t.Fatalf("seed in OTHER: %q %v", other, err)
	}
	own, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Ours"})
	if err != nil || !strings.HasPrefix(own, "DEMO-") {
		t.Fatalf("seed in the default project: %q %v", own, err)
	}
	// The fake serves the other project's issue: the refusal is the
	// Provider's.
	if got := searchKeys(t, f, "project = OTHER"); len(got) != 1 || got[0] != other {
		t.Fatalf("search of OTHER = %v; want %s", got, other)
	}
	if _, err := f.p.ensureMeta(f.ctx); err != nil {
		t.Fatal(err)
	}
	spec := f.specs("proj", 1)[0]
	calls := map[string]func(key string) error{
		"Get":         func(k string) error { _, err := f.p.Get(f.ctx, k); return err },
		"Update":      func(k string) error { return f.p.Update(f.ctx, k, spec) },
		"Transitions": func(k string) error { _, err := f.p.Transitions(f.ctx, k); return err },
		"Transition":  func(k string) error { return f.p.Transition(f.ctx, k, jiratest.TransitionInProgressID) },
		"AddComment":  func(k string) error { return f.p.AddComment(f.ctx, k, "A comment") },
	}
	for name, call := range calls {
		for _, key := range []string{other, strings.ToLower(other)} {
			f.srv.ClearRequests()
			err := call(key)
			if core.ErrorCode(err) != core.CodeWorkItemNotFound || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "project DEMO") {
				t.Errorf("%s(%s) = %v; want WORK_ITEM_NOT_FOUND naming %s and project DEMO", name, key, err, key)
			}
			if e := core.AsError(err); len(e.Details) != 1 || e.Details[0].Key != key {
				t.Errorf("%s(%s) details %+v; want one naming the key", name, key, e.Details)
			}
			if n := len(f.srv.Requests()); n != 0 {
				t.Errorf("%s(%s) sent %d requests; want none", name, key, n)
			}
		}
		if err := call(own); err != nil {
			t.Errorf("%s(%s) = %v; want it to work on a key of the configured project", name, own, err)
		}
	}
	sn, _ := f.srv.Issue(other)
	if sn.Summary != "Not ours" || sn.Status != "To Do" || len(sn.Comments) != 0 {
		t.Errorf("the other project's issue changed: %+v", sn)
	}
}
