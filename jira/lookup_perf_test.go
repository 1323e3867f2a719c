package jira

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestLookupSkipsCreateFieldsWhenAllFound: a Provider whose lookup finds
// every reference (an unchanged re-import) does not read the create
// fields of the issue types; one that finds a reference missing does, so
// a preview that will plan a create still reports an unfillable create
// screen before the commit.
func TestLookupSkipsCreateFieldsWhenAllFound(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs, _, _, _ := f.createAll(t, "perf", 3)
	refs := []core.Reference{specs[0].Reference, specs[1].Reference, specs[2].Reference}
	const createFields = "/rest/api/3/issue/createmeta/*/issuetypes/*"

	f.srv.ClearRequests()
	got, err := f.fresh(t).Lookup(f.ctx, refs, nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("Lookup = %d found, %v; want 3", len(got), err)
	}
	if n := f.srv.CountRequests("GET", createFields); n != 0 {
		t.Errorf("lookup finding every reference read create fields %d times; want 0", n)
	}

	f.srv.ClearRequests()
	got, err = f.fresh(t).Lookup(f.ctx, append(refs, "perf/new"), nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("Lookup = %d found, %v; want 3", len(got), err)
	}
	if n := f.srv.CountRequests("GET", createFields); n != 2 {
		t.Errorf("lookup with a missing reference read create fields %d times; want 2 (epic, story)", n)
	}

	// A required field documents cannot set (not declared under fields:);
	// a declared or built-in one is checked per item by ResolveFields.
	requireUndeclared(t, f.srv)
	if _, err := f.fresh(t).Lookup(f.ctx, append(refs, "perf/new"), nil); core.ErrorCode(err) != core.CodeConfigInvalid {
		t.Errorf("Lookup with a missing reference and a required unfilled field = %v; want CONFIG_INVALID", err)
	}
	if _, err := f.fresh(t).Lookup(f.ctx, refs, nil); err != nil {
		t.Errorf("Lookup finding every reference = %v; want no error (nothing will be created)", err)
	}
	if _, err := f.fresh(t).Create(f.ctx, f.specs("perf2", 1)); core.ErrorCode(err) != core.CodeConfigInvalid {
		t.Errorf("Create with a required unfilled field = %v; want CONFIG_INVALID before any write", err)
	}
}

// TestLookupBatchesConcurrently: references spread over several search
// batches are all found, each batch searched once.
func TestLookupBatchesConcurrently(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs, _, _, _ := f.createAll(t, "conc", 450)
	refs := make([]core.Reference, 0, len(specs)+5)
	for _, s := range specs {
		refs = append(refs, s.Reference)
	}
	for i := range 5 {
		refs = append(refs, core.NewReference("conc", "missing-"+itoa(i)))
	}
	f.srv.ClearRequests()
	got, err := f.p.Lookup(f.ctx, refs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(specs) {
		t.Fatalf("found %d of %d", len(got), len(specs))
	}
	for _, s := range specs {
		if got[s.Reference].Reference != s.Reference {
			t.Fatalf("%s not found", s.Reference)
		}
	}
	if n := f.srv.CountRequests("POST", "/rest/api/3/search/jql"); n != 5 {
		t.Errorf("%d searches for 455 references; want 5", n)
	}
}

// requireUndeclared makes a custom field "Team" that no configuration
// declares required on stories.
func requireUndeclared(t *testing.T, s *jiratest.Server) {
	t.Helper()
	err := s.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{{ID: "customfield_10070", Name: "Team", Type: jiratest.FieldSelect, Options: []string{"Web"}}},
		Required:     []jiratest.ScreenField{{IssueType: "Story", Field: "Team"}},
	})
	if err != nil {
		t.Fatal(err)
	}
}
