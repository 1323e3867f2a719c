package adf

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/internal/adfschema"
)

// genText is inline content that ends in a letter, so no block is empty
// after normalisation.
func genText(t *rapid.T) []Node {
	in := genInline(t)
	return append(in, Node{Type: "text", Text: "z"})
}

func genCode(t *rapid.T) Node {
	var body string
	for range rapid.IntRange(0, 5).Draw(t, "codePieces") {
		body += rapid.SampledFrom([]string{"x", " ", "\t", "\n", "```", "~~~", "`", "    y", "\\", "<b>", "&amp;", "- z"}).Draw(t, "codePiece")
	}
	var attrs map[string]any
	if lang := rapid.SampledFrom([]string{"", "go", "c++", "a`b", "&amp;", "x\\y"}).Draw(t, "lang"); lang != "" {
		attrs = map[string]any{"language": lang}
	}
	return codeBlock(body+"\n", attrs)
}

func genListItem(t *rapid.T, depth int) Node {
	var kids []Node
	if rapid.IntRange(0, 4).Draw(t, "itemCode") == 0 {
		kids = append(kids, genCode(t))
	} else {
		kids = append(kids, Node{Type: "paragraph", Content: genText(t)})
	}
	for range rapid.IntRange(0, 2).Draw(t, "itemMore") {
		kids = append(kids, genNested(t, "itemKind", 3, func() []Node {
			if depth < 3 {
				return []Node{genList(t, depth+1, true)}
			}
			return nil
		})...)
	}
	return Node{Type: "listItem", Content: kids}
}

// genNested draws one block inside a list item or a quote (the draw named
// label, from 0 to n): a paragraph, a code block, or else what nested
// gives (a nested list, or nothing).
func genNested(t *rapid.T, label string, n int, nested func() []Node) []Node {
	switch rapid.IntRange(0, n).Draw(t, label) {
	case 0:
		return []Node{{Type: "paragraph", Content: genText(t)}}
	case 1:
		return []Node{genCode(t)}
	}
	return nested()
}

func genList(t *rapid.T, depth int, tasks bool) Node {
	n := rapid.IntRange(1, 3).Draw(t, "items")
	kind := rapid.IntRange(0, 2).Draw(t, "listKind")
	if kind == 2 && !tasks {
		kind = 0
	}
	switch kind {
	case 0, 1:
		l := Node{Type: "bulletList"}
		if kind == 1 {
			l = Node{Type: "orderedList", Attrs: map[string]any{"order": rapid.IntRange(0, 12).Draw(t, "order")}}
		}
		for range n {
			l.Content = append(l.Content, genListItem(t, depth))
		}
		return l
	default:
		l := Node{Type: "taskList", Attrs: map[string]any{"localId": "x"}}
		for i := range n {
			state := rapid.SampledFrom([]string{"TODO", "DONE"}).Draw(t, "state")
			l.Content = append(l.Content, Node{Type: "taskItem", Attrs: map[string]any{"localId": "x", "state": state}, Content: genText(t)})
			if i > 0 && depth < 3 && rapid.IntRange(0, 3).Draw(t, "subtasks") == 0 {
				l.Content = append(l.Content, genList(t, depth+1, true))
				if l.Content[len(l.Content)-1].Type != "taskList" {
					l.Content = l.Content[:len(l.Content)-1]
				}
			}
		}
		return l
	}
}

func genTable(t *rapid.T) Node {
	cols := rapid.IntRange(1, 3).Draw(t, "cols")
	tbl := Node{Type: "table"}
	for r := range rapid.IntRange(1, 3).Draw(t, "rows") {
		typ := "tableCell"
		if r == 0 {
			typ = "tableHeader"
		}
		row := Node{Type: "tableRow"}
		for range cols {
			var in []Node
			if rapid.Bool().Draw(t, "cellText") {
				in = normInline(genText(t), modeCell)
			}
			row.Content = append(row.Content, Node{Type: typ, Content: []Node{{Type: "paragraph", Content: in}}})
		}
		tbl.Content = append(tbl.Content, row)
	}
	return tbl
}

func genDocBlocks(t *rapid.T) []Node {
	var out []Node
	for range rapid.IntRange(1, 4).Draw(t, "docBlocks") {
		switch rapid.IntRange(0, 6).Draw(t, "docKind") {
		case 0:
			out = append(out, Node{Type: "paragraph", Content: genText(t)})
		case 1:
			level := rapid.IntRange(1, 6).Draw(t, "level")
			out = append(out, Node{Type: "heading", Attrs: map[string]any{"level": level}, Content: genText(t)})
		case 2:
			out = append(out, genCode(t))
		case 3:
			out = append(out, genList(t, 0, true))
		case 4:
			var kids []Node
			for range rapid.IntRange(1, 3).Draw(t, "quoteKids") {
				kids = append(kids, genNested(t, "quoteKind", 2, func() []Node { return []Node{genList(t, 1, false)} })...)
			}
			out = append(out, Node{Type: "blockquote", Content: kids})
		case 5:
			out = append(out, Node{Type: "rule"})
		default:
			out = append(out, genTable(t))
		}
	}
	return out
}

// markdownable normalises generated ADF to what Markdown carries: inline
// content as normInline makes it (per context), ATX headings on one line.
func markdownable(ns []Node, cell bool) []Node { return markdownableIn(ns, cell, false) }

func markdownableIn(ns []Node, cell, nested bool) []Node {
	var out []Node
	for _, n := range ns {
		switch n.Type {
		case "paragraph", "taskItem":
			mode := modePara
			if cell {
				mode = modeCell
			}
			n.Content = normInline(n.Content, mode)
		case "heading":
			level, _ := attrInt(n.Attrs, "level")
			mode := modeSetext
			if level > 2 {
				mode = modeATX
			}
			n.Content = normInline(n.Content, mode)
		case "codeBlock":
			if nested {
				c := &fromConv{nest: 1}
				n = c.codeBlock(plainText(n.Content)+"\n", n.Attrs)
			}
		case "tableCell", "tableHeader":
			n.Content = markdownableIn(n.Content, true, nested)
		case "listItem", "blockquote":
			n.Content = markdownableIn(n.Content, cell, true)
		default:
			n.Content = markdownableIn(n.Content, cell, nested)
		}
		out = append(out, n)
	}
	return out
}

// TestPropertyBlocksADFToMarkdownIdentity: block structure (headings, code
// blocks, nested bullet/ordered/task lists, quotes, rules, tables) survives
// ADF -> Markdown -> ADF unchanged (localIds aside).
func TestPropertyBlocksADFToMarkdownIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := Doc{Content: genDocBlocks(t)}
		if err := checkStructure(d); err != nil {
			t.Fatalf("generator made invalid ADF: %v", err)
		}
		want := Doc{Content: markdownable(d.Content, false)}
		if hasKnownLimit(want.Content) {
			return
		}
		md := ToMarkdown(d)
		back, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		if err := adfschema.Validate(mustJSON(t, back)); err != nil {
			t.Fatalf("invalid ADF from %q: %v", md, err)
		}
		if err := checkStructure(back); err != nil {
			t.Fatalf("ADF from %q: %v", md, err)
		}
		w, g := normalizeADF(t, mustJSON(t, want)), normalizeADF(t, mustJSON(t, back))
		if w != g {
			i := 0
			for i < len(w) && i < len(g) && w[i] == g[i] {
				i++
			}
			t.Fatalf("ADF -> Markdown -> ADF changed the document at byte %d\nwant: ...%s\nback: ...%s\nmd:   %q", i, w[max(0, i-200):min(len(w), i+200)], g[max(0, i-200):min(len(g), i+200)], md)
		}
	})
}
