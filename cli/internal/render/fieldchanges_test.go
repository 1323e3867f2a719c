package render

import (
	"github.com/devworkwire/devworkwire/core/service"
)

// fieldChangesPreview has a change of every field kind:
// each built-in field and each custom field type on update rows, title,
// description and criteria, a conflicting field on an update row (with
// and without its base), and drift rows whose conflicts say what the
// person changed in Jira and what the document wants.
func fieldChangesPreview() service.ImportPreviewResult {
	return service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_1", PreviewHandle: "pv_0123456789abcdef0123456789abcdef",
		ExpiresAt: expires, Document: "checkout-v2", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Update: 3, Drift: 2},
		Items: []service.PlanItem{
			{Reference: "checkout-v2/s-1", Kind: "story", Title: "Pay as a guest", Action: "update", Key: "DEMO-2",
				ChangedFields: []string{"priority", "labels", "assignee", "estimate", "components", "fix_versions", "due"},
				Changes: []service.FieldChange{
					{Field: "priority", From: "Medium", To: "High"},
					{Field: "labels", From: "checkout, legacy", To: "checkout, guest", Added: []string{"guest"}, Removed: []string{"legacy"}},
					{Field: "assignee", From: "acc-bo", To: "ana@example.com"},
					{Field: "estimate", From: "3", To: "5"},
					{Field: "components", From: "Payments", To: "Payments, Web", Added: []string{"Web"}},
					{Field: "fix_versions", From: "2027.1", To: "2027.2", Added: []string{"2027.2"}, Removed: []string{"2027.1"}},
					{Field: "due", From: "", To: "2027-03-01"},
				}},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Action: "update", Key: "DEMO-3",
				ChangedFields: []string{"fields.Areas", "fields.Notes", "fields.Points", "fields.Reviewer", "fields.Start", "fields.Tags", "fields.Team"},
				Changes: []service.FieldChange{
					{Field: "fields.Areas", From: "UI, API", To: "UI, DB", Added: []string{"DB"}, Removed: []string{"API"}},
					{Field: "fields.Notes", From: "Ask the payments team", To: "Agreed with the payments team"},
					{Field: "fields.Points", From: "1", To: "2"},
					{Field: "fields.Reviewer", From: "acc-ana", To: "nina@example.com"},
					{Field: "fields.Start", From: "2027-01-04", To: "2027-02-01"},
					{Field: "fields.Tags", From: "mobile", To: "mobile, fast", Added: []string{"fast"}},
					{Field: "fields.Team", From: "Payments", To: "Web"},
					{Field: "priority", From: "Low", To: "Highest", Conflict: true,
						Base: "Medium", Tracker: &service.FieldSide{To: "Low"},
						Document: &service.FieldSide{To: "Highest"}},
				},
				Fields: []service.PlanField{{Field: "priority", Value: "Highest", Source: "item", Write: "conflict", Tracker: "Low"}}},
			{Reference: "checkout-v2/s-3", Kind: "story", Title: "Remember the card", Action: "update", Key: "DEMO-4",
				ChangedFields: []string{"title", "description", "acceptance_criteria"},
				Changes: []service.FieldChange{
					{Field: "title", From: "Remember card", To: "Remember the card"},
					{Field: "description", From: "Card is kept.\nOnly on request.", To: "Card is kept.\nOnly when the person asks.\nNever the CVC.",
						Diff: "@@ -1,2 +1,3 @@\n Card is kept.\n-Only on request.\n+Only when the person asks.\n+Never the CVC.\n"},
					{Field: "acceptance_criteria", From: "[ ] Card saved\n[ ] Card reused", To: "[x] Card saved\n[ ] Card reused",
						Diff: "@@ -1,2 +1,2 @@\n-[ ] Card saved\n+[x] Card saved\n [ ] Card reused\n"},
					{Field: "estimate", From: "8", To: "5", Conflict: true},
				},
				Fields: []service.PlanField{{Field: "estimate", Value: "5", Source: "item", Write: "conflict", Tracker: "8"}}},
			{Reference: "checkout-v2/e-2", Kind: "epic", Title: "Loyalty points", Action: "drift", Key: "DEMO-10",
				Changes: []service.FieldChange{
					{Field: "title", From: "Loyalty (edited)", To: "Loyalty points", Conflict: true,
						Base: "Loyalty", Tracker: &service.FieldSide{To: "Loyalty (edited)"},
						Document: &service.FieldSide{To: "Loyalty points"}},
					{Field: "description", From: "Points per order.\nExpire after a year.", To: "Points per euro.\nNever expire.", Diff: "@@ -1,2 +1,2 @@\n-Points per order.\n-Expire after a year.\n+Points per euro.\n+Never expire.\n", Conflict: true,
						Base: "Points per order.\nNever expire.", Tracker: &service.FieldSide{To: "Points per order.\nExpire after a year.", Diff: "@@ -1,2 +1,2 @@\n Points per order.\n-Never expire.\n+Expire after a year.\n"},
						Document: &service.FieldSide{To: "Points per euro.\nNever expire.", Diff: "@@ -1,2 +1,2 @@\n-Points per order.\n+Points per euro.\n Never expire.\n"}},
					{Field: "labels", From: "loyalty, legacy, vip", To: "loyalty, beta", Added: []string{"beta"}, Removed: []string{"legacy", "vip"}, Conflict: true,
						Base: "loyalty, legacy", Tracker: &service.FieldSide{To: "loyalty, legacy, vip", Added: []string{"vip"}},
						Document: &service.FieldSide{To: "loyalty, beta", Added: []string{"beta"}, Removed: []string{"legacy"}}},
				},
				Fields: []service.PlanField{
					{Field: "title", Value: "Loyalty points", Source: "item", Write: "conflict", Tracker: "Loyalty (edited)"},
					{Field: "description", Value: "Points per euro.\nNever expire.", Source: "item", Write: "conflict", Tracker: "Points per order.\nExpire after a year."},
					{Field: "labels", Value: "loyalty, beta", Source: "item", Write: "conflict", Tracker: "loyalty, legacy, vip"},
				}},
			{Reference: "checkout-v2/e-3", Kind: "epic", Title: "Gift cards", Action: "drift", Key: "DEMO-11",
				Changes: []service.FieldChange{{Field: "title", From: "Gift cards (old)", To: "Gift cards"}}},
		},
	}
}
