package jira

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
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

// TestTeamManagedProjectUsesEachTypesReferenceField: a team-managed
// project gives each issue type its own "DevWorkWire Reference" field.
// Each item's reference is written to its type's field (create and
// edit), read from it, and found by a search of every one of them
// (lookup, the document's items), by the tail read and by the duplicate
// check; doctor's check passes.
func TestTeamManagedProjectUsesEachTypesReferenceField(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleTeamManaged}, nil)
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatalf("Check of a team-managed project with a reference field per issue type: %v", err)
	}
	keys := map[core.Reference]string{}
	create := func(ref core.Reference, kind core.Kind, parent string) {
		t.Helper()
		spec := core.ItemSpec{Reference: ref, Kind: kind, Title: "Item " + string(ref), ParentKey: parent, Digest: "sha256:x"}
		keys[ref] = created(t, mustCreate(t, f, []core.ItemSpec{spec}))[ref]
	}
	create("tm/e-1", core.KindEpic, "")
	create("tm/s-1", core.KindStory, keys["tm/e-1"])
	create("tm/t-1", core.KindSubtask, keys["tm/s-1"])
	for ref, key := range keys {
		if is, _ := f.srv.Issue(key); is.Reference != string(ref) {
			t.Errorf("%s holds reference %q in its type's field; want %s", key, is.Reference, ref)
		}
	}

	// A second Provider (no memory of the creates) finds them by search.
	g, err := New(Config{BaseURL: f.srv.URL, Email: f.srv.Email(), Token: f.srv.Token(), Project: f.srv.ProjectKey()})
	if err != nil {
		t.Fatal(err)
	}
	refs := []core.Reference{"tm/e-1", "tm/s-1", "tm/t-1"}
	found, err := g.Lookup(f.ctx, refs, nil)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	for _, r := range refs {
		if found[r].Key != keys[r] || found[r].Reference != r {
			t.Errorf("Lookup %s = %q (%s); want %s", r, found[r].Key, found[r].Reference, keys[r])
		}
	}
	items, _, err := g.Query(f.ctx, core.Filter{Document: "tm", Limit: 10})
	if err != nil || len(items) != 3 {
		t.Errorf("the document's items: %d, %v; want 3", len(items), err)
	}
	// The tail read (keys above the newest known) reads each type's field.
	known := map[core.Reference]string{"tm/e-1": keys["tm/e-1"]}
	if tail, err := g.Lookup(f.ctx, refs, known); err != nil || len(tail) != 3 {
		t.Errorf("Lookup with the epic's key known: %d items, %v; want 3", len(tail), err)
	}

	story := core.ItemSpec{Reference: "tm/s-1", Kind: core.KindStory, Title: "Edited story", ParentKey: keys["tm/e-1"], Digest: "sha256:y"}
	if err := g.Update(f.ctx, keys["tm/s-1"], story); err != nil {
		t.Fatalf("Update of a team-managed story: %v", err)
	}
	if is, _ := f.srv.Issue(keys["tm/s-1"]); is.Summary != "Edited story" || is.Reference != "tm/s-1" {
		t.Errorf("after the edit: %q holding %q", is.Summary, is.Reference)
	}

	// Another commit's sub-task of the same reference is a duplicate.
	dup, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Subtask", Summary: "Twin", Parent: keys["tm/s-1"], Reference: "tm/t-1"})
	if err != nil {
		t.Fatal(err)
	}
	dups, err := f.p.Duplicates(f.ctx, keys)
	if err != nil || len(dups) != 1 || !slices.Equal(dups["tm/t-1"], []string{keys["tm/t-1"], dup}) {
		t.Errorf("Duplicates = %v, %v; want tm/t-1 → %s and %s", dups, err, keys["tm/t-1"], dup)
	}
}

// TestTeamManagedTypeWithoutTheFieldIsNamed: a team-managed issue type
// without its own reference field is named, with how to add one, before
// anything is created.
func TestTeamManagedTypeWithoutTheFieldIsNamed(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleTeamManaged}, nil)
	if err := f.srv.ApplyFields(jiratest.FieldSeed{OffScreen: []jiratest.ScreenField{{IssueType: "Story", Field: jiratest.DefaultFieldName}}}); err != nil {
		t.Fatal(err)
	}
	err := f.p.Check(f.ctx)
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeReferenceFieldMissing || !strings.Contains(ce.Message, "Story") || !strings.Contains(ce.Message, "Short text") {
		t.Errorf("Check of a team-managed Story without the field: %v", err)
	}
}

// TestPreviewRefusesAReferenceFieldOffTheEditScreen: the import preview
// reads an updated item type's edit screen when the plan sets fields; the
// reference field missing from it (every update would be refused) is
// REFERENCE_FIELD_MISSING naming the type, at no extra request, with
// nothing written.
func TestPreviewRefusesAReferenceFieldOffTheEditScreen(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	doc := func(prio string) []byte {
		return []byte("---\nid: ed\n---\n## Epic e-1: Checkout\n\n### Story s-1: Pay\nPriority: " + prio + "\n\nText.\n")
	}
	importCommitted(t, f.ctx, svc, service.ImportPreviewInput{Path: "ed.md", Data: doc("High")}, "k1")
	if err := f.srv.ApplyFields(jiratest.FieldSeed{OffEditScreen: []jiratest.ScreenField{{IssueType: "Story", Field: jiratest.DefaultFieldName}}}); err != nil {
		t.Fatal(err)
	}
	writes := len(f.srv.Writes())
	_, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "ed.md", Data: doc("Low")})
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeReferenceFieldMissing || !strings.Contains(ce.Message, "edit screen of the story issues") {
		t.Fatalf("preview of an update with the reference field off the edit screen: %v", err)
	}
	if n := len(f.srv.Writes()); n != writes {
		t.Errorf("the refused preview wrote %d times", n-writes)
	}
}
