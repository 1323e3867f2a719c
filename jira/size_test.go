package jira

import (
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
	md := strings.Join(list, "\n") // ~4,000 Markdown characters, over 40,000 as ADF: within twice the limit, counted exactly
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
		if d.Item != ref || d.Field != "description" || d.Line == 0 || !strings.Contains(d.Message, itoa(sizes["description"])) || !strings.Contains(d.Message, itoa(TextLimit)) {
			t.Errorf("detail %d = %+v; want %s, its line, size %d and limit %d", i, d, ref, sizes["description"], TextLimit)
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

// TestCheckItemsStopsCountingPastTwiceTheLimit: a description far over
// the limit (here about six times) is refused as "more than" twice the
// limit without its ADF being counted, let alone encoded, to its end; the
// detail still names the item, the field and the limit.
func TestCheckItemsStopsCountingPastTwiceTheLimit(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	var list []string
	for i := range 2000 {
		list = append(list, "- item "+itoa(i))
	}
	spec := core.ItemSpec{Reference: "far/s-1", Kind: core.KindStory, Title: "Far over", Description: strings.Join(list, "\n")}
	sizes, _, err := f.p.MeasureItem(f.ctx, spec)
	if err != nil || sizes["description"] <= measureCap {
		t.Fatalf("MeasureItem = %v, %v; want the exact size, over %d", sizes, err, measureCap)
	}
	details, err := f.p.CheckItems(f.ctx, []core.ItemSpec{spec})
	if err != nil || len(details) != 1 {
		t.Fatalf("CheckItems = %+v, %v; want one detail", details, err)
	}
	d := details[0]
	want := "the description of far/s-1 is more than " + itoa(measureCap) + " characters as the tracker counts them; at most " + itoa(TextLimit) + " are allowed"
	if d.Item != "far/s-1" || d.Field != "description" || d.Message != want {
		t.Errorf("detail %+v; want %q", d, want)
	}
}

// TestDataCenterCheckItemsStopsCountingPastTwiceTheLimit: on Data Center
// too, a description far over the limit is refused as "more than" twice
// the limit, its wiki markup not rendered to its end (150 descriptions of
// 32,000 characters of emphasis took 11 s of CPU to preview); one within
// the limit is counted as it is sent.
func TestDataCenterCheckItemsStopsCountingPastTwiceTheLimit(t *testing.T) {
	f := startDataCenter(t, jiratest.Options{}, nil)
	far := core.ItemSpec{Reference: "far/s-1", Kind: core.KindStory, Title: "Far over", Description: strings.Repeat("*a* ", 30000)}
	details, err := f.p.CheckItems(f.ctx, []core.ItemSpec{far})
	want := "the description of far/s-1 is more than " + itoa(measureCap) + " characters as the tracker counts them; at most " + itoa(TextLimit) + " are allowed"
	if err != nil || len(details) != 1 || details[0].Item != "far/s-1" || details[0].Field != "description" || details[0].Message != want {
		t.Fatalf("CheckItems = %+v, %v; want one detail: %q", details, err, want)
	}
	// Counting stops past twice the limit, as on Cloud: about as much work.
	cloud := startJira(t, jiratest.Options{}, nil)
	measure := func(p *Provider) float64 {
		return testing.AllocsPerRun(2, func() {
			if _, err := p.measuredText(far.Description); err != nil {
				t.Fatal(err)
			}
		})
	}
	if dc, c := measure(f.p), measure(cloud.p); dc > 2*c {
		t.Errorf("measuring the description on Data Center took %.0f allocations, on Cloud %.0f: it counted past twice the limit", dc, c)
	}
	near := core.ItemSpec{Reference: "near/s-1", Kind: core.KindStory, Title: "Near", Description: strings.Repeat("*a* {b} ", 4200)}
	sizes, _, err := f.p.MeasureItem(f.ctx, near)
	if err != nil || sizes["description"] <= TextLimit || sizes["description"] > measureCap {
		t.Fatalf("MeasureItem = %v, %v; want a size between %d and %d", sizes, err, TextLimit, measureCap)
	}
	details, err = f.p.CheckItems(f.ctx, []core.ItemSpec{near})
	if err != nil || len(details) != 1 || !strings.Contains(details[0].Message, " "+itoa(sizes["description"])+" characters") {
		t.Fatalf("CheckItems = %+v, %v; want the size MeasureItem gives, %d", details, err, sizes["description"])
	}
}
