package jira

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// createdFields are the fields of every issue the Provider sent to a bulk
// create, by summary.
func createdFields(t *testing.T, srv *jiratest.Server) map[string]map[string]json.RawMessage {
	t.Helper()
	out := map[string]map[string]json.RawMessage{}
	for _, r := range srv.Writes() {
		if r.Method != "POST" || r.Path != "/rest/api/2/issue/bulk" {
			continue
		}
		var body struct {
			IssueUpdates []struct {
				Fields map[string]json.RawMessage `json:"fields"`
			} `json:"issueUpdates"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatal(err)
		}
		for _, u := range body.IssueUpdates {
			var s string
			_ = json.Unmarshal(u.Fields["summary"], &s)
			out[s] = u.Fields
		}
	}
	return out
}

// A plan's epic, story and sub-task go to Data Center in its own terms:
// REST API v2 only, a story's epic in Epic Link (parent for the sub-task
// only), Epic Name on the epic, the description and the criteria as wiki
// markup; they read back as written (the same Markdown, the epic as the
// story's parent, nothing edited outside) and a query by epic finds the
// story.
func TestDataCenterWritesInItsOwnTerms(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{}, nil)
	desc := "Let people **pay** with a `card`.\n\n- one\n- two"
	create := func(s core.ItemSpec) string {
		t.Helper()
		s.Digest = "sha256:" + string(s.Reference)
		out, err := f.p.Create(f.ctx, []core.ItemSpec{s})
		if err != nil || len(out) != 1 || out[0].Key == "" {
			t.Fatalf("Create %s = %+v, %v", s.Reference, out, err)
		}
		return out[0].Key
	}
	epic := create(core.ItemSpec{Reference: "d/e-1", Kind: core.KindEpic, Title: "Payments"})
	story := create(core.ItemSpec{Reference: "d/s-1", Kind: core.KindStory, Title: "Pay by card", Description: desc, AcceptanceCriteria: []string{"a receipt is sent"}, ParentKey: epic})
	sub := create(core.ItemSpec{Reference: "d/s-1/t-1", Kind: core.KindSubtask, Title: "Card form", ParentKey: story})

	for _, r := range f.srv.Requests() {
		if !strings.HasPrefix(r.Path, "/rest/api/2/") && !strings.HasPrefix(r.Path, "/rest/agile/1.0/") {
			t.Errorf("%s %s: not Data Center's REST API v2", r.Method, r.Path)
		}
	}
	sent := createdFields(t, f.srv)
	if _, ok := sent["Pay by card"]["parent"]; ok || string(sent["Pay by card"][jiratest.EpicLinkFieldID]) != `"`+epic+`"` {
		t.Errorf("the story was sent with parent %s and Epic Link %s; want Epic Link %q only", sent["Pay by card"]["parent"], sent["Pay by card"][jiratest.EpicLinkFieldID], epic)
	}
	if !strings.Contains(string(sent["Card form"]["parent"]), story) {
		t.Errorf("the sub-task was sent with parent %s, want %s", sent["Card form"]["parent"], story)
	}
	if string(sent["Payments"][jiratest.EpicNameFieldID]) != `"Payments"` {
		t.Errorf("the epic was sent with Epic Name %s, want its title", sent["Payments"][jiratest.EpicNameFieldID])
	}
	var wikiDesc string
	if err := json.Unmarshal(sent["Pay by card"]["description"], &wikiDesc); err != nil || !strings.Contains(wikiDesc, "*pay*") || !strings.Contains(wikiDesc, "{{card}}") {
		t.Errorf("the description was sent as %s, want wiki markup (*pay*, {{card}})", sent["Pay by card"]["description"])
	}

	w, err := f.p.Get(f.ctx, story)
	if err != nil {
		t.Fatal(err)
	}
	if w.ParentKey != epic || w.Description != desc || !slices.Equal(w.AcceptanceCriteria, []string{"a receipt is sent"}) || w.EditedOutside {
		t.Errorf("the story reads back as parent %q, description %q, criteria %q, edited outside %v", w.ParentKey, w.Description, w.AcceptanceCriteria, w.EditedOutside)
	}
	if s, err := f.p.Get(f.ctx, sub); err != nil || s.ParentKey != story || s.Kind != core.KindSubtask {
		t.Errorf("the sub-task reads back as %+v, %v", s, err)
	}
	items, _, err := f.p.Query(f.ctx, core.Filter{EpicKey: epic})
	if err != nil || len(items) != 1 || items[0].Key != story {
		t.Errorf("Query by epic %s = %+v, %v; want %s", epic, items, err, story)
	}
	// A story moved out of its epic: Epic Link cleared, parent untouched.
	if err := f.p.Update(f.ctx, story, core.ItemSpec{Reference: "d/s-1", Kind: core.KindStory, Title: "Pay by card", Description: desc, AcceptanceCriteria: []string{"a receipt is sent"}, Digest: "sha256:2"}); err != nil {
		t.Fatal(err)
	}
	if w, err := f.p.Get(f.ctx, story); err != nil || w.ParentKey != "" || w.EditedOutside {
		t.Errorf("after the epic was removed: %+v, %v", w, err)
	}
	f.assertNoSecrets(t)
}

// People are named by user name on Data Center: an e-mail resolves to the
// person's user name through the user search (username=), the write names
// them by {"name": …}, and the read gives the user name back.
func TestDataCenterPeopleByUserName(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{}, nil)
	if err := f.srv.ApplyFields(jiratest.FieldSeed{Users: []jiratest.User{{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"}}}); err != nil {
		t.Fatal(err)
	}
	res, err := f.p.ResolveFields(f.ctx, []core.FieldRequest{{Reference: "d/s-1", Kind: core.KindStory, Create: true, Fields: map[string]core.FieldValue{core.FieldAssignee: fv("ana@example.com")}}})
	if err != nil || !slices.Equal(res[0][core.FieldAssignee].Values, []string{"ana"}) {
		t.Fatalf("assignee ana@example.com resolves to %+v, %v; want the user name ana", res, err)
	}
	out, err := f.p.Create(f.ctx, []core.ItemSpec{{Reference: "d/s-1", Kind: core.KindStory, Title: "Mine", Digest: "sha256:x", Fields: res[0]}})
	if err != nil || out[0].Key == "" {
		t.Fatalf("Create = %+v, %v", out, err)
	}
	if got := string(createdFields(t, f.srv)["Mine"]["assignee"]); got != `{"name":"ana"}` {
		t.Errorf("assignee sent as %s, want {\"name\":\"ana\"}", got)
	}
	w, err := f.p.Get(f.ctx, out[0].Key)
	if err != nil || !slices.Equal(w.Fields[core.FieldAssignee], []string{"ana"}) {
		t.Errorf("assignee reads back as %q, %v", w.Fields[core.FieldAssignee], err)
	}
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Path, "/user/") && (strings.Contains(r.Query, "query=") || strings.Contains(r.Query, "accountId=")) {
			t.Errorf("%s %s?%s: Data Center's user searches take username", r.Method, r.Path, r.Query)
		}
	}
}

// Search pages on Data Center go by startAt up to the total: a query over
// more than a page reads every page once and stops at the last.
func TestDataCenterSearchPagesByStartAt(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{}, nil)
	var specs []core.ItemSpec
	for i := range 230 {
		specs = append(specs, core.ItemSpec{Reference: core.Reference("d/s-" + strconv.Itoa(i+1)), Kind: core.KindStory, Title: "Item " + strconv.Itoa(i+1), Digest: "sha256:x"})
	}
	if _, err := f.p.Create(f.ctx, specs); err != nil {
		t.Fatal(err)
	}
	f.srv.ClearRequests()
	all, err := f.p.Lookup(f.ctx, nil, nil) // nothing: no search
	if err != nil || len(all) != 0 {
		t.Fatalf("Lookup() = %v, %v", all, err)
	}
	items, err := f.p.ReadIssues(f.ctx, core.IssueSelection{Project: f.srv.ProjectKey()})
	if err != nil || len(items) != 230 {
		t.Fatalf("ReadIssues = %d items, %v; want 230", len(items), err)
	}
	var starts []int
	for _, r := range f.srv.Requests() {
		if r.Path == "/rest/api/2/search" {
			var body struct {
				JQL     string `json:"jql"`
				StartAt int    `json:"startAt"`
			}
			_ = json.Unmarshal([]byte(r.Body), &body)
			if body.JQL == "project = \"DEMO\" ORDER BY key ASC" {
				starts = append(starts, body.StartAt)
			}
		}
	}
	if !slices.Equal(starts, []int{0, 100, 200}) {
		t.Errorf("search pages started at %v, want [0 100 200]", starts)
	}
}

// Credentials on Data Center: no e-mail is needed, an empty personal
// access token is named as such, and a rejected one says where to make a
// new one in Jira (not Atlassian's Cloud account page) without showing it.
func TestDataCenterCredentials(t *testing.T) {
	if _, err := New(Config{Deployment: DeploymentDataCenter, BaseURL: "https://jira.example.com", Project: "DEMO"}); core.ErrorCode(err) != core.CodeCredentialsMissing || !strings.Contains(err.Error(), "personal access token") {
		t.Errorf("no token: %v", err)
	}
	if _, err := New(Config{Deployment: "server", BaseURL: "https://jira.example.com", Token: "t", Project: "DEMO"}); core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "datacenter") {
		t.Errorf("an unknown deployment: %v", err)
	}
	f := startDataCenter(t, jiratest.Options{}, func(c *Config) { c.Token = "not-the-token-" + strings.Repeat("x", 20) })
	err := f.p.Check(f.ctx)
	if core.ErrorCode(err) != core.CodeJiraUnauthorized || !strings.Contains(err.Error(), "Personal Access Tokens") || strings.Contains(err.Error(), "id.atlassian.com") || strings.Contains(err.Error(), "not-the-token") {
		t.Errorf("a rejected token: %v", err)
	}
	f.assertNoSecrets(t, err.Error())
}

// On a Data Center cluster another node's index can be a moment behind a
// write. The lookup reads the keys the state store knows by a search for
// them; a known key the search does not return is read by itself (GET
// issue reads the issue, not the index), so items just created are found
// although the search does not show them yet.
func TestDataCenterKnownKeysPastALag(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{SearchLag: time.Hour}, nil)
	var specs []core.ItemSpec
	known := map[core.Reference]string{}
	for i := range 5 {
		specs = append(specs, core.ItemSpec{Reference: core.Reference("d/s-" + strconv.Itoa(i+1)), Kind: core.KindStory, Title: "Item", Digest: "sha256:x"})
	}
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	var refs []core.Reference
	for _, o := range out {
		known[o.Reference] = o.Key
		refs = append(refs, o.Reference)
	}
	found, err := f.p.Lookup(f.ctx, refs, known)
	if err != nil || len(found) != 5 {
		t.Fatalf("Lookup of 5 known keys behind a lagging index found %d, %v", len(found), err)
	}
	n := 0
	for _, r := range f.srv.Requests() {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/rest/api/2/issue/DEMO-") {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d issues read by key, want the 5 the search did not show", n)
	}
}

// Rate limiting is an administrator's option on Data Center: off, nothing
// answers 429; on, Jira answers 429 with Retry-After once the bucket is
// empty. Either way the pacer brings 30 items created and read back at
// once through exactly once, and with the limit on Jira did say 429.
func TestDataCenterRateLimitOnAndOff(t *testing.T) {
	for _, on := range []bool{false, true} {
		o := jiratest.Options{}
		if on {
			o.RateLimit, o.RateBurst = 20, 3
		}
		f := startDataCenter(t, o, func(c *Config) { c.MaxRetryWait = 20 * time.Second })
		var specs []core.ItemSpec
		for i := range 30 {
			specs = append(specs, core.ItemSpec{Reference: core.Reference("d/s-" + strconv.Itoa(i+1)), Kind: core.KindStory, Title: "Item", Digest: "sha256:x"})
		}
		out, err := f.p.Create(f.ctx, specs)
		if err != nil {
			t.Fatalf("rate limit %v: %v", on, err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, len(out))
		for _, o := range out {
			if o.Key == "" || o.Err != nil || o.Unknown {
				t.Fatalf("rate limit %v: %+v", on, o)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := f.p.Get(f.ctx, o.Key); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("rate limit %v: Get: %v", on, err)
		}
		limited := 0
		for _, r := range f.srv.Requests() {
			if r.Status == 429 {
				limited++
			}
		}
		if on != (limited > 0) {
			t.Errorf("rate limit %v: %d answers were 429", on, limited)
		}
		assertNoDuplicates(t, f.srv)
	}
}
