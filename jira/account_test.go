package jira

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Account names the account of the credentials (GET myself: its id and
// display name, not its e-mail address), read once per Provider.
func TestAccountIsReadOnceFromMyself(t *testing.T) {
	_, p := startBehind(t, jiratest.Options{DisplayName: "Ana Lima"}, func(f *jiratest.Server) http.Handler { return f }, nil)
	for range 2 {
		a, err := p.Account(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if a.ID != jiratest.DemoAccountID || a.Name != "Ana Lima" {
			t.Errorf("Account = %+v; want %s, Ana Lima", a, jiratest.DemoAccountID)
		}
	}
	if n := p.Stats().ByEndpoint["GET /rest/api/3/myself"]; n != 1 {
		t.Errorf("GET myself sent %d times; want once", n)
	}
}

// A commit right after its preview in one process sends no request for
// the account its audit records name: the preview read it alongside its
// permission check (the same round trip), and the audit still names it.
func TestCommitAfterItsPreviewReadsNoAccount(t *testing.T) {
	srv := jiratest.Start(t, jiratest.Options{DisplayName: "Ana Lima"})
	p, err := New(Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey()})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New(memstore.Options{})
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: st})
	ctx := t.Context()
	doc := "---\nid: who\n---\n## Epic e-1: Epic\n\n### Story s-1: Story\n"
	pv, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "who.md", Data: []byte(doc)})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	srv.ClearRequests()
	if _, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k"}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if n := srv.CountRequests("GET", "/rest/api/3/myself"); n != 0 {
		t.Errorf("the commit sent GET myself %d times; want 0 (the preview read the account)", n)
	}
	recs, _, err := st.ListAudit(ctx, core.AuditFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, r := range recs {
		if r.Event == core.AuditCommitStarted || r.Event == core.AuditCommitFinished {
			if r.Account == nil || r.Account.ID != jiratest.DemoAccountID || r.Account.Name != "Ana Lima" {
				t.Errorf("%s record names account %+v; want %s, Ana Lima", r.Event, r.Account, jiratest.DemoAccountID)
			}
			named++
		}
	}
	if named != 2 {
		t.Errorf("%d commit records in the audit trail; want started and finished", named)
	}
}

// accountTestDoc is a plan of two creates.
const accountTestDoc = "---\nid: who\n---\n## Epic e-1: Epic\n\n### Story s-1: Story\n"

// commitRecords checks that the audit trail's commit records of st name
// the account id with the display name, and returns how many there are.
func commitRecords(t *testing.T, st core.AuditStore, id, name string) int {
	t.Helper()
	recs, _, err := st.ListAudit(t.Context(), core.AuditFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r.Event == core.AuditCommitStarted || r.Event == core.AuditCommitFinished {
			if r.Account == nil || r.Account.ID != id || r.Account.Name != name {
				t.Errorf("%s record names account %+v; want %s, %s", r.Event, r.Account, id, name)
			}
			n++
		}
	}
	return n
}

// importOnce previews and commits the plan doc (named path) through a new
// service over p and st, and returns the GET myself requests the preview
// and the commit sent.
func importOnce(t *testing.T, p *Provider, st core.Store, path, doc string) (preview, commit int) {
	t.Helper()
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: st})
	myself := func() int {
		s := p.Stats().ByEndpoint
		return s["GET /rest/api/3/myself"] + s["GET /rest/api/2/myself"]
	}
	before := myself()
	pv, err := svc.ImportPreview(t.Context(), service.ImportPreviewInput{Path: path, Data: []byte(doc)})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	preview = myself() - before
	if _, err := svc.ImportCommit(t.Context(), service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: path}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return preview, myself() - before - preview
}

// Once a store's audit trail names the account, a preview and its commit
// in a new process (a new Provider) send no GET myself: Jira's answers
// name the account's id (X-AAccountId on Cloud, X-AUSERNAME on Data
// Center) and the trail its display name. The commit records both.
func TestPreviewAndCommitOfAKnownAccountReadNoMyself(t *testing.T) {
	for _, dc := range []bool{false, true} {
		name := "cloud"
		if dc {
			name = "datacenter"
		}
		t.Run(name, func(t *testing.T) {
			o := jiratest.Options{DisplayName: "Ana Lima"}
			var f *fixture
			if dc {
				f = startDataCenter(t, o, nil)
			} else {
				f = startJira(t, o, nil)
			}
			st := memstore.New(memstore.Options{})
			pre, com := importOnce(t, f.p, st, "first.md", accountTestDoc)
			if pre+com != 1 {
				t.Errorf("first import of a new store: GET myself sent %d times (preview %d, commit %d); want once", pre+com, pre, com)
			}
			second := f.fresh(t) // a new process: knows nothing
			pre, com = importOnce(t, second, st, "second.md", strings.Replace(accountTestDoc, "id: who", "id: who-2", 1))
			if pre != 0 || com != 0 {
				t.Errorf("import by a new process: GET myself sent by the preview %d, by the commit %d; want 0 and 0", pre, com)
			}
			id := jiratest.DemoAccountID
			if dc {
				id = strings.SplitN(f.srv.Email(), "@", 2)[0] // Data Center's user name
			}
			if n := commitRecords(t, st, id, "Ana Lima"); n != 4 {
				t.Errorf("%d commit records; want 4", n)
			}
		})
	}
}

// A site whose answers name no account (no X-AAccountId) still gets its
// commits' account read, from GET myself, and recorded.
func TestAccountWithoutTheHeaderIsReadFromMyself(t *testing.T) {
	strip := func(f *jiratest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.ServeHTTP(headerless{w}, r)
		})
	}
	_, p := startBehind(t, jiratest.Options{DisplayName: "Ana Lima"}, strip, nil)
	st := memstore.New(memstore.Options{})
	if pre, com := importOnce(t, p, st, "first.md", accountTestDoc); pre+com != 1 {
		t.Errorf("GET myself sent %d times (preview %d, commit %d); want once", pre+com, pre, com)
	}
	if p.SeenAccount().ID != jiratest.DemoAccountID {
		t.Errorf("SeenAccount = %+v after GET myself", p.SeenAccount())
	}
	if n := commitRecords(t, st, jiratest.DemoAccountID, "Ana Lima"); n != 2 {
		t.Errorf("%d commit records; want 2", n)
	}
}

// headerless drops the account headers of the answers written through it.
type headerless struct{ http.ResponseWriter }

func (h headerless) WriteHeader(code int) {
	h.Header().Del("X-AAccountId")
	h.Header().Del("X-AUSERNAME")
	h.ResponseWriter.WriteHeader(code)
}

func (h headerless) Write(b []byte) (int, error) {
	h.Header().Del("X-AAccountId")
	h.Header().Del("X-AUSERNAME")
	return h.ResponseWriter.Write(b)
}

// A preview no commit in this process follows (--dry-run) reads no
// account, even for a store that never named one.
func TestDryRunPreviewReadsNoAccount(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: f.p, Store: memstore.New(memstore.Options{})})
	if _, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "who.md", Data: []byte(accountTestDoc), DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/myself"); n != 0 {
		t.Errorf("a dry-run preview sent GET myself %d times; want 0", n)
	}
}

// A display name read from Jira more than a week ago no longer stands for
// the account, even where later records named it: the next preview reads
// it again (a name changed in Jira is recorded from then on).
func TestAccountNameIsReadAgainAfterAWeek(t *testing.T) {
	f := startJira(t, jiratest.Options{DisplayName: "Ana Lima"}, nil)
	st := memstore.New(memstore.Options{})
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	run := func(p *Provider, id string) int {
		svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: st, Now: func() time.Time { return now }})
		pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: id + ".md", Data: []byte(strings.Replace(accountTestDoc, "id: who", "id: "+id, 1))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: id}); err != nil {
			t.Fatal(err)
		}
		return p.Stats().ByEndpoint["GET /rest/api/3/myself"]
	}
	if n := run(f.fresh(t), "a"); n != 1 {
		t.Fatalf("first import: GET myself %d times; want 1", n)
	}
	now = now.Add(6 * 24 * time.Hour)
	if n := run(f.fresh(t), "b"); n != 0 {
		t.Errorf("six days later: GET myself %d times; want 0", n)
	}
	now = now.Add(2 * 24 * time.Hour)
	if n := run(f.fresh(t), "c"); n != 1 {
		t.Errorf("eight days after the read, two after the last record: GET myself %d times; want 1", n)
	}
}
