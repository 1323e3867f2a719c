package jira

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// An unreachable Jira is named by host; Atlassian's status page is
// suggested only for sites Atlassian hosts (issue 19 #11).
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
