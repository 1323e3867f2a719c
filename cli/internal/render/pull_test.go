package render

import (
	"bytes"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
)

// The pull preview at 80 columns: a pulled item (a part taken from Jira,
// one kept from the document), a conflict with both values, the counts,
// the document's diff; then the commit's line.
func TestPullGolden80(t *testing.T) {
	p := service.PullPreviewResult{
		ResultType: "preview", PreviewHandle: "imp_0123", Document: "checkout-v2", Path: "plan.md", Writes: true,
		Counts: service.PullCounts{Pull: 1, Conflict: 1, Unchanged: 3},
		Items: []service.PullItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Key: "DEMO-1", Action: service.PullActionUnchanged},
			{Reference: "checkout-v2/s-1", Kind: "story", Title: "Pay without an account", Key: "DEMO-2", Action: service.PullActionPull, Changes: []service.PullChange{
				{Field: "description", Document: "A guest pays by card.", Tracker: "A guest pays by card or with a wallet, whichever the payment provider offers today.", Take: service.TakeTracker},
				{Field: "priority", Document: "High", Tracker: "Low", Take: service.TakeDocument, Conflict: true},
			}},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save the address for next time", Key: "DEMO-3", Action: service.PullActionConflict, Changes: []service.PullChange{
				{Field: "title", Document: "Save the address for next time", Tracker: "Remember addresses", Conflict: true},
			}},
		},
		Diff: "--- a/plan.md\n+++ b/plan.md\n@@ -8,3 +8,3 @@\n ### Story s-1: Pay without an account\n-A guest pays by card.\n+A guest pays by card or with a wallet, whichever the payment provider offers today.\n \n",
	}
	var b bytes.Buffer
	PullPreview(&b, p, Options{Width: 80})
	PullCommit(&b, service.PullCommitResult{Path: "plan.md", FileWritten: true, Settled: []string{"DEMO-2"}}, Options{Width: 80})
	golden(t, "pull_80", b.Bytes())
	for i, l := range bytes.Split(b.Bytes(), []byte("\n")) {
		if n := len([]rune(string(l))); n > 80 && !bytes.HasPrefix(l, []byte("+A guest")) {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
}
