package jira

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestEditRetriesAConflict: Jira answers 409 to an edit that met a
// conflicting update (nothing applied); the edit is idempotent and is
// sent again.
func TestEditRetriesAConflict(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs := f.specs("conflict", 1)
	keys := created(t, mustCreate(t, f, specs))
	key := keys[specs[0].Reference]
	if err := f.srv.AddFault(jiratest.Fault{Method: "PUT", Path: "/rest/api/3/issue/" + key, Call: 1, Kind: jiratest.FaultConflict}); err != nil {
		t.Fatal(err)
	}
	spec := specs[0]
	spec.Title = "Edited after a conflict"
	if err := f.p.Update(f.ctx, key, spec); err != nil {
		t.Fatalf("Update = %v; want the 409 retried", err)
	}
	if is, _ := f.srv.Issue(key); is.Summary != spec.Title {
		t.Errorf("summary %q; want %q", is.Summary, spec.Title)
	}
	if n := f.srv.CountRequests("PUT", "/rest/api/3/issue/"+key); n != 2 {
		t.Errorf("%d edits sent; want 2 (the conflict, then the retry)", n)
	}
}

// TestPerIssueLimitIsTranslated: Jira's 413 (an issue reached a per-issue
// limit, here of issue links) is a refusal that says what to do, not an
// unexpected answer, and carries no raw body.
func TestPerIssueLimitIsTranslated(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs := f.specs("limit", 2)
	keys := created(t, mustCreate(t, f, specs))
	if err := f.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issueLink", Kind: jiratest.FaultTooLarge}); err != nil {
		t.Fatal(err)
	}
	err := f.p.AddDependency(f.ctx, keys[specs[0].Reference], keys[specs[1].Reference])
	if core.ErrorCode(err) != core.CodeValidationFailed || !strings.Contains(err.Error(), "per-issue limit") {
		t.Fatalf("AddDependency = %v; want VALIDATION_FAILED naming Jira's per-issue limits", err)
	}
	if core.IsOutcomeUnknown(err) {
		t.Errorf("a 413 is a refusal, not an unknown outcome: %v", err)
	}
	f.assertNoSecrets(t, err.Error())
}

// TestEditSendsParentOnlyWhenItChanges: an edit of an issue this Provider
// read leaves out a parent the issue already has (a sub-task's, a story's
// epic) and sends "parent": null only to an issue that has a parent.
func TestEditSendsParentOnlyWhenItChanges(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	seed := func(in jiratest.SeedIssue) string { return f.seed(t, in) }
	epic := seed(jiratest.SeedIssue{IssueType: "Epic", Summary: "Checkout", Reference: "par/e-1"})
	inEpic := seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Pay", Parent: epic, Reference: "par/s-1"})
	loose := seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Loose", Reference: "par/s-2"})
	leaving := seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Leaving", Parent: epic, Reference: "par/s-3"})
	sub := seed(jiratest.SeedIssue{IssueType: "Subtask", Summary: "Wire", Parent: inEpic, Reference: "par/t-1"})
	refs := []core.Reference{"par/e-1", "par/s-1", "par/s-2", "par/s-3", "par/t-1"}
	if got, err := f.p.Lookup(f.ctx, refs, nil); err != nil || len(got) != len(refs) {
		t.Fatalf("Lookup = %d items, %v", len(got), err)
	}
	edit := func(key string, ref core.Reference, kind core.Kind, parent string) map[string]json.RawMessage {
		t.Helper()
		f.srv.ClearRequests()
		spec := core.ItemSpec{Reference: ref, Kind: kind, Title: "Edited " + key, ParentKey: parent, Digest: "sha256:x"}
		if err := f.p.Update(f.ctx, key, spec); err != nil {
			t.Fatalf("Update %s: %v", key, err)
		}
		for _, r := range f.srv.Requests() {
			if r.Method == "PUT" && r.Path == "/rest/api/3/issue/"+key {
				var body struct {
					Fields map[string]json.RawMessage `json:"fields"`
				}
				if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
					t.Fatal(err)
				}
				return body.Fields
			}
		}
		t.Fatalf("no edit of %s sent", key)
		return nil
	}
	if fs := edit(inEpic, "par/s-1", core.KindStory, epic); fs["parent"] != nil {
		t.Errorf("a story's unchanged epic was sent again: parent %s", fs["parent"])
	}
	if fs := edit(sub, "par/t-1", core.KindSubtask, inEpic); fs["parent"] != nil {
		t.Errorf("a sub-task's unchanged parent was sent again: parent %s", fs["parent"])
	}
	if fs := edit(loose, "par/s-2", core.KindStory, ""); fs["parent"] != nil {
		t.Errorf("parent %s sent to a story that has none; want it left out", fs["parent"])
	}
	if fs := edit(leaving, "par/s-3", core.KindStory, ""); string(fs["parent"]) != "null" {
		t.Errorf("parent %q sent to a story leaving its epic; want null", fs["parent"])
	}
	if is, _ := f.srv.Issue(leaving); is.Parent != "" {
		t.Errorf("%s still under %s", leaving, is.Parent)
	}
	if fs := edit(loose, "par/s-2", core.KindStory, epic); !strings.Contains(string(fs["parent"]), epic) {
		t.Errorf("parent %s sent to a story moving under %s; want it", fs["parent"], epic)
	}
	if is, _ := f.srv.Issue(loose); is.Parent != epic {
		t.Errorf("%s under %q; want %s", loose, is.Parent, epic)
	}
}

// TestEditsPassWhereParentIsOffTheEditScreen: on a company-managed
// project whose Story edit screen lacks parent (the fake refuses the
// field there, even as null, as Jira does), edits of a story without an
// epic and of one keeping its epic go through: neither sends parent.
func TestEditsPassWhereParentIsOffTheEditScreen(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged}, nil)
	if err := f.srv.ApplyFields(jiratest.FieldSeed{OffEditScreen: []jiratest.ScreenField{{IssueType: "Story", Field: "parent"}}}); err != nil {
		t.Fatal(err)
	}
	epic := f.seed(t, jiratest.SeedIssue{IssueType: "Epic", Summary: "Checkout", Reference: "off/e-1"})
	inEpic := f.seed(t, jiratest.SeedIssue{IssueType: "Story", Summary: "Pay", Parent: epic, Reference: "off/s-1"})
	loose := f.seed(t, jiratest.SeedIssue{IssueType: "Story", Summary: "Loose", Reference: "off/s-2"})
	if got, err := f.p.Lookup(f.ctx, []core.Reference{"off/e-1", "off/s-1", "off/s-2"}, nil); err != nil || len(got) != 3 {
		t.Fatalf("Lookup = %d items, %v", len(got), err)
	}
	for key, spec := range map[string]core.ItemSpec{
		inEpic: {Reference: "off/s-1", Kind: core.KindStory, Title: "Pay by card", ParentKey: epic, Digest: "sha256:x"},
		loose:  {Reference: "off/s-2", Kind: core.KindStory, Title: "Still loose", Digest: "sha256:x"},
	} {
		if err := f.p.Update(f.ctx, key, spec); err != nil {
			t.Errorf("Update %s: %v", key, err)
		}
		if is, _ := f.srv.Issue(key); is.Summary != spec.Title {
			t.Errorf("%s reads %q after the edit, want %q", key, is.Summary, spec.Title)
		}
	}
}

func mustCreate(t *testing.T, f *fixture, specs []core.ItemSpec) []core.CreateOutcome {
	t.Helper()
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// seed adds an issue to the fake as a person would and returns its key.
func (f *fixture) seed(t *testing.T, in jiratest.SeedIssue) string {
	t.Helper()
	k, err := f.srv.Seed(in)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestShortTextCriteriaFieldHeldTo255: acceptance criteria kept in a
// short-text field hold at most 255 characters (Jira refuses more): the
// preview's check names the item and the field, and Create refuses the
// item before sending it; criteria that fit are written.
func TestShortTextCriteriaFieldHeldTo255(t *testing.T) {
	f := startJira(t, jiratest.Options{}, func(c *Config) { c.AcceptanceCriteriaField = "Acceptance Criteria" })
	if err := f.srv.ApplyFields(jiratest.FieldSeed{CustomFields: []jiratest.CustomField{{ID: "customfield_10090", Name: "Acceptance Criteria", Type: jiratest.FieldText}}}); err != nil {
		t.Fatal(err)
	}
	specs := f.specs("short-ac", 2)
	// "- a…\n- b…\n- c…": 122 + 1 + 122 + 1 + 12 = 258 characters.
	specs[1].AcceptanceCriteria = []string{strings.Repeat("a", 120), strings.Repeat("b", 120), strings.Repeat("c", 10)}
	details, err := f.p.CheckItems(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(details) != 1 || details[0].Item != string(specs[1].Reference) || details[0].Field != "acceptance_criteria" || !strings.Contains(details[0].Message, "at most 255") {
		t.Fatalf("CheckItems = %+v; want one problem: %s's acceptance criteria over 255", details, specs[1].Reference)
	}
	f.srv.ClearRequests()
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Key == "" || out[0].Err != nil {
		t.Errorf("%s: %+v; want created", specs[0].Reference, out[0])
	}
	if out[1].Key != "" || core.ErrorCode(out[1].Err) != core.CodeValidationFailed || !strings.Contains(out[1].Err.Error(), "255") {
		t.Errorf("%s: %+v; want refused before sending, naming the limit", specs[1].Reference, out[1])
	}
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Body, strings.Repeat("a", 120)) {
			t.Errorf("the over-long criteria were sent: %s %s", r.Method, r.Path)
		}
	}
}

// TestPropertyTotalKeptUnderJirasLimit: each base value is capped, but
// twenty of them together are over the 32,768 characters Jira allows an
// issue property: the largest are left out until it fits, and the create
// and the edit succeed with the others kept.
func TestPropertyTotalKeptUnderJirasLimit(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	spec := f.specs("bigprop", 1)[0]
	spec.BaseValues, spec.FieldBases = map[string][]string{}, map[string]string{}
	for i := range 20 {
		k := "customfield_" + itoa(10200+i)
		spec.BaseValues[k] = []string{strings.Repeat(string(rune('a'+i)), 1900-i)}
		spec.FieldBases[k] = "sha256:" + itoa(i)
	}
	key := created(t, mustCreate(t, f, []core.ItemSpec{spec}))[spec.Reference]
	check := func(when string) {
		t.Helper()
		w, err := f.p.Get(f.ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.FieldBases) != 20 {
			t.Errorf("%s: %d field bases; want all 20", when, len(w.FieldBases))
		}
		if n := len(w.BaseValues); n < 10 || n >= 20 {
			t.Errorf("%s: %d base values kept; want the smaller ones (at least 10, not all 20)", when, n)
		}
		if _, kept := w.BaseValues["customfield_10219"]; !kept {
			t.Errorf("%s: the smallest base value was left out", when)
		}
	}
	check("after the create")
	spec.Title = "Edited"
	if err := f.p.Update(f.ctx, key, spec); err != nil {
		t.Fatalf("Update = %v; want the property kept under Jira's limit", err)
	}
	check("after the edit")
}

// TestLocalisedSite: a site in German names the epic type "Epos": the
// epic type is found by its hierarchy level, items are created as epics
// and found by a query (queryByIDs).
func TestLocalisedSite(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if !f.srv.TranslateIssueTypes("DEMO", map[string]string{"Epic": "Epos", "Task": "Aufgabe"}) {
		t.Fatal("could not translate the issue types")
	}
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatalf("Check = %v; want the epic type found by its hierarchy level", err)
	}
	spec := f.specs("lokal", 1)[0]
	spec.Kind = core.KindEpic
	key := created(t, mustCreate(t, f, []core.ItemSpec{spec}))[spec.Reference]
	if is, _ := f.srv.Issue(key); is.IssueType != "Epos" { // the admin view names the type as the site's REST API does
		t.Errorf("%s created as %q; want the epic type (Epos on this site)", key, is.IssueType)
	}
	queryByIDs(t, f, key)
}

// TestQueryNamesTypesAndCategoriesByID: a query's JQL names the issue
// types and the status category by id, not by the names a localised site
// translates.
func TestQueryNamesTypesAndCategoriesByID(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	spec := f.specs("ids", 1)[0]
	spec.Kind = core.KindEpic
	queryByIDs(t, f, created(t, mustCreate(t, f, []core.ItemSpec{spec}))[spec.Reference])
}

// queryByIDs queries the to-do epics, wants exactly key, and checks that
// the JQL sent names types and status category by id.
func queryByIDs(t *testing.T, f *fixture, key string) {
	t.Helper()
	f.srv.ClearRequests()
	items, _, err := f.p.Query(f.ctx, core.Filter{Status: core.StatusTodo, Kind: core.KindEpic})
	if err != nil || len(items) != 1 || items[0].Key != key {
		t.Fatalf("Query = %v, %v; want %s", items, err, key)
	}
	for _, r := range f.srv.Requests() {
		if r.Path != "/rest/api/3/search/jql" {
			continue
		}
		var body struct{ JQL string }
		_ = json.Unmarshal([]byte(r.Body), &body)
		if !strings.Contains(body.JQL, "issuetype in ("+jiratest.IssueTypeEpicID+", "+jiratest.IssueTypeStoryID) || !strings.Contains(body.JQL, "statusCategory = 2") || strings.Contains(body.JQL, "Epos") || strings.Contains(body.JQL, "To Do") {
			t.Errorf("query JQL %q; want issue types and status category by id", body.JQL)
		}
	}
}

// TestRenamedBlocksLinkType: a site renamed the Blocks link type
// ("Blocker", its descriptions kept): the name is refused, the type is
// found by its descriptions in GET /issueLinkType, the link is sent again
// by id (later links go by id at once), and reads see the links.
func TestRenamedBlocksLinkType(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if !f.srv.RenameLinkType(jiratest.LinkTypeBlocksID, "Blocker", "", "") {
		t.Fatal("could not rename the link type")
	}
	specs := f.specs("renamed", 3)
	keys := created(t, mustCreate(t, f, specs))
	a, b, c := keys[specs[0].Reference], keys[specs[1].Reference], keys[specs[2].Reference]
	if err := f.p.AddDependency(f.ctx, a, b); err != nil {
		t.Fatalf("AddDependency = %v; want the renamed type found", err)
	}
	if err := f.p.AddDependency(f.ctx, c, b); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.CountRequests("POST", "/rest/api/3/issueLink"); n != 3 {
		t.Errorf("%d link requests; want 3 (refused by name, then by id twice)", n)
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/issueLinkType"); n != 1 {
		t.Errorf("%d reads of the link types; want 1", n)
	}
	deps, err := f.p.Dependencies(f.ctx, []string{a, c})
	if err != nil || len(deps) != 2 {
		t.Fatalf("Dependencies = %v, %v; want both links", deps, err)
	}
	for _, d := range deps {
		if d.Blocker != b || (d.Blocked != a && d.Blocked != c) {
			t.Errorf("dependency %+v; want %s blocking %s and %s", d, b, a, c)
		}
	}
}

// TestBulkCreateAnsweredOutOfOrderIsRepaired: Atlassian does not document
// the order of a bulk create's issues[]. Answered newest first, pairing by
// position gave every reference another item's key, silently; the ids not
// ascending give it away at no cost, and one bulk fetch pairs each key
// with the reference its issue holds (and the log says so).
func TestBulkCreateAnsweredOutOfOrderIsRepaired(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.srv.SetBulkCreateReversed(true)
	specs := f.specs("order", 3)
	out := mustCreate(t, f, specs)
	for _, o := range out {
		if is, _ := f.srv.Issue(o.Key); o.Err != nil || is.Reference != string(o.Reference) {
			t.Errorf("%s paired with %s, which holds %q (%v)", o.Reference, o.Key, is.Reference, o.Err)
		}
	}
	if n := f.srv.CountRequests("POST", "/rest/api/3/issue/bulkfetch"); n != 1 {
		t.Errorf("%d bulk fetches; want 1 (the repair)", n)
	}
	if !strings.Contains(f.logs.String(), "out of request order") {
		t.Errorf("the repair was not reported in the log")
	}

	// The read back fails: the items were created but whose key is whose
	// is unknown; they are reported so, never sent again.
	h := startJira(t, jiratest.Options{}, nil)
	h.srv.SetBulkCreateReversed(true)
	if err := h.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulkfetch", Kind: jiratest.FaultHTTP500}); err != nil {
		t.Fatal(err)
	}
	hout, err := h.p.Create(h.ctx, h.specs("order", 2))
	if err == nil || len(hout) != 2 || !hout[0].Unknown || !hout[1].Unknown || hout[0].Key != "" {
		t.Errorf("Create with the repair's read failing = %+v, %v; want both unknown", hout, err)
	}
	if n := h.srv.CountRequests("POST", "/rest/api/3/issue/bulk"); n != 1 {
		t.Errorf("%d bulk creates; want 1 (never sent again)", n)
	}

	// In request order (every site seen so far): nothing is read back.
	g := startJira(t, jiratest.Options{}, nil)
	mustCreate(t, g, g.specs("order", 3))
	if n := g.srv.CountRequests("POST", "/rest/api/3/issue/bulkfetch"); n != 0 {
		t.Errorf("%d bulk fetches after an answer in order; want 0", n)
	}
}
