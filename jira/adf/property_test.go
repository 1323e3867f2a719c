package adf

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/internal/adfschema"
)

// Pieces of text chosen to collide with Markdown syntax.
var trickyText = []string{
	"a", "b", "word", "é", " ", "  ", "\t", "\n", "*", "**", "_", "__", "~", "~~", "`", "``", "#", "# ",
	"1.", "2)", "-", "- ", "+", "=", "===", "---", ">", "<", "<b>", "</b>", "[", "]", "[ ]", "(", ")",
	"!", "![", "&", "&amp;", "&#35;", ";", "|", "\\", ":", "http://x.y", "www.x.y", "a@b.co", "\"", "'",
	"    ", "```", "~~~", "\u00a0", "“", "”", ".", ",",
}

var hrefs = []string{"https://example.com", "https://example.com/a(b)c", "rel/path", "https://x.y/?q=1&r=2", "mailto:a@b.co", ""}

func genInline(t *rapid.T) []Node {
	n := rapid.IntRange(1, 8).Draw(t, "n")
	var out []Node
	for range n {
		if rapid.IntRange(0, 9).Draw(t, "break") == 0 {
			out = append(out, Node{Type: "hardBreak"})
			continue
		}
		var text string
		for range rapid.IntRange(1, 4).Draw(t, "pieces") {
			text += rapid.SampledFrom(trickyText).Draw(t, "piece")
		}
		var marks []Mark
		if rapid.Bool().Draw(t, "code") {
			marks = append(marks, Mark{Type: "code"})
		} else {
			for _, m := range []string{"em", "strong", "strike"} {
				if rapid.IntRange(0, 3).Draw(t, m) == 0 {
					marks = append(marks, Mark{Type: m})
				}
			}
		}
		if rapid.IntRange(0, 4).Draw(t, "link") == 0 {
			marks = append(marks, linkMark(rapid.SampledFrom(hrefs).Draw(t, "href"), rapid.SampledFrom([]string{"", "title \"q\""}).Draw(t, "title")))
		}
		sortMarks(marks)
		out = append(out, Node{Type: "text", Text: text, Marks: marks})
	}
	return out
}

// TestPropertyADFToMarkdownToADF: for ADF that Markdown can express,
// converting to Markdown and back is stable after one round (the second
// round changes nothing) and keeps every visible character.
func TestPropertyADFToMarkdownToADF(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var blocks []Node
		for range rapid.IntRange(1, 3).Draw(t, "blocks") {
			in := genInline(t)
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0:
				blocks = append(blocks, Node{Type: "paragraph", Content: in})
			case 1:
				blocks = append(blocks, Node{Type: "heading", Attrs: map[string]any{"level": rapid.IntRange(1, 6).Draw(t, "level")}, Content: in})
			case 2:
				blocks = append(blocks, Node{Type: "bulletList", Content: []Node{{Type: "listItem", Content: []Node{{Type: "paragraph", Content: in}}}}})
			case 3:
				blocks = append(blocks, Node{Type: "table", Content: []Node{
					{Type: "tableRow", Content: []Node{{Type: "tableHeader", Content: []Node{{Type: "paragraph", Content: in}}}}},
				}})
			case 4:
				blocks = append(blocks, Node{Type: "codeBlock", Content: textNodes(plainText(in), nil)})
			}
		}
		d := Doc{Content: blocks}
		md := ToMarkdown(d)
		back, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		if ok, at := isSubsequence(adfText(d.Content), adfText(back.Content)); !ok {
			t.Fatalf("text lost at rune %d\nadf:  %s\nmd:   %q\nback: %s", at, d, md, back)
		}
		if err := adfschema.Validate(mustJSON(t, back)); err != nil {
			t.Fatalf("invalid ADF from %q: %v", md, err)
		}
		md2 := ToMarkdown(back)
		back2, _ := FromMarkdown(md2)
		if back.String() != back2.String() {
			t.Fatalf("not stable\nadf:   %s\nmd:    %q\nback:  %s\nmd2:   %q\nback2: %s", d, md, back, md2, back2)
		}
	})
}

// expectedBack is what Markdown can carry of generated ADF: inline content
// normalised (see normInline), blanks before a hard break dropped.
func expectedBack(d Doc) Doc {
	var fix func(ns []Node, inline bool) []Node
	fix = func(ns []Node, inline bool) []Node {
		if inline {
			mode := modePara
			ns = liftAtoms(normInline(ns, mode))
			for i := range ns {
				if ns[i].Type == "hardBreak" && i > 0 && ns[i-1].Type == "text" && !hasMark(ns[i-1].Marks, "code") {
					ns[i-1].Text = strings.TrimRight(ns[i-1].Text, " \t")
				}
			}
			return mergeText(ns)
		}
		var out []Node
		for _, n := range ns {
			switch n.Type {
			case "paragraph", "heading", "taskItem", "decisionItem":
				n.Content = fix(n.Content, true)
				if n.Type == "paragraph" && len(n.Content) == 0 {
					continue
				}
			case "codeBlock":
			default:
				n.Content = fix(n.Content, false)
			}
			out = append(out, n)
		}
		return out
	}
	return Doc{Content: fix(d.Content, false)}
}

func TestPropertyADFToMarkdownIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInline(t)
		d := Doc{Content: []Node{{Type: "paragraph", Content: in}}}
		want := expectedBack(d)
		if len(want.Content) == 0 {
			return
		}
		if hasKnownLimit(want.Content) {
			return
		}
		md := ToMarkdown(d)
		back, _ := FromMarkdown(md)
		if back.String() != want.String() {
			t.Fatalf("ADF -> Markdown -> ADF changed the document\nadf:  %s\nwant: %s\nmd:   %q\nback: %s", d, want, md, back)
		}
	})
}

// hasKnownLimit reports whether a paragraph starts with a linked code span
// containing "]": "[`]:x`](u)" at the start of a paragraph reads as a link
// reference definition, so ToMarkdown leaves that link out (see the package
// documentation).
func hasKnownLimit(ns []Node) bool {
	for _, n := range ns {
		if (n.Type == "paragraph" || n.Type == "taskItem") && len(n.Content) > 0 {
			first := n.Content[0]
			if hasMark(first.Marks, "link") && hasMark(first.Marks, "code") && strings.Contains(first.Text, "]") {
				return true
			}
		}
		if hasKnownLimit(n.Content) {
			return true
		}
	}
	return false
}
