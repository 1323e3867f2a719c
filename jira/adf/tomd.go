package adf

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ToMarkdown renders an ADF document as CommonMark + GFM. Every node type
// Jira may return is rendered; those Markdown cannot express (mentions,
// emoji, panels, expands, media, status lozenges, dates, smart links, ...)
// degrade to readable text. For documents made by FromMarkdown the result
// converts back to the same document.
func ToMarkdown(d Doc) string {
	w := &mdWriter{}
	lines := w.blocks(d.Content)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

type mdWriter struct{}

// blocks renders sibling blocks separated by blank lines.
func (w *mdWriter) blocks(ns []Node) []string { return w.blocksIn(ns, false) }

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
	case "bulletList", "taskList", "decisionList":
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
		return prefixLines(inner, "> ", "> ")
	case "table":
		return w.table(n)
	case "panel":
		label := n.attrString("panelType")
		if label == "" {
			label = "note"
		}
		head := []Node{{Type: "text", Text: strings.ToUpper(label[:1]) + label[1:] + ":", Marks: []Mark{{Type: "strong"}}}}
		inner := w.blocks(append([]Node{{Type: "paragraph", Content: head}}, n.Content...))
		return prefixLines(inner, "> ", "> ")
	case "expand", "nestedExpand":
		var kids []Node
		if t := n.attrString("title"); t != "" {
			kids = append(kids, Node{Type: "paragraph", Content: []Node{{Type: "text", Text: t, Marks: []Mark{{Type: "strong"}}}}})
		}
		return w.blocks(append(kids, n.Content...))
	case "mediaSingle", "mediaGroup":
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
			if isInline(n.Content[0].Type) {
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

func isInline(t string) bool {
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
			var in []Node
			for i, b := range c.Content {
				if i > 0 {
					in = append(in, Node{Type: "text", Text: " "})
				}
				in = append(in, blockInline(b)...)
			}
			cells = append(cells, w.inline(in, modeCell))
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
	if isInline(b.Type) {
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

type inlineMode int

const (
	modePara   inlineMode = iota // paragraph: soft breaks and hard breaks kept
	modeSetext                   // setext heading: like a paragraph
	modeATX                      // one line; '#' escaped
	modeCell                     // one line in a table row
)

// atomText turns an inline atom Jira may return into text.
func atomText(n Node) []Node {
	switch n.Type {
	case "mention":
		t := n.attrString("text")
		if t == "" {
			t = "@" + n.attrString("id")
		}
		if !strings.HasPrefix(t, "@") {
			t = "@" + t
		}
		return []Node{{Type: "text", Text: t}}
	case "emoji":
		t := n.attrString("text")
		if t == "" {
			t = n.attrString("shortName")
		}
		return textNodes(t, nil)
	case "date":
		ts := n.attrString("timestamp")
		if ms, err := strconv.ParseInt(ts, 10, 64); err == nil {
			ts = time.UnixMilli(ms).UTC().Format("2006-01-02")
		}
		return textNodes(ts, nil)
	case "status":
		t := n.attrString("text")
		if t == "" {
			return nil
		}
		return []Node{{Type: "text", Text: "[" + t + "]"}}
	case "inlineCard":
		url := n.attrString("url")
		if url == "" {
			return nil
		}
		return []Node{{Type: "text", Text: url, Marks: []Mark{linkMark(url, "")}}}
	case "placeholder":
		return textNodes(n.attrString("text"), nil)
	case "mediaInline":
		return mediaInline(n)
	case "inlineExtension":
		t := n.attrString("text")
		if t == "" {
			if k := n.attrString("extensionKey"); k != "" {
				t = "[" + k + "]"
			}
		}
		return textNodes(t, nil)
	}
	// An unknown inline node: its text, if it has any.
	if t := n.attrString("text"); t != "" {
		return textNodes(t, nil)
	}
	return textNodes(plainText(n.Content), nil)
}

var supportedMarks = map[string]bool{"link": true, "strong": true, "em": true, "strike": true, "code": true}

// normInline is what FromMarkdown would make of inline content: atoms as
// text, only Markdown-expressible marks, code combined with link only,
// adjacent equal-marked text merged.
func normInline(ns []Node, mode inlineMode) []Node {
	var out []Node
	for _, n := range ns {
		switch n.Type {
		case "text":
			var ms []Mark
			code := hasMark(n.Marks, "code")
			for _, m := range n.Marks {
				if !supportedMarks[m.Type] || (code && m.Type != "code" && m.Type != "link") {
					continue
				}
				if m.Type == "link" {
					m = linkMark(m.attrString("href"), m.attrString("title"))
				} else {
					m = Mark{Type: m.Type}
				}
				ms = withMark(ms, m)
			}
			sortMarks(ms)
			if len(ms) == 0 {
				ms = nil
			}
			t := n.Text
			if code {
				t = strings.ReplaceAll(t, "\n", " ")
			}
			if mode == modeATX || mode == modeCell {
				t = strings.ReplaceAll(t, "\n", " ")
			}
			out = append(out, Node{Type: "text", Text: t, Marks: ms})
		case "hardBreak":
			if mode == modeATX || mode == modeCell {
				out = append(out, Node{Type: "text", Text: " "})
			} else {
				out = append(out, Node{Type: "hardBreak"})
			}
		default:
			for _, a := range atomText(n) {
				out = append(out, normInline([]Node{a}, mode)...)
			}
		}
	}
	// Blanks before a hard break are not visible; FromMarkdown drops them.
	out = mergeText(out)
	var trimmed []Node
	for _, n := range out {
		if n.Type == "hardBreak" {
			for len(trimmed) > 0 && trimmed[len(trimmed)-1].Type == "text" && !hasMark(trimmed[len(trimmed)-1].Marks, "code") {
				last := &trimmed[len(trimmed)-1]
				last.Text = strings.TrimRight(last.Text, " \t")
				if last.Text != "" {
					break
				}
				trimmed = trimmed[:len(trimmed)-1]
			}
		}
		trimmed = append(trimmed, n)
	}
	out = mergeText(trimmed)
	// Markdown cannot end a paragraph with a hard break.
	for len(out) > 0 && out[len(out)-1].Type == "hardBreak" {
		out = out[:len(out)-1]
	}
	return out
}

// inline renders inline content. It tries the readable rendering first and
// checks that it parses back to the same nodes; if not, it falls back to a
// more heavily escaped rendering.
func (w *mdWriter) inline(ns []Node, mode inlineMode) string {
	norm := normInline(ns, mode)
	if len(norm) == 0 {
		return ""
	}
	// Most readable first: brackets as they are ("[WIP]" stays "[WIP]":
	// without a definition it is not a link), then brackets escaped, then
	// every emphasis delimiter fenced with character references.
	if plainProse(norm) {
		// Nothing Markdown could misread: no need to check.
		return renderInline(norm, mode, renderStyle{})
	}
	for _, r := range []renderStyle{{}, {brackets: true}, {brackets: true, safe: true}} {
		if s := renderInline(norm, mode, r); inlineRoundTrips(s, norm, mode) {
			return s
		}
	}
	// The one case known to need more: a link whose text starts with code
	// containing "]:" at the start of a paragraph reads as a link reference
	// definition. Drop that leading link, keep the rest.
	if len(norm) > 0 && hasMark(norm[0].Marks, "link") {
		lead := norm[0].Marks
		var unlinked []Node
		for i, n := range norm {
			if i == 0 || (len(unlinked) == i && sameLink(n.Marks, lead)) {
				n.Marks = withoutMark(n.Marks, "link")
				if len(n.Marks) == 0 {
					n.Marks = nil
				}
			}
			unlinked = append(unlinked, n)
		}
		unlinked = mergeText(unlinked)
		if s := renderInline(unlinked, mode, renderStyle{brackets: true, safe: true}); inlineRoundTrips(s, unlinked, mode) {
			return s
		}
	}
	// Last resort, never reached by any input we know of: the text without
	// its formatting, which Markdown always carries.
	var plain []Node
	for _, n := range norm {
		n.Marks = nil
		plain = append(plain, n)
	}
	return renderInline(mergeText(plain), mode, renderStyle{brackets: true, safe: true})
}

// plainProse reports whether inline content is one unformatted line of
// letters, digits, blanks and harmless punctuation that starts with a
// letter or digit and ends without a blank: text that needs no escaping and
// cannot be misread (no "www." or ':' for autolinks, no line starts).
func plainProse(ns []Node) bool {
	if len(ns) != 1 || ns[0].Type != "text" || len(ns[0].Marks) != 0 {
		return false
	}
	t := ns[0].Text
	if strings.Contains(t, "www.") || strings.HasSuffix(t, " ") {
		return false
	}
	for i, r := range t {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r) && i > 0:
		case i > 0 && (r == ' ' || strings.ContainsRune(",.;?'\"%$/()", r)):
		default:
			return false
		}
	}
	return true
}

// sameLink reports whether two mark sets carry the same link.
func sameLink(a, b []Mark) bool {
	for _, m := range a {
		if m.Type == "link" {
			for _, o := range b {
				if o.Type == "link" {
					return attrsEqual(m.Attrs, o.Attrs)
				}
			}
		}
	}
	return false
}

// renderStyle selects how cautiously inline content is written.
type renderStyle struct {
	brackets bool // escape '[' and ']' everywhere
	safe     bool // '_' for em, references around every emphasis delimiter
}

func inlineRoundTrips(s string, want []Node, mode inlineMode) bool {
	var got []Node
	if mode == modeCell {
		// A cell is checked inside a table: pipes are escaped there.
		d, err := FromMarkdown("| h |\n| --- |\n| " + s + " |\n")
		if err != nil || len(d.Content) != 1 || d.Content[0].Type != "table" || len(d.Content[0].Content) != 2 {
			return false
		}
		cell := d.Content[0].Content[1].Content[0]
		got = cell.Content[0].Content
	} else {
		d, err := FromMarkdown(s)
		if err != nil || len(d.Content) != 1 || d.Content[0].Type != "paragraph" {
			return false
		}
		got = d.Content[0].Content
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Type != want[i].Type || got[i].Text != want[i].Text || !marksEqual(got[i].Marks, want[i].Marks) {
			return false
		}
	}
	return true
}

type tokKind int

const (
	tText  tokKind = iota // one rune of text
	tOpen                 // opening emphasis delimiter
	tClose                // closing emphasis delimiter
	tRaw                  // link syntax, code span
	tBreak                // hard break
)

type tok struct {
	kind   tokKind
	r      rune
	s      string // rendered form
	ent    bool   // text rune must be written as a character reference
	inLink bool   // text inside a link's brackets (no autolinking there)
}

var (
	absoluteURI = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>|]*$`)
	emailAddr   = regexp.MustCompile("^[a-zA-Z0-9.!#$%&'*+/=?^_`{}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$")
)

// autolinkable reports whether text node i can be written as an autolink
// (<https://...>, <me@example.com>): the whole link is this one node, its
// text is its address, and it has no title.
func autolinkable(ns []Node, i int) bool {
	n := ns[i]
	var link *Mark
	for j := range n.Marks {
		switch n.Marks[j].Type {
		case "link":
			link = &n.Marks[j]
		case "code":
			return false
		}
	}
	if link == nil || link.attrString("title") != "" {
		return false
	}
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(ns) {
			for _, m := range ns[j].Marks {
				if m.Type == "link" && attrsEqual(m.Attrs, link.Attrs) {
					return false
				}
			}
		}
	}
	href := link.attrString("href")
	if escapeURL(href) != href {
		return false
	}
	if href == n.Text && absoluteURI.MatchString(href) {
		return true
	}
	return href == "mailto:"+n.Text && emailAddr.MatchString(n.Text)
}

func markOpen(m Mark, safe bool) string {
	switch m.Type {
	case "strong":
		return "**"
	case "em":
		if safe {
			return "_"
		}
		return "*"
	case "strike":
		return "~~"
	case "link":
		return "["
	}
	return ""
}

func markClose(m Mark, safe bool) string {
	if m.Type == "link" {
		return "](" + linkDest(m.attrString("href")) + linkTitle(m.attrString("title")) + ")"
	}
	return markOpen(m, safe)
}

var (
	bareDest   = regexp.MustCompile(`^[^\x00-\x20\x7f<>()\\]+$`)
	entityLike = regexp.MustCompile(`&[#A-Za-z0-9]+;`)
)

func linkDest(href string) string {
	if href == "" {
		return "<>"
	}
	if bareDest.MatchString(href) && !entityLike.MatchString(href) {
		return href
	}
	var sb strings.Builder
	sb.WriteByte('<')
	for _, r := range href {
		switch r {
		case '<', '>', '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case '\n':
			sb.WriteString("%0A")
		case '&':
			sb.WriteString("\\&")
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('>')
	return sb.String()
}

func linkTitle(t string) string {
	if t == "" {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(` "`)
	for _, r := range t {
		switch r {
		case '"', '\\', '&':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func codeSpan(t string) string {
	longest, run := 0, 0
	for _, r := range t {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") ||
		(strings.HasPrefix(t, " ") && strings.HasSuffix(t, " ") && strings.Trim(t, " \t") != "")
	if pad {
		return fence + " " + t + " " + fence
	}
	return fence + t + fence
}

func renderInline(ns []Node, mode inlineMode, style renderStyle) string {
	safe := style.safe
	var toks []tok
	var stack []Mark
	closeTo := func(n int) {
		for k := len(stack) - 1; k >= n; k-- {
			m := stack[k]
			kind := tClose
			if m.Type == "link" {
				kind = tRaw
			}
			toks = append(toks, tok{kind: kind, s: markClose(m, safe)})
		}
		stack = stack[:n]
	}
	for i, n := range ns {
		if n.Type == "hardBreak" {
			// A break has no marks; delimiters must not span lines anyway.
			closeTo(0)
			toks = append(toks, tok{kind: tBreak, s: "\\\n"})
			continue
		}
		var want []Mark
		code := false
		auto := autolinkable(ns, i)
		for _, m := range n.Marks {
			if m.Type == "code" {
				code = true
				continue
			}
			if auto && m.Type == "link" {
				continue
			}
			want = append(want, m)
		}
		common := 0
		for common < len(stack) && common < len(want) &&
			stack[common].Type == want[common].Type && attrsEqual(stack[common].Attrs, want[common].Attrs) {
			common++
		}
		closeTo(common)
		for _, m := range want[common:] {
			kind := tOpen
			if m.Type == "link" {
				kind = tRaw
			}
			toks = append(toks, tok{kind: kind, s: markOpen(m, safe)})
			stack = append(stack, m)
		}
		if code {
			toks = append(toks, tok{kind: tRaw, s: codeSpan(n.Text)})
			continue
		}
		if auto {
			toks = append(toks, tok{kind: tRaw, s: "<" + n.Text + ">"})
			continue
		}
		inLink := false
		for _, m := range stack {
			inLink = inLink || m.Type == "link"
		}
		for _, r := range n.Text {
			toks = append(toks, tok{kind: tText, r: r, inLink: inLink})
		}
	}
	closeTo(0)
	escapeText(toks, mode, style)
	fixFlanking(toks, safe)
	fixEmailAutolinks(toks)
	for i := range toks {
		// goldmark does not see "\\\\\n" (an escaped backslash, then a
		// backslash line break) as a hard break; two spaces work there.
		if toks[i].kind == tBreak && i > 0 && strings.HasSuffix(toks[i-1].s, "\\") {
			toks[i].s = "  \n"
		}
	}
	var sb strings.Builder
	for _, t := range toks {
		if mode == modeCell && t.kind == tRaw {
			// GFM splits table rows on unescaped pipes before inline
			// parsing, even inside code spans and link destinations.
			sb.WriteString(strings.ReplaceAll(t.s, "|", "\\|"))
			continue
		}
		sb.WriteString(t.s)
	}
	return sb.String()
}

func entity(r rune) string { return "&#" + strconv.Itoa(int(r)) + ";" }

func isWS(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || unicode.IsSpace(r)
}

// escapeText renders every text token, escaping what Markdown would
// otherwise read as syntax.
func escapeText(toks []tok, mode inlineMode, style renderStyle) {
	safe := style.safe
	lineStart := true
	lineDigits := true // only digits since the start of the line
	var line []rune    // text of the current line so far (for look-behind)
	for i := range toks {
		t := &toks[i]
		if t.kind != tText {
			if t.kind == tBreak {
				lineStart, lineDigits, line = true, true, line[:0]
			} else {
				lineStart, lineDigits = false, false
				line = append(line, 0)
			}
			continue
		}
		r := t.r
		s := string(r)
		switch {
		case r == '\n':
			prev := prevRune(toks, i)
			if mode == modePara || mode == modeSetext {
				if i == len(toks)-1 || prev == 0 || isWS(prev) || nextIsBreakOrNL(toks, i) {
					s = entity(r)
				}
			} else {
				s = " "
			}
			if s == "\n" {
				t.s = s
				lineStart, lineDigits, line = true, true, line[:0]
				continue
			}
		case i == 1 && toks[0].s == "[" && (isWS(r) || r == 'x' || r == 'X') &&
			i+1 < len(toks) && strings.HasPrefix(toks[i+1].s, "]("):
			// "[ ](url)" or "[x](url)" first in a list item is a check box.
			s = entity(r)
		case r == ' ' || r == '\t':
			if lineStart || trailingWS(toks, i) {
				s = entity(r)
			}
		case r == '\v' || r == '\f' || r == '\r' || r == 0:
			s = entity(r)
		case !safe && r == '_' && i > 0 && i+1 < len(toks) && toks[i-1].kind == tText && toks[i+1].kind == tText &&
			isAlnum(toks[i-1].r) && isAlnum(toks[i+1].r):
			// snake_case: an intraword '_' can neither open nor close.
		case r == '<':
			// Only "<" + letter, '/', '!' or '?' can start a tag or an autolink.
			if i+1 >= len(toks) || toks[i+1].kind != tText || isTagStart(toks[i+1].r) {
				s = "\\" + s
			}
		case r == '`':
			// A backslash does not escape inside a code span: "\\`" after a
			// code span on the same line could close it. A reference cannot.
			s = entity(r)
		case (r == '[' || r == ']') && !style.brackets && !(i == 0 && leadingBoxOrLabel(toks)):
			// Left as is; the round-trip check catches "[a](b)" and the like.
			// A leading "[ ]" / "[x]" in a list item is a check box and a
			// leading "[a]:" a link definition: those stay escaped.
		case strings.ContainsRune("\\*_[]~|", r):
			s = "\\" + s
		case r == '>' || r == '-' || r == '+' || r == '=':
			if lineStart {
				s = "\\" + s
			}
		case r == '#':
			if lineStart || (mode == modeATX && closingHashes(toks[i:])) {
				s = "\\" + s
			}
		case r == '.' || r == ')':
			if lineDigits && len(line) > 0 {
				s = "\\" + s
			} else if r == '.' && !t.inLink && endsWith(line, "www") {
				s = "\\" + s
			}
		case r == ':':
			if !t.inLink && nextText(toks, i, 2) == "//" && (endsWith(line, "http") || endsWith(line, "https") || endsWith(line, "ftp")) {
				s = "\\" + s
			}
		case r == '@':
			if !t.inLink && len(line) > 0 && isEmailLocal(line[len(line)-1]) {
				s = "\\" + s
			}
		case r == '&':
			if looksLikeReference(toks[i+1:]) {
				s = "\\" + s
			}
		case r == '!':
			// "![" would start an image.
			if i+1 < len(toks) && toks[i+1].kind == tRaw && strings.HasPrefix(toks[i+1].s, "[") {
				s = "\\" + s
			}
		}
		t.s = s
		if !(r >= '0' && r <= '9') {
			lineDigits = false
		}
		lineStart = false
		line = append(line, r)

	}
}

// closingHashes reports whether the text from here to the end is only '#'
// and blanks: an ATX heading would read it as its closing sequence.
func closingHashes(rest []tok) bool {
	for _, t := range rest {
		if t.kind != tText || (t.r != '#' && t.r != ' ' && t.r != '\t') {
			return false
		}
	}
	return true
}

// fixEmailAutolinks stops GFM's e-mail autolinking from reading across
// markup: an address's local part may contain '*', '_', '~' and '`', so
// "~~a~~`b@c.de`" would turn into a link. For an '@' inside a code span or
// link syntax, the nearest text character before it in the same run of
// local-part characters is written as a character reference, whose ';'
// ends the run. (An '@' in text is escaped with a backslash instead.)
func fixEmailAutolinks(toks []tok) {
	for i := range toks {
		if toks[i].kind != tRaw || !strings.Contains(toks[i].s, "@") {
			continue
		}
		// Is the '@' preceded, inside this token, only by local characters?
		pre := toks[i].s[:strings.Index(toks[i].s, "@")]
		if strings.IndexFunc(pre, func(r rune) bool { return !isEmailLocal(r) }) >= 0 {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			t := &toks[j]
			if t.kind == tText && !t.ent && isAlnum(t.r) {
				t.ent = true
				t.s = entity(t.r)
				break
			}
			if strings.IndexFunc(t.s, func(r rune) bool { return !isEmailLocal(r) }) >= 0 {
				break
			}
		}
	}
}

var boxOrLabel = regexp.MustCompile(`^\[([\s xX]\]|[^\]]*\]:)`)

func leadingBoxOrLabel(toks []tok) bool {
	var sb strings.Builder
	for _, t := range toks {
		if t.kind != tText || sb.Len() > 1000 {
			break
		}
		sb.WriteRune(t.r)
	}
	return boxOrLabel.MatchString(sb.String())
}

// nextText returns up to n runes of text following token i.
func nextText(toks []tok, i, n int) string {
	var rs []rune
	for j := i + 1; j < len(toks) && len(rs) < n && toks[j].kind == tText; j++ {
		rs = append(rs, toks[j].r)
	}
	return string(rs)
}

func isTagStart(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '/' || r == '!' || r == '?')
}

func isEmailLocal(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r))
}

func endsWith(line []rune, s string) bool {
	if len(line) < len(s) {
		return false
	}
	return string(line[len(line)-len(s):]) == s
}

func prevRune(toks []tok, i int) rune {
	if i == 0 {
		return 0
	}
	p := toks[i-1]
	if p.kind == tText {
		return p.r
	}
	if p.kind == tBreak {
		return '\n'
	}
	r, _ := utf8.DecodeLastRuneInString(p.s)
	return r
}

func nextIsBreakOrNL(toks []tok, i int) bool {
	if i+1 >= len(toks) {
		return true
	}
	n := toks[i+1]
	return n.kind == tBreak || (n.kind == tText && isWS(n.r))
}

// trailingWS reports whether the whitespace at i runs to the end of the
// line (where Markdown would strip it or read a hard break).
func trailingWS(toks []tok, i int) bool {
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		if t.kind == tBreak {
			return true
		}
		if t.kind != tText {
			return false
		}
		if t.r == '\n' {
			return true
		}
		if t.r != ' ' && t.r != '\t' {
			return false
		}
	}
	return true
}

// looksLikeReference reports whether the text after '&' would be read as
// an entity or numeric character reference.
func looksLikeReference(rest []tok) bool {
	n := 0
	for _, t := range rest {
		if t.kind != tText {
			return false
		}
		if t.r == ';' {
			return n > 0
		}
		if !(t.r == '#' || t.r < utf8.RuneSelf && (unicode.IsLetter(t.r) || unicode.IsDigit(t.r))) {
			return false
		}
		n++
		if n > 40 {
			return false
		}
	}
	return false
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

func isASCIIPunct(r rune) bool {
	return r < utf8.RuneSelf && unicode.IsPunct(r) || strings.ContainsRune("$+<=>^`|~", r)
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// fixFlanking makes every emphasis delimiter open or close as intended
// (CommonMark's left-/right-flanking rules) by writing neighbouring
// characters as character references where needed: a reference starts
// with '&' and ends with ';', both punctuation, and does not count as
// whitespace.
func fixFlanking(toks []tok, safe bool) {
	for changed, iter := true, 0; changed && iter < 4; iter++ {
		changed = false
		setEnt := func(j int) {
			if j >= 0 && j < len(toks) && toks[j].kind == tText && !toks[j].ent {
				toks[j].ent = true
				toks[j].s = entity(toks[j].r)
				changed = true
			}
		}
		for i, t := range toks {
			switch t.kind {
			case tOpen:
				if i+1 < len(toks) && toks[i+1].kind == tText && (isWS(firstRune(toks[i+1].s)) || firstRune(toks[i+1].s) == rune(t.s[0]) || strings.HasPrefix(toks[i+1].s, "\\")) {
					setEnt(i + 1)
				}
				inner := rune(0)
				if i+1 < len(toks) {
					inner = firstRune(toks[i+1].s)
				}
				if i > 0 {
					outer := lastRune(toks[i-1].s)
					if outer == rune(t.s[0]) || safe && !isWS(outer) ||
						(!isAlnum(inner) || t.s == "_") && !isWS(outer) && !isASCIIPunct(outer) {
						setEnt(i - 1)
					}
				}
			case tClose:
				if i > 0 && toks[i-1].kind == tText && (isWS(lastRune(toks[i-1].s)) || lastRune(toks[i-1].s) == rune(t.s[0])) {
					setEnt(i - 1)
				}
				inner := rune(0)
				if i > 0 {
					inner = lastRune(toks[i-1].s)
				}
				if i+1 < len(toks) {
					outer := firstRune(toks[i+1].s)
					if outer == rune(t.s[0]) || lastRune(toks[i+1].s) == rune(t.s[0]) && toks[i+1].kind == tText || safe && !isWS(outer) ||
						(!isAlnum(inner) || t.s == "_") && !isWS(outer) && !isASCIIPunct(outer) {
						setEnt(i + 1)
					}
				}
			}
		}
	}
}
