package jira

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

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
