package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// A create the plan holds back (an earlier create's outcome is unknown) is
// never shown as "create" or "created".
func TestHeldCreateIsNotShownAsCreate(t *testing.T) {
	retry := time.Date(2026, 3, 14, 9, 36, 0, 0, time.UTC)
	p := core.ImportPreviewResult{
		Document: "checkout", Scope: "https://example.atlassian.net/DEMO",
		Counts: core.Counts{Unchanged: 1, Blocked: 1},
		Items: []core.PlanItem{
			{Reference: "checkout/e-1", Kind: "epic", Title: "Guest checkout", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "checkout/s-1", Kind: "story", Title: "Pay", Action: "create", Parent: "checkout/e-1",
				BlockedReason: "not created by this plan", UnknownSince: retry.Add(-10 * time.Minute), RetryAfter: retry},
		},
	}
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	out := b.String()
	maxWidth(t, out, 80)
	for _, want := range []string{"held", "outcome is unknown", "2026-03-14 09:36 UTC", "0 to create", "1 held back"} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  create ") {
		t.Errorf("a held item is shown as a create:\n%s", out)
	}
	r := core.ImportCommitResult{RunID: "run_1", Counts: core.CommitCounts{Unchanged: 1, Unknown: 1},
		Items: []core.CommittedItem{{Reference: "checkout/s-1", Kind: "story", Title: "Pay", Action: "create", Outcome: core.OutcomeUnknown}}}
	b.Reset()
	ImportCommit(&b, r, Options{Width: 80})
	if out := b.String(); strings.Contains(out, "  created ") || !strings.Contains(out, "unknown") || !strings.Contains(out, "1 not created") {
		t.Errorf("commit summary:\n%s", out)
	}
}
