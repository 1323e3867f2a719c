package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestContract runs the WorkItemProvider contract suite against this
// adapter talking HTTP to the fake Jira, with search lagging behind writes
// as Jira's does.
func TestContract(t *testing.T) {
	providertest.Run(t, func(_ context.Context, tb testing.TB) (providertest.Harness, error) {
		t := tb.(*testing.T) // Run passes its subtests' *testing.T
		f := startJira(t, jiratest.Options{SearchLag: 300 * time.Millisecond}, nil)
		t.Cleanup(func() { assertNoDuplicates(t, f.srv); f.assertNoSecrets(t) })
		return contractHarness{f}, nil
	}, providertest.Options{Eventually: 10 * time.Second})
}

// contractHarness is the adapter over the fake Jira as a
// providertest.Harness.
type contractHarness struct{ f *fixture }

func (h contractHarness) Provider() core.WorkItemProvider { return h.f.p }
func (h contractHarness) EditTitle(_ context.Context, key, title string) error {
	return h.f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &title})
}
func (h contractHarness) Link(_ context.Context, blocked, blocker string) error {
	return h.f.srv.Link(blocked, blocker)
}
func (h contractHarness) Close() error { return nil }

// FutureSprint is the future sprint of the fake's default board.
func (h contractHarness) FutureSprint() string { return h.f.srv.ProjectKey() + " Sprint 2" }

// SetFieldAsPerson sets a built-in field as a person would in Jira.
func (h contractHarness) SetFieldAsPerson(_ context.Context, key, field string, values []string) error {
	var raw string
	id := map[string]string{core.FieldPriority: "priority", core.FieldLabels: "labels", core.FieldDue: "duedate"}[field]
	switch {
	case id == "":
		return fmt.Errorf("contract harness: field %s is not settable here", field)
	case len(values) == 0:
		raw = "null"
	case field == core.FieldPriority:
		raw = fmt.Sprintf(`{"name":%q}`, values[0])
	case field == core.FieldLabels:
		b, _ := json.Marshal(values)
		raw = string(b)
	default:
		raw = fmt.Sprintf("%q", values[0])
	}
	return h.f.srv.EditAsPerson(key, jiratest.PersonEdit{Fields: map[string]json.RawMessage{id: json.RawMessage(raw)}})
}
