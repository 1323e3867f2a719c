package jira

import (
	"context"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/providertest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// startDataCenter starts a fake Jira Data Center and a Provider configured
// for it (mod may adjust the config further).
func startDataCenter(t *testing.T, o jiratest.Options, mod func(*Config)) *fixture {
	t.Helper()
	o.Deployment = jiratest.DeploymentDataCenter
	return startJira(t, o, func(c *Config) {
		c.Deployment, c.Email = DeploymentDataCenter, ""
		if mod != nil {
			mod(c)
		}
	})
}

// TestContractDataCenter runs the WorkItemProvider contract suite, as it
// is, against the adapter configured for Jira Data Center, over HTTP to
// the fake's Data Center deployment (REST API v2, a personal access token,
// wiki markup, Epic Link, search with startAt). Data Center indexes an
// issue on the node that wrote it before the write returns, so the fake's
// Data Center search does not lag here (TestDataCenterKnownKeysPastALag:
// what holds when a cluster node's index is behind).
func TestContractDataCenter(t *testing.T) {
	providertest.Run(t, func(_ context.Context, tb testing.TB) (providertest.Harness, error) {
		t := tb.(*testing.T)
		f := startDataCenter(t, jiratest.Options{}, nil)
		t.Cleanup(func() { assertNoDuplicates(t, f.srv); f.assertNoSecrets(t) })
		return contractHarness{f}, nil
	}, providertest.Options{Eventually: 10 * time.Second})
}
