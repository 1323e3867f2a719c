package render

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/goldentest"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/go-cmp/cmp"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name+".golden"), got)
}

func maxWidth(t *testing.T, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > width {
			t.Errorf("line %d is %d columns (> %d): %q", i+1, n, width, l)
		}
	}
}

var expires = time.Date(2026, 11, 29, 23, 5, 0, 0, time.UTC)

func samplePreview() service.ImportPreviewResult {
	long := "Let a guest pay without creating an account, using any card the payment provider supports, including wallets"
	return service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_1", PreviewHandle: "pv_0123456789abcdef0123456789abcdef",
		ExpiresAt: expires, Document: "checkout-v2", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Create: 2, Update: 2, Unchanged: 1, Drift: 1},
		Items: []service.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "checkout-v2/s-1", Kind: "story", Title: long, Action: "update", Key: "DEMO-2", Parent: "checkout-v2/e-1", ChangedFields: []string{"title", "description", "acceptance_criteria"}},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address for next time", Action: "create", Parent: "checkout-v2/e-1"},
			{Reference: "checkout-v2/e-2", Kind: "epic", Title: "Loyalty points", Action: "drift", Key: "DEMO-10"},
			{Reference: "checkout-v2/s-3", Kind: "story", Title: "Earn points on every order", Action: "update", Key: "DEMO-11", Parent: "checkout-v2/e-2", TakeDocument: true, ChangedFields: []string{"description"}},
			{Reference: "checkout-v2/s-9", Kind: "story", Title: "Story without an epic", Action: "create"},
		},
	}
}

func TestImportPreviewGolden80(t *testing.T) {
	previewGolden80(t, samplePreview(), "import_preview_80", "create", "update", "unchanged", "drift", "DEMO-11", "2 to create · 2 to update · 1 unchanged · 1 drift (left alone)")
}

// previewGolden80 renders p at 80 columns, checks it against the golden
// file name and that it holds every want.
func previewGolden80(t *testing.T, p service.ImportPreviewResult, name string, wants ...string) {
	t.Helper()
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	maxWidth(t, b.String(), 80)
	golden(t, name, b.Bytes())
	for _, w := range wants {
		if !strings.Contains(b.String(), w) {
			t.Errorf("preview lacks %q", w)
		}
	}
}

func TestImportPreviewNarrow(t *testing.T) { previewFits40(t, samplePreview()) }

// previewFits40 checks that the item lines of p fit 40 columns. The
// header, counts and handle lines carry a URL or a handle and may be
// longer.
func previewFits40(t *testing.T, p service.ImportPreviewResult) {
	t.Helper()
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 40})
	lines := strings.Split(b.String(), "\n")
	maxWidth(t, strings.Join(lines[2:len(lines)-4], "\n"), 40)
}

func TestImportCommitGolden(t *testing.T) {
	r := service.ImportCommitResult{
		ResultType: "committed", RunID: "run_2", PreviewHandle: "pv_x", IdempotencyKey: "k",
		Counts: service.CommitCounts{Created: 2, Updated: 1, Unchanged: 1, Drift: 1},
		Items: []service.CommittedItem{
			{Reference: "checkout-v2/e-1", Kind: "epic", Title: "Guest checkout", Action: "create", Key: "DEMO-1", URL: "https://example.atlassian.net/browse/DEMO-1", Outcome: "committed"},
			{Reference: "checkout-v2/s-1", Kind: "story", Title: "Pay without an account", Action: "create", Key: "DEMO-2", URL: "https://example.atlassian.net/browse/DEMO-2", Outcome: "committed"},
			{Reference: "checkout-v2/s-2", Kind: "story", Title: "Save address", Action: "update", Key: "DEMO-3", URL: "https://example.atlassian.net/browse/DEMO-3", Outcome: "committed"},
			{Reference: "checkout-v2/s-3", Kind: "story", Title: "Remember card", Action: "unchanged", Key: "DEMO-4", Outcome: "skipped"},
			{Reference: "checkout-v2/e-2", Kind: "epic", Title: "Loyalty", Action: "drift", Key: "DEMO-5", Outcome: "skipped"},
		},
	}
	var b bytes.Buffer
	ImportCommit(&b, r, Options{Width: 80})
	maxWidth(t, b.String(), 80)
	golden(t, "import_commit_80", b.Bytes())
}

// TestImportCommitStructureLine: the structure writes of a commit are
// said on their own line, not counted as items.
func TestImportCommitStructureLine(t *testing.T) {
	summary := func(c service.CommitCounts) string {
		var b bytes.Buffer
		ImportCommit(&b, service.ImportCommitResult{RunID: "run_3", Counts: c}, Options{Width: 80})
		maxWidth(t, b.String(), 80)
		return b.String()
	}
	out := summary(service.CommitCounts{Created: 4, Linked: 2, Unlinked: 1, Sprinted: 1, Ranked: 3})
	if !strings.Contains(out, "Committed: 4 created, 0 updated, 0 unchanged.\n  Structure: 2 dependency links added ·") ||
		strings.Count(out, "1 dependency link removed")+strings.Count(out, "1 item moved into a sprint")+strings.Count(out, "3 items placed in the backlog order") != 3 {
		t.Errorf("commit summary:\n%s", out)
	}
	if out := summary(service.CommitCounts{Created: 1}); strings.Contains(out, "Structure:") {
		t.Errorf("a commit without structure writes:\n%s", out)
	}
}

func TestProgressPreviewAndCommitGolden(t *testing.T) {
	p := service.ProgressPreviewResult{
		ResultType: "preview", RunID: "run_3", PreviewHandle: "pv_y", ExpiresAt: expires,
		Item:          service.ItemRef{Key: "DEMO-2", Reference: "checkout-v2/s-1", Title: "Pay without an account"},
		CurrentStatus: "todo", TargetStatus: "in_progress", Transition: "Start progress",
		Comment: "Started on the card form.\nSee the PR.",
	}
	var b bytes.Buffer
	ProgressPreview(&b, p, Options{Width: 80})
	b.WriteString("----\n")
	ProgressCommit(&b, service.ProgressCommitResult{ResultType: "committed", RunID: "run_4", Item: service.ItemRef{Key: "DEMO-2", URL: "https://example.atlassian.net/browse/DEMO-2"}, Status: "in_progress", Transitioned: true, CommentAdded: true}, Options{Width: 80})
	maxWidth(t, b.String(), 80)
	golden(t, "progress_80", b.Bytes())
}

func TestListAndItemGolden(t *testing.T) {
	items := []service.ItemView{
		{Key: "DEMO-1", Kind: "epic", Title: "Guest checkout", Status: "in_progress"},
		{Key: "DEMO-2", Kind: "story", Title: strings.Repeat("Very long title ", 10), Status: "todo"},
	}
	var b bytes.Buffer
	List(&b, service.QueryResult{Items: items, Returned: 2}, Options{Width: 80})
	b.WriteString("----\n")
	Item(&b, service.ItemView{
		Key: "DEMO-2", Reference: "checkout-v2/s-1", Kind: "story", Title: "Pay without an account", Status: "todo", StatusName: "To Do",
		Epic: &service.ItemRef{Key: "DEMO-1", Title: "Guest checkout"}, URL: "https://example.atlassian.net/browse/DEMO-2",
		Description: "A guest pays by card.", AcceptanceCriteria: []string{"A guest can pay", "Confirmation is e-mailed"},
		BlockedBy: []core.Linked{{Key: "DEMO-9", Status: "done"}},
	}, Options{Width: 80})
	maxWidth(t, b.String(), 80)
	golden(t, "list_item_80", b.Bytes())
}

func TestColourOnlyAddsEscapes(t *testing.T) {
	colourOnlyAddsEscapes(t, func(w io.Writer, o Options) { ImportPreview(w, samplePreview(), o) })
}

// colourOnlyAddsEscapes checks that view, coloured, is the plain view
// with escapes added.
func colourOnlyAddsEscapes(t *testing.T, view func(io.Writer, Options)) {
	t.Helper()
	var plain, coloured bytes.Buffer
	view(&plain, Options{Width: 80})
	view(&coloured, Options{Width: 80, CS: colourOn()})
	if plain.String() == coloured.String() {
		t.Fatal("colour scheme had no effect")
	}
	if stripped := stripANSI(coloured.String()); stripped != plain.String() {
		t.Fatalf("colour changed the text:\n%s", cmp.Diff(plain.String(), stripped))
	}
}

func TestBar(t *testing.T) {
	var b bytes.Buffer
	bar := NewBar(&b, 60, "Committing")
	bar.Update(1, 4)
	bar.Update(4, 4)
	bar.Done()
	out := b.String()
	if !strings.Contains(out, "1/4") || !strings.Contains(out, "4/4") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("bar output %q", out)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(out, "\n"), "\r") {
		if len(seg) > 60 {
			t.Errorf("bar wider than 60: %q", seg)
		}
	}
}

// A commit that stops is drawn where it stopped, marked so; output around
// the bar never shares its line.
func TestBarStopAndAround(t *testing.T) {
	var b bytes.Buffer
	bar := NewBar(&b, 60, "Committing")
	bar.Update(1, 3)
	bar.Update(3, 3) // the items of a failed request were counted
	bar.Around(func() { b.WriteString("log line\n") })
	bar.Stop(1)
	out := b.String()
	lines := strings.Split(out, "\n")
	visible := func(l string) string { return l[strings.LastIndex(l, "\r")+1:] }
	if v := visible(lines[0]); v != "log line" {
		t.Errorf("the log line shares the bar's line: %q", lines[0])
	}
	last := visible(lines[len(lines)-2])
	if !strings.Contains(last, " 1/3 stopped") || !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar does not end where the commit stopped: %q", last)
	}
	for _, seg := range strings.Split(out, "\r") {
		if l := len(strings.TrimSuffix(strings.TrimSuffix(seg, "\n"), "log line")); l > 60 {
			t.Errorf("wider than 60: %q", seg)
		}
	}
}

// A create the plan holds back (an earlier create's outcome is unknown) is
// never shown as "create" or "created".
func TestHeldCreateIsNotShownAsCreate(t *testing.T) {
	retry := time.Date(2026, 3, 14, 9, 36, 0, 0, time.UTC)
	p := service.ImportPreviewResult{
		Document: "checkout", Scope: "https://example.atlassian.net/DEMO",
		Counts: service.Counts{Unchanged: 1, Blocked: 1},
		Items: []service.PlanItem{
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
	r := service.ImportCommitResult{RunID: "run_1", Counts: service.CommitCounts{Unchanged: 1, Unknown: 1},
		Items: []service.CommittedItem{{Reference: "checkout/s-1", Kind: "story", Title: "Pay", Action: "create", Outcome: core.OutcomeUnknown}}}
	b.Reset()
	ImportCommit(&b, r, Options{Width: 80})
	if out := b.String(); strings.Contains(out, "  created ") || !strings.Contains(out, "unknown") || !strings.Contains(out, "1 not created") {
		t.Errorf("commit summary:\n%s", out)
	}
}
