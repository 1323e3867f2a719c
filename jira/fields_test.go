package jira

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// companySite is a fake Jira with a company-style setup: Components and a
// custom select Team required on stories, a "Story Points" estimate
// besides the team-managed one, users (one with a hidden e-mail, two
// with one name).
func companySite(t *testing.T, mod func(*Config)) *fixture {
	t.Helper()
	f := startJira(t, jiratest.Options{}, func(c *Config) {
		c.CustomFields = map[string]string{"Team": "customfield_10070", "Reviewer": "Reviewer"}
		if mod != nil {
			mod(c)
		}
	})
	err := f.srv.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{
			{ID: "customfield_10070", Name: "Team", Type: jiratest.FieldSelect, Options: []string{"Payments", "Web"}},
			{ID: "customfield_10071", Name: "Reviewer", Type: jiratest.FieldUser},
			{ID: "customfield_10028", Name: "Story Points", Type: jiratest.FieldNumber},
		},
		Users: []jiratest.User{
			{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"},
			{AccountID: "acc-bo", Email: "bo@example.com", DisplayName: "Bo Berg", EmailHidden: true},
			{AccountID: "acc-sam1", Email: "sam1@example.com", DisplayName: "Sam Lee"},
			{AccountID: "acc-sam2", Email: "sam2@example.com", DisplayName: "Sam Lee"},
		},
		Components: []jiratest.Component{{Name: "Payments"}, {Name: "Web"}},
		Versions:   []jiratest.Version{{Name: "2027.1"}},
		Required:   []jiratest.ScreenField{{IssueType: "Story", Field: "Team"}, {IssueType: "Story", Field: "components"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fv(v ...string) core.FieldValue { return core.FieldValue{Values: v} }

func TestResolveFieldsAgainstJira(t *testing.T) {
	f := companySite(t, func(c *Config) { c.Users = map[string]string{"bo@example.com": "acc-bo"} })
	ok := core.FieldRequest{Reference: "d/s-1", Kind: core.KindStory, Create: true, Fields: map[string]core.FieldValue{
		core.FieldPriority: fv("highest"), core.FieldAssignee: fv("ana@example.com"), core.FieldComponents: fv("web", "Payments"),
		core.FieldFixVersions: fv("2027.1"), core.FieldEstimate: fv("8"), "fields.Team": fv("payments"), "fields.Reviewer": fv("bo@example.com"),
	}}
	before := len(f.srv.Requests())
	res, err := f.p.ResolveFields(f.ctx, []core.FieldRequest{ok, ok})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{core.FieldPriority: {"Highest"}, core.FieldAssignee: {"acc-ana"}, core.FieldComponents: {"Web", "Payments"},
		core.FieldFixVersions: {"2027.1"}, core.FieldEstimate: {"8"}, "fields.Team": {"Payments"}, "fields.Reviewer": {"acc-bo"}}
	for k, w := range want {
		if got := res[1][k].Values; !slices.Equal(got, w) {
			t.Errorf("%s = %q, want %q", k, got, w)
		}
	}
	// field list, issue types, 2 × create metadata, one user search (the
	// hidden e-mail comes from the users: map; the same person twice is
	// searched once).
	if n := len(f.srv.Requests()) - before; n > 5 {
		t.Errorf("resolution sent %d requests; want at most 5", n)
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/user/assignable/search"); n != 1 {
		t.Errorf("%d user searches; want 1", n)
	}
	// The estimate is the team-managed "Story point estimate" (found first).
	if id := f.p.meta.byKey[core.FieldEstimate].id; id != jiratest.StoryPointEstimateID {
		t.Errorf("estimate field %s; want %s", id, jiratest.StoryPointEstimateID)
	}

	bad := core.FieldRequest{Reference: "d/s-2", Kind: core.KindStory, Create: true, Fields: map[string]core.FieldValue{
		core.FieldPriority: fv("Urgent"), core.FieldAssignee: fv("Sam Lee"), core.FieldFixVersions: fv("2030.9"),
		"fields.Reviewer": fv("bo@example.com"), core.FieldDue: fv("2027-02-30"),
	}}
	hidden := core.FieldRequest{Reference: "d/e-1", Kind: core.KindEpic, Fields: map[string]core.FieldValue{core.FieldAssignee: fv("bo@example.com")}}
	f2 := companySite(t, nil)
	_, err = f2.p.ResolveFields(f2.ctx, []core.FieldRequest{bad, hidden})
	if core.ErrorCode(err) != core.CodeValidationFailed {
		t.Fatalf("err = %v; want VALIDATION_FAILED", err)
	}
	got := detailLines(err)
	all := strings.Join(got, "\n")
	for _, w := range []string{
		`d/s-2 priority: Priority: "Urgent" is not allowed in Jira; allowed: Highest, High, Medium, Low, Lowest`,
		`d/s-2 assignee: Assignee: "Sam Lee" matches 2 people: Sam Lee (acc-sam1), Sam Lee (acc-sam2)`,
		`d/s-2 fix_versions: Fix versions: "2030.9" is not allowed in Jira; allowed: 2027.1`,
		`d/s-2 due: Due: "2027-02-30" is not a date`,
		`d/s-2 components: Components is required for Story issues in project DEMO; set ` + "`Components`" + `: on the item or as a default.`,
		`d/s-2 fields.Team: Team is required for Story issues`,
		`d/e-1 assignee: Assignee: no user "bo@example.com" can be assigned issues in project DEMO`,
		"users: in the configuration",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("details lack %q:\n%s", w, all)
		}
	}
	if len(f2.srv.Writes()) != 0 {
		t.Error("resolution wrote to Jira")
	}
}

// A user-picker custom field holds anyone on the site, so it is resolved
// with the user search (what Jira's pickers use), while the assignee stays
// with the project's assignable-user search: a person who cannot be
// assigned issues in the project is a fine reviewer and a refused
// assignee; a hidden e-mail matches neither search.
func TestUserPickerFieldsUseTheUserSearch(t *testing.T) {
	f := companySite(t, nil)
	if err := f.srv.ApplyFields(jiratest.FieldSeed{Users: []jiratest.User{
		{AccountID: "acc-nina", Email: "nina@example.com", DisplayName: "Nina Roth", Projects: []string{"OTHER"}},
	}}); err != nil {
		t.Fatal(err)
	}
	reviewer := core.FieldRequest{Reference: "u/s-1", Kind: core.KindStory, Fields: map[string]core.FieldValue{"fields.Reviewer": fv("nina@example.com")}}
	res, err := f.p.ResolveFields(f.ctx, []core.FieldRequest{reviewer, reviewer})
	if err != nil {
		t.Fatalf("a reviewer who is not assignable: %v", err)
	}
	if got := res[1]["fields.Reviewer"].Values; !slices.Equal(got, []string{"acc-nina"}) {
		t.Errorf("reviewer = %q; want acc-nina", got)
	}
	if a, u := f.srv.CountRequests("GET", "/rest/api/3/user/assignable/search"), f.srv.CountRequests("GET", "/rest/api/3/user/search"); a != 0 || u != 1 {
		t.Errorf("%d assignable and %d user searches; want 0 and 1 (one per distinct person)", a, u)
	}
	spec := f.specs("u", 1)[0]
	spec.Fields = map[string]core.FieldValue{"fields.Reviewer": fv("acc-nina"), core.FieldComponents: fv("Web"), "fields.Team": fv("Web")}
	if out, err := f.p.Create(f.ctx, []core.ItemSpec{spec}); err != nil || out[0].Err != nil {
		t.Fatalf("Jira refused the reviewer: %v %+v", err, out)
	}

	assignee := core.FieldRequest{Reference: "u/s-2", Kind: core.KindStory, Fields: map[string]core.FieldValue{core.FieldAssignee: fv("nina@example.com"), "fields.Reviewer": fv("bo@example.com")}}
	_, err = f.p.ResolveFields(f.ctx, []core.FieldRequest{assignee})
	var got []string
	for _, d := range core.AsError(err).Details {
		got = append(got, d.Field+": "+d.Message)
	}
	all := strings.Join(got, "\n")
	for _, w := range []string{
		`assignee: Assignee: no user "nina@example.com" can be assigned issues in project DEMO`,
		`fields.Reviewer: Reviewer: no active user "bo@example.com" exists in Jira`, // e-mail hidden
		"under users: in the configuration",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("details lack %q:\n%s", w, all)
		}
	}
}

func TestFieldsWrittenInTheSameRequestsAndReadBack(t *testing.T) {
	f := companySite(t, nil)
	specs := f.specs("fw", 3)
	for i := range specs {
		specs[i].Fields = map[string]core.FieldValue{core.FieldComponents: fv("Web"), "fields.Team": fv("Web"), core.FieldLabels: fv("a", "b"), core.FieldAssignee: fv("acc-ana")}
		specs[i].FieldBases = map[string]string{"fields.Team": core.FieldDigest([]string{"Web"})}
	}
	f.srv.ClearRequests()
	out, err := f.p.Create(f.ctx, specs)
	if err != nil || out[2].Err != nil {
		t.Fatalf("Create: %v %+v", err, out)
	}
	if n := f.srv.CountRequests("POST", "/rest/api/3/issue/bulk"); n != 1 {
		t.Errorf("%d bulk creates; want 1 (fields go into the same request)", n)
	}
	w, err := f.p.Get(f.ctx, out[2].Key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Fields["fields.Team"], []string{"Web"}) || !slices.Equal(w.Fields[core.FieldAssignee], []string{"acc-ana"}) || w.FieldBases["fields.Team"] != specs[2].FieldBases["fields.Team"] {
		t.Errorf("read back %v / %v", w.Fields, w.FieldBases)
	}
	if w.EditedOutside {
		t.Error("an item just written reads as edited outside")
	}
}

// Jira's own refusal of a field (a value that was valid at preview and
// is not any more) is mapped back to the item and the field's key.
func TestJiraFieldErrorMappedToItemAndField(t *testing.T) {
	f := companySite(t, nil)
	specs := f.specs("fe", 1)
	specs[0].Fields = map[string]core.FieldValue{"fields.Team": fv("Mobile"), core.FieldComponents: fv("Web")}
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	ce := core.AsError(out[0].Err)
	if ce == nil || ce.Code != core.CodeValidationFailed {
		t.Fatalf("outcome %+v; want VALIDATION_FAILED", out[0])
	}
	if len(ce.Details) != 1 || ce.Details[0].Item != string(specs[0].Reference) || ce.Details[0].Field != "fields.Team" || !strings.Contains(ce.Details[0].Message, "Team (customfield_10070): Option value 'Mobile' is not valid") {
		t.Errorf("details %+v", ce.Details)
	}
}

func TestEstimateFieldSetting(t *testing.T) {
	f := companySite(t, func(c *Config) { c.EstimateField = "Story Points" })
	if _, err := f.p.ensureMeta(f.ctx); err != nil {
		t.Fatal(err)
	}
	if id := f.p.meta.byKey[core.FieldEstimate].id; id != "customfield_10028" {
		t.Errorf("estimate field %s; want the configured Story Points (customfield_10028)", id)
	}
	f2 := companySite(t, func(c *Config) { c.EstimateField = "Team" })
	err := f2.p.Check(f2.ctx)
	if core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "not a number field") {
		t.Errorf("Check with a non-number estimate field: %v", err)
	}
	f3 := companySite(t, func(c *Config) { c.CustomFields["Nope"] = "No such field" })
	if err := f3.p.Check(f3.ctx); core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "fields.Nope") {
		t.Errorf("Check with an unknown custom field: %v", err)
	}
}

// Acceptance criteria written with task-list boxes go to Jira as an ADF
// task list (one task item per criterion, DONE for [x]) and read back
// with their boxes.
func TestCriteriaAsTaskList(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs := f.specs("ac", 1)
	specs[0].AcceptanceCriteria = []string{"[ ] A guest can pay", "[x] The order is e-mailed"}
	out, err := f.p.Create(f.ctx, specs)
	if err != nil || out[0].Err != nil {
		t.Fatalf("Create: %v %+v", err, out)
	}
	sn, _ := f.srv.Issue(out[0].Key)
	d := string(sn.Description)
	if !strings.Contains(d, `"type":"taskList"`) || !strings.Contains(d, `"state":"DONE"`) || !strings.Contains(d, `"state":"TODO"`) {
		t.Errorf("description is not a task list with both states: %s", d)
	}
	w, err := f.p.Get(f.ctx, out[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.AcceptanceCriteria, specs[0].AcceptanceCriteria) || w.EditedOutside {
		t.Errorf("read back %q (edited outside %v); want %q", w.AcceptanceCriteria, w.EditedOutside, specs[0].AcceptanceCriteria)
	}
}

// An issue written before per-field bases (its devworkwire property holds
// only digest and jira_digest) is migrated by the next import: the
// document's field values are written and the bases recorded.
func TestFieldsMigrateItemsWithoutBases(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	plain := "---\nid: mig\n---\n## Epic e-1: E\n\nText.\n"
	doc := "---\nid: mig\n---\n## Epic e-1: E\nPriority: High\nLabels: a\n\nText.\n"
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "mig.md", Data: []byte(plain)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k1"}); err != nil {
		t.Fatal(err)
	}
	key := f.srv.Issues()[0].Key
	writeOldProperty(t, f.srv, key)
	if prop := string(f.srv.Issues()[0].Properties[PropertyKey]); strings.Contains(prop, `"fields"`) {
		t.Fatalf("precondition: the property already has bases: %s", prop)
	}
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{Fields: map[string]json.RawMessage{"priority": json.RawMessage(`{"name":"Low"}`)}}); err != nil {
		t.Fatal(err)
	}
	pv, err = svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "mig.md", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if pv.Counts.Update != 1 || len(pv.Items[0].Fields) != 2 || pv.Items[0].Fields[1].Write != "set" {
		t.Fatalf("preview %+v %+v; want an update setting both fields", pv.Counts, pv.Items[0].Fields)
	}
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k2"}); err != nil {
		t.Fatal(err)
	}
	sn, _ := f.srv.Issue(key)
	if !slices.Equal(sn.Fields["priority"], []string{"High"}) || !slices.Equal(sn.Labels, []string{"a"}) || !strings.Contains(string(sn.Properties[PropertyKey]), `"priority":"sha256:`) {
		t.Errorf("after the migration: fields %v labels %v property %s", sn.Fields, sn.Labels, sn.Properties[PropertyKey])
	}
	pv, err = svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "mig.md", Data: []byte(doc)})
	if err != nil || pv.Counts.Unchanged != 1 {
		t.Errorf("the next preview: %v %+v; want unchanged", err, pv.Counts)
	}
}

// writeOldProperty rewrites the issue's devworkwire property as a version
// before per-field and per-part bases wrote it: the two item-level
// digests only (through Jira's issue property API).
func writeOldProperty(t *testing.T, srv *jiratest.Server, key string) {
	t.Helper()
	sn, _ := srv.Issue(key)
	var pr property
	if err := json.Unmarshal(sn.Properties[PropertyKey], &pr); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"digest": pr.Digest, "jira_digest": pr.JiraDigest})
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/rest/api/3/issue/"+key+"/properties/"+PropertyKey, bytes.NewReader(b))
	req.SetBasicAuth(srv.Email(), srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode >= 300 {
		t.Fatalf("write the old property: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestContentMergeOverHTTP: title, description and criteria are parts of
// the three-way merge through the adapter (the property's per-part
// digests): a person's summary is kept while the document's description is
// written. An issue whose property predates per-part digests is settled as
// one unit (drift) until it is written, then part by part.
func TestContentMergeOverHTTP(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	doc := func(desc, marker string) []byte {
		return []byte("---\nid: cm\n---\n## Epic e-1: Checkout\n" + marker + "\n" + desc + "\n\nAcceptance criteria:\n- [ ] It works\n- [x] It is tested\n")
	}
	n := 0
	run := func(data []byte, wantCounts service.Counts) service.ImportPreviewResult {
		t.Helper()
		pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "cm.md", Data: data})
		if err != nil || pv.Counts != wantCounts {
			t.Fatalf("preview: %v %+v %+v; want %+v", err, pv.Counts, pv.Items, wantCounts)
		}
		if wantCounts.Create+wantCounts.Update > 0 {
			n++
			if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: fmt.Sprint("k", n)}); err != nil {
				t.Fatal(err)
			}
		}
		return pv
	}
	summary := func(key, s string) {
		t.Helper()
		if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &s}); err != nil {
			t.Fatal(err)
		}
	}
	run(doc("First text.", ""), service.Counts{Create: 1})
	key := f.srv.Issues()[0].Key
	if prop := string(f.srv.Issues()[0].Properties[PropertyKey]); !strings.Contains(prop, `"content":{`) {
		t.Fatalf("the property has no per-part digests: %s", prop)
	}
	run(doc("First text.", ""), service.Counts{Unchanged: 1}) // the criteria's boxes read back as written

	// Migration: an issue written before per-part digests drifts as a unit.
	writeOldProperty(t, f.srv, key)
	summary(key, "Renamed in Jira")
	pv := run(doc("Second text.", ""), service.Counts{Drift: 1})
	if len(pv.Warnings) != 1 || !strings.Contains(pv.Warnings[0], "was edited in the tracker") {
		t.Errorf("migration warnings %q", pv.Warnings)
	}
	run(doc("Second text.", "Drift: take-document\n"), service.Counts{Update: 1})
	if sn, _ := f.srv.Issue(key); sn.Summary != "Checkout" || !strings.Contains(string(sn.Properties[PropertyKey]), `"title":"sha256:`) {
		t.Fatalf("after take-document: %q %s", sn.Summary, sn.Properties[PropertyKey])
	}

	// Now part by part: the person's summary kept, the description written.
	summary(key, "Renamed again in Jira")
	pv = run(doc("Third text.", ""), service.Counts{Update: 1})
	if len(pv.Warnings) != 1 || !strings.Contains(pv.Warnings[0], "Title changed in the tracker") || !slices.Equal(pv.Items[0].ChangedFields, []string{"description"}) {
		t.Errorf("per-part preview: warnings %q row %+v", pv.Warnings, pv.Items[0])
	}
	sn, _ := f.srv.Issue(key)
	if sn.Summary != "Renamed again in Jira" || !strings.Contains(string(sn.Description), "Third text.") {
		t.Errorf("after the per-part update: %q %s", sn.Summary, sn.Description)
	}
	pv = run(doc("Third text.", ""), service.Counts{Unchanged: 1})
	if len(pv.Warnings) != 1 || !strings.Contains(pv.Warnings[0], "kept Jira's change") {
		t.Errorf("the next preview: warnings %q", pv.Warnings)
	}

	// The document now changes the title the person changed: a conflict
	// (drift), showing what the person changed and what the document
	// wants from the title DevWorkWire last wrote, kept in the property
	// through the write that kept the person's title.
	pv = run(bytes.Replace(doc("Third text.", ""), []byte("Epic e-1: Checkout"), []byte("Epic e-1: Checkout v2"), 1), service.Counts{Drift: 1})
	want := []service.FieldChange{{Field: "title", From: "Renamed again in Jira", To: "Checkout v2", Conflict: true, Base: "Checkout",
		Tracker: &service.FieldSide{To: "Renamed again in Jira"}, Document: &service.FieldSide{To: "Checkout v2"}}}
	if got := pv.Items[0].Changes; !reflect.DeepEqual(got, want) {
		b, _ := json.Marshal(got)
		t.Errorf("conflict changes %s; want the title's conflict with both sides", b)
	}
}

// An update is checked against the edit screen, not the create screen: a
// field a project keeps off its edit screen (set at create, never changed
// after) is refused at preview, with nothing written, while the same field
// on a create is fine. The edit metadata is read once per issue type, from
// one of the items being updated, not per item.
func TestEditScreenIsCheckedForUpdates(t *testing.T) {
	f := companySite(t, nil)
	svc := newService(f.p, service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Team", "Reviewer"}}})
	story := func(id, prio string) string {
		return fmt.Sprintf("### Story %s: Story %s\nPriority: %s\nComponents: Web\nTeam: Web\n\nText.\n\n", id, id, prio)
	}
	doc := func(stories ...string) []byte {
		return []byte("---\nid: es\n---\n## Epic e-1: Checkout\n\nEpic text.\n\n" + strings.Join(stories, ""))
	}
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "es.md", Data: doc(story("s-1", "High"), story("s-2", "High"), story("s-3", "High"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.ApplyFields(jiratest.FieldSeed{OffEditScreen: []jiratest.ScreenField{{IssueType: "Story", Field: "priority"}}}); err != nil {
		t.Fatal(err)
	}
	f.srv.ClearRequests()
	writes := len(f.srv.Writes())
	_, err = svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "es.md", Data: doc(story("s-1", "Low"), story("s-2", "Low"), story("s-3", "High"), story("s-4", "Low"))})
	if core.ErrorCode(err) != core.CodeValidationFailed {
		t.Fatalf("err = %v; want VALIDATION_FAILED", err)
	}
	got := detailLines(err)
	want := "priority: Priority (priority) is not on the edit screen of Story issues in project DEMO, so Jira would refuse to set it"
	if len(got) != 3 || !strings.HasPrefix(got[0], "es/s-1 "+want) || !strings.HasPrefix(got[1], "es/s-2 "+want) || !strings.HasPrefix(got[2], "es/s-3 "+want) {
		t.Errorf("details:\n%s\nwant the three updated stories (not the create s-4) refused: %s", strings.Join(got, "\n"), want)
	}
	if n := len(f.srv.Writes()); n != writes {
		t.Errorf("the refused preview wrote %d times", n-writes)
	}
	var editmeta []string
	for _, r := range f.srv.Requests() {
		if strings.HasSuffix(r.Path, "/editmeta") {
			editmeta = append(editmeta, r.Path)
		}
	}
	if len(editmeta) != 1 {
		t.Errorf("editmeta reads %q; want 1 for the three stories updated", editmeta)
	}
}

// An issue its workflow status makes read-only has edit metadata without
// fields, which says nothing of its type's edit screen: the updates of
// that type are then checked against the create metadata (as before edit
// metadata was read), not refused for every field.
func TestReadOnlyRepresentativeFallsBackToTheCreateScreen(t *testing.T) {
	f := companySite(t, nil)
	target, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		if strings.HasSuffix(r.Request.URL.Path, "/editmeta") {
			r.Body.Close()
			body := `{"fields":{}}`
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
			r.Header.Set("Content-Length", fmt.Sprint(len(body)))
		}
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	p, err := New(Config{BaseURL: front.URL, Email: f.srv.Email(), Token: f.srv.Token(), Project: f.srv.ProjectKey(),
		CustomFields: map[string]string{"Team": "customfield_10070", "Reviewer": "Reviewer"}})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(p, service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Team", "Reviewer"}}})
	doc := func(prio string) []byte {
		return []byte("---\nid: ro\n---\n## Epic e-1: Checkout\n\nEpic text.\n\n### Story s-1: Story\nPriority: " + prio + "\nComponents: Web\nTeam: Web\n\nText.\n")
	}
	importCommitted(t, f.ctx, svc, service.ImportPreviewInput{Path: "ro.md", Data: doc("High")}, "k1")
	f.srv.ClearRequests()
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "ro.md", Data: doc("Low")})
	if err != nil || pv.Counts.Update != 1 {
		t.Fatalf("preview: %v %+v; want the priority's update planned (checked against the create screen)", err, pv.Counts)
	}
	n := 0
	for _, r := range f.srv.Requests() {
		if strings.HasSuffix(r.Path, "/editmeta") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d editmeta reads; want 1", n)
	}
}

// customKind is one custom field type of the three-way scenario over
// HTTP: the values the document writes first (v0), a person's (as Jira's
// edit request JSON) and its canonical read, the document's next (vD)
// with its canonical read.
type customKind struct {
	name, v0 string
	c0       []string
	person   string
	cJ       []string
	vJ, vD   string
	cD       []string
}

var customKindsHTTP = []customKind{
	{"Notes", "alpha", []string{"alpha"}, `"beta"`, []string{"beta"}, "beta", "gamma", []string{"gamma"}},
	{"Points", "1", []string{"1"}, `2`, []string{"2"}, "2", "3", []string{"3"}},
	{"Start", "2027-01-01", []string{"2027-01-01"}, `"2027-01-02"`, []string{"2027-01-02"}, "2027-01-02", "2027-01-03", []string{"2027-01-03"}},
	{"Team", "Payments", []string{"Payments"}, `{"value":"Web"}`, []string{"Web"}, "Web", "Mobile", []string{"Mobile"}},
	{"Areas", "UI, API", []string{"UI", "API"}, `[{"value":"UI"}]`, []string{"UI"}, "UI", "UI, DB", []string{"UI", "DB"}},
	{"Reviewer", "nina@example.com", []string{"acc-nina"}, `{"accountId":"acc-bo"}`, []string{"acc-bo"}, "bo@example.com", "ana@example.com", []string{"acc-ana"}},
	{"Tags", "x, y", []string{"x", "y"}, `["x"]`, []string{"x"}, "x", "x, z", []string{"x", "z"}},
}

// TestThreeWayEveryCustomTypeOverHTTP runs the four three-way cases for
// each custom field type through the adapter and the fake Jira: one story
// per case, each setting every custom field. A person edits
// in Jira; the bases and their values travel in the issue property.
func TestThreeWayEveryCustomTypeOverHTTP(t *testing.T) {
	custom := map[string]string{}
	for _, k := range customKindsHTTP {
		custom[k.name] = k.name
	}
	f := startJira(t, jiratest.Options{}, func(c *Config) { c.CustomFields = custom })
	if err := f.srv.ApplyFields(jiratest.FieldSeed{
		CustomFields: []jiratest.CustomField{
			{Name: "Notes", Type: jiratest.FieldText}, {Name: "Points", Type: jiratest.FieldNumber}, {Name: "Start", Type: jiratest.FieldDate},
			{Name: "Team", Type: jiratest.FieldSelect, Options: []string{"Payments", "Web", "Mobile"}},
			{Name: "Areas", Type: jiratest.FieldMultiSelect, Options: []string{"UI", "API", "DB"}},
			{Name: "Reviewer", Type: jiratest.FieldUser}, {Name: "Tags", Type: jiratest.FieldLabels},
		},
		Users: []jiratest.User{
			{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"},
			{AccountID: "acc-bo", Email: "bo@example.com", DisplayName: "Bo Berg"},
			{AccountID: "acc-nina", Email: "nina@example.com", DisplayName: "Nina Roth", Projects: []string{"OTHER"}}, // a reviewer, not assignable
		},
	}); err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range custom {
			if !yield(n) {
				return
			}
		}
	})
	svc := newService(f.p, service.ServiceOptions{Fields: service.FieldOptions{Custom: names}})
	cases := []string{"kept", "written", "conflict", "same"}
	// value picks, per case, the value each field line writes.
	doc := func(value func(c string, k customKind) string, text func(c string) string) []byte {
		var b strings.Builder
		b.WriteString("---\nid: ck\n---\n## Epic e-1: Epic\n\nEpic text.\n\n")
		for _, c := range cases {
			fmt.Fprintf(&b, "### Story %s: Story %s\n", c, c)
			for _, k := range customKindsHTTP {
				fmt.Fprintf(&b, "%s: %s\n", k.name, value(c, k))
			}
			fmt.Fprintf(&b, "\n%s\n\n", text(c))
		}
		return []byte(b.String())
	}
	first := func(_ string, k customKind) string { return k.v0 }
	next := func(c string, k customKind) string {
		switch c {
		case "written", "conflict":
			return k.vD
		case "same":
			return k.vJ
		}
		return k.v0
	}
	text := func(string) string { return "Text." }
	n := 0
	run := func(data []byte) service.ImportPreviewResult {
		t.Helper()
		pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "ck.md", Data: data})
		if err != nil {
			t.Fatalf("preview: %v", err)
		}
		n++
		if pv.Counts.Create+pv.Counts.Update > 0 {
			if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: fmt.Sprint("k", n)}); err != nil {
				t.Fatal(err)
			}
		}
		return pv
	}
	items := func() map[string]core.WorkItem {
		t.Helper()
		refs := make([]core.Reference, len(cases))
		for i, c := range cases {
			refs[i] = core.Reference("ck/" + c)
		}
		found, err := f.p.Lookup(f.ctx, refs, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]core.WorkItem{}
		for ref, w := range found {
			out[strings.TrimPrefix(string(ref), "ck/")] = w
		}
		return out
	}
	run(doc(first, text))
	for _, c := range []string{"kept", "conflict", "same"} {
		edit := map[string]json.RawMessage{}
		for _, k := range customKindsHTTP {
			edit[k.name] = json.RawMessage(k.person)
		}
		if err := f.srv.EditAsPerson(items()[c].Key, jiratest.PersonEdit{Fields: edit}); err != nil {
			t.Fatal(err)
		}
	}
	// The kept story also changes its text, so that it is written.
	pv := run(doc(next, func(c string) string { return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept"] }))
	rows := map[string]service.PlanItem{}
	for _, it := range pv.Items {
		rows[strings.TrimPrefix(string(it.Reference), "ck/")] = it
	}
	wantAction := map[string]core.Action{"kept": core.ActionUpdate, "written": core.ActionUpdate, "conflict": core.ActionDrift, "same": core.ActionUnchanged}
	wantWrite := map[string]string{"kept": "kept", "written": "set", "conflict": "conflict", "same": "unchanged"}
	for _, c := range cases {
		if rows[c].Action != wantAction[c] {
			t.Errorf("%s: action %s; want %s", c, rows[c].Action, wantAction[c])
		}
		for _, k := range customKindsHTTP {
			key := core.FieldCustomPrefix + k.name
			var write string
			for _, r := range rows[c].Fields {
				if r.Field == key {
					write = string(r.Write)
				}
			}
			if write != wantWrite[c] {
				t.Errorf("%s %s: write %q; want %q", c, k.name, write, wantWrite[c])
			}
			var ch *service.FieldChange
			for i := range rows[c].Changes {
				if rows[c].Changes[i].Field == key {
					ch = &rows[c].Changes[i]
				}
			}
			switch c {
			case "written":
				if ch == nil || ch.From != strings.Join(k.c0, ", ") || ch.Conflict {
					t.Errorf("%s %s: change %+v; want from %q", c, k.name, ch, k.c0)
				}
			case "conflict":
				if ch == nil || !ch.Conflict || ch.Tracker == nil || ch.Base != strings.Join(k.c0, ", ") || ch.Tracker.To != strings.Join(k.cJ, ", ") || ch.Document == nil {
					t.Errorf("%s %s: change %+v; want a conflict from %q to the person's %q", c, k.name, ch, k.c0, k.cJ)
				}
			default:
				if ch != nil {
					t.Errorf("%s %s: change %+v; want none", c, k.name, ch)
				}
			}
		}
	}
	now := items()
	for _, k := range customKindsHTTP {
		key := core.FieldCustomPrefix + k.name
		for c, want := range map[string][]string{"kept": k.cJ, "written": k.cD, "conflict": k.cJ, "same": k.cJ} {
			if got := now[c].Fields[key]; !slices.Equal(got, want) {
				t.Errorf("after the commit, %s %s = %q; want %q", c, k.name, got, want)
			}
		}
		if b := now["kept"].FieldBases[key]; b != core.FieldDigest(k.c0) {
			t.Errorf("kept %s: base %s; want the one DevWorkWire wrote", k.name, b)
		}
	}
	// Both moved the same way: the next write moves the base forward, and
	// the document's next change is written. The conflict is taken.
	run(doc(next, func(c string) string {
		return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept" || c == "same"]
	}))
	for _, k := range customKindsHTTP {
		if b := items()["same"].FieldBases[core.FieldCustomPrefix+k.name]; b != core.FieldDigest(k.cJ) {
			t.Errorf("same %s: base %s; want moved forward to %q", k.name, b, k.cJ)
		}
	}
	last := func(c string, k customKind) string {
		if c == "same" {
			return k.vD
		}
		return next(c, k)
	}
	data := strings.Replace(string(doc(last, func(c string) string {
		return map[bool]string{true: "Text changed.", false: "Text."}[c == "kept" || c == "same"]
	})), "### Story conflict: Story conflict\n", "### Story conflict: Story conflict\nDrift: take-document\n", 1)
	run([]byte(data))
	now = items()
	for _, k := range customKindsHTTP {
		key := core.FieldCustomPrefix + k.name
		if got := now["same"].Fields[key]; !slices.Equal(got, k.cD) {
			t.Errorf("same %s after the document's change = %q; want %q", k.name, got, k.cD)
		}
		if got := now["conflict"].Fields[key]; !slices.Equal(got, k.cD) {
			t.Errorf("conflict %s after take-document = %q; want %q", k.name, got, k.cD)
		}
	}
}

// A value that is not allowed but looks like a misspelling of one that is
// gets "did you mean" (one swap, one letter, any case); a value near none,
// or equally near two, gets none.
func TestClosestAllowedValue(t *testing.T) {
	allowed := []string{"Highest", "High", "Medium", "Low", "Lowest"}
	for v, want := range map[string]string{
		"Hihg":   ` (did you mean "High"?)`,
		"hgh":    ` (did you mean "High"?)`,
		"Meduim": ` (did you mean "Medium"?)`,
		"lowst":  ` (did you mean "Lowest"?)`,
		"Urgent": "",
		"Lo":     ` (did you mean "Low"?)`,
		"Hi":     "",
	} {
		if got := closestAllowed(v, allowed); got != want {
			t.Errorf("closestAllowed(%q) = %q; want %q", v, got, want)
		}
	}
	if got := closestAllowed("2027.3", []string{"2027.1", "2027.2"}); got != "" {
		t.Errorf("a value as near to two allowed values got %q; want none", got)
	}
}

// reassignedInJira imports a story assigned to Ana Lima (by e-mail) into
// companySite, then a person assigns it to Bo Berg (acc-bo) in Jira.
func reassignedInJira(t *testing.T) (*fixture, *service.WorkItemService, string) {
	t.Helper()
	f := companySite(t, nil)
	svc := newService(f.p, service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Team"}}})
	path := t.TempDir() + "/team.md"
	if err := os.WriteFile(path, []byte("---\nid: team\n---\n## Story s-1: Pay\nTeam: Payments\nComponents: Payments\nAssignee: ana@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	importCommitted(t, f.ctx, svc, service.ImportPreviewInput{Path: path}, "")
	if err := f.srv.EditAsPerson(f.srv.Issues()[0].Key, jiratest.PersonEdit{Fields: map[string]json.RawMessage{"assignee": json.RawMessage(`{"accountId":"acc-bo"}`)}}); err != nil {
		t.Fatal(err)
	}
	return f, svc, path
}

// A re-import preview that keeps a person's change in Jira shows it by the
// display name Jira gave with the item, not as a bare account id.
func TestImportPreviewNamesThePersonJiraKept(t *testing.T) {
	f, svc, path := reassignedInJira(t)
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var row *service.PlanField
	for _, e := range pv.Items {
		for i := range e.Fields {
			if e.Fields[i].Field == core.FieldAssignee {
				row = &e.Fields[i]
			}
		}
	}
	if row == nil || row.Write != service.WriteKept || row.Tracker != "Bo Berg (acc-bo)" {
		t.Errorf("assignee row %+v; want Jira's change kept, shown as Bo Berg (acc-bo)", row)
	}
}

// A read item shows each person of its fields by the display name Jira
// gave in the same answer, followed by the account id (no extra read); the
// value stays the id.
func TestReadItemNamesItsPeople(t *testing.T) {
	f := companySite(t, nil)
	svc := newService(f.p, service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Team", "Reviewer"}}})
	key, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Pay", Fields: map[string]json.RawMessage{
		"assignee": json.RawMessage(`{"accountId":"acc-ana"}`), "Reviewer": json.RawMessage(`{"accountId":"acc-bo"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	searches := f.srv.CountRequests("GET", "/rest/api/3/user/search") + f.srv.CountRequests("GET", "/rest/api/3/user")
	res, err := svc.Get(f.ctx, service.GetInput{Item: key})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]service.ItemField{}
	for _, fl := range res.Item.Fields {
		got[fl.Field] = fl
	}
	if a := got["assignee"]; a.Value != "acc-ana" || a.Shown != "Ana Lima (acc-ana)" {
		t.Errorf("assignee %+v; want value acc-ana shown as Ana Lima (acc-ana)", a)
	}
	if r := got["fields.Reviewer"]; r.Value != "acc-bo" || !strings.HasSuffix(r.Shown, " (acc-bo)") || strings.HasPrefix(r.Shown, "acc-bo") {
		t.Errorf("Reviewer %+v; want value acc-bo shown by name", r)
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/user/search") + f.srv.CountRequests("GET", "/rest/api/3/user") - searches; n != 0 {
		t.Errorf("reading the item sent %d user reads; want none", n)
	}
}
