package jira

import (
	"context"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/providertest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestContract runs the WorkItemProvider contract suite against this
// adapter talking HTTP to the fake Jira, with search lagging behind writes
// as Jira's does.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		New: func(t *testing.T) providertest.Tracker {
			f := startJira(t, jiratest.Options{SearchLag: 300 * time.Millisecond}, nil)
			t.Cleanup(func() { assertNoDuplicates(t, f.srv); f.assertNoSecrets(t) })
			return providertest.Tracker{
				Provider: f.p,
				EditTitle: func(_ context.Context, key, title string) error {
					return f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &title})
				},
				Link: func(_ context.Context, blocked, blocker string) error {
					return f.srv.Link(blocked, blocker)
				},
			}
		},
		Eventually: 10 * time.Second,
	})
}
