package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// Items the document no longer lists: a removed row (left alone) and a
// close row (closed by the commit), their counts, and the marks in lists
// and item views.
func TestRemovedRowsGolden80(t *testing.T) {
	p := core.ImportPreviewResult{
		ResultType: "preview", RunID: "run_r", PreviewHandle: "pv_r", ExpiresAt: expires, Document: "checkout-v2", Scope: "https://example.atlassian.net/DEMO",
		Counts: core.Counts{Unchanged: 1, Removed: 1, Close: 1},
		Items: []core.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Action: "removed", Key: "DEMO-3", Parent: "checkout-v2/e-1", Status: "in_progress"},
			{Reference: "checkout-v2/s-7", Kind: "story", Title: "Old idea", Action: "close", Key: "DEMO-8", Status: "todo", Transition: "Done",
				Comment: "Closed by DevWorkWire: …"},
		},
	}
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	b.WriteString("----\n")
	ImportCommit(&b, core.ImportCommitResult{RunID: "run_c", Counts: core.CommitCounts{Unchanged: 1, Removed: 1, Closed: 1}, Items: []core.CommittedItem{
		{Reference: "checkout-v2/s-7", Kind: "story", Title: "Old idea", Action: "close", Key: "DEMO-8", Outcome: core.OutcomeCommitted, URL: "https://example.atlassian.net/browse/DEMO-8"},
	}}, Options{Width: 80})
	b.WriteString("----\n")
	List(&b, core.QueryResult{Returned: 2, Items: []core.ItemView{
		{Key: "DEMO-2", Kind: "story", Title: "Pay without an account", Status: "todo"},
		{Key: "DEMO-3", Kind: "story", Title: "Save address", Status: "todo", Removed: true},
	}}, Options{Width: 80})
	b.WriteString("----\n")
	Item(&b, core.ItemView{Key: "DEMO-3", Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Status: "todo", Removed: true}, Options{Width: 80})
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
	if !Writes(p.Counts) || Writes(core.Counts{Removed: 3, Unchanged: 1}) {
		t.Error("a close is a write; a removed row is not")
	}
}
