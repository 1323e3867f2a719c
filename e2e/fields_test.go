package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fieldsSeed makes the project a company-style one: Components and a
// custom select Team required on stories, a custom number Risk, people.
const fieldsSeed = `{
 "custom_fields": [{"id": "customfield_10070", "name": "Team", "type": "select", "options": ["Payments", "Web"]},
                   {"id": "customfield_10073", "name": "Risk score", "type": "number"}],
 "users": [{"account_id": "acc-ana", "email": "ana@example.com", "display_name": "Ana Lima"},
           {"account_id": "acc-bo", "email": "bo@example.com", "display_name": "Bo Berg", "email_hidden": true}],
 "components": [{"name": "Payments"}, {"name": "Web"}],
 "versions": [{"name": "2027.1"}],
 "required": [{"issuetype": "Story", "field": "components"}, {"issuetype": "Story", "field": "Team"}]
}`

const fieldsConfig = `fields:
  Team: Team
  Risk: customfield_10073
defaults:
  labels: [checkout]
users:
  bo@example.com: acc-bo
`

const fieldsPlan = `---
id: fields-plan
---
# Fields

## Epic e-1: Guest checkout
Priority: High

Checkout without an account.

### Story s-1: Pay without an account
Assignee: ana@example.com
Labels: guest
Due: 2027-03-01
Priority: Medium
Fix versions: 2027.1
Estimate: 5
Team: Payments
Components: Payments, Web
Risk: 2.5

A guest pays by card.
`

// fieldsEnv is a workspace whose fake Jira and configuration have the
// fields above.
func fieldsEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, envOptions{})
	resp, err := http.Post(e.jira.URL+"/_mockjira/fields", "application/json", strings.NewReader(fieldsSeed))
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("seed fields: %v %v", err, resp)
	}
	resp.Body.Close()
	cfg := filepath.Join(e.dir, ".devworkwire.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.write(".devworkwire.yaml", string(b)+fieldsConfig)
	return e
}

type fieldsPreview struct {
	PreviewHandle string `json:"preview_handle"`
	Counts        struct{ Create, Update, Unchanged, Drift int }
	Warnings      []string `json:"warnings"`
	Items         []struct {
		Reference     string   `json:"reference"`
		Action        string   `json:"action"`
		ChangedFields []string `json:"changed_fields"`
		Fields        []struct {
			Field, Value, Source, Write string
		} `json:"fields"`
	} `json:"items"`
}

func (p fieldsPreview) write(ref, field string) string {
	for _, it := range p.Items {
		for _, f := range it.Fields {
			if it.Reference == ref && f.Field == field {
				return f.Write + " " + f.Value + " (" + f.Source + ")"
			}
		}
	}
	return ""
}

// jiraFields returns the admin view of every issue's fields, by summary.
func (e *env) jiraFields() map[string]map[string][]string {
	e.t.Helper()
	resp, err := http.Get(e.jira.URL + "/_mockjira/issues")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var issues []struct {
		Key, Summary string
		Labels       []string
		Description  json.RawMessage
		Fields       map[string][]string
	}
	if err := json.NewDecoder(resp.Body).Decode(&issues); err != nil {
		e.t.Fatal(err)
	}
	out := map[string]map[string][]string{}
	for _, is := range issues {
		f := is.Fields
		if f == nil {
			f = map[string][]string{}
		}
		f["key"] = []string{is.Key}
		f["labels"] = is.Labels
		f["description"] = []string{string(is.Description)}
		out[is.Summary] = f
	}
	return out
}

func (e *env) personSetsField(key, body string) {
	e.t.Helper()
	resp, err := http.Post(e.jira.URL+"/_mockjira/issues/"+key+"/edit", "application/json", bytes.NewReader([]byte(body)))
	if err != nil || resp.StatusCode != http.StatusOK {
		e.t.Fatalf("person edit: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestFieldsThroughBothDoors: a plan with every built-in field and two
// custom fields goes into a project where Components and a custom select
// are required — refused at the preview when they are missing (zero
// writes), written when set; then a person reassigns the story in Jira
// while the document changes the description: the description is
// updated, the assignee kept, and the preview says so. Through the CLI
// and through `dwire mcp`.
func TestFieldsThroughBothDoors(t *testing.T) {
	for _, door := range []string{"cli", "mcp"} {
		t.Run(door, func(t *testing.T) {
			e := fieldsEnv(t)
			preview := func(path string) (fieldsPreview, map[string]any) {
				t.Helper()
				var pv fieldsPreview
				if door == "cli" {
					r := e.dwireJSON(&pv, "import", path, "--dry-run")
					if r.code != 0 {
						return pv, errorOf(t, r)
					}
					return pv, nil
				}
				cs, _ := e.mcp()
				return pv, e.call(cs, "import_preview", map[string]any{"path": path}, &pv)
			}
			commit := func(path string, pv fieldsPreview) {
				t.Helper()
				if door == "cli" {
					if r := e.dwirePTY("y\r", "import", path); r.code != 0 {
						t.Fatalf("import: %s", r)
					}
					return
				}
				cs, _ := e.mcp()
				if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": newKey()}, nil); d != nil {
					t.Fatalf("import_commit: %v", d)
				}
			}

			// Required fields missing: refused, naming item and field.
			e.write("missing.md", strings.NewReplacer("Components: Payments, Web\n", "", "Team: Payments\n", "", "Priority: Medium\n", "Priority: Urgent\n").Replace(fieldsPlan))
			_, d := preview("missing.md")
			if d == nil || d["code"] != "VALIDATION_FAILED" {
				t.Fatalf("preview without the required fields: %v; want VALIDATION_FAILED", d)
			}
			msg, _ := json.Marshal(d)
			for _, want := range []string{"Components is required for Story issues in project DEMO", "Team is required", `\"Urgent\" is not allowed in Jira; allowed: Highest, High, Medium, Low, Lowest`, "fields-plan/s-1"} {
				if !strings.Contains(string(msg), want) {
					t.Errorf("refusal lacks %q: %s", want, msg)
				}
			}
			if w := e.writes(); w != 0 {
				t.Fatalf("a refused preview made %d writes", w)
			}

			e.write("plan.md", fieldsPlan)
			pv, d := preview("plan.md")
			if d != nil {
				t.Fatalf("preview: %v", d)
			}
			if got := pv.write("fields-plan/s-1", "labels"); got != "set checkout, guest (item+config)" {
				t.Errorf("labels row %q", got)
			}
			commit("plan.md", pv)
			s1 := e.jiraFields()["Pay without an account"]
			for k, want := range map[string][]string{
				"priority": {"Medium"}, "assignee": {"acc-ana"}, "components": {"Payments", "Web"}, "fixVersions": {"2027.1"},
				"duedate": {"2027-03-01"}, "customfield_10016": {"5"}, "customfield_10070": {"Payments"}, "customfield_10073": {"2.5"},
				"labels": {"checkout", "guest"},
			} {
				if !slices.Equal(s1[k], want) {
					t.Errorf("Jira %s = %q; want %q", k, s1[k], want)
				}
			}

			// A person reassigns; the document changes the description.
			e.personSetsField(s1["key"][0], `{"fields": {"assignee": {"accountId": "acc-bo"}}}`)
			e.write("plan.md", strings.Replace(fieldsPlan, "A guest pays by card.", "A guest pays by card or wallet.", 1))
			pv, d = preview("plan.md")
			if d != nil {
				t.Fatalf("second preview: %v", d)
			}
			if pv.Counts.Update != 1 || pv.Counts.Drift != 0 {
				t.Errorf("counts %+v; want the story updated, nothing in drift", pv.Counts)
			}
			if got := pv.write("fields-plan/s-1", "assignee"); !strings.HasPrefix(got, "kept ") {
				t.Errorf("assignee row %q; want kept", got)
			}
			if all := strings.Join(pv.Warnings, "\n"); !strings.Contains(all, "Assignee changed in the tracker") || !strings.Contains(all, "kept Jira's change") {
				t.Errorf("warnings do not say the assignee is kept: %s", all)
			}
			commit("plan.md", pv)
			s1 = e.jiraFields()["Pay without an account"]
			if !slices.Equal(s1["assignee"], []string{"acc-bo"}) || !strings.Contains(s1["description"][0], "or wallet") {
				t.Errorf("after the commit: assignee %q, description %s; want acc-bo kept and the new description", s1["assignee"], s1["description"])
			}
			e.noDuplicates()
		})
	}
}
