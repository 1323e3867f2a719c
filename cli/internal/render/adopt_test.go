package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// Existing issues adopted by Key lines: adopt rows with their diff, the
// counts, the commit summary.
func TestAdoptRowsGolden80(t *testing.T) {
	p := core.ImportPreviewResult{
		ResultType: "preview", RunID: "run_a", PreviewHandle: "pv_a", ExpiresAt: expires, Document: "shop", Scope: "https://example.atlassian.net/DEMO",
		Counts: core.Counts{Adopt: 2, Create: 1},
		Items: []core.PlanItem{
			{Reference: "shop/e-1", Kind: "epic", Title: "Checkout", Action: core.ActionAdopt, Key: "DEMO-1", ChangedFields: []string{"title"},
				Changes: []core.FieldChange{{Field: "title", From: "Checkout (old)", To: "Checkout"}}},
			{Reference: "shop/s-1", Kind: "story", Title: "Pay", Action: core.ActionAdopt, Key: "DEMO-2", Parent: "shop/e-1"},
			{Reference: "shop/s-2", Kind: "story", Title: "Brand new", Action: core.ActionCreate, Parent: "shop/e-1"},
		},
	}
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	b.WriteString("----\n")
	ImportCommit(&b, core.ImportCommitResult{RunID: "run_c", Counts: core.CommitCounts{Adopted: 2, Created: 1}, Items: []core.CommittedItem{
		{Reference: "shop/e-1", Kind: "epic", Title: "Checkout", Action: core.ActionAdopt, Key: "DEMO-1", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-1"},
		{Reference: "shop/s-1", Kind: "story", Title: "Pay", Action: core.ActionAdopt, Key: "DEMO-2", Parent: "shop/e-1", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-2"},
		{Reference: "shop/s-2", Kind: "story", Title: "Brand new", Action: core.ActionCreate, Key: "DEMO-9", Parent: "shop/e-1", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-9"},
	}}, Options{Width: 80})
	out := b.String()
	maxWidth(t, out, 80)
	golden(t, "import_adopt_80", b.Bytes())
	for _, want := range []string{
		"adopt      DEMO-1  Epic e-1: Checkout",
		"existing issue; the plan writes its reference",
		"~ title: Checkout (old) → Checkout",
		"1 to create · 0 to update · 2 to adopt · 0 unchanged",
		"Committed: 1 created, 2 adopted, 0 updated, 0 unchanged.",
		"adopted    DEMO-1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !Writes(p.Counts) || !Writes(core.Counts{Adopt: 1}) {
		t.Error("an adopt is a write")
	}
}
