package render

import (
	"io"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
)

// changesPreview has a change of every field kind: a short value inline,
// a long one over two lines, a text diff with hunks and a cut, a list, a
// parent, an undescribed field, and a drift.
func changesPreview() service.ImportPreviewResult {
	desc := "@@ -1,4 +1,4 @@\n A guest pays by card.\n-Wallets are not supported.\n+Wallets are supported: Apple Pay, Google Pay.\n The receipt is e-mailed.\n Refunds go back to the card.\n@@ -9,3 +9,3 @@\n Tax is shown.\n-Old footer\n+New footer\n\\ 5 more changed lines not shown\n"
	return service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_1", PreviewHandle: "pv_0123456789abcdef0123456789abcdef",
		ExpiresAt: expires, Document: "checkout-v2", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Update: 2, Drift: 1, Unchanged: 1},
		Items: []service.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "checkout-v2/s-1", Kind: "story", Title: "Pay as a guest", Action: "update", Key: "DEMO-2", Parent: "checkout-v2/e-1",
				ChangedFields: []string{"title", "description", "labels", "priority", "estimate"},
				Changes: []service.FieldChange{
					{Field: "title", From: "Pay without an account", To: "Pay as a guest"},
					{Field: "description", From: "A guest pays by card.\nWallets are not supported.", To: "A guest pays by card.\nWallets are supported: Apple Pay, Google Pay.", Diff: desc},
					{Field: "labels", From: "legacy, checkout", To: "checkout, guest", Added: []string{"guest"}, Removed: []string{"legacy"}},
					{Field: "priority", From: "", To: "High"},
				}},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address for next time", Action: "update", Key: "DEMO-3", Parent: "checkout-v2/e-1",
				ChangedFields: []string{"title", "acceptance_criteria", "parent"},
				Changes: []service.FieldChange{
					{Field: "title", From: "Remember the delivery address of a guest between two orders", To: "Save address for next time, for guests and for members alike"},
					{Field: "acceptance_criteria", From: "An address is saved\nIt is reused", To: "An address is saved\nIt is offered at the next order", Diff: "@@ -1,2 +1,2 @@\n An address is saved\n-It is reused\n+It is offered at the next order\n"},
					{Field: "parent", From: "DEMO-9", To: "DEMO-1"},
				}},
			{Reference: "checkout-v2/e-2", Kind: "epic", Title: "Loyalty points", Action: "drift", Key: "DEMO-10",
				Changes: []service.FieldChange{{Field: "title", From: "Loyalty (edited in Jira)", To: "Loyalty points"}}},
		},
	}
}

// The changes of every field kind, old → new (changesPreview,
// fieldChangesPreview), at 80 columns.
func TestImportPreviewChangesGolden80(t *testing.T) {
	for _, c := range []struct {
		golden string
		p      service.ImportPreviewResult
		wants  []string
	}{
		{"import_changes_80", changesPreview(), []string{
			"~ title: Pay without an account → Pay as a guest",
			"~ labels: +guest −legacy",
			"~ priority: (none) → High",
			"~ estimate: changed",
			"- Wallets are not supported.",
			"+ Wallets are supported: Apple Pay, Google Pay.",
			"… 5 more changed lines",
			"~ parent: DEMO-9 → DEMO-1",
			"differs (Jira → document):",
			"~ title: Loyalty (edited in Jira) → Loyalty points"}},
		{"import_field_changes_80", fieldChangesPreview(), []string{
			"~ priority: Medium → High",
			"~ labels: +guest −legacy",
			"~ assignee: acc-bo → ana@example.com",
			"~ estimate: 3 → 5",
			"~ components: +Web",
			"~ fix_versions: +2027.2 −2027.1",
			"~ due: (none) → 2027-03-01",
			"~ fields.Areas: +DB −API",
			"- Ask the payments team",
			"+ Agreed with the payments team",
			"~ fields.Points: 1 → 2",
			"~ fields.Reviewer: acc-ana → nina@example.com",
			"~ fields.Start: 2027-01-04 → 2027-02-01",
			"~ fields.Tags: +fast",
			"~ fields.Team: Payments → Web",
			"! priority (conflict, not written):",
			"in Jira: Medium → Low",
			"in the document: Medium → Highest",
			"~ title: Remember card → Remember the card",
			"+ Never the CVC.",
			"+ [x] Card saved",
			"! estimate (conflict, not written): 8 → 5",
			"edited in Jira since the last import; left alone",
			"! title (conflict, not written):",
			"in Jira: Loyalty → Loyalty (edited)",
			"in the document: Loyalty → Loyalty points",
			"+ Expire after a year.",
			"+ Points per euro.",
			"in Jira: +vip",
			"in the document: +beta −legacy",
			"~ title: Gift cards (old) → Gift cards"}},
	} {
		t.Run(c.golden, func(t *testing.T) { previewGolden80(t, c.p, c.golden, c.wants...) })
	}
}

func TestImportPreviewChangesNarrowAndColoured(t *testing.T) {
	for _, p := range []func() service.ImportPreviewResult{changesPreview, fieldChangesPreview} {
		previewFits40(t, p())
		colourOnlyAddsEscapes(t, func(w io.Writer, o Options) { ImportPreview(w, p(), o) })
	}
}
