package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func TestCheckAndDiscoveryErrors(t *testing.T) {
	cases := []struct {
		name    string
		opts    jiratest.Options
		setup   func(*jiratest.Server)
		mod     func(*Config)
		want    core.Code
		has     []string
		hasNot  []string
		details []string // the detail fields, in order, when set
	}{
		{name: "ok", want: ""},
		{name: "reference field by id", mod: func(c *Config) { c.ReferenceField = "customfield_10050" }, want: ""},
		{name: "reference field missing", opts: jiratest.Options{FieldName: "Something Else"}, want: core.CodeReferenceFieldMissing,
			has: []string{`"DevWorkWire Reference"`, "Custom fields", "Short text"}},
		{name: "configured reference field missing: the steps name it", mod: func(c *Config) { c.ReferenceField = "Nope Field" }, want: core.CodeReferenceFieldMissing,
			has: []string{`name it "Nope Field"`}, hasNot: []string{"DevWorkWire Reference"}},
		{name: "reference field id unknown", mod: func(c *Config) { c.ReferenceField = "customfield_99999" }, want: core.CodeReferenceFieldMissing, has: []string{"customfield_99999"}},
		{name: "reference field is not a text field", mod: func(c *Config) { c.ReferenceField = "Summary" }, want: core.CodeReferenceFieldMissing, has: []string{"not a single-line text field"}},
		{name: "unknown project", mod: func(c *Config) { c.Project = "NOPE" }, want: core.CodeConfigInvalid, has: []string{"NOPE"}},
		{name: "unknown issue type", mod: func(c *Config) { c.EpicType = "Initiative" }, want: core.CodeConfigInvalid, has: []string{"Initiative", "Epic, Story"}},
		{name: "wrong token", mod: func(c *Config) { c.Token = "wrong-token-not-secret" }, want: core.CodeJiraUnauthorized, has: []string{"API token"}},
		{name: "required field not filled", setup: func(s *jiratest.Server) { requireUndeclared(t, s) }, want: core.CodeConfigInvalid, has: []string{"Story", "Team", "fields:"}},
		{name: "same-named multi-line decoy field", opts: jiratest.Options{DuplicateFieldName: true}, want: ""},
		{name: "epic type not in the project", setup: func(s *jiratest.Server) { s.SetIssueTypes(s.ProjectKey(), "Story", "Task") }, want: core.CodeConfigInvalid, has: []string{`"Epic"`, "Story, Task"}},
		{name: "cannot browse", setup: func(s *jiratest.Server) {
			s.SetPermissions(s.ProjectKey(), jiratest.Permissions{})
		}, want: core.CodeJiraPermissionDenied, has: []string{"DEMO", "BROWSE_PROJECTS", "CREATE_ISSUES", "ADD_COMMENTS", "administrator"}},
		{name: "cannot transition or comment", setup: func(s *jiratest.Server) {
			s.SetPermissions(s.ProjectKey(), jiratest.Permissions{Browse: true, Create: true, Edit: true})
		}, want: core.CodeJiraPermissionDenied, has: []string{"project DEMO", "TRANSITION_ISSUES", "ADD_COMMENTS", "these permissions"}, hasNot: []string{"CREATE_ISSUES", "EDIT_ISSUES", "BROWSE_PROJECTS"}},
		{name: "cannot edit", setup: func(s *jiratest.Server) {
			s.SetPermissions(s.ProjectKey(), jiratest.Permissions{Browse: true, Create: true, Transition: true, Comment: true})
		}, want: core.CodeJiraPermissionDenied, has: []string{"EDIT_ISSUES (Edit Issues", "project DEMO", "these permissions"}, details: []string{"EDIT_ISSUES", "LINK_ISSUES", "SCHEDULE_ISSUES"}},
		{name: "cannot link or schedule", opts: jiratest.Options{DeniedPermissions: []string{"LINK_ISSUES", "SCHEDULE_ISSUES"}},
			want: core.CodeJiraPermissionDenied, has: []string{"LINK_ISSUES (Link Issues: to link dependencies)", "SCHEDULE_ISSUES (Schedule Issues: to set sprints and rank)"}, details: []string{"LINK_ISSUES", "SCHEDULE_ISSUES"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := startJira(t, tc.opts, tc.mod)
			if tc.setup != nil {
				tc.setup(f.srv)
			}
			err := f.p.Check(f.ctx)
			if got := core.ErrorCode(err); got != tc.want {
				t.Fatalf("Check: %v; want code %q", err, tc.want)
			}
			for _, h := range tc.has {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("Check error %q does not mention %q", err, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(err.Error(), h) {
					t.Errorf("Check error %q mentions %q, which the account has", err, h)
				}
			}
			if tc.details != nil {
				var fields []string
				for _, d := range core.AsError(err).Details {
					fields = append(fields, d.Field)
				}
				if !slices.Equal(fields, tc.details) {
					t.Errorf("details %v; want fields %v", core.AsError(err).Details, tc.details)
				}
			}
			f.assertNoSecrets(t, fmt.Sprint(err))
		})
	}
}

func TestDiscoveryIsCached(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	for i := 0; i < 3; i++ {
		if _, err := f.p.Lookup(f.ctx, []core.Reference{"d/x"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/field"); n != 1 {
		t.Errorf("GET /field sent %d times; want once per Provider", n)
	}
}

func TestPermissionDeniedNamesProjectAndAction(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	_, out, _, _ := f.createAll(t, "perm", 1)
	f.srv.SetPermissions(f.srv.ProjectKey(), jiratest.Permissions{Browse: true, Create: true})
	err := f.p.AddComment(f.ctx, out[0].Key, "hello")
	if core.ErrorCode(err) != core.CodeJiraPermissionDenied || !strings.Contains(err.Error(), "DEMO") || !strings.Contains(err.Error(), "comment") {
		t.Errorf("comment without permission: %v; want JIRA_PERMISSION_DENIED naming project DEMO and the action", err)
	}
	err = f.p.Transition(f.ctx, out[0].Key, jiratest.TransitionDoneID)
	if c := core.ErrorCode(err); c != core.CodeJiraPermissionDenied && c != core.CodeValidationFailed {
		t.Errorf("transition without permission: %v", err)
	}
	f.assertNoSecrets(t, fmt.Sprint(err))
}

func TestCreateMapsPerElementErrors(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs := f.specs("elem", 4)
	specs[1].Title = strings.Repeat("x", 300)
	specs[3].ParentKey = "DEMO-999999"
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if len(out) != 4 {
		t.Fatalf("%d outcomes", len(out))
	}
	for i, o := range out {
		if o.Reference != specs[i].Reference {
			t.Errorf("outcome %d is for %s; want %s", i, o.Reference, specs[i].Reference)
		}
	}
	if out[0].Key == "" || out[2].Key == "" || out[0].Err != nil || out[2].Err != nil {
		t.Errorf("valid items not created: %+v %+v", out[0], out[2])
	}
	for _, i := range []int{1, 3} {
		e := core.AsError(out[i].Err)
		if out[i].Key != "" || e == nil || e.Code != core.CodeValidationFailed || !strings.Contains(e.Message, string(specs[i].Reference)) {
			t.Errorf("outcome %d = %+v; want VALIDATION_FAILED naming %s", i, out[i], specs[i].Reference)
		}
	}
	if !strings.Contains(out[1].Err.Error(), "summary") || !strings.Contains(out[3].Err.Error(), "parent") {
		t.Errorf("element errors do not name the field: %v / %v", out[1].Err, out[3].Err)
	}
	// The created issues are the right ones.
	for _, i := range []int{0, 2} {
		w, err := f.p.Get(f.ctx, out[i].Key)
		if err != nil || w.Reference != specs[i].Reference || w.Title != specs[i].Title {
			t.Errorf("Get(%s) = %+v, %v; want %s", out[i].Key, w, err, specs[i].Reference)
		}
	}
}

func TestCreateBatchesOf50AndLookupPages(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs, out, _, _ := f.createAll(t, "many", 130)
	if n := f.srv.CountRequests("POST", "/rest/api/3/issue/bulk"); n != 3 {
		t.Errorf("%d bulk requests for 130 items; want 3", n)
	}
	// A fresh Provider (no reconcile ids, no known keys) finds them all
	// through search, over several pages, and ignores near matches.
	near := f.specs("many", 1)[0]
	near.Reference = "many/s-1.1"
	if _, err := f.p.Create(f.ctx, []core.ItemSpec{near}); err != nil {
		t.Fatal(err)
	}
	p2, err := New(f.p.cfg)
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]core.Reference, 0, len(specs)+1)
	for _, s := range specs {
		refs = append(refs, s.Reference)
	}
	refs = append(refs, "many/s-404")
	got, err := p2.Lookup(f.ctx, refs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(specs) {
		t.Fatalf("Lookup found %d; want %d", len(got), len(specs))
	}
	for i, s := range specs {
		if got[s.Reference].Key != out[i].Key {
			t.Errorf("Lookup[%s] = %s; want %s", s.Reference, got[s.Reference].Key, out[i].Key)
		}
	}
	if st := p2.Stats(); st.ByEndpoint[searchEndpoint] < 2 {
		t.Errorf("lookup of 131 references used %d searches; want ≥ 2 (batches)", st.ByEndpoint[searchEndpoint])
	}
	assertNoDuplicates(t, f.srv)
}

func TestLookupKnownKeysUnderSearchLag(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	specs, out, _, _ := f.createAll(t, "lag", 2)
	p2 := f.fresh(t) // knows no reconcile ids
	refs := []core.Reference{specs[0].Reference, specs[1].Reference}
	// Search does not show them yet; Lookup finds them all the same, by
	// reading the keys after the newest one search knows (the tail).
	if n := len(searchKeys(t, f, "project = DEMO")); n != 0 {
		t.Fatalf("search shows %d issues; want none (search lags)", n)
	}
	got, err := p2.Lookup(f.ctx, refs, nil)
	if err != nil || got[specs[0].Reference].Key != out[0].Key || got[specs[1].Reference].Key != out[1].Key {
		t.Fatalf("Lookup before search caught up = %v, %v; want both, read by key after the newest searchable key", got, err)
	}
	got, err = p2.Lookup(f.ctx, refs, map[core.Reference]string{specs[0].Reference: out[0].Key, specs[1].Reference: out[1].Key})
	if err != nil || got[specs[0].Reference].Key != out[0].Key || got[specs[1].Reference].Key != out[1].Key {
		t.Fatalf("Lookup with known keys = %v, %v", got, err)
	}
	// The Provider that created them reconciles its own ids.
	got, err = f.p.Lookup(f.ctx, refs, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("Lookup by the creating Provider = %v, %v; want both via reconcileIssues", got, err)
	}
}

func TestJQLValuesStayValues(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	s := f.specs("inj", 1)[0]
	s.Title = `Say "hi" \ back ~ OR AND ORDER BY`
	out, err := f.p.Create(f.ctx, []core.ItemSpec{s})
	if err != nil || out[0].Err != nil {
		t.Fatal(err, out)
	}
	other := f.specs("other", 1)
	if _, err := f.p.Create(f.ctx, other); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{`"hi"`, `back\`, `~`, `OR project = OTHER`, `ORDER BY key`, "two\nlines", `" OR summary ~ "Story`, `\" OR 1=1`, "don't", "it's \"quoted\""} {
		items, _, err := f.p.Query(f.ctx, core.Filter{Document: "inj", Text: text, Limit: 10})
		if err != nil {
			t.Errorf("Query(text %q): %v", text, err)
			continue
		}
		for _, w := range items {
			if w.Reference.Document() != "inj" {
				t.Errorf("Query(text %q) escaped its clause and returned %s", text, w.Reference)
			}
		}
	}
	for _, doc := range []string{`inj" OR project = "DEMO`, `inj\`, "inj\nOR", `~`} {
		items, _, err := f.p.Query(f.ctx, core.Filter{Document: doc, Limit: 10})
		if err != nil || len(items) != 0 {
			t.Errorf("Query(document %q) = %d items, %v; want none", doc, len(items), err)
		}
	}
	refs := []core.Reference{`inj/s-1" OR project = "DEMO`, `x\`, "a\nb", `\"/~`, s.Reference}
	got, err := f.p.Lookup(f.ctx, refs, nil)
	if err != nil || len(got) != 1 || got[s.Reference].Key != out[0].Key {
		t.Errorf("Lookup with hostile references = %v, %v; want only %s", got, err, s.Reference)
	}
	if _, _, err := f.p.Query(f.ctx, core.Filter{EpicKey: `DEMO-1" OR x`}); core.ErrorCode(err) != core.CodeWorkItemNotFound {
		t.Errorf("Query with a malformed epic key: %v", err)
	}
}

func TestDriftAndFingerprint(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	epicSpec := core.ItemSpec{Reference: "drift/e-1", Kind: core.KindEpic, Title: "Epic", Digest: "sha256:e"}
	eo, err := f.p.Create(f.ctx, []core.ItemSpec{epicSpec})
	if err != nil {
		t.Fatal(err)
	}
	s := f.specs("drift", 1)[0]
	s.ParentKey = eo[0].Key
	s.Description = "Some **bold** text, a [link](https://example.com) and a list:\n\n- one\n- two\n\n```go\nfmt.Println(1)\n```"
	out, err := f.p.Create(f.ctx, []core.ItemSpec{s})
	if err != nil {
		t.Fatal(err)
	}
	key := out[0].Key
	w, err := f.p.Get(f.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if w.EditedOutside || w.LastWritten != s.Digest || w.ParentKey != eo[0].Key || w.Kind != core.KindStory {
		t.Fatalf("fresh item: %+v", w)
	}
	if w.URL != f.srv.URL+"/browse/"+key {
		t.Errorf("URL = %q", w.URL)
	}
	e, _ := f.p.Get(f.ctx, eo[0].Key)
	if e.Kind != core.KindEpic || e.EditedOutside {
		t.Errorf("epic: %+v", e)
	}
	// Updating an epic never touches its parent (not DevWorkWire's).
	epicSpec.Title = "Epic renamed"
	if err := f.p.Update(f.ctx, eo[0].Key, epicSpec); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.srv.Requests() {
		if r.Method == "PUT" && strings.HasSuffix(r.Path, "/"+eo[0].Key) && strings.Contains(r.Body, `"parent"`) {
			t.Errorf("epic edit sent a parent: %s", r.Body)
		}
	}
	if e, _ := f.p.Get(f.ctx, eo[0].Key); e.Title != "Epic renamed" || e.EditedOutside {
		t.Errorf("epic after update: %+v", e)
	}
	desc := "Rewritten by a person."
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{DescriptionMarkdownText: &desc}); err != nil {
		t.Fatal(err)
	}
	w2, _ := f.p.Get(f.ctx, key)
	if !w2.EditedOutside || w2.LastWritten != s.Digest || w2.Fingerprint == w.Fingerprint {
		t.Errorf("after a person's description edit: edited=%v last=%q fp same=%v", w2.EditedOutside, w2.LastWritten, w2.Fingerprint == w.Fingerprint)
	}
	// Removing the parent in an update leaves no drift.
	s.ParentKey = ""
	if err := f.p.Update(f.ctx, key, s); err != nil {
		t.Fatal(err)
	}
	w3, _ := f.p.Get(f.ctx, key)
	if w3.ParentKey != "" || w3.EditedOutside {
		t.Errorf("after update without parent: parent=%q edited=%v", w3.ParentKey, w3.EditedOutside)
	}
	// A status change changes the fingerprint but is not drift.
	if err := f.p.Transition(f.ctx, key, jiratest.TransitionDoneID); err != nil {
		t.Fatal(err)
	}
	w4, _ := f.p.Get(f.ctx, key)
	if w4.EditedOutside || w4.Fingerprint == w3.Fingerprint || w4.Status != core.StatusDone {
		t.Errorf("after a transition: %+v", w4)
	}
	// An issue made by a person (no property) counts as edited outside.
	seeded, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "By hand", Reference: "drift/s-9"})
	if err != nil {
		t.Fatal(err)
	}
	w5, _ := f.p.Get(f.ctx, seeded)
	if !w5.EditedOutside || w5.LastWritten != "" {
		t.Errorf("hand-made item: edited=%v last=%q", w5.EditedOutside, w5.LastWritten)
	}
}

func TestSingleCreateAndScopedBaseURL(t *testing.T) {
	f := startJira(t, jiratest.Options{}, func(c *Config) { c.SingleCreate = true })
	p, err := New(Config{BaseURL: f.srv.URL + "/ex/jira/" + jiratest.CloudID, SiteURL: f.srv.URL, Email: f.srv.Email(), Token: f.srv.Token(), Project: f.srv.ProjectKey(), SingleCreate: true, HTTPClient: f.p.client})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Create(f.ctx, f.specs("single", 3))
	if err != nil || len(out) != 3 {
		t.Fatalf("Create: %v %v", out, err)
	}
	if n := f.srv.CountRequests("POST", "/rest/api/3/issue"); n != 3 {
		t.Errorf("%d POST /issue; want 3", n)
	}
	if p.Scope() != f.srv.URL+"/DEMO" {
		t.Errorf("Scope = %q", p.Scope())
	}
	w, err := p.Get(f.ctx, out[0].Key)
	if err != nil || w.URL != f.srv.URL+"/browse/"+out[0].Key {
		t.Errorf("Get = %+v, %v", w, err)
	}
}

func TestRateLimitedServerIsHonoured(t *testing.T) {
	f := startJira(t, jiratest.Options{RateLimit: 50, RateBurst: 3}, func(c *Config) { c.MaxAttempts = 6; c.MaxRetryWait = 10 * time.Second })
	specs, _, _, _ := f.createAll(t, "rl", 5)
	for _, s := range specs {
		if _, err := f.p.Lookup(f.ctx, []core.Reference{s.Reference}, nil); err != nil {
			t.Fatalf("Lookup under rate limiting: %v", err)
		}
	}
	assertNoDuplicates(t, f.srv)
	if !strings.Contains(f.logs.String(), "jira request retry") {
		t.Log("no retry was needed (machine slow enough); the limit was still honoured")
	}
}

func TestCreateRefusedAsAWhole(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	cfg := f.p.cfg
	cfg.Token = "revoked-token-not-secret"
	p2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p2.meta = f.p.meta // discovery happened before the token was revoked
	specs := f.specs("auth", 3)
	out, err := p2.Create(f.ctx, specs)
	if core.ErrorCode(err) != core.CodeJiraUnauthorized {
		t.Fatalf("Create with a revoked token: %v; want JIRA_UNAUTHORIZED", err)
	}
	if len(out) != 3 {
		t.Fatalf("%d outcomes; want 3 (tried and refused)", len(out))
	}
	for _, o := range out {
		if o.Key != "" || o.Unknown || core.ErrorCode(o.Err) != core.CodeJiraUnauthorized {
			t.Errorf("outcome %+v; want refused with JIRA_UNAUTHORIZED", o)
		}
	}
	if n := len(f.srv.Issues()); n != 0 {
		t.Errorf("%d issues created", n)
	}
	f.assertNoSecrets(t, err.Error())
	if strings.Contains(err.Error(), cfg.Token) || strings.Contains(f.logs.String(), cfg.Token) {
		t.Errorf("the revoked token leaked: %v", err)
	}
}

func TestQueryReadsEveryPageAndTruncates(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.createAll(t, "paged", 130)
	before := f.p.Stats().ByEndpoint[searchEndpoint]
	items, trunc, err := f.p.Query(f.ctx, core.Filter{Document: "paged", Limit: 100})
	if err != nil || len(items) != 100 || !trunc {
		t.Fatalf("Query(limit 100 of 130) = %d items, truncated=%v, %v; want 100, true", len(items), trunc, err)
	}
	if n := f.p.Stats().ByEndpoint[searchEndpoint] - before; n != 2 {
		t.Errorf("Query used %d search requests; want 2 (the second page shows there is more)", n)
	}
	items, trunc, err = f.p.Query(f.ctx, core.Filter{Document: "paged", Status: core.StatusTodo, Limit: 100, Text: "Story"})
	if err != nil || len(items) != 100 || !trunc {
		t.Fatalf("Query with status and text = %d, %v, %v", len(items), trunc, err)
	}
	seen := map[string]bool{}
	for _, w := range items {
		if seen[w.Key] {
			t.Fatalf("key %s returned twice across pages", w.Key)
		}
		seen[w.Key] = true
	}
	// The fake's search requests carried the page token.
	tokens := 0
	for _, r := range f.srv.Requests() {
		if r.Path == "/rest/api/3/search/jql" && strings.Contains(r.Body, `"nextPageToken"`) {
			tokens++
		}
	}
	if tokens < 2 {
		t.Errorf("%d search requests carried nextPageToken; want ≥ 2", tokens)
	}
}

func TestDecoyFieldIsNotUsed(t *testing.T) {
	f := startJira(t, jiratest.Options{DuplicateFieldName: true}, nil)
	out, err := f.p.Create(f.ctx, f.specs("decoy", 1))
	if err != nil || out[0].Err != nil {
		t.Fatalf("Create with a same-named decoy field: %v %v", err, out)
	}
	if got := strings.Join(f.p.meta.refIDs, ","); got != jiratest.DefaultFieldID {
		t.Errorf("reference field = %s; want the text field %s, not the decoy %s", got, jiratest.DefaultFieldID, jiratest.DecoyFieldID)
	}
	if is, _ := f.srv.Issue(out[0].Key); is.Reference != "decoy/s-1" {
		t.Errorf("the fake holds reference %q", is.Reference)
	}
}

func TestCreateWithoutPermission(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.srv.SetPermissions(f.srv.ProjectKey(), jiratest.Permissions{Browse: true})
	out, err := f.p.Create(f.ctx, f.specs("noperm", 2))
	if core.ErrorCode(err) != core.CodeJiraPermissionDenied || !strings.Contains(err.Error(), "create issues in project DEMO") || strings.Count(err.Error(), "DEMO") != 2 {
		t.Fatalf("Create without the create permission: %v; want JIRA_PERMISSION_DENIED naming the action and project once", err)
	}
	for _, o := range out {
		if o.Key != "" || o.Unknown || core.ErrorCode(o.Err) != core.CodeJiraPermissionDenied {
			t.Errorf("outcome %+v", o)
		}
	}
	if n := len(f.srv.Issues()); n != 0 {
		t.Errorf("%d issues", n)
	}
}

func TestLookupManyKnownKeysUnderSearchLag(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	specs, out, refs, known := f.createAll(t, "lagmany", 30)
	p2 := f.fresh(t)
	known["lagmany/gone"] = "DEMO-99999" // deleted in Jira: skipped
	refs = append(refs, "lagmany/gone")
	known[specs[0].Reference], known[specs[1].Reference] = out[1].Key, out[0].Key // swapped: references do not match
	got, err := p2.Lookup(f.ctx, refs, known)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 28 {
		t.Errorf("found %d; want the 28 whose known key holds their reference", len(got))
	}
	for i, s := range specs[2:] {
		if got[s.Reference].Key != out[i+2].Key {
			t.Errorf("%s = %q; want %s", s.Reference, got[s.Reference].Key, out[i+2].Key)
		}
	}
	if st := p2.Stats(); st.ByEndpoint[bulkFetchEndpoint] != 1 || st.ByEndpoint["GET /rest/api/3/issue/{key}"] != 0 {
		t.Errorf("reads: %d bulk fetches, %d reads by key; want 1 bulk fetch (31 keys) and none by key", st.ByEndpoint[bulkFetchEndpoint], st.ByEndpoint["GET /rest/api/3/issue/{key}"])
	}
}

// TestLookupKnownKeysBatches: 250 known keys under search lag take 3 bulk
// fetches (100 keys each at most), and each request names at most 100.
func TestLookupKnownKeysBatches(t *testing.T) {
	f := startJira(t, jiratest.Options{SearchLag: time.Hour}, nil)
	_, _, refs, known := f.createAll(t, "batch", 250)
	for r, k := range known {
		known[r] = strings.ToLower(k) // keys in any case
	}
	p2 := f.fresh(t)
	f.srv.ClearRequests()
	got, err := p2.Lookup(f.ctx, refs, known)
	if err != nil || len(got) != 250 {
		t.Fatalf("Lookup = %d found, %v; want 250", len(got), err)
	}
	if n := p2.Stats().ByEndpoint[bulkFetchEndpoint]; n != 3 {
		t.Errorf("%d bulk fetches for 250 keys; want 3", n)
	}
	for _, r := range f.srv.Requests() {
		if r.Path != "/rest/api/3/issue/bulkfetch" {
			continue
		}
		var body struct {
			IssueIdsOrKeys []string `json:"issueIdsOrKeys"`
			Properties     []string `json:"properties"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil || len(body.IssueIdsOrKeys) > 100 || len(body.IssueIdsOrKeys) == 0 || !slices.Equal(body.Properties, []string{PropertyKey}) {
			t.Errorf("bulk fetch body %.200s: %v", r.Body, err)
		}
	}
}

// TestLookupKnownKeysFallbacks: a site without bulk fetch (404) and a bulk
// fetch that reports issueErrors both end in reads by key for what is
// missing, and every reference is still found.
func TestLookupKnownKeysFallbacks(t *testing.T) {
	for _, mode := range []string{"404", "issueErrors"} {
		t.Run(mode, func(t *testing.T) {
			fetches := 0
			var mu sync.Mutex
			fake, p := startBehind(t, jiratest.Options{SearchLag: time.Hour}, func(fake *jiratest.Server) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path != "/rest/api/3/issue/bulkfetch" {
						fake.ServeHTTP(w, r)
						return
					}
					mu.Lock()
					fetches++
					mu.Unlock()
					if mode == "404" {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(404)
						_, _ = w.Write([]byte(`{"errorMessages":["Not found"],"errors":{}}`))
						return
					}
					rec := httptest.NewRecorder()
					fake.ServeHTTP(rec, r)
					var resp struct {
						Issues      []json.RawMessage `json:"issues"`
						IssueErrors []any             `json:"issueErrors"`
					}
					_ = json.Unmarshal(rec.Body.Bytes(), &resp)
					half := len(resp.Issues) / 2
					for range resp.Issues[half:] {
						resp.IssueErrors = append(resp.IssueErrors, map[string]string{"id": "1", "errorMessage": "Retry later"})
					}
					resp.Issues = resp.Issues[:half]
					w.Header().Set("Content-Type", "application/json")
					_ = json.NewEncoder(w).Encode(resp)
				})
			}, nil)
			ctx := context.Background()
			specs := (&fixture{}).specs("fb", 10)
			out, err := p.Create(ctx, specs)
			if err != nil {
				t.Fatal(err)
			}
			p2, _ := New(Config{BaseURL: fake.URL, Email: fake.Email(), Token: fake.Token(), Project: fake.ProjectKey()}) // a second process
			known := map[core.Reference]string{}
			var refs []core.Reference
			for i, s := range specs {
				refs = append(refs, s.Reference)
				known[s.Reference] = out[i].Key
			}
			got, err := p2.Lookup(ctx, refs, known)
			if err != nil || len(got) != 10 {
				t.Fatalf("Lookup = %d found, %v; want 10", len(got), err)
			}
			wantGets := map[string]int{"404": 10, "issueErrors": 5}[mode]
			if n := p2.Stats().ByEndpoint["GET /rest/api/3/issue/{key}"]; n != wantGets || fetches != 1 {
				t.Errorf("%d bulk fetches, %d reads by key; want 1 and %d", fetches, n, wantGets)
			}
		})
	}
}

// TestLookupNamesDuplicateHolders: two issues holding one reference are
// reported — Lookup keeps the one the index knows, else the oldest, and
// names the other in Duplicates (the service warns, naming both).
func TestLookupNamesDuplicateHolders(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	older, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "First", Reference: "dup/s-1"})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Copy", Reference: "dup/s-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		known      map[core.Reference]string
		keep, also string
	}{
		{nil, older, newer},
		{map[core.Reference]string{"dup/s-1": newer}, newer, older},
	} {
		got, err := f.p.Lookup(f.ctx, []core.Reference{"dup/s-1"}, c.known)
		if err != nil {
			t.Fatal(err)
		}
		w := got["dup/s-1"]
		if w.Key != c.keep || len(w.Duplicates) != 1 || w.Duplicates[0] != c.also {
			t.Errorf("known %v: Lookup kept %s with duplicates %v; want %s with [%s]", c.known, w.Key, w.Duplicates, c.keep, c.also)
		}
	}
}

// createAll creates n items of doc and returns the specs, the outcomes, the
// references and the keys by reference (what a dedup index would know).
func (f *fixture) createAll(t *testing.T, doc string, n int) ([]core.ItemSpec, []core.CreateOutcome, []core.Reference, map[core.Reference]string) {
	t.Helper()
	specs := f.specs(doc, n)
	out, err := f.p.Create(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]core.Reference, len(specs))
	known := make(map[core.Reference]string, len(specs))
	for i, s := range specs {
		refs[i] = s.Reference
		known[s.Reference] = out[i].Key
	}
	return specs, out, refs, known
}
