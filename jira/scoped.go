package jira

import (
	"context"
	"net/http"
	"regexp"

	"github.com/devworkwire/devworkwire/core"
)

// Scoped API tokens (Jira Cloud) are sent as Basic auth like classic ones,
// but only through Atlassian's gateway, https://api.atlassian.com/ex/jira/
// {cloudId}, not the site's own address (Atlassian's "Manage API tokens for
// your Atlassian account"). The cloud id is the site's: Atlassian's edge
// answers it at https://<site>/_edge/tenant_info without credentials.

// GatewayHost is Atlassian's API gateway, the base of a scoped token's URL.
const GatewayHost = "https://api.atlassian.com"

// GatewayURL is the REST base URL of the site with cloud id for scoped API
// tokens (jira.api_url).
func GatewayURL(cloudID string) string { return GatewayHost + "/ex/jira/" + cloudID }

var cloudIDShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// FindCloudID asks a Jira Cloud site for its cloud id (GET
// /_edge/tenant_info, no credentials), so nobody has to build the gateway
// URL by hand. client nil uses a client with a 10 s timeout.
func FindCloudID(ctx context.Context, site string, client *http.Client) (string, error) {
	var ti struct {
		CloudID string `json:"cloudId"`
	}
	base, status, ok, err := askSite(ctx, site, "/_edge/tenant_info", "for its cloud id", client, &ti)
	if err != nil {
		return "", err
	}
	if !ok || !cloudIDShape.MatchString(ti.CloudID) {
		return "", core.Errorf(core.CodeConfigInvalid, "%s did not give its cloud id (GET /_edge/tenant_info answered HTTP %d). Scoped API tokens work with Jira Cloud sites only; check that jira.site is your site's address (https://your-team.atlassian.net).", base.Redacted(), status)
	}
	return ti.CloudID, nil
}
