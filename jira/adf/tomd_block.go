package adf

import (
	"strconv"
	"strings"
	"unicode"
)

// ADF → Markdown, block level: paragraphs, headings, code blocks, lists,
// tables, quotes and the block nodes Markdown cannot express (degraded to
// text). Inline content is rendered by tomd_inline.go.

// blocksIn renders sibling blocks. In a list item (item) a list right after
// a paragraph follows it without a blank line, as people write nested lists.
func (w *mdWriter) blocksIn(ns []Node, item bool) []string {
	var out []string
	lastList := "" // kind and marker of the previous block when it was a list
	lastPara := false
	for _, n := range ns {
		var lines []string
		kind := listKind(n.Type)
		if kind != "" {
			var marker string
			lines, marker = w.list(n, lastList)
			if len(lines) > 0 {
				lastList = kind + marker
			}
		} else {
			lines = w.block(n)
			if len(lines) > 0 {
				lastList = ""
			}
		}
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !(item && lastPara && canInterrupt(n)) {
			out = append(out, "")
		}
		out = append(out, lines...)
		lastPara = n.Type == "paragraph"
	}
	return out
}

// canInterrupt reports whether a list may start right below a paragraph
// line (CommonMark: bullet lists, and ordered lists starting at 1).
func canInterrupt(n Node) bool {
	switch n.Type {
	case "bulletList", "taskList":
		return true
	case "orderedList":
		start, ok := attrInt(n.Attrs, "order")
		return !ok || start == 1
	}
	return false
}

func listKind(t string) string {
	switch t {
	case "bulletList", "taskList":
		return "bullet"
	case "orderedList":
		return "ordered"
	}
	return ""
}

func prefixLines(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" {
			out[i] = strings.TrimRight(p, " ")
		} else {
			out[i] = p + l
		}
	}
	return out
}

func (w *mdWriter) block(n Node) []string {
	switch n.Type {
	case "paragraph":
		s := w.inline(n.Content, modePara)
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	case "heading":
		return w.heading(n)
	case "rule":
		return []string{"---"}
	case "codeBlock":
		return codeFence(plainText(n.Content), n.attrString("language"))
	case "blockquote":
		inner := w.blocks(n.Content)
		if len(inner) == 0 {
			return nil
		}
		if alertKind(inner[0]) != "" {
			inner[0] = "\\" + inner[0] // "[!NOTE]" text, not a panel's marker
		}
		return prefixLines(inner, "> ", "> ")
	case "table":
		return w.table(n)
	case "panel":
		if t := n.attrString("panelType"); contains(panelTypes, t) {
			return prefixLines(append([]string{"[!" + strings.ToUpper(t) + "]", ""}, w.blocks(n.Content)...), "> ", "> ")
		}
		label := n.attrString("panelType")
		if label == "" {
			label = "note"
		}
		head := []Node{{Type: "text", Text: strings.ToUpper(label[:1]) + label[1:] + ":", Marks: []Mark{{Type: "strong"}}}}
		inner := w.blocks(append([]Node{{Type: "paragraph", Content: head}}, n.Content...))
		return prefixLines(inner, "> ", "> ")
	case "expand", "nestedExpand":
		if len(n.Content) > 0 {
			lines := append([]string{detailsLine(n.attrString("title")), ""}, w.blocks(n.Content)...)
			return append(lines, "", detailsClose)
		}
		var kids []Node
		if t := n.attrString("title"); t != "" {
			kids = append(kids, Node{Type: "paragraph", Content: []Node{{Type: "text", Text: t, Marks: []Mark{{Type: "strong"}}}}})
		}
		return w.blocks(append(kids, n.Content...))
	case "decisionList":
		lines := []string{"[!DECISION]", ""}
		for _, it := range n.Content {
			s := w.inline(it.Content, modePara)
			lines = append(lines, prefixLines(orEmpty(strings.Split(s, "\n")), "- ", "  ")...)
		}
		return prefixLines(lines, "> ", "> ")
	case "mediaSingle", "mediaGroup":
		if ls, ok := w.mediaBlock(n); ok {
			return ls
		}
		var parts []Node
		for _, m := range n.Content {
			if len(parts) > 0 {
				parts = append(parts, Node{Type: "text", Text: " "})
			}
			if m.Type == "media" {
				parts = append(parts, mediaInline(m)...)
			} else if m.Type == "caption" {
				parts = append(parts, m.Content...)
			}
		}
		return w.block(Node{Type: "paragraph", Content: parts})
	case "media":
		return w.block(Node{Type: "paragraph", Content: mediaInline(n)})
	case "blockCard", "embedCard":
		if l, ok := blockCardLink(n); ok {
			// Written as is: the check of w.inline would read it back as
			// the card, not as a paragraph.
			return []string{renderInline([]Node{l}, modeATX, renderStyle{brackets: true})}
		}
		url := n.attrString("url")
		if url == "" {
			return nil
		}
		return w.block(Node{Type: "paragraph", Content: []Node{{Type: "text", Text: url, Marks: []Mark{linkMark(url, "")}}}})
	case "taskItem", "decisionItem", "blockTaskItem":
		lines, _ := w.list(Node{Type: "taskList", Content: []Node{n}}, "")
		return lines
	case "listItem":
		lines, _ := w.list(Node{Type: "bulletList", Content: []Node{n}}, "")
		return lines
	case "text", "hardBreak", "mention", "emoji", "date", "status", "inlineCard", "placeholder", "mediaInline", "inlineExtension":
		return w.block(Node{Type: "paragraph", Content: []Node{n}})
	default:
		// layoutSection, layoutColumn, bodiedExtension, syncBlock, unknown
		// containers: their content; leaf extensions: their text.
		if len(n.Content) > 0 {
			if IsInline(n.Content[0].Type) {
				return w.block(Node{Type: "paragraph", Content: n.Content})
			}
			return w.blocks(n.Content)
		}
		if t := n.attrString("text"); t != "" {
			return w.block(Node{Type: "paragraph", Content: []Node{{Type: "text", Text: t}}})
		}
		if t, ok := n.Attrs["extensionKey"].(string); ok && t != "" {
			return w.block(Node{Type: "paragraph", Content: []Node{{Type: "text", Text: "[" + t + "]"}}})
		}
		return nil
	}
}

// mediaBlock writes a mediaSingle or mediaGroup as a paragraph of media
// images (ok is false when a member is no media node).
func (w *mdWriter) mediaBlock(n Node) ([]string, bool) {
	var imgs []string
	for _, m := range n.Content {
		if m.Type != "media" || len(m.Marks) > 0 {
			return nil, false
		}
		if n.Type == "mediaSingle" {
			imgs = append(imgs, mediaImage(m, n.Attrs, false))
		} else {
			imgs = append(imgs, mediaImage(m, nil, true))
		}
	}
	if len(imgs) == 0 {
		return nil, false
	}
	return []string{strings.Join(imgs, " ")}, true
}

// IsInline reports whether t is the type of an inline node (one that
// sits in a paragraph's content, not a block).
func IsInline(t string) bool {
	switch t {
	case "text", "hardBreak", "mention", "emoji", "date", "status", "inlineCard", "placeholder", "mediaInline", "inlineExtension":
		return true
	}
	return false
}

func mediaInline(m Node) []Node {
	alt := m.attrString("alt")
	url := m.attrString("url")
	if url != "" {
		if alt == "" {
			alt = url
		}
		return []Node{{Type: "text", Text: alt, Marks: []Mark{linkMark(url, "")}}}
	}
	if alt == "" {
		alt = "attachment"
		if id := m.attrString("id"); id != "" {
			alt = "attachment " + id
		}
	}
	return []Node{{Type: "text", Text: "[" + alt + "]"}}
}

func (w *mdWriter) heading(n Node) []string {
	level, _ := attrInt(n.Attrs, "level")
	if level < 1 {
		level = 1
	}
	if level > 6 {
		level = 6
	}
	multi := false
	for _, c := range n.Content {
		if c.Type == "hardBreak" || (c.Type == "text" && strings.Contains(c.Text, "\n")) {
			multi = true
		}
	}
	if multi && level <= 2 {
		s := w.inline(n.Content, modeSetext)
		if s != "" {
			under := "==="
			if level == 2 {
				under = "---"
			}
			return append(strings.Split(s, "\n"), under)
		}
	}
	s := w.inline(n.Content, modeATX)
	if s == "" {
		return []string{strings.Repeat("#", level)}
	}
	return []string{strings.Repeat("#", level) + " " + s}
}

func codeFence(body, lang string) []string {
	fc := byte('`')
	if strings.ContainsRune(lang, '`') {
		fc = '~'
	}
	n := 3
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimLeft(line, " \t")
		run := 0
		for run < len(t) && t[run] == fc {
			run++
		}
		if run >= n {
			n = run + 1
		}
	}
	fence := strings.Repeat(string(fc), n)
	lines := []string{fence + escapeInfo(lang)}
	if body != "" {
		lines = append(lines, strings.Split(body, "\n")...)
	}
	return append(lines, fence)
}

func escapeInfo(lang string) string {
	var sb strings.Builder
	for _, r := range lang {
		switch {
		case r == '\\' || r == '&' || r == '`':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case unicode.IsSpace(r):
			sb.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// list renders bullet, ordered, task and decision lists. avoid is the kind
// and marker of the list just before it: adjacent lists of the same kind
// need a different marker or Markdown would merge them.
func (w *mdWriter) list(n Node, avoid string) ([]string, string) {
	kind := listKind(n.Type)
	marker := "-"
	if kind == "ordered" {
		marker = "."
	}
	if avoid == kind+marker {
		if kind == "ordered" {
			marker = ")"
		} else {
			marker = "*"
		}
	}
	start, _ := attrInt(n.Attrs, "order")
	if start < 0 {
		start = 0
	}
	var items [][]string
	loose := false
	num := start
	for _, it := range n.Content {
		var first string
		var body []string
		switch it.Type {
		case "taskItem", "blockTaskItem", "decisionItem":
			box := "[ ] "
			if it.attrString("state") == "DONE" {
				box = "[x] "
			}
			if it.Type == "decisionItem" {
				// A decision is not a check box: "- Decision: ...".
				it = Node{Type: "decisionItem", Content: append([]Node{{Type: "text", Text: "Decision:", Marks: []Mark{{Type: "strong"}}}, {Type: "text", Text: " "}}, it.Content...)}
				box = ""
			}
			first = marker + " " + box
			if it.Type == "blockTaskItem" {
				body = w.blocks(it.Content)
			} else if s := w.inline(it.Content, modePara); s != "" {
				body = strings.Split(s, "\n")
			}
			items = append(items, prefixLines(orEmpty(body), first, "  "))
			continue
		case "taskList", "bulletList", "orderedList", "decisionList":
			// A nested list directly in a list: attach to the previous item.
			sub, _ := w.list(it, "")
			if len(items) > 0 {
				last := items[len(items)-1]
				items[len(items)-1] = append(last, prefixLines(sub, "  ", "  ")...)
			} else {
				items = append(items, prefixLines(sub, marker+" ", "  "))
			}
			continue
		case "listItem":
			body = w.blocksIn(it.Content, true)
		default:
			body = w.blocks([]Node{it})
		}
		if kind == "ordered" {
			first = strconv.Itoa(min(num, 999999999)) + marker + " "
			num++
		} else {
			first = marker + " "
		}
		for _, l := range body {
			if l == "" {
				loose = true
			}
		}
		items = append(items, prefixLines(orEmpty(body), first, strings.Repeat(" ", len(first))))
	}
	var out []string
	for i, it := range items {
		if i > 0 && loose {
			out = append(out, "")
		}
		out = append(out, it...)
	}
	return out, marker
}

func orEmpty(lines []string) []string {
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
}

func (w *mdWriter) table(t Node) []string {
	var rows [][]string
	cols := 0
	for _, r := range t.Content {
		var cells []string
		for _, c := range r.Content {
			cells = append(cells, w.inline(joinBlocks(c.Content, blockInline), modeCell))
		}
		cols = max(cols, len(cells))
		rows = append(rows, cells)
	}
	if len(rows) == 0 || cols == 0 {
		return nil
	}
	line := func(cells []string) string {
		for len(cells) < cols {
			cells = append(cells, "")
		}
		var sb strings.Builder
		sb.WriteString("|")
		for _, c := range cells {
			sb.WriteString(" " + c + " |")
		}
		return sb.String()
	}
	out := []string{line(rows[0])}
	delim := make([]string, cols)
	for i := range delim {
		delim[i] = "---"
	}
	out = append(out, line(delim))
	for _, r := range rows[1:] {
		out = append(out, line(r))
	}
	return out
}

// blockInline flattens a block (in a table cell) to inline nodes.
func blockInline(b Node) []Node {
	if IsInline(b.Type) {
		return []Node{b}
	}
	switch b.Type {
	case "paragraph", "heading":
		return b.Content
	case "codeBlock":
		t := plainText(b.Content)
		if t == "" {
			return nil
		}
		return []Node{{Type: "text", Text: t, Marks: []Mark{{Type: "code"}}}}
	}
	var out []Node
	for i, c := range b.Content {
		if i > 0 {
			out = append(out, Node{Type: "text", Text: " "})
		}
		out = append(out, blockInline(c)...)
	}
	return out
}
