package jira

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestMeasureItemPredictsWhatJiraCounts: MeasureItem gives the size of the
// description Jira stores (its ADF, criteria included), and an item whose
// Markdown is well under the limit but whose ADF is over it is refused by
// Create and Update as VALIDATION_FAILED naming the item, its size and the
// limit, before anything is sent.
func TestMeasureItemPredictsWhatJiraCounts(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	spec := f.specs("size", 1)[0]
	sizes, limit, err := f.p.MeasureItem(f.ctx, spec)
	if err != nil || limit != TextLimit || sizes["description"] == 0 {
		t.Fatalf("MeasureItem = %v, %d, %v", sizes, limit, err)
	}
	out, err := f.p.Create(f.ctx, []core.ItemSpec{spec})
	if err != nil || out[0].Err != nil {
		t.Fatal(err, out)
	}
	key := out[0].Key
	is, _ := f.srv.Issue(key)
	if got := utf8.RuneCount(is.Description); got != sizes["description"] {
		t.Errorf("Jira stores %d characters of description; MeasureItem said %d", got, sizes["description"])
	}

	big := spec
	big.Reference = "size/s-big"
	var md []string
	for i := range 2000 {
		md = append(md, "- item "+itoa(i))
	}
	big.Description = strings.Join(md, "\n") // ~22,000 Markdown characters
	big.AcceptanceCriteria = []string{"criteria count too"}
	if n := utf8.RuneCountInString(big.Description); n >= TextLimit {
		t.Fatalf("test description is %d Markdown characters; want under the limit", n)
	}
	sizes, _, err = f.p.MeasureItem(f.ctx, big)
	if err != nil || sizes["description"] <= TextLimit {
		t.Fatalf("MeasureItem(big) = %v, %v; want a description over %d", sizes, err, TextLimit)
	}
	f.srv.ClearRequests()
	out, err = f.p.Create(f.ctx, []core.ItemSpec{big})
	if err != nil {
		t.Fatal(err)
	}
	e := core.AsError(out[0].Err)
	if e.Code != core.CodeValidationFailed || !strings.Contains(e.Message, "size/s-big") || !strings.Contains(e.Message, itoa(sizes["description"])) || !strings.Contains(e.Message, itoa(TextLimit)) {
		t.Errorf("Create(big) = %v; want VALIDATION_FAILED naming the item, its size and the limit", out[0].Err)
	}
	if len(e.Details) != 1 || e.Details[0].Item != "size/s-big" || e.Details[0].Field != "description" {
		t.Errorf("details %+v", e.Details)
	}
	if err := f.p.Update(f.ctx, key, big); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("Update(big) = %v; want VALIDATION_FAILED", err)
	}
	if n := len(f.srv.Writes()); n != 0 {
		t.Errorf("%d writes sent for an item Jira would refuse; want none", n)
	}
}

// TestPreviewRefusesWhatJiraWouldRefuse: through the core service over
// HTTP, a document whose Markdown passes the plan's own checks but whose
// description as Jira counts it (its ADF, criteria included) is over the
// limit is refused by the import preview (core.ItemChecker): one
// VALIDATION_FAILED naming every such item with its size and the limit,
// nothing written to Jira.
func TestPreviewRefusesWhatJiraWouldRefuse(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	var list []string
	for i := range 450 {
		list = append(list, "- item "+itoa(i))
	}
	md := strings.Join(list, "\n") // ~4,000 Markdown characters, over 40,000 as ADF
	doc := "---\nid: sized\n---\n# Sized\n\n## Epic e-1: Epic\n\nSmall.\n\n### Story s-1: Big\n\n" + md +
		"\n\nAcceptance criteria:\n- It works\n\n### Story s-2: Small\n\nSmall.\n\n### Story s-3: Big too\n\n" + md + "\n"
	f.srv.ClearRequests()
	_, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: "sized.md", Data: []byte(doc)})
	e := core.AsError(err)
	if e == nil || e.Code != core.CodeValidationFailed || !strings.Contains(e.Message, "2 item(s)") {
		t.Fatalf("preview = %v; want VALIDATION_FAILED for 2 items", err)
	}
	for i, ref := range []string{"sized/s-1", "sized/s-3"} {
		sizes, _, err := f.p.MeasureItem(f.ctx, core.ItemSpec{Reference: core.Reference(ref), Kind: core.KindStory, Title: "x", Description: md, AcceptanceCriteria: map[bool][]string{true: {"It works"}}[i == 0]})
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(e.Details) {
			t.Fatalf("details = %+v", e.Details)
		}
		d := e.Details[i]
		if sizes["description"] <= TextLimit || d.Item != ref || d.Field != "description" || d.Line == 0 || !strings.Contains(d.Message, "more than "+itoa(TextLimit)+" characters") {
			t.Errorf("detail %d = %+v (size %d); want %s, its line, and more than the limit %d", i, d, sizes["description"], ref, TextLimit)
		}
	}
	if n := len(f.srv.Writes()); n != 0 {
		t.Errorf("%d writes to Jira; want none", n)
	}
}

// TestFitsSurelyIsABound: for the Markdown that expands most (nested
// lists on one line, tables, headings, hard breaks, emphasis, escapes,
// control characters), the ADF Jira counts stays within the bound
// CheckItems uses to skip measuring short items, with a margin; and an
// item at the edge of the bound is measured.
func TestFitsSurelyIsABound(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	worst := 0.0
	for _, unit := range []string{"- ", "|a|\n|-|\n", "#\n", "a  \n", "*a*", "a\\\n", "<", "\x01", "\"", "> ", "1. ", "`a`", "---\n", "~~a~~", "[a](b)", "![a](b)", ">\u202e", "é"} {
		for _, reps := range []int{1, 3, 20, 60} {
			md := strings.Repeat(unit, reps)
			spec := core.ItemSpec{Reference: "bound/s-1", Kind: core.KindStory, Title: "t", Description: md, AcceptanceCriteria: []string{unit}}
			sizes, _, err := f.p.MeasureItem(f.ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			n := utf8.RuneCountInString(md) + utf8.RuneCountInString(unit) + 4
			for _, size := range sizes {
				if bound := adfFixed + adfPerRune*n; size*2 > bound {
					t.Errorf("%q × %d: %d characters of ADF for %d of Markdown; the bound %d leaves less than a margin of 2", unit, reps, size, n, bound)
				}
				worst = max(worst, float64(size-60)/float64(n))
			}
		}
	}
	t.Logf("worst expansion: %.1f ADF characters per Markdown character (bound: %d + %d per character)", worst, adfFixed, adfPerRune)
	edge := core.ItemSpec{Reference: "bound/s-2", Description: strings.Repeat("a", (TextLimit-adfFixed)/adfPerRune+1)}
	if fitsSurely(edge) {
		t.Error("an item past the bound is not measured")
	}
}

// overLimit is the detail of a description refused as soon as it was
// counted past the limit.
func overLimit(ref string) string {
	return "the description of " + ref + " is more than " + itoa(TextLimit) + " characters as the tracker counts them, the most it allows: shorten it or split the item"
}

// TestCheckItemsStopsCountingPastTheLimit: a description over the limit,
// by a third or by six times, is refused as "more than" the limit as
// soon as its count passes it, its ADF not counted (let alone encoded) to
// its end; the detail names the item, the field, the limit and what to
// do. MeasureItem still gives the exact size.
func TestCheckItemsStopsCountingPastTheLimit(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	for _, items := range []int{450, 2000} {
		var list []string
		for i := range items {
			list = append(list, "- item "+itoa(i))
		}
		spec := core.ItemSpec{Reference: "far/s-1", Kind: core.KindStory, Title: "Far over", Description: strings.Join(list, "\n")}
		stoppedAtTheLimit(t, f.p, spec)
	}
}

// stoppedAtTheLimit checks that CheckItems refuses spec's description,
// which MeasureItem counts past the limit, as over the limit, and counts
// it past the limit but not to its end.
func stoppedAtTheLimit(t *testing.T, p *Provider, spec core.ItemSpec) {
	t.Helper()
	sizes, _, err := p.MeasureItem(context.Background(), spec)
	if err != nil || sizes["description"] <= TextLimit {
		t.Fatalf("MeasureItem = %v, %v; want the exact size, over %d", sizes, err, TextLimit)
	}
	details, err := p.CheckItems(context.Background(), []core.ItemSpec{spec})
	if err != nil || len(details) != 1 {
		t.Fatalf("CheckItems = %+v, %v; want one detail", details, err)
	}
	if d := details[0]; d.Item != string(spec.Reference) || d.Field != "description" || d.Message != overLimit(string(spec.Reference)) {
		t.Errorf("detail %+v; want %q", d, overLimit(string(spec.Reference)))
	}
	v, err := p.measuredText(spec.Description)
	if n, ok := v.(measuredSize); err != nil || !ok || int(n) <= TextLimit || int(n) >= sizes["description"] {
		t.Errorf("counted %v, %v of a description of %d characters; want it counted past the limit %d, not to its end", v, err, sizes["description"], TextLimit)
	}
}

// TestDataCenterCheckItemsStopsCountingPastTheLimit: on Data Center too,
// a description over the limit is refused as "more than" the limit, its
// wiki markup not rendered to its end (150 descriptions of 32,000
// characters of emphasis took 11 s of CPU to preview), whether it is
// over by six times or by a fifth; one within the limit is counted as it
// is sent.
func TestDataCenterCheckItemsStopsCountingPastTheLimit(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{}, nil)
	far := core.ItemSpec{Reference: "far/s-1", Kind: core.KindStory, Title: "Far over", Description: strings.Repeat("*a* ", 30000)}
	stoppedAtTheLimit(t, f.p, far)
	// Counting stops past the limit, as on Cloud: about as much work.
	cloud := startJira(t, jiratest.Options{}, nil)
	measure := func(p *Provider) float64 {
		return testing.AllocsPerRun(2, func() {
			if _, err := p.measuredText(far.Description); err != nil {
				t.Fatal(err)
			}
		})
	}
	if dc, c := measure(f.p), measure(cloud.p); dc > 2*c {
		t.Errorf("measuring the description on Data Center took %.0f allocations, on Cloud %.0f: it counted past the limit", dc, c)
	}
	near := core.ItemSpec{Reference: "near/s-1", Kind: core.KindStory, Title: "Near", Description: strings.Repeat("*a* {b}\n\n", 4200)}
	stoppedAtTheLimit(t, f.p, near)
	within := core.ItemSpec{Reference: "within/s-1", Kind: core.KindStory, Title: "Within", Description: strings.Repeat("*a* {b}\n\n", 2000)}
	sizes, _, err := f.p.MeasureItem(f.ctx, within)
	if err != nil || sizes["description"] > TextLimit || sizes["description"] < TextLimit/2 {
		t.Fatalf("MeasureItem = %v, %v; want a size between %d and %d", sizes, err, TextLimit/2, TextLimit)
	}
	v, err := f.p.measuredText(within.Description)
	if n, ok := v.(measuredSize); err != nil || !ok || int(n) != sizes["description"] {
		t.Errorf("counted %v, %v; want the size MeasureItem gives, %d", v, err, sizes["description"])
	}
}
