package adf

// ADF's structural rules are stricter than Markdown's: a list item must
// start with a paragraph (or code block), a block quote holds only
// paragraphs, lists and code blocks, headings, rules and tables live only at
// the top level. fit reshapes converted blocks to those rules without losing
// text.

type container int

const (
	inDoc container = iota
	inListItem
	inBlockquote
	inPanel
)

func fitDoc(blocks []Node) []Node {
	out := fitBlocks(blocks, inDoc)
	if out == nil {
		return []Node{}
	}
	return out
}

func fitBlocks(blocks []Node, ctx container) []Node {
	var out []Node
	for _, b := range blocks {
		switch b.Type {
		case "heading":
			if ctx != inDoc && ctx != inPanel {
				b = Node{Type: "paragraph", Content: b.Content}
				if len(b.Content) == 0 {
					continue
				}
			}
			out = append(out, b)
		case "rule":
			if ctx != inDoc && ctx != inPanel {
				b = Node{Type: "paragraph", Content: []Node{{Type: "text", Text: "---"}}}
			}
			out = append(out, b)
		case "panel":
			kids := fitBlocks(b.Content, inPanel)
			if len(kids) == 0 {
				kids = []Node{{Type: "paragraph"}}
			}
			out = append(out, Node{Type: "panel", Attrs: b.Attrs, Content: kids})
		case "expand", "nestedExpand":
			kids := fitBlocks(b.Content, inDoc)
			if b.Type == "nestedExpand" {
				kids = fitNested(kids)
			}
			if len(kids) == 0 {
				kids = []Node{{Type: "paragraph"}}
			}
			out = append(out, Node{Type: b.Type, Attrs: b.Attrs, Content: kids})
		case "blockquote":
			kids := fitBlocks(b.Content, inBlockquote)
			if ctx != inDoc {
				out = append(out, kids...)
				continue
			}
			if len(kids) == 0 {
				continue
			}
			out = append(out, Node{Type: "blockquote", Content: kids})
		case "bulletList", "orderedList":
			l := Node{Type: b.Type, Attrs: b.Attrs}
			for _, it := range b.Content {
				// An item without any content has nothing to keep, and
				// Markdown cannot always say where it ends: drop it.
				if it = fitListItem(it); !isEmptyItem(it) {
					l.Content = append(l.Content, it)
				}
			}
			if len(l.Content) == 0 {
				continue
			}
			out = append(out, l)
		case "taskList":
			if ctx == inBlockquote {
				out = append(out, taskListAsBullets(b))
				continue
			}
			out = append(out, b)
		case "table":
			if ctx != inDoc {
				out = append(out, tableAsParagraphs(b)...)
				continue
			}
			out = append(out, b)
		default:
			out = append(out, b)
		}
	}
	return out
}

// fitNested reshapes an expand's content for a nested expand, which holds
// no tables, cards or expands.
func fitNested(kids []Node) []Node {
	var out []Node
	for _, k := range kids {
		switch k.Type {
		case "table":
			out = append(out, tableAsParagraphs(k)...)
		case "blockCard", "embedCard":
			u := k.attrString("url")
			out = append(out, Node{Type: "paragraph", Content: []Node{{Type: "text", Text: u, Marks: []Mark{linkMark(u, "")}}}})
		case "nestedExpand":
			if t := k.attrString("title"); t != "" {
				out = append(out, Node{Type: "paragraph", Content: []Node{{Type: "text", Text: t, Marks: []Mark{{Type: "strong"}}}}})
			}
			out = append(out, fitNested(k.Content)...)
		default:
			out = append(out, k)
		}
	}
	return out
}

func fitListItem(it Node) Node {
	kids := fitBlocks(it.Content, inListItem)
	if len(kids) == 0 || (kids[0].Type != "paragraph" && kids[0].Type != "codeBlock") {
		kids = append([]Node{{Type: "paragraph"}}, kids...)
	}
	return Node{Type: "listItem", Content: kids}
}

// taskListAsBullets degrades a task list (not allowed in a block quote) to a
// bullet list whose items start with "[ ]" / "[x]".
func taskListAsBullets(tl Node) Node {
	bl := Node{Type: "bulletList"}
	for _, ti := range tl.Content {
		switch ti.Type {
		case "taskItem":
			box := "[ ] "
			if ti.attrString("state") == "DONE" {
				box = "[x] "
			}
			in := mergeText(append([]Node{{Type: "text", Text: box}}, ti.Content...))
			bl.Content = append(bl.Content, Node{Type: "listItem", Content: []Node{{Type: "paragraph", Content: in}}})
		case "taskList":
			sub := taskListAsBullets(ti)
			if n := len(bl.Content); n > 0 {
				bl.Content[n-1].Content = append(bl.Content[n-1].Content, sub)
			} else {
				bl.Content = append(bl.Content, Node{Type: "listItem", Content: []Node{{Type: "paragraph"}, sub}})
			}
		}
	}
	return bl
}

// tableAsParagraphs degrades a table (not allowed in lists and quotes) to
// one paragraph per row, cells separated by " | ".
func tableAsParagraphs(t Node) []Node {
	var out []Node
	for _, row := range t.Content {
		var in []Node
		for i, cell := range row.Content {
			if i > 0 {
				in = append(in, Node{Type: "text", Text: " | "})
			}
			in = append(in, joinBlocks(cell.Content, func(p Node) []Node { return p.Content })...)
		}
		if in = mergeText(in); len(in) > 0 {
			out = append(out, Node{Type: "paragraph", Content: in})
		}
	}
	return out
}

// joinBlocks is the inline content of a table cell's blocks, each block's
// through inline, with a space between blocks.
func joinBlocks(blocks []Node, inline func(Node) []Node) []Node {
	var in []Node
	for i, b := range blocks {
		if i > 0 {
			in = append(in, Node{Type: "text", Text: " "})
		}
		in = append(in, inline(b)...)
	}
	return in
}

// isEmptyItem reports whether a list item holds no content at all (only
// empty paragraphs and lists of empty items).
func isEmptyItem(it Node) bool {
	for _, c := range it.Content {
		switch c.Type {
		case "paragraph":
			if len(c.Content) > 0 {
				return false
			}
		case "bulletList", "orderedList":
			for _, sub := range c.Content {
				if !isEmptyItem(sub) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
