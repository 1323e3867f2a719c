package jira

import (
	"net/http"
	"testing"

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
