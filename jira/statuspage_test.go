package jira

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// An unreachable Jira is named by host; Atlassian's status page is
// suggested only for sites Atlassian hosts.
func TestUnavailableNamesTheHostAndStatusPageOnlyForAtlassian(t *testing.T) {
	for host, want := range map[string]bool{"acme.atlassian.net": true, "api.atlassian.com": true, "localhost:8080": false, "jira.example.com": false} {
		p := &Provider{base: &url.URL{Scheme: "https", Host: host}}
		if got := p.statusPage(" and ") != ""; got != want {
			t.Errorf("%s: status page suggested = %v, want %v", host, got, want)
		}
	}
	p, err := New(Config{BaseURL: "http://127.0.0.1:1", SiteURL: "http://127.0.0.1:1", Email: "a@b.c", Token: "t-not-secret", Project: "DEMO"})
	if err != nil {
		t.Fatal(err)
	}
	p.sleep = func(context.Context, time.Duration) error { return nil }
	_, err = p.Get(context.Background(), "DEMO-1")
	e := core.AsError(err)
	if e.Code != core.CodeJiraUnavailable || !strings.Contains(e.Message, "Jira at 127.0.0.1:1 did not answer") || strings.Contains(e.Message, "status.atlassian.com") {
		t.Fatalf("unreachable local Jira: %v", err)
	}
}

// CheckPermissions asks only for the permissions a preview's writes need
// and names the missing ones.
func TestCheckPermissionsOfPlannedWrites(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.srv.SetPermissions(f.srv.ProjectKey(), jiratest.Permissions{Browse: true, Create: true, Edit: true})
	if err := f.p.CheckPermissions(f.ctx, []core.Permission{core.PermissionCreate, core.PermissionEdit}); err != nil {
		t.Fatalf("create and edit are granted: %v", err)
	}
	err := f.p.CheckPermissions(f.ctx, []core.Permission{core.PermissionCreate, core.PermissionComment})
	e := core.AsError(err)
	if e == nil || e.Code != core.CodeJiraPermissionDenied || len(e.Details) != 1 || e.Details[0].Field != "ADD_COMMENTS" || !strings.Contains(e.Message, "Add Comments") {
		t.Fatalf("CheckPermissions = %v", err)
	}
	if strings.Contains(e.Message, "TRANSITION_ISSUES") {
		t.Fatalf("named a permission that was not asked for: %s", e.Message)
	}
}
