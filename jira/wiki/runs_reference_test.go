package wiki

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// TestRunsMatchTheReference: toRuns and normalizeRuns, which write each
// step into a slice made at its size, make exactly the runs the simpler
// reference below made (the implementation before it), for inline
// content of texts with blanks and line breaks, marks, links and breaks.
func TestRunsMatchTheReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pieces := []string{"a", "b c", " ", "  ", "\t", "\n", " a ", "a\nb", "\n\n", "*"}
		marks := [][]adf.Mark{
			nil,
			{{Type: "strong"}},
			{{Type: "em"}, {Type: "strong"}},
			{{Type: "code"}},
			{{Type: "link", Attrs: map[string]any{"href": "https://a"}}},
			{{Type: "link", Attrs: map[string]any{"href": "https://b"}}, {Type: "em"}},
			{{Type: "link", Attrs: map[string]any{"href": "https://a"}}, {Type: "code"}},
			{{Type: "link", Attrs: map[string]any{"href": "https://a"}}, {Type: "strong"}},
			{{Type: "textColor", Attrs: map[string]any{"color": "#ff0000"}}},
		}
		var ns []adf.Node
		for range rapid.IntRange(0, 12).Draw(t, "nodes") {
			switch rapid.IntRange(0, 5).Draw(t, "kind") {
			case 0:
				ns = append(ns, adf.Node{Type: "hardBreak"})
			case 1:
				ns = append(ns, adf.Node{Type: "mention", Attrs: map[string]any{"id": "x", "text": "@x"}})
			default:
				var b strings.Builder
				for range rapid.IntRange(0, 3).Draw(t, "pieces") {
					b.WriteString(rapid.SampledFrom(pieces).Draw(t, "piece"))
				}
				ns = append(ns, adf.Node{Type: "text", Text: b.String(), Marks: rapid.SampledFrom(marks).Draw(t, "marks")})
			}
		}
		for _, mode := range []inlineMode{modePara, modeItem, modeLine, modeCell} {
			got, want := normalizeRuns(toRuns(ns, mode)), oldNormalizeRuns(oldToRuns(ns, mode))
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("mode %d: runs\n%#v\nwant\n%#v", mode, got, want)
			}
		}
	})
}

// TestEscapeTextMatchesCharacterByCharacter: escapeText, which returns a
// text with nothing to escape as it is, writes what escaping it
// character by character writes, for texts of letters, blanks, special
// characters, other scripts and invalid UTF-8.
func TestEscapeTextMatchesCharacterByCharacter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(0, 8).Draw(t, "pieces") {
			b.WriteString(rapid.SampledFrom([]string{"a", "1", " ", "\t", "é", "日", "\xff", "*", "-", "?", "!", "\\", "&", "&amp;", "{", "|", ".", "#", "\n"}).Draw(t, "piece"))
		}
		s, end := b.String(), rapid.Bool().Draw(t, "end")
		if got, want := escapeText(s, end), escapeRunes(s, end); got != want {
			t.Fatalf("escapeText(%q, %v) = %q; want %q", s, end, got, want)
		}
	})
}

// The reference: toRuns and normalizeRuns as they were, growing a slice
// at every step.

func oldToRuns(ns []adf.Node, mode inlineMode) []run {
	var out []run
	for _, n := range ns {
		if n.Type == "hardBreak" {
			out = append(out, run{brk: true})
			continue
		}
		if n.Type != "text" {
			if t := plain([]adf.Node{n}); t != "" {
				out = append(out, run{text: t})
			}
			continue
		}
		// Line breaks end marks: the text is split at them.
		r := textRun(n, mode)
		for i, p := range strings.Split(r.text, "\n") {
			if i > 0 {
				out = append(out, run{text: "\n", link: r.link})
			}
			if p != "" {
				r.text = p
				out = append(out, r)
			}
		}
	}
	return out
}

// oldNormalizeRuns is normalizeRuns written as its three steps on whole
// slices, each building a new one: blanks out of marks, blanks out of
// links, then neighbours that look the same merged.
func oldNormalizeRuns(rs []run) []run {
	var marked []run
	for _, r := range rs {
		if r.brk || len(r.marks) == 0 || hasCode(r.marks) {
			marked = append(marked, r)
			continue
		}
		lead, body, trail := blankEdges(r.text)
		marked = append(marked, run{text: lead, link: r.link}, run{text: body, marks: r.marks, link: r.link}, run{text: trail, link: r.link})
	}
	// Groups of neighbours with one link; any other run is a group alone.
	var groups [][]run
	for _, r := range marked {
		if k := len(groups) - 1; k >= 0 && linked(groups[k][0]) && linked(r) && sameLink(*groups[k][0].link, *r.link) {
			groups[k] = append(groups[k], r)
			continue
		}
		groups = append(groups, []run{r})
	}
	var unlinked []run
	for _, g := range groups {
		if !linked(g[0]) {
			unlinked = append(unlinked, g...)
			continue
		}
		g = slices.DeleteFunc(slices.Clone(g), func(x run) bool { return x.text == "" })
		if len(g) == 0 {
			continue
		}
		var before, after string
		if !hasCode(g[0].marks) {
			lead, body, trail := blankEdges(g[0].text)
			before, g[0].text = lead, body+trail
		}
		if last := len(g) - 1; !hasCode(g[last].marks) {
			t := g[last].text
			g[last].text = strings.TrimRight(t, " \t")
			after = t[len(g[last].text):]
		}
		unlinked = append(append(append(unlinked, run{text: before}), g...), run{text: after})
	}
	var merged []run
	for _, r := range unlinked {
		k := len(merged) - 1
		switch {
		case !r.brk && r.text == "":
		case k >= 0 && !r.brk && !merged[k].brk && sameRun(merged[k], r):
			merged[k].text += r.text
		default:
			merged = append(merged, r)
		}
	}
	return merged
}

// linked reports a run of text with a link.
func linked(r run) bool { return !r.brk && r.link != nil }

// blankEdges splits s into its leading blanks, the rest up to its
// trailing blanks, and those.
func blankEdges(s string) (lead, body, trail string) {
	body = strings.TrimLeft(s, " \t")
	lead = s[:len(s)-len(body)]
	rest := strings.TrimRight(body, " \t")
	return lead, rest, body[len(rest):]
}
