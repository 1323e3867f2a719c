package jira

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

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
	base, err := parseBase(site, "jira.site")
	if err != nil {
		return "", err
	}
	if client == nil {
		client = newHTTPClient(10 * time.Second)
		client.Timeout = 10 * time.Second
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base.String(), "/")+"/_edge/tenant_info", nil)
	if err != nil {
		return "", core.Wrap(err, core.CodeConfigInvalid, "Could not ask %s for its cloud id.", base.Redacted())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", core.Wrap(err, core.CodeJiraUnavailable, "Jira at %s did not answer (%s). Check the site URL and your network connection.", base.Host, transportKind(err))
	}
	defer resp.Body.Close()
	var ti struct {
		CloudID string `json:"cloudId"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &ti) != nil || !cloudIDShape.MatchString(ti.CloudID) {
		return "", core.Errorf(core.CodeConfigInvalid, "%s did not give its cloud id (GET /_edge/tenant_info answered HTTP %d). Scoped API tokens work with Jira Cloud sites only; check that jira.site is your site's address (https://your-team.atlassian.net).", base.Redacted(), resp.StatusCode)
	}
	return ti.CloudID, nil
}
