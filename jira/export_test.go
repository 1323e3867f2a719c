package jira

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestExportPeopleRoundTripOverHTTP: issues a person assigned in Jira are
// exported with each person as the import reads them back — the
// configuration's users: name, else the e-mail Jira shows, else the
// account id (an e-mail hidden by privacy settings) — and the export's
// import preview through the adapter adopts them all with no change: the
// account id resolves too (Jira's user query matches names and e-mails
// only, so the adapter looks an account id up by itself). One user
// search per person, not per issue.
func TestExportPeopleRoundTripOverHTTP(t *testing.T) {
	f := companySite(t, func(c *Config) { c.Users = map[string]string{"sam": "acc-sam1"} })
	svc := newService(f.p, service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Team", "Reviewer"}, People: map[string]string{"acc-sam1": "sam"}}})
	user := func(acc string) json.RawMessage { return json.RawMessage(`{"accountId":"` + acc + `"}`) }
	for i, people := range [][2]string{{"acc-ana", "acc-bo"}, {"acc-bo", "acc-sam1"}, {"acc-sam1", "acc-ana"}, {"acc-ana", "acc-bo"}} {
		_, err := f.srv.Seed(jiratest.SeedIssue{IssueType: "Story", Summary: "Story " + string(rune('A'+i)), Fields: map[string]json.RawMessage{
			"assignee": user(people[0]), "Reviewer": user(people[1]), "components": json.RawMessage(`[{"name":"Web"}]`), "Team": json.RawMessage(`{"value":"Web"}`)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	searches := f.srv.CountRequests("GET", "/rest/api/3/user/search")
	res, err := svc.Export(f.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.srv.CountRequests("GET", "/rest/api/3/user/search") - searches; n != 3 {
		t.Errorf("the export sent %d user searches; want 3 (one per person)", n)
	}
	for _, want := range []string{"Assignee: ana@example.com\n", "Reviewer: acc-bo\n", "Assignee: acc-bo\n", "Reviewer: sam\n", "Assignee: sam\n", "Reviewer: ana@example.com\n"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the export lacks %q:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "acc-ana") || strings.Contains(res.Text, "acc-sam1") {
		t.Errorf("the export writes an account id for a person with a visible e-mail or a users: name:\n%s", res.Text)
	}
	writes := len(f.srv.Writes())
	pre, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "demo.md", Data: []byte(res.Text)})
	var changed []string // the rows that would change a field or part
	for _, it := range pre.Items {
		if len(it.Changes)+len(it.ChangedFields) > 0 {
			changed = append(changed, fmt.Sprintf("%s %v", it.Key, it.ChangedFields))
		}
	}
	if err != nil || pre.Counts != (service.Counts{Adopt: 4}) || len(pre.Warnings) != 0 || len(changed) > 0 {
		t.Errorf("import preview of the export: %v, counts %+v, warnings %q, changed %q; want 4 adopts with no change\n%s", err, pre.Counts, pre.Warnings, changed, res.Text)
	}
	if len(f.srv.Writes()) != writes {
		t.Error("the export or its preview wrote to Jira")
	}
}

// A refused query's positions are moved from the query sent to the
// person's own text, on its first line and on the others.
func TestInQueryPositionsAreThePersonsOwn(t *testing.T) {
	prefix := `project = "DEMO" AND (`
	for _, c := range []struct{ query, jira, want string }{
		{"status = Done AND foo bar", "Expecting operator but got 'bar'. (line 1, character 45)", "Expecting operator but got 'bar'. (line 1, character 23 of the query)"},
		{"status = Done\nAND foo bar", "Expecting operator but got 'bar'. (line 2, character 9)", "Expecting operator but got 'bar'. (line 2, character 9 of the query)"},
		{"status =", "Expecting a value. (line 1, character 31)", "Expecting a value. (at the end of the query)"},
		{"status = Done", "Something. (line 1, character 3)", "Something. (at a place DevWorkWire added around the query)"},
		{"status = Done", "Field 'x' does not exist.", "Field 'x' does not exist."},
	} {
		got := inQueryPositions(core.Errorf(core.CodeValidationFailed, "%s", c.jira), prefix, c.query)
		if msg := got.(*core.Error).Message; msg != c.want {
			t.Errorf("%q: %q\n got %q\nwant %q", c.query, c.jira, msg, c.want)
		}
	}
	other := core.Errorf(core.CodeJiraUnavailable, "(line 1, character 45)")
	if got := inQueryPositions(other, prefix, "x"); got != other {
		t.Errorf("an error other than a refusal changed: %v", got)
	}
}
