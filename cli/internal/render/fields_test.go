package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

func TestImportPreviewShowsFields(t *testing.T) {
	p := service.ImportPreviewResult{Document: "pay", Scope: "https://x/DEMO", Items: []service.PlanItem{
		{Reference: "pay/s-1", Kind: core.KindStory, Title: "Pay", Action: core.ActionCreate, Fields: []service.PlanField{
			{Field: "labels", Value: "checkout, guest", Source: "item+document", Write: "set"},
			{Field: "priority", Value: "High", Source: "item", Write: "set"},
			{Field: "fields.Team", Value: "", Cleared: true, Source: "config", Write: "set"},
		}},
		{Reference: "pay/s-2", Kind: core.KindStory, Title: "Save", Action: core.ActionUpdate, Key: "DEMO-2", ChangedFields: []string{"description"}, Fields: []service.PlanField{
			{Field: "assignee", Value: "ana@example.com", Source: "item", Write: "kept", Tracker: "acc-bo"},
			{Field: "priority", Value: "Medium", Source: "item", Write: "conflict", Tracker: "Lowest"},
			{Field: "due", Value: "2027-03-01", Source: "item", Write: "unchanged"},
		}},
	}}
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 200})
	out := b.String()
	lines := strings.Split(out, "\n")
	has := func(want string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) })
	}
	if !has("sets Labels: checkout, guest (item+document) · Priority: High · Team: none (config)") ||
		!has("Assignee: kept Jira's change (acc-bo); the document still says ana@example.com") ||
		!has("Priority: changed in Jira (Lowest) and in the document (Medium): not written") {
		t.Errorf("the fields are not shown as expected:\n%s", out)
	}
	if strings.Contains(out, "Due:") {
		t.Errorf("an unchanged field is listed:\n%s", out)
	}
}
