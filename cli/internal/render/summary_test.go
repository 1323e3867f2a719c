package render

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// bigPreview is a 1,000-item plan (20 epics of 49 stories, 980 stories):
// all unchanged but 2 creates, 2 updates, a drift and a held item.
func bigPreview() service.ImportPreviewResult {
	p := service.ImportPreviewResult{ResultType: "preview", RunID: "run_b", PreviewHandle: "pv_big", ExpiresAt: expires,
		Document: "big", Scope: "https://example.atlassian.net/DEMO"}
	n := 0
	for e := 1; e <= 20; e++ {
		epic := core.Reference(fmt.Sprintf("big/e-%d", e))
		n++
		p.Items = append(p.Items, service.PlanItem{Reference: epic, Kind: "epic", Title: fmt.Sprintf("Epic %d", e), Action: "unchanged", Key: fmt.Sprintf("DEMO-%d", n)})
		for s := 1; s <= 49; s++ {
			n++
			p.Items = append(p.Items, service.PlanItem{Reference: core.Reference(fmt.Sprintf("big/s-%d-%d", e, s)), Kind: "story", Title: fmt.Sprintf("Story %d.%d", e, s),
				Action: "unchanged", Key: fmt.Sprintf("DEMO-%d", n), Parent: epic})
		}
	}
	set := func(i int, f func(*service.PlanItem)) { f(&p.Items[i]) }
	set(3, func(it *service.PlanItem) {
		it.Action, it.ChangedFields = "update", []string{"title"}
		it.Changes = []service.FieldChange{{Field: "title", From: "Story 1.3 (old)", To: "Story 1.3"}}
	})
	set(4, func(it *service.PlanItem) { it.Action, it.Key = "create", "" })
	set(500, func(it *service.PlanItem) { it.Action = "drift" }) // epic 11
	set(501, func(it *service.PlanItem) { it.Action, it.ChangedFields = "update", []string{"description"} })
	set(998, func(it *service.PlanItem) {
		it.Action, it.Key, it.BlockedReason, it.RetryAfter = "create", "", "held", expires
	})
	p.Items = append(p.Items, service.PlanItem{Reference: "big/s-loose", Kind: "story", Title: "A loose story", Action: "create"})
	p.Counts = service.Counts{Create: 2, Update: 2, Unchanged: 995, Drift: 1, Blocked: 1}
	return p
}

// A 1,000-item preview is a summary: the counts first, then only the rows
// that write or need attention (with their epics as context), and the
// unchanged ones counted; Full shows every row.
func TestLargePreviewSummaryGolden80(t *testing.T) {
	p := bigPreview()
	if len(p.Items) != 1001 {
		t.Fatalf("%d items", len(p.Items))
	}
	previewGolden80(t, p, "import_summary_80",
		"1001 items: 2 to create · 2 to update · 995 unchanged · 1 drift (left alone) ·\n  1 held back",
		"… and 993 unchanged (--full shows every item)")
	var full bytes.Buffer
	ImportPreview(&full, p, Options{Width: 80, Full: true})
	for _, it := range p.Items {
		if !strings.Contains(full.String(), it.Title) {
			t.Fatalf("the full preview lacks %s", it.Reference)
		}
	}
	if strings.Contains(full.String(), "unchanged (--full") {
		t.Error("the full preview counts hidden rows")
	}
	// At SummaryRows rows the preview is still shown whole.
	small := p
	small.Items = p.Items[:SummaryRows]
	var b bytes.Buffer
	ImportPreview(&b, small, Options{Width: 80})
	if strings.Contains(b.String(), "--full") || strings.Count(b.String(), "Story s-1-") != 49 {
		t.Errorf("a %d-row preview is summarised:\n%s", SummaryRows, b.String())
	}
}

// The commit summary of a large commit lists the first ShownWritten
// written items in tree order, counts the rest, and links one search of
// everything written.
func TestLargeCommitSummaryGolden80(t *testing.T) {
	r := service.ImportCommitResult{ResultType: "committed", RunID: "run_c", Counts: service.CommitCounts{Created: 300, Updated: 2, Unchanged: 698}}
	site := "https://example.atlassian.net"
	item := func(ref string, kind core.Kind, action core.Action, n int, parent core.Reference) service.CommittedItem {
		outcome := core.OutcomeCommitted
		if action == core.ActionUnchanged {
			outcome = "skipped"
		}
		key := fmt.Sprintf("DEMO-%d", n)
		return service.CommittedItem{Reference: core.Reference("big/" + ref), Kind: kind, Title: "Item " + ref, Action: action, Key: key, URL: site + "/browse/" + key, Outcome: outcome, Parent: parent}
	}
	r.Items = append(r.Items, item("e-1", "epic", "unchanged", 1, ""), item("s-1", "story", "update", 2, ""))
	for i := range 698 {
		r.Items = append(r.Items, item(fmt.Sprintf("u-%d", i), "story", "unchanged", 10+i, "big/e-1"))
	}
	r.Items = append(r.Items, item("s-2", "story", "update", 5, "big/e-1"))
	r.Items = append(r.Items, item("e-2", "epic", "create", 1000, ""))
	for i := range 299 {
		r.Items = append(r.Items, item(fmt.Sprintf("n-%d", i), "story", "create", 1001+i, "big/e-2"))
	}
	var b bytes.Buffer
	ImportCommit(&b, r, Options{Width: 80})
	out := b.String()
	lines := strings.Split(out, "\n")
	var link string
	for _, l := range lines {
		if after, ok := strings.CutPrefix(l, "  All 302 written: "); ok {
			link = after
		}
	}
	// Every line fits 80 columns but the search link (an unbreakable URL).
	maxWidth(t, strings.Replace(out, link, "", 1), 80)
	golden(t, "import_commit_summary_80", b.Bytes())
	u, err := url.Parse(link)
	if err != nil || link == "" {
		t.Fatalf("no search link in:\n%s", out)
	}
	if jql := u.Query().Get("jql"); jql != "(key >= DEMO-1000 AND key <= DEMO-1299) OR key in (DEMO-2, DEMO-5) ORDER BY key" {
		t.Errorf("jql %q", jql)
	}
	if !strings.Contains(out, "… and 292 more written") || strings.Contains(out, "unchanged  DEMO") {
		t.Errorf("summary:\n%s", out)
	}
}

// SearchLink keeps runs of keys exact: a range only where every key in it
// was written; no link for items without one, or of two sites.
func TestSearchLink(t *testing.T) {
	at := func(keys ...string) []service.CommittedItem {
		var out []service.CommittedItem
		for _, k := range keys {
			out = append(out, service.CommittedItem{Key: k, URL: "https://x.atlassian.net/browse/" + k})
		}
		return out
	}
	jql := func(items []service.CommittedItem) string {
		u, _ := url.Parse(SearchLink(items))
		return u.Query().Get("jql")
	}
	if got := jql(at("A-1", "A-2", "A-4", "B-7", "A-3")); got != "key >= A-1 AND key <= A-4 OR key in (B-7) ORDER BY key" && got != "(key >= A-1 AND key <= A-4) OR key in (B-7) ORDER BY key" {
		t.Errorf("jql %q", got)
	}
	if got := jql(at("A-1", "A-2")); got != "key in (A-1, A-2) ORDER BY key" {
		t.Errorf("jql %q", got)
	}
	if SearchLink([]service.CommittedItem{{Key: "A-1"}}) != "" {
		t.Error("a link without a site")
	}
	two := append(at("A-1"), service.CommittedItem{Key: "A-2", URL: "https://y.atlassian.net/browse/A-2"})
	if SearchLink(two) != "" {
		t.Error("a link across two sites")
	}
}
