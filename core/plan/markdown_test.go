package plan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// TestPlanParserMakesNoNodePerLine: the plan parser reads only blocks, so
// a paragraph of many lines is a handful of nodes, not one per line (150
// descriptions of 16,000 one-character lines took a gigabyte).
func TestPlanParserMakesNoNodePerLine(t *testing.T) {
	src := []byte("Intro\n\n" + strings.Repeat("a\n", 10000) + "\n- item\n  " + strings.Repeat("b\n", 1000))
	root := mdParser.Parse(text.NewReader(src))
	nodes := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			nodes++
		}
		return ast.WalkContinue, nil
	})
	if nodes > 20 {
		t.Fatalf("the plan parser made %d nodes of a document of 4 blocks; want no node per line", nodes)
	}
}

// blockParser is goldmark's block parser with goldmark's own inline
// handling, the reference the plan parser's blocks must equal.
var blockParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(),
)

// blockTree describes the blocks of root: kind, depth, position and lines.
func blockTree(root ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() == ast.TypeInline {
			return ast.WalkContinue, nil
		}
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		fmt.Fprintf(&b, "%s%s pos=%d blank=%v", strings.Repeat(" ", depth), n.Kind(), n.Pos(), n.HasBlankPreviousLines())
		if h, ok := n.(*ast.Heading); ok {
			fmt.Fprintf(&b, " level=%d", h.Level)
		}
		if l, ok := n.(*ast.List); ok {
			fmt.Fprintf(&b, " marker=%c start=%d tight=%v", l.Marker, l.Start, l.IsTight)
		}
		if n.Type() == ast.TypeBlock {
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				fmt.Fprintf(&b, " [%d,%d)%d", s.Start, s.Stop, s.Padding)
			}
		}
		b.WriteByte('\n')
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestPlanParserKeepsGoldmarksBlocks: skipping the inline parsing changes
// no block — kind, nesting, position, lines — on the test documents, the
// examples and generated Markdown.
func TestPlanParserKeepsGoldmarksBlocks(t *testing.T) {
	var docs [][]byte
	for _, dir := range []string{"testdata/parse", "testdata/malformed", "testdata/rewrite", "../../examples"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && strings.HasSuffix(e.Name(), ".md") {
				docs = append(docs, b)
			}
		}
	}
	if len(docs) < 10 {
		t.Fatalf("found %d test documents", len(docs))
	}
	parts := []string{"a", "*b*", "\\", "\\*", "`c`", "[d](e)", "[f]: g", "<h>", "!", " ", "  ", "    ", "\t", "#", "## h", "-", "- ", "1. ", "2) ", "> ", ">",
		"```", "~~~", "---", "===", "***", "| x | y |", "<div>", "</div>", "<!-- c -->", "&amp;", "Epic: e-1", "Acceptance criteria:", "\n", "\n", "\n", "\n\n"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		docs = append(docs, []byte(b.String()))
	}
	for _, src := range docs {
		got := blockTree(mdParser.Parse(text.NewReader(src)), src)
		want := blockTree(blockParser.Parse(text.NewReader(src)), src)
		if got != want {
			t.Fatalf("blocks of %q:\n%s\nwant (goldmark's):\n%s", src, got, want)
		}
	}
}

// nestedLists is a list nested depth deep, two columns a level.
func nestedLists(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return b.String()
}

// Lists nested past MaxNesting columns are refused before the Markdown
// parser reads them, naming the line, the item whose section holds it and
// what to do; at the limit they are read.
func TestNestingPastTheLimitIsRefused(t *testing.T) {
	doc := "---\nid: deep\n---\n## Epic e-1: E\n\n### Story s-1: S\n\n" + nestedLists(40)
	_, err := Parse("deep.md", []byte(doc))
	var pe *Error
	line := 8 + MaxNesting/2 // the first line past 64 columns: 33rd level
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || pe.Line != line ||
		!strings.Contains(pe.Message, fmt.Sprintf("deep.md line %d (in the section of Story s-1) starts a list item or block quote nested too deeply", line)) ||
		!strings.Contains(pe.Message, "Flatten the list") {
		t.Fatalf("lists 40 deep: %v; want line %d of story s-1 refused", err, line)
	}
	ok := "## Story s-1: S\n\n" + nestedLists(MaxNesting/2) + "\n" + strings.Repeat("> ", MaxNesting/2) + "quote\n"
	if _, err := Parse("ok.md", []byte(ok)); err != nil {
		t.Errorf("lists %d deep and block quotes as deep: %v", MaxNesting/2, err)
	}
}

// Indentation alone is not nesting: code indented far past MaxNesting, in
// a fenced or an indented code block, is read.
func TestDeeplyIndentedCodeIsNotNesting(t *testing.T) {
	deep := strings.Repeat(" ", 2*MaxNesting+20)
	doc := "## Story s-1: S\n\n```json\n{\n" + deep + "\"a\": [1, 2]\n" + deep + "}\n```\n\n- item\n\n      " + deep + "indented code in the item\n"
	got, err := Parse("code.md", []byte(doc))
	if err != nil {
		t.Fatalf("deeply indented code: %v", err)
	}
	if d := got.Items[0].Description; !strings.Contains(d, deep+"\"a\": [1, 2]") {
		t.Errorf("description lost the code's indentation: %q", d)
	}
}

// containerDepth is the most list items and block quotes open around any
// block of root.
func containerDepth(root ast.Node) int {
	most := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		d := 0
		for p := n; p != nil; p = p.Parent() {
			if p.Kind() == ast.KindListItem || p.Kind() == ast.KindBlockquote {
				d++
			}
		}
		most = max(most, d)
		return ast.WalkContinue, nil
	})
	return most
}

// Whatever the lines (indentation, list and quote markers, fences, lazy
// continuation lines), Markdown within the limits never has more than
// MaxNesting list items and block quotes open around a block: the bound
// that keeps the parser's work per line bounded.
func TestNestingWithinTheLimitIsBounded(t *testing.T) {
	markers := []string{"- ", "-  ", "1. ", "10) ", "> ", ">", "* ", "+ "}
	texts := []string{"a", "b c", "```", "~~~", "<div>", "", "---", "# h"}
	r := rand.New(rand.NewPCG(3, 4))
	checked, deep := 0, 0
	for range 8000 {
		var b strings.Builder
		// Each line: indentation (often one level deeper than the line
		// before, as a nested list is written), markers, then text; now
		// and then a blank line.
		m := markers[r.IntN(len(markers))]
		indent, step, stairs := 0, len(m), r.IntN(2) == 0 // stairs: a list nested one level a line
		for range 1 + r.IntN(120) {
			switch k := r.IntN(50); {
			case stairs && k > 0, !stairs && k > 30:
				indent += step
			case k%2 == 0:
				indent = r.IntN(MaxNesting + 8)
			default:
				indent = 0
			}
			b.WriteString(strings.Repeat(" ", indent))
			n := r.IntN(2)
			if stairs {
				n = 1
			} else if r.IntN(8) == 0 {
				n = r.IntN(MaxNesting/2 + 4)
			}
			for range n {
				if !stairs && r.IntN(4) == 0 {
					m = markers[r.IntN(len(markers))]
				}
				b.WriteString(m)
			}
			if stairs {
				b.WriteString(texts[r.IntN(2)] + "\n") // text, no fence
			} else {
				b.WriteString(texts[r.IntN(len(texts))] + "\n")
			}
			if r.IntN(10) == 0 {
				b.WriteString("\n")
			}
		}
		src := b.String()
		if _, why := hostileLines(strings.Split(src, "\n")); why != "" {
			continue
		}
		checked++
		d := containerDepth(mdParser.Parse(text.NewReader([]byte(src))))
		if d > MaxNesting {
			t.Fatalf("%d list items and block quotes deep within the limit:\n%s", d, src)
		}
		if d > MaxNesting/4 {
			deep++
		}
	}
	if checked < 1000 || deep < 80 {
		t.Fatalf("%d generated documents were within the limits, %d of them nested more than %d deep; the test needs more", checked, deep, MaxNesting/4)
	}
}

// TestDescriptionOfManyLinesIsReadAtItsSize: a description of 16,000
// lines is put together with its lists of lines made at their size once
// (the line numbers were grown a quarter at a time: 150 such descriptions
// allocated 80 MB more).
func TestDescriptionOfManyLinesIsReadAtItsSize(t *testing.T) {
	const lines = 16000
	doc := []byte("## Story s-1: S\n\n" + strings.Repeat("a\n", lines))
	d := &mdDoc{body: doc, str: string(doc)}
	for start := 0; start < len(doc); {
		d.lineStarts = append(d.lineStarts, start)
		end := strings.IndexByte(d.str[start:], '\n')
		if end < 0 {
			break
		}
		start += end + 1
	}
	it := &mdItem{rawItem: &rawItem{}, start: 3, end: 2 + lines}
	var desc string
	allocated := testing.AllocsPerRun(3, func() { desc = d.description(it) })
	if desc != strings.TrimSuffix(strings.Repeat("a\n", lines), "\n") {
		t.Fatalf("description of %d characters; want %d lines of a", len(desc), lines)
	}
	if allocated > 4 {
		t.Errorf("putting a description of %d lines together took %.0f allocations; want at most 4 (each list made at its size)", lines, allocated)
	}
}
