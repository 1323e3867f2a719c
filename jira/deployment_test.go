package jira

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A Jira Data Center site has no REST API v3: every request answers 404,
// which read as "check the project key". Check and discovery of a
// configuration for Cloud say the site is Data Center and to set
// jira.deployment: datacenter; nothing is written.
func TestDataCenterSiteIsNamedNotAWrongProject(t *testing.T) {
	f := startJira(t, jiratest.Options{Deployment: jiratest.DeploymentDataCenter}, nil)
	for name, run := range map[string]func() error{
		"Check":  func() error { return f.p.Check(f.ctx) },
		"Lookup": func() error { _, err := f.p.Lookup(f.ctx, []core.Reference{"d/s-1"}, nil); return err },
	} {
		err := run()
		ce := core.AsError(err)
		if ce == nil || ce.Code != core.CodeConfigInvalid || !strings.Contains(ce.Message, "Data Center") || !strings.Contains(ce.Message, "Jira Cloud") || !strings.Contains(ce.Message, "jira.deployment: datacenter") || strings.Contains(ce.Message, "project key") {
			t.Errorf("%s on a Data Center site: %v", name, err)
		}
	}
	if len(f.srv.Writes()) != 0 {
		t.Error("wrote to a Data Center site")
	}
	// A Cloud site's 404 for a project that does not exist stays as it was.
	g := startJira(t, jiratest.Options{}, func(c *Config) { c.Project = "NOPE" })
	if err := g.p.Check(g.ctx); err == nil || strings.Contains(err.Error(), "Data Center") {
		t.Errorf("a missing project on Cloud: %v", err)
	}
}

// The other way round: a configuration for Data Center pointed at a Jira
// Cloud site is told to set jira.deployment: cloud (every request there
// fails, which alone reads as a revoked token or a wrong project).
func TestCloudSiteConfiguredAsDataCenterIsNamed(t *testing.T) {
	f := startJira(t, jiratest.Options{}, func(c *Config) { c.Deployment = DeploymentDataCenter })
	err := f.p.Check(f.ctx)
	ce := core.AsError(err)
	if ce == nil || ce.Code != core.CodeConfigInvalid || !strings.Contains(ce.Message, "jira.deployment: cloud") || len(ce.Details) == 0 || ce.Details[0].Field != "jira.deployment" {
		t.Errorf("Check of a Cloud site configured as Data Center: %v", err)
	}
	if len(f.srv.Writes()) != 0 {
		t.Error("wrote to the site")
	}
	f.assertNoSecrets(t, err.Error())
}

// DetectDeployment reads serverInfo without credentials: Cloud, or Data
// Center (deploymentType Server) with its version; a site that is not
// Jira is a configuration error naming the site.
func TestDetectDeployment(t *testing.T) {
	for _, tc := range []struct{ deployment, want string }{{"", DeploymentCloud}, {jiratest.DeploymentDataCenter, DeploymentDataCenter}} {
		srv := jiratest.Start(t, jiratest.Options{Deployment: tc.deployment})
		got, version, err := DetectDeployment(t.Context(), srv.URL, nil)
		if err != nil || got != tc.want || version == "" {
			t.Errorf("DetectDeployment(%q site) = %q, %q, %v; want %q", tc.deployment, got, version, err, tc.want)
		}
		for _, r := range srv.Requests() {
			if r.Path != "/rest/api/2/serverInfo" {
				t.Errorf("DetectDeployment sent %s %s", r.Method, r.Path)
			}
		}
	}
	notJira := httptest.NewServer(http.NotFoundHandler())
	defer notJira.Close()
	if _, _, err := DetectDeployment(t.Context(), notJira.URL, nil); core.ErrorCode(err) != core.CodeConfigInvalid || !strings.Contains(err.Error(), "jira.site") {
		t.Errorf("a site that is not Jira: %v", err)
	}
}

// TestFindCloudIDAndTheGateway: the site's cloud id is found without
// credentials, and a Provider whose base is the gateway URL built from
// it works; a site that gives no cloud id is CONFIG_INVALID naming why.
func TestFindCloudIDAndTheGateway(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	id, err := FindCloudID(f.ctx, f.srv.URL, nil)
	if err != nil || id != jiratest.CloudID {
		t.Fatalf("FindCloudID = %q, %v; want %s", id, err, jiratest.CloudID)
	}
	if GatewayURL(id) != "https://api.atlassian.com/ex/jira/"+id {
		t.Errorf("GatewayURL = %s", GatewayURL(id))
	}
	p, err := New(Config{BaseURL: f.srv.URL + "/ex/jira/" + id, SiteURL: f.srv.URL, Email: f.srv.Email(), Token: f.srv.Token(), Project: f.srv.ProjectKey(), HTTPClient: f.p.client})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(f.ctx); err != nil {
		t.Errorf("Check through the gateway path: %v", err)
	}
	dc := httptest.NewServer(http.NotFoundHandler())
	defer dc.Close()
	if _, err := FindCloudID(context.Background(), dc.URL, nil); core.ErrorCode(err) != core.CodeConfigInvalid {
		t.Errorf("a site without tenant_info: %v; want CONFIG_INVALID", err)
	}
}
