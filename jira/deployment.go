package jira

import (
	"context"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// notCloud explains a 404 on the site's first /rest/api/3 request when
// the site is not Jira Cloud: a Jira Data Center or Server site has no
// REST API v3, so every request there answers 404, which alone reads as
// a wrong project key. GET /rest/api/2/serverInfo (on Cloud and Data
// Center alike) says which it is (deploymentType: "Cloud", or "Server" on
// Data Center and Server). Any other error, or a Cloud site, is returned
// as it was; the probe is made only on that error.
func (p *Provider) notCloud(ctx context.Context, err error) error {
	if core.ErrorCode(err) != core.CodeConfigInvalid {
		return err
	}
	var info struct {
		DeploymentType string `json:"deploymentType"`
		Version        string `json:"version"`
	}
	if _, perr := p.do(ctx, call{method: "GET", path: "/rest/api/2/serverInfo", endpoint: "GET /rest/api/2/serverInfo", action: "read what kind of Jira site " + p.site + " is"}, &info); perr != nil {
		return err
	}
	dt := strings.TrimSpace(info.DeploymentType)
	if dt == "" || strings.EqualFold(dt, "Cloud") {
		return err
	}
	msg := "The site " + p.site + " is Jira Data Center or Server (deploymentType " + dt
	if info.Version != "" {
		msg += ", version " + info.Version
	}
	msg += "), not Jira Cloud. DevWorkWire works with Jira Cloud only: it uses Jira's REST API v3 and the Atlassian Document Format, which Data Center and Server do not have, so nothing can be read or written there. Set jira.site to a Jira Cloud site (https://<your-site>.atlassian.net)."
	return field("jira.site", core.CodeConfigInvalid, msg)
}
