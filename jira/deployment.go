package jira

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// serverInfo is GET /rest/api/2/serverInfo, which Jira Cloud and Jira Data
// Center (and Server) answer alike, without credentials.
type serverInfo struct {
	DeploymentType string `json:"deploymentType"` // "Cloud"; "Server" on Data Center and Server
	Version        string `json:"version"`
}

// deployment is the configuration's name for the kind of site.
func (si serverInfo) deployment() string {
	switch dt := strings.TrimSpace(si.DeploymentType); {
	case dt == "":
		return ""
	case strings.EqualFold(dt, "Cloud"):
		return DeploymentCloud
	default:
		return DeploymentDataCenter
	}
}

// DetectDeployment asks the site which Jira it is (GET
// /rest/api/2/serverInfo, no credentials): DeploymentCloud or
// DeploymentDataCenter, and its version. dwire init and doctor use it to
// set and check jira.deployment. client nil is a client with a 10-second
// timeout that follows no redirect.
func DetectDeployment(ctx context.Context, site string, client *http.Client) (deployment, version string, err error) {
	var si serverInfo
	base, status, ok, err := askSite(ctx, site, "/rest/api/2/serverInfo", "which Jira it is", client, &si)
	if err != nil {
		return "", "", err
	}
	if !ok || si.deployment() == "" {
		return "", "", core.Errorf(core.CodeConfigInvalid, "%s did not say which Jira it is (GET /rest/api/2/serverInfo answered HTTP %d). Check that jira.site is the address of your Jira site.", base.Redacted(), status)
	}
	return si.deployment(), si.Version, nil
}

// askSite GETs path of site without credentials (client nil: a client
// with a 10-second timeout that follows no redirect) and reads a 200
// answer's JSON into out: ok reports both. what is what the request asks,
// for messages ("which Jira it is"). err is a site URL that is not one or
// a site that did not answer; base is the site's.
func askSite(ctx context.Context, site, path, what string, client *http.Client, out any) (base *url.URL, status int, ok bool, err error) {
	base, err = parseBase(site, "jira.site")
	if err != nil {
		return nil, 0, false, err
	}
	if client == nil {
		client = newHTTPClient(10 * time.Second)
		client.Timeout = 10 * time.Second
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base.String(), "/")+path, nil)
	if err != nil {
		return nil, 0, false, core.Wrap(err, core.CodeConfigInvalid, "Could not ask %s %s.", base.Redacted(), what)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, false, core.Wrap(err, core.CodeJiraUnavailable, "Jira at %s did not answer (%s). Check the site URL and your network connection.", base.Host, transportKind(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return base, resp.StatusCode, resp.StatusCode == http.StatusOK && json.Unmarshal(b, out) == nil, nil
}

// notCloud explains the site's first failed request when the site is not
// the deployment the configuration names: Jira Data Center or Server has
// no REST API v3, so with jira.deployment cloud every request there
// answers 404, which alone reads as a wrong project key; Jira Cloud takes
// no personal access token as a bearer token, so with jira.deployment
// datacenter every request there answers 401, which alone reads as a
// revoked token. GET /rest/api/2/serverInfo says which it is. Any other
// error, or a site of the configured deployment, is returned as it was;
// the probe is made only on those errors.
func (p *Provider) notCloud(ctx context.Context, err error) error {
	code := core.ErrorCode(err)
	if code != core.CodeConfigInvalid && !(p.dataCenter() && code == core.CodeJiraUnauthorized) {
		return err
	}
	// Without credentials: Cloud refuses a request whose credentials it
	// does not take, even to serverInfo.
	deployment, v, perr := DetectDeployment(ctx, p.base.String(), p.client)
	p.count("GET /rest/api/2/serverInfo", false)
	if perr != nil {
		return err
	}
	version := ""
	if v != "" {
		version = ", version " + v
	}
	switch deployment {
	case DeploymentDataCenter:
		if p.dataCenter() {
			return err
		}
		return field("jira.deployment", core.CodeConfigInvalid, "The site "+p.site+" is Jira Data Center or Server"+version+", not Jira Cloud. Set jira.deployment: datacenter (dwire init does when it detects it) and put a personal access token (your Jira profile → Personal Access Tokens) in the token's environment variable; jira.email is not needed there.")
	case DeploymentCloud:
		if !p.dataCenter() {
			return err
		}
		return field("jira.deployment", core.CodeConfigInvalid, "The site "+p.site+" is Jira Cloud, not Jira Data Center. Set jira.deployment: cloud (or leave it out), set jira.email, and put an API token from https://id.atlassian.com/manage-profile/security/api-tokens in the token's environment variable.")
	}
	return err
}

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
