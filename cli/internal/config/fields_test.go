package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

func TestParseFieldsDefaultsUsers(t *testing.T) {
	c, err := Parse("/w/.devworkwire.yaml", []byte(good+`  estimate_field: Story Points
fields:
  Team: customfield_10070
  Release train: Train
defaults:
  labels: [checkout]
  priority: Medium
  fields: {Team: Payments}
users:
  ana@example.com: 5b10ac8d82e05b22cc7d4ef5
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.CustomFields["Team"] != "customfield_10070" || c.EstimateField != "Story Points" || c.Users["ana@example.com"] != "5b10ac8d82e05b22cc7d4ef5" {
		t.Errorf("config %+v", c)
	}
	if got := c.CustomNames(); !slices.Equal(got, []string{"Release train", "Team"}) {
		t.Errorf("custom names %v", got)
	}
	d := c.Defaults
	if d.Priority.Value != "Medium" || d.Priority.From != plan.SourceConfig || !slices.Equal(d.Labels.Value, []string{"checkout"}) || d.Custom["Team"].Value != "Payments" {
		t.Errorf("defaults %+v", d)
	}
}

func TestParseFieldsInvalid(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, field, has string }{
		"built-in name":  {"fields:\n  Priority: customfield_1\n", "fields.Priority", "built-in field"},
		"bad name":       {"fields:\n  \"1st\": customfield_1\n", "fields.1st", "not a field name"},
		"empty id":       {"fields:\n  Team: \"\"\n", "fields.Team", "names no Jira field"},
		"bad account":    {"users:\n  ana@example.com: \"not an id\"\n", "users.ana@example.com", "account id"},
		"unknown key":    {"defaults:\n  priorty: High\n", "defaults.priorty", `did you mean "priority"`},
		"undeclared":     {"defaults:\n  fields: {Team: Web}\n", "defaults.fields.Team", "Team"},
		"bad estimate":   {"defaults:\n  estimate: lots\n", "defaults.estimate", "number"},
		"defaults shape": {"defaults: [a]\n", "defaults", "mapping"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("/w/.devworkwire.yaml", []byte(good+tc.yaml), env(nil))
			ce := core.AsError(err)
			if ce == nil || ce.Code != core.CodeConfigInvalid || len(ce.Details) == 0 {
				t.Fatalf("err = %v; want CONFIG_INVALID with details", err)
			}
			if !strings.HasPrefix(ce.Details[0].Field, tc.field) || !strings.Contains(ce.Error()+ce.Details[0].Message, tc.has) {
				t.Errorf("err = %v, details %+v; want field %s and %q", err, ce.Details, tc.field, tc.has)
			}
		})
	}
}

// TestParseTransitionFields: jira.transition_fields names the value of a
// transition screen's required field; an empty value is refused, naming
// the setting.
func TestParseTransitionFields(t *testing.T) {
	c, err := Parse("/w/.devworkwire.yaml", []byte(good+"  transition_fields:\n    Resolution: \" Won't Do \"\n"), env(nil))
	if err != nil || c.TransitionFields["Resolution"] != "Won't Do" {
		t.Fatalf("config %+v, %v", c, err)
	}
	_, err = Parse("/w/.devworkwire.yaml", []byte(good+"  transition_fields:\n    Resolution: \" \"\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "jira.transition_fields") {
		t.Errorf("an empty value: %v", err)
	}
}
