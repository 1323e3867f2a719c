package adf

import (
	"bufio"
	"bytes"
	stdhtml "html"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is goldmark's CommonMark parser with the GFM extensions (tables,
// strikethrough, task lists, autolinks). A goldmark parser is safe for
// concurrent use.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// FromMarkdown converts Markdown (CommonMark + GFM) to an ADF document that
// validates against the ADF schema. Nothing visible is dropped: constructs ADF
// cannot hold at a given place degrade to text or to a simpler structure (see
// the package documentation). The error is reserved for future limits; today
// every input converts.
func FromMarkdown(md string) (Doc, error) {
	src := []byte(normalizeSource(md))
	root := mdParser.Parse(text.NewReader(src))
	c := &fromConv{src: src}
	content := fitDoc(c.blocks(root))
	ids := 0
	assignIDs(content, &ids)
	return Doc{Content: content}, nil
}

// MarkdownSize is FromMarkdown(md).Size(limit) — the length of md's ADF
// as Jira counts it — converting and counting one top-level block at a
// time, so that it stops converting as soon as the count passes limit: a
// result above limit means "longer than limit". A limit below zero counts
// everything.
func MarkdownSize(md string, limit int) int {
	s := sizer{limit: limit}
	s.add(len(`{"version":1,"type":"doc","content":[]}`))
	first := true
	m := measure{
		past: func(n int) bool {
			if !first {
				n++
			}
			return s.limit >= 0 && s.n+n > s.limit
		},
		textNode: textNodeSize,
		row: func(row *Node, firstRow bool) int {
			if firstRow {
				return sizeOf(&Node{Type: "table", Content: []Node{*row}})
			}
			return 1 + sizeOf(row)
		},
	}
	eachMeasured(md, m, func(ns []Node) bool {
		for i := range ns {
			if !first {
				s.add(1)
			}
			first = false
			s.node(&ns[i])
		}
		return !s.over()
	})
	return s.n
}

// MarkdownBlocks converts md as FromMarkdown does, one top-level block at
// a time, handing each block's nodes (fitted and numbered as in the whole
// document) to f until f returns false: for measuring another rendering of
// the document (wiki markup) without converting all of it. While a
// top-level paragraph or table is converted, past is asked with a lower
// bound of its size in that rendering: the characters of its texts without
// a link that are not white space (kept in any rendering), plus, in a
// paragraph, marks(prev, cur) for each such text, whose marks are cur,
// where prev are those of the text before it (any text of the paragraph;
// none before the first): what the rendering spends at least on the
// change. Once past answers true the rest of that block is not converted,
// and f gets what was.
func MarkdownBlocks(md string, past func(floor int) bool, marks func(prev, cur []Mark) int, f func([]Node) bool) {
	eachMeasured(md, measure{past: past, marks: marks, row: func(row *Node, _ bool) int { return keptText(row) }}, f)
}

// measure is what a measuring conversion knows of the size it counts.
type measure struct {
	// past says whether a top-level block of at least n characters would
	// take the count past its limit.
	past func(n int) bool
	// textNode is what a paragraph's size grows by, at least, where the
	// marks of its counted texts change (or start): ADF's text node
	// without its text.
	textNode int
	// marks, when not nil, is what it grows by, at least, for a counted
	// text with marks cur after a text (any) with marks prev.
	marks func(prev, cur []Mark) int
	// row is a lower bound of what a top-level table's row adds to its
	// size (firstRow: with the table around it).
	row func(row *Node, firstRow bool) int
}

// eachMeasured converts md one top-level block at a time under m,
// handing each block's fitted and numbered nodes to f until it returns
// false. fitDoc fits each top-level block on its own, and assignIDs
// numbers in document order: block by block, both give what they give
// for the whole document.
func eachMeasured(md string, m measure, f func([]Node) bool) {
	src := []byte(normalizeSource(md))
	root := mdParser.Parse(text.NewReader(src))
	c := &fromConv{src: src, measure: &m}
	ids := 0
	c.eachBlock(root.FirstChild(), nil, func(ns []Node) bool {
		ns = fitBlocks(ns, inDoc)
		assignIDs(ns, &ids)
		return f(ns)
	})
}

// keptText is how many characters of n's texts without a link are not
// white space.
func keptText(n *Node) int {
	k := 0
	if n.Type == "text" && !hasMark(n.Marks, "link") {
		k = keptRunes(n.Text)
	}
	for i := range n.Content {
		k += keptText(&n.Content[i])
	}
	return k
}

// keptRunes counts the characters of t that are not white space.
func keptRunes(t string) int {
	k := 0
	for _, r := range t {
		if !unicode.IsSpace(r) {
			k++
		}
	}
	return k
}

// assignIDs numbers task lists and items in document order ("dwire-1", ...),
// after fitting, so the same document always gets the same ids.
func assignIDs(ns []Node, next *int) {
	for i := range ns {
		if ns[i].Type == "taskList" || ns[i].Type == "taskItem" || ns[i].Type == "decisionList" || ns[i].Type == "decisionItem" {
			*next++
			ns[i].Attrs["localId"] = "dwire-" + strconv.Itoa(*next)
		}
		assignIDs(ns[i].Content, next)
	}
}

// normalizeSource makes the input well-formed for conversion: valid UTF-8,
// "\n" line endings, no NUL characters (CommonMark replaces them with
// U+FFFD).
func normalizeSource(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsRune(s, '\r') {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if strings.ContainsRune(s, 0) {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

type fromConv struct {
	src    []byte
	nest   int  // depth of list items and block quotes
	expand bool // inside an expand: <details> makes a nestedExpand
	// run is the text node the next text may be added to (emit); inLink
	// counts the links being converted (no text is added to a node then).
	run     textRun
	inLink  int
	scratch []Mark // emit's marks before they are kept
	// measure, when measuring (MarkdownSize, MarkdownBlocks), knows the
	// limit; nil otherwise.
	measure *measure
	// floor is, while a top-level paragraph is measured, a lower bound
	// of its size: the texts it keeps whatever follows (see count). Past
	// the limit the rest of the paragraph is not converted (cut).
	floor floor
}

// floor is a lower bound of a top-level paragraph's size while it is
// converted, from its texts without a link: such a text stays text
// (links may become cards or atoms, blank texts may go) and keeps its
// characters other than blanks (a hard line break trims only blanks).
// A text with such a character whose marks differ from the previous one
// counted is a text node of its own in the end (only texts of equal marks
// are joined), each at least {"type":"text","text":""} long.
type floor struct {
	out   *[]Node // the paragraph's nodes (not an image's alt text)
	n     int     // the lower bound so far
	marks []Mark  // the marks of the text counted last
	last  []Mark  // the marks of the text emitted last (spare: the ones before)
	spare []Mark
	cut   bool // past the limit: convert no more
}

// textNodeSize is the length of a text node without its text.
var textNodeSize = len(`{"type":"text","text":""}`)

// count adds a text emit appended or joined to out with marks ms.
func (c *fromConv) count(out *[]Node, t string, ms []Mark) {
	f := &c.floor
	if f.out != out || f.cut {
		return
	}
	prev := f.last
	f.last = append(f.spare[:0], ms...)
	f.spare = prev
	if hasMark(ms, "link") {
		return
	}
	kept := keptRunes(t)
	if kept == 0 {
		return
	}
	if f.n == 0 || !marksEqual(f.marks, ms) {
		f.n += c.measure.textNode
		f.marks = append(f.marks[:0], ms...)
	}
	if c.measure.marks != nil {
		f.n += c.measure.marks(prev, ms)
	}
	f.n += kept
	f.cut = c.measure.past(f.n)
}

// unescape resolves backslash escapes and entity/numeric references the way
// goldmark's HTML renderer does, returning plain text.
func unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	html.DefaultWriter.Write(w, b)
	_ = w.Flush()
	return stdhtml.UnescapeString(buf.String())
}

func (c *fromConv) linesText(n ast.Node) string {
	var sb strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		sb.Write(seg.Value(c.src))
	}
	return sb.String()
}

func (c *fromConv) blocks(parent ast.Node) []Node {
	return c.blocksBetween(parent.FirstChild(), nil)
}

// blocksBetween converts the sibling blocks from first up to (not
// including) stop. At the top level, <details><summary>…</summary> …
// </details> is an expand.
func (c *fromConv) blocksBetween(first, stop ast.Node) []Node {
	var out []Node
	c.eachBlock(first, stop, func(ns []Node) bool {
		out = append(out, ns...)
		return true
	})
	return out
}

// eachBlock converts the sibling blocks from first up to (not including)
// stop, handing each block's nodes (an expand's, for the blocks of a
// <details>) to f, until f returns false.
func (c *fromConv) eachBlock(first, stop ast.Node, f func([]Node) bool) {
	for n := first; n != nil && n != stop; n = n.NextSibling() {
		if x, end, ok := c.details(n, stop); ok {
			if !f([]Node{x}) {
				return
			}
			n = end
			continue
		}
		if !f(c.block(n)) {
			return
		}
	}
}

// details reads an expand starting at the HTML block n: the expand and
// its closing block.
func (c *fromConv) details(n, stop ast.Node) (Node, ast.Node, bool) {
	h, ok := n.(*ast.HTMLBlock)
	if !ok || c.nest > 0 {
		return Node{}, nil, false
	}
	title, ok := detailsTitle(c.htmlText(h))
	if !ok {
		return Node{}, nil, false
	}
	depth := 0
	for end := n.NextSibling(); end != nil && end != stop; end = end.NextSibling() {
		e, ok := end.(*ast.HTMLBlock)
		if !ok {
			continue
		}
		t := strings.TrimSpace(c.htmlText(e))
		if _, open := detailsTitle(t); open {
			depth++
		} else if t == detailsClose {
			if depth > 0 {
				depth--
				continue
			}
			typ := "expand"
			if c.expand {
				typ = "nestedExpand"
			}
			outer := c.expand
			c.expand = true
			content := c.blocksBetween(n.NextSibling(), end)
			c.expand = outer
			return Node{Type: typ, Attrs: map[string]any{"title": title}, Content: content}, end, true
		}
	}
	return Node{}, nil, false
}

// htmlText is an HTML block's source.
func (c *fromConv) htmlText(n *ast.HTMLBlock) string {
	t := c.linesText(n)
	if n.HasClosure() {
		t += string(n.ClosureLine.Value(c.src))
	}
	return t
}

func (c *fromConv) block(n ast.Node) []Node {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		var in []Node
		if c.measure != nil && c.nest == 0 && !c.expand {
			// Measured: cut once the paragraph is surely past the limit.
			c.floor = floor{out: &in}
			c.inlines(n, nil, &in)
			c.floor = floor{}
			in = mergeText(in)
		} else {
			in = c.inlineRaw(n)
		}
		if len(in) == 0 {
			return nil
		}
		if c.nest == 0 {
			if m, ok := mediaParagraph(in); ok {
				return []Node{m}
			}
			if card, ok := paragraphCard(in); ok {
				return []Node{card}
			}
		}
		return []Node{{Type: "paragraph", Content: liftAtoms(inlineMedia(in))}}
	case *ast.Heading:
		return []Node{{Type: "heading", Attrs: map[string]any{"level": n.Level}, Content: c.inlineContent(n)}}
	case *ast.ThematicBreak:
		return []Node{{Type: "rule"}}
	case *ast.FencedCodeBlock:
		var attrs map[string]any
		if n.Info != nil {
			if lang := unescape(n.Language(c.src)); lang != "" {
				attrs = map[string]any{"language": lang}
			}
		}
		return []Node{c.codeBlock(c.linesText(n), attrs)}
	case *ast.CodeBlock:
		return []Node{c.codeBlock(c.linesText(n), nil)}
	case *ast.Blockquote:
		if x, ok := c.alert(n); ok {
			return []Node{x}
		}
		c.nest++
		defer func() { c.nest-- }()
		return []Node{{Type: "blockquote", Content: c.blocks(n)}}
	case *ast.List:
		return c.list(n)
	case *ast.HTMLBlock:
		// Raw HTML degrades to its source text.
		t := strings.TrimLeft(strings.TrimRight(c.htmlText(n), "\n"), " ")
		if t == "" {
			return nil
		}
		return []Node{{Type: "paragraph", Content: textNodes(t, nil)}}
	case *ast.LinkReferenceDefinition:
		// Not visible: its destination already lives in the links that use it.
		return nil
	case *east.Table:
		return []Node{c.table(n)}
	default:
		// Anything else: its blocks, or its lines as a paragraph.
		if n.HasChildren() && n.FirstChild().Type() == ast.TypeBlock {
			return c.blocks(n)
		}
		if n.HasChildren() {
			if in := c.inlineContent(n); len(in) > 0 {
				return []Node{{Type: "paragraph", Content: in}}
			}
		}
		if t := strings.TrimRight(c.linesText(n), "\n"); t != "" {
			return []Node{{Type: "paragraph", Content: textNodes(t, nil)}}
		}
		return nil
	}
}

// escapeURL percent-encodes a link destination the way CommonMark renderers
// (and Atlassian's transformer) do; already-encoded input is left alone.
func escapeURL(u string) string {
	return string(util.URLEscape([]byte(u), false))
}

// codeBlock makes a code block. Inside list items and block quotes a line
// of only blanks is read as an empty line, so it is made empty there (it
// looks the same).
func (c *fromConv) codeBlock(body string, attrs map[string]any) Node {
	if c.nest > 0 {
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			if strings.Trim(l, " \t") == "" {
				lines[i] = ""
			}
		}
		body = strings.Join(lines, "\n")
	}
	return codeBlock(body, attrs)
}

func codeBlock(body string, attrs map[string]any) Node {
	body = strings.TrimSuffix(body, "\n")
	n := Node{Type: "codeBlock", Attrs: attrs}
	if body != "" {
		n.Content = []Node{{Type: "text", Text: body}}
	}
	return n
}

// textNodes returns a single text node, or none for empty text.
func textNodes(t string, marks []Mark) []Node {
	if t == "" {
		return nil
	}
	return []Node{{Type: "text", Text: t, Marks: marks}}
}

func (c *fromConv) table(t *east.Table) Node {
	tbl := Node{Type: "table"}
	// At the top level a table is kept as it is (fitBlocks), so its size
	// is known row by row: past the measure's limit the rest is not
	// converted (the table's size, counted after, is past it too).
	measured := c.measure != nil && c.nest == 0 && !c.expand
	size, counted := 0, 0 // a lower bound of the size of the table of the first counted rows
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if measured && counted < len(tbl.Content) {
			for ; counted < len(tbl.Content); counted++ {
				size += c.measure.row(&tbl.Content[counted], counted == 0)
			}
			if c.measure.past(size) {
				break
			}
		}
		cellType := "tableCell"
		if _, ok := r.(*east.TableHeader); ok {
			cellType = "tableHeader"
		}
		// A row's cells and their paragraphs are each made at once, not
		// one cell at a time: a wide table has thousands of cells.
		cells := r.ChildCount()
		row := Node{Type: "tableRow", Content: make([]Node, 0, cells)}
		paras := make([]Node, cells)
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			i := len(row.Content)
			paras[i] = Node{Type: "paragraph", Content: c.inlineContent(cell)}
			row.Content = append(row.Content, Node{Type: cellType, Content: paras[i : i+1 : i+1]})
		}
		if len(row.Content) > 0 {
			tbl.Content = append(tbl.Content, row)
		}
	}
	return tbl
}

// taskBox returns the check box at the start of a list item, if any.
func taskBox(item ast.Node) *east.TaskCheckBox {
	first := item.FirstChild()
	if first == nil {
		return nil
	}
	if _, ok := first.(*ast.Paragraph); !ok {
		if _, ok := first.(*ast.TextBlock); !ok {
			return nil
		}
	}
	cb, _ := first.FirstChild().(*east.TaskCheckBox)
	return cb
}

// isTaskList reports whether a list is a bullet list whose every item is
// "[ ] text" / "[x] text", optionally followed by nested task lists: the
// shape ADF's taskList can hold. Other lists keep "[ ]" as text.
func isTaskList(l *ast.List) bool {
	if l.IsOrdered() || !l.HasChildren() {
		return false
	}
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		if taskBox(item) == nil {
			return false
		}
		for b := item.FirstChild().NextSibling(); b != nil; b = b.NextSibling() {
			sub, ok := b.(*ast.List)
			if !ok || !isTaskList(sub) {
				return false
			}
		}
	}
	return true
}

func (c *fromConv) list(l *ast.List) []Node {
	if isTaskList(l) {
		return []Node{c.taskList(l)}
	}
	out := Node{Type: "bulletList"}
	if l.IsOrdered() {
		out = Node{Type: "orderedList", Attrs: map[string]any{"order": l.Start}}
	}
	c.nest++
	defer func() { c.nest-- }()
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		out.Content = append(out.Content, Node{Type: "listItem", Content: c.blocks(item)})
	}
	return []Node{out}
}

func (c *fromConv) taskList(l *ast.List) Node {
	tl := Node{Type: "taskList", Attrs: map[string]any{"localId": ""}}
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		cb := taskBox(item)
		state := "TODO"
		if cb.IsChecked {
			state = "DONE"
		}
		ti := Node{Type: "taskItem", Attrs: map[string]any{"localId": "", "state": state}}
		para := item.FirstChild()
		para.RemoveChild(para, cb)
		// goldmark's check box consumed the blanks after it.
		ti.Content = c.inlineContent(para)
		tl.Content = append(tl.Content, ti)
		for b := item.FirstChild().NextSibling(); b != nil; b = b.NextSibling() {
			tl.Content = append(tl.Content, c.taskList(b.(*ast.List)))
		}
	}
	return tl
}

// inlineContent converts the inline children of a block into ADF inline
// nodes, with adjacent equal-marked text merged and the atoms' links
// made atoms again.
func (c *fromConv) inlineContent(n ast.Node) []Node {
	return liftAtoms(inlineMedia(c.inlineRaw(n)))
}

// inlineRaw is inlineContent with atoms still links and media images
// still "media" nodes (a paragraph of only media is a media block).
func (c *fromConv) inlineRaw(n ast.Node) []Node {
	var out []Node
	c.inlines(n, nil, &out)
	return mergeText(out)
}

// alert reads a top-level block quote whose first line is an alert
// marker ("[!INFO]", "[!DECISION]") as a panel or a decision list.
func (c *fromConv) alert(q *ast.Blockquote) (Node, bool) {
	p, ok := q.FirstChild().(*ast.Paragraph)
	if c.nest > 0 || !ok || p.Lines().Len() == 0 {
		return Node{}, false
	}
	line := p.Lines().At(0)
	kind := alertKind(string(line.Value(c.src)))
	if kind == "" {
		return Node{}, false
	}
	c.nest++
	kids := c.blocks(q)
	c.nest--
	// The marker is the first paragraph's first line.
	first := kids[0].Content
	if len(first) > 0 && first[0].Type == "text" {
		t := strings.TrimLeft(first[0].Text, " ")
		if i := strings.IndexByte(t, ']'); i >= 0 {
			t = strings.TrimPrefix(t[i+1:], "\n")
		}
		first = mergeText(append([]Node{{Type: "text", Text: t, Marks: first[0].Marks}}, first[1:]...))
	}
	if len(first) == 0 {
		kids = kids[1:]
	} else {
		kids[0].Content = first
	}
	if kind == "decision" {
		if len(kids) != 1 || kids[0].Type != "bulletList" {
			return Node{}, false
		}
		dl := Node{Type: "decisionList", Attrs: map[string]any{"localId": ""}}
		for _, it := range kids[0].Content {
			if len(it.Content) != 1 || it.Content[0].Type != "paragraph" {
				return Node{}, false
			}
			dl.Content = append(dl.Content, Node{Type: "decisionItem", Attrs: map[string]any{"localId": "", "state": "DECIDED"}, Content: it.Content[0].Content})
		}
		return dl, true
	}
	return Node{Type: "panel", Attrs: map[string]any{"panelType": kind}, Content: kids}, true
}

func withMark(marks []Mark, m Mark) []Mark {
	for _, have := range marks {
		if have.Type == m.Type {
			return marks
		}
	}
	out := make([]Mark, 0, len(marks)+1)
	out = append(out, marks...)
	return append(out, m)
}

func hasMark(marks []Mark, typ string) bool {
	for _, m := range marks {
		if m.Type == typ {
			return true
		}
	}
	return false
}

func (c *fromConv) emit(out *[]Node, t string, marks []Mark) {
	if t == "" {
		return
	}
	ms := marks
	if len(ms) > 0 {
		ms = append(c.scratch[:0], marks...)
		if hasMark(ms, "code") {
			// ADF: code combines only with link.
			kept := ms[:0]
			for _, m := range ms {
				if m.Type == "code" || m.Type == "link" {
					kept = append(kept, m)
				}
			}
			ms = kept
		}
		sortMarks(ms)
		c.scratch = ms[:0]
	}
	c.count(out, t, ms)
	if c.run.extends(out, ms, t, c.inLink) {
		return
	}
	if len(ms) == 0 {
		ms = nil
	} else {
		ms = append([]Mark(nil), ms...)
	}
	if len(*out) == cap(*out) {
		// Doubled: Go grows a long slice by a quarter at a time, and a
		// paragraph of thousands of marked pieces ("*a*a*a…") allocated
		// five times its nodes.
		*out = slices.Grow(*out, len(*out))
	}
	*out = append(*out, Node{Type: "text", Text: t, Marks: ms})
	c.run = textRun{out: out, at: len(*out) - 1}
}

// textRun is the text node emit appended last, which the next texts with
// the same marks are added to as they come (mergeText would join them
// later; joining them at once keeps a paragraph of many small pieces —
// "_a" ten thousand times — from holding a node for each).
type textRun struct {
	out *[]Node
	at  int // index of the node in *out
	b   strings.Builder
}

// extends adds t to the run's node when that node is still the last of
// out and has marks ms. A text of only blanks is never added (a hard line
// break removes such texts one by one), nor is anything inside a link (a
// link tells by the nodes it added whether it has text).
func (r *textRun) extends(out *[]Node, ms []Mark, t string, inLink int) bool {
	if r.out != out || r.at != len(*out)-1 || inLink > 0 || strings.Trim(t, " \t") == "" {
		return false
	}
	last := &(*out)[r.at]
	if last.Type != "text" || !marksEqual(last.Marks, ms) {
		return false
	}
	if r.b.Len() == 0 {
		r.b.WriteString(last.Text)
	}
	r.b.WriteString(t)
	last.Text = r.b.String()
	return true
}

func (c *fromConv) inlines(parent ast.Node, marks []Mark, out *[]Node) {
	var opened []string // closing tags of the HTML marks opened at this level
	for n := parent.FirstChild(); n != nil && !c.floor.cut; n = n.NextSibling() {
		if h, ok := n.(*ast.RawHTML); ok {
			// <u>, <sub>, <sup> and coloured spans are marks when they
			// close among their siblings; other HTML stays text.
			tag := c.rawHTML(h)
			if m, closer, open, ok := htmlMark(tag); ok {
				if open && !hasMark(marks, m.Type) && c.closesLater(n, closer) {
					marks = withMark(marks, m)
					opened = append(opened, closer)
					continue
				}
				if !open && len(opened) > 0 && opened[len(opened)-1] == tag {
					opened = opened[:len(opened)-1]
					marks = marks[:len(marks)-1]
					continue
				}
			}
		}
		switch n := n.(type) {
		case *ast.Text:
			v := n.Segment.Value(c.src)
			t := string(v)
			if !n.IsRaw() {
				t = unescape(v)
			}
			c.emit(out, t, marks)
			if n.HardLineBreak() {
				// Trailing spaces before a line break are not visible (and
				// goldmark keeps some of them).
				for len(*out) > 0 && (*out)[len(*out)-1].Type == "text" && !hasMark((*out)[len(*out)-1].Marks, "code") {
					last := &(*out)[len(*out)-1]
					last.Text = strings.TrimRight(last.Text, " \t")
					if last.Text != "" {
						break
					}
					*out = (*out)[:len(*out)-1]
				}
				*out = append(*out, Node{Type: "hardBreak"})
				c.run = textRun{}
			} else if n.SoftLineBreak() {
				c.emit(out, "\n", marks)
			}
		case *ast.String:
			if n.IsCode() || n.IsRaw() {
				c.emit(out, string(n.Value), marks)
			} else {
				c.emit(out, unescape(n.Value), marks)
			}
		case *ast.CodeSpan:
			var sb strings.Builder
			for t := n.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					v := t.Segment.Value(c.src)
					if bytes.HasSuffix(v, []byte("\n")) {
						v = append(v[:len(v)-1:len(v)-1], ' ')
					}
					sb.Write(v)
				case *ast.String:
					sb.Write(t.Value)
				}
			}
			c.emit(out, sb.String(), withMark(marks, Mark{Type: "code"}))
		case *ast.Emphasis:
			typ := "em"
			if n.Level >= 2 {
				typ = "strong"
			}
			c.inlines(n, withMark(marks, Mark{Type: typ}), out)
		case *east.Strikethrough:
			c.inlines(n, withMark(marks, Mark{Type: "strike"}), out)
		case *ast.Link:
			lm := linkMark(escapeURL(unescape(n.Destination)), unescape(n.Title))
			before := len(*out)
			inner := withoutMark(marks, "link")
			c.inLink++
			c.inlines(n, withMark(inner, lm), out)
			c.inLink--
			if len(*out) == before {
				// A link without text keeps its destination as its text.
				c.emit(out, lm.attrString("href"), withMark(inner, lm))
			}
		case *ast.AutoLink:
			url := string(n.URL(c.src))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
				url = "mailto:" + url
			}
			url = escapeURL(url)
			label := string(n.Label(c.src))
			c.emit(out, label, withMark(withoutMark(marks, "link"), linkMark(url, "")))
		case *ast.Image:
			var alt []Node
			c.inlines(n, nil, &alt)
			t := plainText(alt)
			if m, single, group, ok := imageMedia(unescape(n.Destination), t); ok {
				// A media reference (an attachment Jira holds).
				if single != nil {
					m.Attrs["\x00single"] = single
				}
				if group {
					m.Attrs["\x00group"] = true
				}
				*out = append(*out, m)
				continue
			}
			// Other images: ADF media needs an uploaded file; an image
			// degrades to a link to its source whose text is the alt text.
			url := escapeURL(unescape(n.Destination))
			if t == "" {
				t = url
			}
			ms := marks
			if !hasMark(ms, "link") {
				ms = withMark(ms, linkMark(url, unescape(n.Title)))
			}
			c.emit(out, t, ms)
		case *ast.RawHTML:
			c.emit(out, c.rawHTML(n), marks)
		case *east.TaskCheckBox:
			// Outside a task list the box stays text (goldmark consumed the
			// blank after it).
			if n.IsChecked {
				c.emit(out, "[x] ", marks)
			} else {
				c.emit(out, "[ ] ", marks)
			}
		default:
			c.inlines(n, marks, out)
		}
	}
}

// rawHTML is an inline HTML node's source.
func (c *fromConv) rawHTML(n *ast.RawHTML) string {
	var sb strings.Builder
	for i := range n.Segments.Len() {
		s := n.Segments.At(i)
		sb.Write(s.Value(c.src))
	}
	return sb.String()
}

// closesLater reports whether an HTML mark opened at n is closed (by
// closer) among n's later siblings, counting the same tag opened again.
func (c *fromConv) closesLater(n ast.Node, closer string) bool {
	depth := 0
	for s := n.NextSibling(); s != nil; s = s.NextSibling() {
		h, ok := s.(*ast.RawHTML)
		if !ok {
			continue
		}
		tag := c.rawHTML(h)
		if _, cl, open, ok := htmlMark(tag); ok && cl == closer {
			if open {
				depth++
			} else if depth == 0 {
				return true
			} else {
				depth--
			}
		}
	}
	return false
}

func withoutMark(marks []Mark, typ string) []Mark {
	if !hasMark(marks, typ) {
		return marks
	}
	var out []Mark
	for _, m := range marks {
		if m.Type != typ {
			out = append(out, m)
		}
	}
	return out
}

func linkMark(href, title string) Mark {
	attrs := map[string]any{"href": href}
	if title != "" {
		attrs["title"] = title
	}
	return Mark{Type: "link", Attrs: attrs}
}

// plainText concatenates the text of inline nodes.
func plainText(ns []Node) string {
	var sb strings.Builder
	for _, n := range ns {
		if n.Type == "text" {
			sb.WriteString(n.Text)
		}
		sb.WriteString(plainText(n.Content))
	}
	return sb.String()
}

// mergeText joins adjacent text nodes with equal marks and drops empty ones.
func mergeText(ns []Node) []Node {
	out := ns[:0]
	// run holds the texts of out's last node while it grows; they are
	// joined once (adding them one by one costs the square of the run:
	// "[a](" ten thousand times is ten thousand text nodes).
	var run []string
	join := func() {
		if len(run) > 1 {
			out[len(out)-1].Text = strings.Join(run, "")
		}
		run = run[:0]
	}
	for _, n := range ns {
		if n.Type == "text" && n.Text == "" {
			continue
		}
		if n.Type == "text" && len(out) > 0 {
			last := &out[len(out)-1]
			if last.Type == "text" && marksEqual(last.Marks, n.Marks) {
				if len(run) == 0 {
					run = append(run, last.Text)
				}
				run = append(run, n.Text)
				continue
			}
		}
		join()
		out = append(out, n)
	}
	join()
	if len(out) == 0 {
		return nil
	}
	return out
}

func marksEqual(a, b []Mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || !attrsEqual(a[i].Attrs, b[i].Attrs) {
			return false
		}
	}
	return true
}

func attrsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		if vs, ok := v.(string); ok {
			if ws, ok := w.(string); !ok || ws != vs {
				return false
			}
			continue
		}
		vi, vok := attrInt(a, k)
		wi, wok := attrInt(b, k)
		if vok && wok {
			if vi != wi {
				return false
			}
			continue
		}
		return false
	}
	return true
}
