package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A Jira Data Center site has no REST API v3: every request answers 404,
// which read as "check the project key". Check and discovery say the site
// is Data Center and that DevWorkWire needs Jira Cloud; nothing is written.
func TestDataCenterSiteIsNamedNotAWrongProject(t *testing.T) {
	f := startJira(t, jiratest.Options{Deployment: jiratest.DeploymentDataCenter}, nil)
	for name, run := range map[string]func() error{
		"Check":  func() error { return f.p.Check(f.ctx) },
		"Lookup": func() error { _, err := f.p.Lookup(f.ctx, []core.Reference{"d/s-1"}, nil); return err },
	} {
		err := run()
		ce := core.AsError(err)
		if ce == nil || ce.Code != core.CodeConfigInvalid || !strings.Contains(ce.Message, "Data Center") || !strings.Contains(ce.Message, "Jira Cloud") || strings.Contains(ce.Message, "project key") {
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
