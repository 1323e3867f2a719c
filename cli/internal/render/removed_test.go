package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// Items the document no longer lists: a removed row (left alone) and a
// close row (closed by the commit), their counts, and the marks in lists
// and item views.
func TestRemovedRowsGolden80(t *testing.T) {
	p := service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_r", PreviewHandle: "pv_r", ExpiresAt: expires, Document: "checkout-v2", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Unchanged: 1, Removed: 1, Close: 1},
		Items: []service.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Action: "removed", Key: "DEMO-3", Parent: "checkout-v2/e-1", Status: "in_progress"},
			{Reference: "checkout-v2/s-7", Kind: "story", Title: "Old idea", Action: "close", Key: "DEMO-8", Status: "todo", Transition: "Done",
				Comment: "Closed by DevWorkWire: …"},
		},
	}
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	b.WriteString("----\n")
	ImportCommit(&b, service.ImportCommitResult{RunID: "run_c", Counts: service.CommitCounts{Unchanged: 1, Removed: 1, Closed: 1}, Items: []service.CommittedItem{
		{Reference: "checkout-v2/s-7", Kind: "story", Title: "Old idea", Action: "close", Key: "DEMO-8", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-8"},
	}}, Options{Width: 80})
	b.WriteString("----\n")
	List(&b, service.QueryResult{Returned: 2, Items: []service.ItemView{
		{Key: "DEMO-2", Kind: "story", Title: "Pay without an account", Status: "todo"},
		{Key: "DEMO-3", Kind: "story", Title: "Save address", Status: "todo", Removed: true},
	}}, Options{Width: 80})
	b.WriteString("----\n")
	Item(&b, service.ItemView{Key: "DEMO-3", Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Status: "todo", Removed: true}, Options{Width: 80})
	out := b.String()
	maxWidth(t, out, 80)
	golden(t, "import_removed_80", b.Bytes())
	for _, want := range []string{
		"removed    DEMO-3",
		"no longer in the document: left alone",
		`("removed: close" in the front matter closes it)`,
		"close      DEMO-8",
		`not in the document: closed via "Done", with a comment`,
		"1 to close (no longer in the document) · 1 removed (left alone)",
		"1 unchanged, 1 closed, 1 removed left alone.",
		"closed     DEMO-8",
		"(removed from the document) Save address",
		"removed: its planning document no longer lists it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !Writes(p.Counts) || Writes(service.Counts{Removed: 3, Unchanged: 1}) {
		t.Error("a close is a write; a removed row is not")
	}
}

// Existing issues adopted by Key lines: adopt rows with their diff, the
// counts, the commit summary.
func TestAdoptRowsGolden80(t *testing.T) {
	p := service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_a", PreviewHandle: "pv_a", ExpiresAt: expires, Document: "shop", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Adopt: 2, Create: 1},
		Items: []service.PlanItem{
			{Reference: "shop/e-1", Kind: "epic", Title: "Checkout", Action: service.ActionAdopt, Key: "DEMO-1", ChangedFields: []string{"title"},
				Changes: []service.FieldChange{{Field: "title", From: "Checkout (old)", To: "Checkout"}}},
			{Reference: "shop/s-1", Kind: "story", Title: "Pay", Action: service.ActionAdopt, Key: "DEMO-2", Parent: "shop/e-1"},
			{Reference: "shop/s-2", Kind: "story", Title: "Brand new", Action: core.ActionCreate, Parent: "shop/e-1"},
		},
	}
	previewGolden80(t, p, "import_adopt_80",
		"adopt      DEMO-1  Epic e-1: Checkout",
		"existing issue; the plan writes its reference",
		"~ title: Checkout (old) → Checkout",
		"1 to create · 0 to update · 2 to adopt · 0 unchanged")
	var b bytes.Buffer
	ImportCommit(&b, service.ImportCommitResult{RunID: "run_c", Counts: service.CommitCounts{Adopted: 2, Created: 1}, Items: []service.CommittedItem{
		{Reference: "shop/e-1", Kind: "epic", Title: "Checkout", Action: service.ActionAdopt, Key: "DEMO-1", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-1"},
	}}, Options{Width: 80})
	if out := b.String(); !strings.HasPrefix(out, "Committed: 1 created, 2 adopted, 0 updated, 0 unchanged.\n") || !strings.Contains(out, "adopted    DEMO-1") {
		t.Errorf("commit summary:\n%s", out)
	}
	if !Writes(p.Counts) || !Writes(service.Counts{Adopt: 1}) {
		t.Error("an adopt is a write")
	}
}
