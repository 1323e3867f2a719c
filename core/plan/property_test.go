package plan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// genTitle draws a one-line title: words with punctuation (including ':'
// and '#' inside), Unicode, no leading or trailing space.
func genTitle(t *rapid.T, label string) string {
	words := rapid.SliceOfN(rapid.SampledFrom([]string{
		"Pay", "without", "an", "account", "guest", "checkout:", "C#", "`code`", "[link](https://example.com)",
		"**bold**", "über", "日本語", "50%", "a/b", "e-1", "(draft)", "—", "it's", "#3",
	}), 1, 8).Draw(t, label)
	return strings.Join(words, " ")
}

// genDescription draws a Markdown description from blocks the format must
// carry verbatim, including code blocks that hold item-like lines.
func genDescription(t *rapid.T, label string) string {
	blocks := rapid.SliceOfN(rapid.SampledFrom([]string{
		"A paragraph with *emphasis*, `code` and a [link](https://example.com).",
		"Two lines\nof one paragraph.",
		"- a bullet\n- another bullet\n  - nested",
		"1. first\n2. second",
		"```go\nfunc main() {}\n## Epic e-9: inside code\nEpic: e-9\n```",
		"~~~\n### Story s-9: inside code\nAcceptance criteria:\n- not a criterion\n~~~",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"> A quote\n> ## with a heading",
		"#### A level-4 section",
		"### Notes (a level-3 heading that is not a story)",
		"    indented code\n    ## not a heading",
		"Unicode: äöü 日本語 🚀",
		// Lines the format reads as structure, as a Jira description may
		// hold them: written escaped, read back as this text.
		"## Story s-99: planted by a heading",
		"## Notes",
		"### Epic e-90: another",
		"### Task 12: not an item kind",
		"#### Sub-task t-9: planted",
		"#### Acceptance criteria",
		"Epic: e-9",
		"Drift: take-document",
		"Some text\nEpic: e-1\nmore text",
		"Acceptance criteria:\n- planted criterion",
		"**Acceptance criteria**",
		"Acceptance criteria",
		"Priority: High\nLabels: a",
		"Key: PROJ-9",
		"Epic: with spaces is prose",
		"Story s-98: under a setext heading\n===",
	}), 0, 5).Draw(t, label)
	return strings.Join(blocks, "\n\n")
}

func genCriteria(t *rapid.T, label string) []string {
	c := rapid.SliceOfN(rapid.SampledFrom([]string{
		"A guest can pay with a card",
		"The order confirmation is e-mailed within `5 s`",
		"Works on [mobile](https://example.com/m)",
		"Two lines\nin one criterion",
		"Épée: ✓",
	}), 0, 4).Draw(t, label)
	if len(c) == 0 {
		return nil
	}
	return c
}

// genDocument draws a valid document: epics with stories under them, and
// epic-less stories (some naming an epic) anywhere.
func genDocument(t *rapid.T) *Document {
	doc := &Document{ID: rapid.StringMatching(`[a-z][a-z0-9._-]{0,20}`).Draw(t, "docID")}
	if rapid.Bool().Draw(t, "hasTitle") {
		doc.Title = genTitle(t, "docTitle")
	}
	var epics []string
	n := rapid.IntRange(1, 12).Draw(t, "items")
	for i := 0; i < n; i++ {
		it := Item{
			Title:              genTitle(t, "title"),
			Description:        genDescription(t, "description"),
			AcceptanceCriteria: genCriteria(t, "criteria"),
			TakeDocument:       rapid.Bool().Draw(t, "drift"),
		}
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			it.Kind, it.ID = KindEpic, fmt.Sprintf("e-%d", i)
			epics = append(epics, it.ID)
		case 1: // under the latest epic, if any
			it.Kind, it.ID = KindStory, fmt.Sprintf("s-%d", i)
			if len(epics) > 0 {
				it.Epic = epics[len(epics)-1]
			}
		default: // epic-less, or naming any earlier epic
			it.Kind, it.ID = KindStory, fmt.Sprintf("S_%d.x", i)
			if len(epics) > 0 && rapid.Bool().Draw(t, "namesEpic") {
				it.Epic = rapid.SampledFrom(epics).Draw(t, "epic")
			}
		}
		it.Fields = genFields(t)
		if i > 0 && rapid.IntRange(0, 3).Draw(t, "dependsOn") == 0 {
			// Only on earlier items: no cycles.
			on := doc.Items[rapid.IntRange(0, i-1).Draw(t, "on")].ID
			it.DependsOn = []Link{{Kind: LinkItem, Target: on}}
			if rapid.Bool().Draw(t, "external") {
				it.DependsOn = append(it.DependsOn, Link{Kind: LinkKey, Target: "PROJ-12"}, Link{Kind: LinkReference, Target: "other-doc/s-1"})
			}
		}
		doc.Items = append(doc.Items, it)
	}
	return doc
}

// genFields draws an item's fields: each unset, cleared or set.
func genFields(t *rapid.T) Fields {
	var f Fields
	state := func(label string) FieldState {
		return rapid.SampledFrom([]FieldState{FieldUnset, FieldUnset, FieldCleared, FieldSet}).Draw(t, label)
	}
	list := func(label string, values []string) Field[[]string] {
		s := state(label)
		if s != FieldSet {
			return Field[[]string]{State: s, From: fromOf(s)}
		}
		v := rapid.SliceOfNDistinct(rapid.SampledFrom(values), 1, 3, func(s string) string { return s }).Draw(t, label+"Values")
		return Field[[]string]{State: s, Value: v, From: SourceItem}
	}
	text := func(label string, values []string) Field[string] {
		s := state(label)
		if s != FieldSet {
			return Field[string]{State: s, From: fromOf(s)}
		}
		return Field[string]{State: s, Value: rapid.SampledFrom(values).Draw(t, label+"Value"), From: SourceItem}
	}
	f.Labels = list("labels", []string{"checkout", "guest", "a_b", "ü-1"})
	f.Priority = text("priority", []string{"High", "Lowest"})
	f.Assignee = text("assignee", []string{"ana@example.com", "Bo Smith"})
	if s := state("estimate"); s != FieldUnset {
		f.Estimate = Field[float64]{State: s, From: SourceItem}
		if s == FieldSet {
			f.Estimate.Value = rapid.SampledFrom([]float64{0, 3, 0.5, 13}).Draw(t, "estimateValue")
		}
	}
	f.Components = list("components", []string{"Web", "Payments API", "Back-end"})
	f.FixVersions = list("fixVersions", []string{"2027.1", "1.0.10", "Next"})
	f.Due = text("due", []string{"2027-03-01", "2028-02-29"})
	f.Sprint = text("sprint", []string{"Checkout 12", "Sprint: 7"})
	if team := text("team", []string{"Payments", "Web: core"}); team.Managed() {
		f.Custom = map[string]Field[string]{"Team": team}
	}
	return f
}

func fromOf(s FieldState) Source {
	if s == FieldUnset {
		return ""
	}
	return SourceItem
}

// ignoreLines ignores every Line (of items, fields and links): rendering
// moves lines.
var ignoreLines = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "Line"
}, cmp.Ignore())

// roundTrip parses src, the rendering of doc as the file name, and fails
// unless that gives doc back (lines aside).
func roundTrip(t *rapid.T, doc *Document, name string, src []byte) *Document {
	got, err := goldenOptions.Parse(name, src)
	if err != nil {
		t.Fatalf("Parse(%s rendering of doc): %v\n%s", name, err, src)
	}
	if d := cmp.Diff(doc, got, ignoreLines); d != "" {
		t.Fatalf("%s round trip mismatch (-want +got):\n%s\n%s", name, d, src)
	}
	return got
}

// TestRenderRoundTrip: rendering a document and parsing it back yields
// the same model, in the same order.
func TestRenderRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := genDocument(t)
		src := RenderMarkdown(doc)
		got := roundTrip(t, doc, "plan.md", src)
		// Lines point at the headings, in document order.
		lines := strings.Split(string(src), "\n")
		for _, it := range got.Items {
			h := lines[it.Line-1]
			if !strings.HasPrefix(h, "## ") && !strings.HasPrefix(h, "### ") || !strings.Contains(h, " "+it.ID+": ") {
				t.Fatalf("item %s: line %d is %q, not its heading", it.ID, it.Line, h)
			}
		}
	})
}

// TestParseDeterministicAndOrdered: parsing any mix of structural and
// free lines gives the same answer every time, items in source order and
// problems sorted by line.
func TestParseDeterministicAndOrdered(t *testing.T) {
	vocabulary := []string{
		"---", "id: doc-1", "title: T", "# Title", "", "text", "## Epic e-1: A", "## Epic e-2: B",
		"### Story s-1: C", "### Story s-2: D", "## Story s-3: E", "## Story s-1: dup", "Epic: e-1",
		"Epic: e-9", "Drift: take-document", "Drift: nope", "Acceptance criteria:", "- crit", "- [ ] task",
		"  continued", "```", "~~~", "#### Acceptance criteria", "## Task t-1: x", "## Bug", "### Epic e-3: F",
		"> quote", "<div>", "</div>", "1. one", "## Epic bad id: x", "## Story s-4:",
		"Priority: High", "Labels: a, b", "Estimate: x", "Depends on: s-1", "Blocks: s-2, PROJ-1", "#### Sub-task t-1: G", "#### Notes",
	}
	rapid.Check(t, func(t *rapid.T) {
		lines := rapid.SliceOfN(rapid.SampledFrom(vocabulary), 0, 40).Draw(t, "lines")
		src := []byte(strings.Join(lines, "\n"))
		doc1, err1 := Parse("p.md", src)
		doc2, err2 := Parse("p.md", src)
		if !reflect.DeepEqual(doc1, doc2) || !reflect.DeepEqual(err1, err2) {
			t.Fatalf("not deterministic")
		}
		if doc1 != nil {
			for i := 1; i < len(doc1.Items); i++ {
				if doc1.Items[i].Line <= doc1.Items[i-1].Line {
					t.Fatalf("items out of order")
				}
			}
			for _, it := range doc1.Items {
				h := lines[it.Line-1]
				if !strings.Contains(h, " "+it.ID+":") {
					t.Fatalf("item %s: line %d is %q", it.ID, it.Line, h)
				}
			}
		}
		if pe, ok := err1.(*Error); ok {
			for i := 1; i < len(pe.Problems); i++ {
				if pe.Problems[i].Line < pe.Problems[i-1].Line {
					t.Fatalf("problems not sorted by line")
				}
			}
		}
	})
}

// canonicalOrder reorders doc's items the way the YAML form holds them:
// each epic followed by its stories, then the epic-less stories.
func canonicalOrder(doc *Document) *Document {
	out := &Document{ID: doc.ID, Title: doc.Title}
	for _, e := range doc.Items {
		if e.Kind != KindEpic {
			continue
		}
		out.Items = append(out.Items, e)
		for _, s := range doc.Items {
			if s.Kind == KindStory && s.Epic == e.ID {
				out.Items = append(out.Items, s)
			}
		}
	}
	for _, s := range doc.Items {
		if s.Kind == KindStory && s.Epic == "" {
			out.Items = append(out.Items, s)
		}
	}
	return out
}

// TestRenderYAMLRoundTrip: the YAML rendering of a document parses back
// to the same model, and the Markdown and YAML renderings of one document
// parse to the same model.
func TestRenderYAMLRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := canonicalOrder(genDocument(t))
		got := roundTrip(t, doc, "plan.yaml", RenderYAML(doc))
		md, err := goldenOptions.Parse("plan.md", RenderMarkdown(doc))
		if err != nil {
			t.Fatalf("Parse(RenderMarkdown(doc)): %v", err)
		}
		if d := cmp.Diff(md, got, ignoreLines); d != "" {
			t.Fatalf("Markdown and YAML forms differ (-md +yaml):\n%s", d)
		}
	})
}
