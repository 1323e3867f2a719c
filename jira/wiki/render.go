package wiki

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// writer renders an ADF document (as adf.FromMarkdown makes it) as wiki
// markup.
type writer struct{}

// blocks renders sibling blocks separated by blank lines.
func (w *writer) blocks(ns []adf.Node) []string {
	var out []string
	for _, n := range ns {
		lines := w.block(n)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (w *writer) block(n adf.Node) []string {
	switch n.Type {
	case "paragraph":
		s := inline(n.Content, modePara)
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	case "heading":
		level := intAttr(n.Attrs, "level")
		level = min(max(level, 1), 6)
		s := inline(n.Content, modeLine)
		if s == "" {
			return nil
		}
		return []string{"h" + strconv.Itoa(level) + ". " + s}
	case "rule":
		return []string{"----"}
	case "codeBlock":
		return w.code(plain(n.Content), strAttr(n.Attrs, "language"))
	case "blockquote":
		inner := w.blocks(n.Content)
		if len(inner) == 0 {
			return nil
		}
		return append(append([]string{"{quote}"}, inner...), "{quote}")
	case "bulletList", "orderedList", "taskList":
		return w.list(n, "")
	case "table":
		return w.table(n)
	default:
		// Nothing FromMarkdown makes; kept as its text.
		if len(n.Content) > 0 && adf.IsInline(n.Content[0].Type) {
			return w.block(adf.Node{Type: "paragraph", Content: n.Content})
		}
		return w.blocks(n.Content)
	}
}

// code renders a code block: {code:lang} when it has a language wiki
// markup can name, {noformat} otherwise. Neither can hold its own closing
// tag: a block holding both becomes monospaced lines (escapes work there),
// its text kept.
func (w *writer) code(text, lang string) []string {
	if strings.TrimSpace(text) == "" {
		text = "" // as Markdown reads it back
	}
	open, closing := "{noformat}", "{noformat}"
	if lang != "" && langName.MatchString(lang) {
		open, closing = "{code:"+lang+"}", "{code}"
	}
	if strings.Contains(text, closing) {
		open, closing = "{code}", "{code}"
		if strings.Contains(text, "{code}") {
			open, closing = "{noformat}", "{noformat}"
		}
	}
	if strings.Contains(text, closing) {
		return w.block(adf.Node{Type: "paragraph", Content: flatInline(adf.Node{Type: "codeBlock", Content: []adf.Node{{Type: "text", Text: text}}})})
	}
	lines := []string{open}
	lines = append(lines, strings.Split(text, "\n")...)
	return append(lines, closing)
}

// langName is a code language wiki markup can name in {code:lang}.
var langName = regexp.MustCompile(`^[^\s{}|:=]+$`)

// list renders a list; prefix is the markers of the enclosing lists.
func (w *writer) list(n adf.Node, prefix string) []string {
	marker := "*"
	if n.Type == "orderedList" {
		marker = "#"
	}
	p := prefix + marker
	var out []string
	for _, it := range n.Content {
		switch it.Type {
		case "taskItem":
			box := "[ ]"
			if strAttr(it.Attrs, "state") == "DONE" {
				box = "[x]"
			}
			s := inline(it.Content, modeItem)
			if s != "" {
				s = " " + s
			}
			out = append(out, p+" "+box+s)
		case "taskList", "bulletList", "orderedList":
			// A nested task list follows its task item.
			out = append(out, w.list(it, p)...)
		default:
			out = append(out, w.item(it, p)...)
		}
	}
	return out
}

// item renders a list item. Wiki markup has one line of text per item and
// nested lists below it: blocks after the first paragraph join its text
// with line breaks, code there becomes monospaced text, and blocks after a
// nested list start a new item at the same level (nothing is dropped, the
// order is kept).
func (w *writer) item(it adf.Node, p string) []string {
	var out []string
	var line []adf.Node
	flush := func() {
		if s := inline(line, modeItem); s != "" {
			out = append(out, p+" "+s)
		}
		line = nil
	}
	for i, b := range it.Content {
		switch b.Type {
		case "bulletList", "orderedList", "taskList":
			flush()
			if len(out) == 0 {
				out = append(out, p) // an item holding only a list
			}
			if b.Type == "taskList" && (i > 0 && it.Content[i-1].Type == "bulletList" || i+1 < len(it.Content) && it.Content[i+1].Type == "bulletList") {
				// Wiki markup joins it with the bullet list next to it,
				// and a list mixing boxes and plain items is not a task
				// list: its boxes are text.
				b = untaskADF(b)
			}
			out = append(out, w.list(b, p)...)
		default:
			line = joinLines(line, flatInline(b))
		}
	}
	flush()
	return out
}

// joinLines appends inline content to a line, after a line break when
// both hold something.
func joinLines(line, in []adf.Node) []adf.Node {
	if len(in) == 0 {
		return line
	}
	if len(line) == 0 {
		// The content itself, clipped so that a later append copies it:
		// a table's cells are each one paragraph, not worth a copy.
		return slices.Clip(in)
	}
	line = append(line, adf.Node{Type: "hardBreak"})
	return append(line, in...)
}

// untaskADF is a task list as a bullet list whose items start with
// "[ ]" or "[x]" as text.
func untaskADF(tl adf.Node) adf.Node {
	bl := adf.Node{Type: "bulletList"}
	for _, c := range tl.Content {
		if c.Type != "taskItem" {
			if n := len(bl.Content); n > 0 {
				bl.Content[n-1].Content = append(bl.Content[n-1].Content, untaskADF(c))
			}
			continue
		}
		box := "[ ]"
		if strAttr(c.Attrs, "state") == "DONE" {
			box = "[x]"
		}
		para := append([]adf.Node{{Type: "text", Text: box + " "}}, c.Content...)
		bl.Content = append(bl.Content, adf.Node{Type: "listItem", Content: []adf.Node{{Type: "paragraph", Content: para}}})
	}
	return bl
}

// flatInline is a block inside a list item as inline content, without
// line breaks at its ends.
func flatInline(b adf.Node) []adf.Node {
	out := flatInlineAll(b)
	for len(out) > 0 && out[0].Type == "hardBreak" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1].Type == "hardBreak" {
		out = out[:len(out)-1]
	}
	return out
}

func flatInlineAll(b adf.Node) []adf.Node {
	switch b.Type {
	case "paragraph", "heading":
		return b.Content
	case "codeBlock":
		var out []adf.Node
		for i, l := range strings.Split(plain(b.Content), "\n") {
			if i > 0 {
				out = append(out, adf.Node{Type: "hardBreak"})
			}
			if l != "" {
				out = append(out, adf.Node{Type: "text", Text: l, Marks: []adf.Mark{{Type: "code"}}})
			}
		}
		return out
	case "rule":
		return []adf.Node{{Type: "text", Text: "----"}}
	}
	var out []adf.Node
	for _, c := range b.Content {
		out = joinLines(out, flatInline(c))
	}
	if len(out) == 0 && adf.IsInline(b.Type) {
		return []adf.Node{b}
	}
	return out
}

func (w *writer) table(t adf.Node) []string {
	var out []string
	for _, row := range t.Content {
		var b strings.Builder
		sep := "|"
		for _, cell := range row.Content {
			sep = "|"
			if cell.Type == "tableHeader" {
				sep = "||"
			}
			var in []adf.Node
			for _, c := range cell.Content {
				in = joinLines(in, flatInline(c))
			}
			s := inline(in, modeCell)
			if s == "" {
				s = " "
			}
			b.WriteString(sep)
			b.WriteString(s)
		}
		if b.Len() == 0 {
			continue
		}
		b.WriteString(sep)
		out = append(out, b.String())
	}
	return out
}

// inlineMode is where inline content is written.
type inlineMode int

const (
	modePara inlineMode = iota // lines of a paragraph
	modeItem                   // a list item: continuation lines allowed
	modeLine                   // one line (heading): line breaks in text become spaces
	modeCell                   // one table cell: as modeLine
)

// run is one text node ready to be written: its text, marks and link.
type run struct {
	text  string
	marks []adf.Mark // without link
	link  *adf.Mark
	brk   bool // a hard break
}

func toRuns(ns []adf.Node, mode inlineMode) []run {
	out := make([]run, 0, len(ns))
	for _, n := range ns {
		switch n.Type {
		case "hardBreak":
			out = append(out, run{brk: true})
		case "text":
			r := textRun(n, mode)
			t := r.text
			if len(r.marks) == 0 && r.link == nil {
				// Nothing to end at a line break: one run (normalizeRuns
				// would join the pieces again).
				if t != "" {
					out = append(out, r)
				}
				continue
			}
			// Line breaks end marks: split the text at them.
			for i := 0; ; i++ {
				p, rest, more := strings.Cut(t, "\n")
				if i > 0 {
					out = append(out, run{text: "\n", link: r.link})
				}
				if p != "" {
					q := r
					q.text = p
					out = append(out, q)
				}
				if !more {
					break
				}
				t = rest
			}
		default:
			if t := plain([]adf.Node{n}); t != "" {
				out = append(out, run{text: t})
			}
		}
	}
	return out
}

// textRun is text node n as one run: its text (in one line for modeLine
// and modeCell), the marks wiki markup shows and its link.
func textRun(n adf.Node, mode inlineMode) run {
	r := run{text: n.Text}
	if mode == modeLine || mode == modeCell {
		r.text = strings.ReplaceAll(r.text, "\n", " ")
	}
	shown := 0
	for _, m := range n.Marks {
		if m.Type == "link" {
			m := m
			r.link = &m
		} else if markOpen(m) != "" {
			shown++
		}
	}
	if shown > 0 && shown == len(n.Marks) {
		r.marks = n.Marks // all of them: not copied (runs only read their marks)
		return r
	}
	for _, m := range n.Marks {
		if m.Type != "link" && markOpen(m) != "" {
			r.marks = append(r.marks, m)
		}
	}
	return r
}

// normalizeRuns moves blanks at the edges of marked text out of its marks
// and blanks at the edges of a link out of the link (wiki markup reads
// neither a mark nor, cleanly, a link that starts or ends with a blank),
// then merges neighbours that look the same, so escaping sees the final
// neighbours of every character. Runs with empty text (not breaks) are
// dropped. Each step writes into a slice made at its size once: growing
// slices of runs one by one was most of the time spent on a paragraph of
// thousands of marked pieces ("*a*a*a…").
func normalizeRuns(rs []run) []run {
	// Marks first: the blanks around a marked text keep only its link.
	links, marked := false, 0
	for _, r := range rs {
		links = links || r.link != nil
		if !r.brk && len(r.marks) > 0 && !hasCode(r.marks) {
			marked++
		}
	}
	out := make([]run, 0, len(rs)+2*marked)
	for _, r := range rs {
		if r.brk || len(r.marks) == 0 || hasCode(r.marks) {
			out = append(out, r)
			continue
		}
		t := r.text
		b := strings.TrimLeft(t, " \t")
		b2 := strings.TrimRight(b, " \t")
		if lead := t[:len(t)-len(b)]; lead != "" {
			out = append(out, run{text: lead, link: r.link})
		}
		body := r
		body.text = b2
		out = append(out, body)
		if trail := b[len(b2):]; trail != "" {
			out = append(out, run{text: trail, link: r.link})
		}
	}
	// Then links, as groups: the blanks at the edges of a group of runs
	// with one link go outside it.
	if links {
		rs, out = out, make([]run, 0, len(out)+2*len(out)/3+2)
		for i := 0; i < len(rs); {
			r := rs[i]
			if r.brk || r.link == nil {
				out = append(out, r)
				i++
				continue
			}
			j := i
			for j < len(rs) && !rs[j].brk && rs[j].link != nil && sameLink(*rs[j].link, *r.link) {
				j++
			}
			at := len(out)
			out = append(out, run{}) // the blanks before the link
			for _, x := range rs[i:j] {
				if x.text != "" {
					out = append(out, x)
				}
			}
			i = j
			if len(out) == at+1 {
				out = out[:at]
				continue
			}
			if f := &out[at+1]; !hasCode(f.marks) {
				t := strings.TrimLeft(f.text, " \t")
				out[at].text, f.text = f.text[:len(f.text)-len(t)], t
			}
			var trail run
			if l := &out[len(out)-1]; !hasCode(l.marks) {
				t := strings.TrimRight(l.text, " \t")
				trail.text, l.text = l.text[len(t):], t
			}
			out = append(out, trail)
		}
	}
	// Merge and drop empties, in place. The texts of a merged run are
	// joined once: adding them one by one copied a paragraph of 16,000
	// lines (a run each) 16,000 times.
	rs, out = out, out[:0]
	var joined strings.Builder
	merging := false
	end := func() {
		if merging {
			out[len(out)-1].text = joined.String()
			joined.Reset()
			merging = false
		}
	}
	for _, r := range rs {
		if !r.brk && r.text == "" {
			continue
		}
		if k := len(out) - 1; k >= 0 && !r.brk && !out[k].brk && sameRun(out[k], r) {
			if !merging {
				joined.WriteString(out[k].text)
				merging = true
			}
			joined.WriteString(r.text)
			continue
		}
		end()
		out = append(out, r)
	}
	end()
	return out
}

func sameRun(a, b run) bool {
	if (a.link == nil) != (b.link == nil) || (a.link != nil && !sameLink(*a.link, *b.link)) {
		return false
	}
	if len(a.marks) != len(b.marks) {
		return false
	}
	for i := range a.marks {
		if a.marks[i].Type != b.marks[i].Type || strAttr(a.marks[i].Attrs, "type") != strAttr(b.marks[i].Attrs, "type") || strAttr(a.marks[i].Attrs, "color") != strAttr(b.marks[i].Attrs, "color") {
			return false
		}
	}
	return true
}

// inline renders inline content as wiki markup.
func inline(ns []adf.Node, mode inlineMode) string {
	runs := toRuns(ns, mode)
	if len(runs) != 1 || runs[0].brk || runs[0].link != nil || len(runs[0].marks) > 0 {
		// One run of plain text (a table cell, a list item) is normalized
		// as it is.
		runs = normalizeRuns(runs)
	}
	// Line breaks starting or ending a block show nothing.
	for len(runs) > 0 && runs[0].brk {
		runs = runs[1:]
	}
	for len(runs) > 0 && runs[len(runs)-1].brk {
		runs = runs[:len(runs)-1]
	}
	var b strings.Builder
	for i := 0; i < len(runs); {
		r := runs[i]
		if r.brk {
			b.WriteString(`\\`)
			i++
			continue
		}
		if r.link == nil {
			j := i
			for j < len(runs) && !runs[j].brk && runs[j].link == nil {
				j++
			}
			writeRuns(&b, runs[i:j], j == len(runs))
			i = j
			continue
		}
		j := i
		for j < len(runs) && !runs[j].brk && runs[j].link != nil && sameLink(*runs[j].link, *r.link) {
			j++
		}
		writeLink(&b, *r.link, runs[i:j])
		i = j
	}
	s := b.String()
	if mode == modePara {
		// A blank line inside the text (raw HTML kept as text) starts a
		// new paragraph: its blanks are dropped as at the start of a block.
		s = afterBlankLine.ReplaceAllString(s, "\n\n")
	}
	// Blanks starting a block show nothing (and headings, items and cells
	// start after the blanks following their marker).
	s = strings.TrimLeft(s, " \t\n")
	if mode == modePara || mode == modeItem {
		s = protectLineStarts(s, mode == modePara)
	}
	return strings.TrimRight(s, " \t\n")
}

func sameLink(a, b adf.Mark) bool {
	return strAttr(a.Attrs, "href") == strAttr(b.Attrs, "href") && strAttr(a.Attrs, "title") == strAttr(b.Attrs, "title")
}

// writeLink writes [text|href] (or [href], [~name], [^file] where the text
// says the same).
func writeLink(b *strings.Builder, link adf.Mark, rs []run) {
	href := strAttr(link.Attrs, "href")
	title := strAttr(link.Attrs, "title")
	if href == "" {
		// A link to nothing: its text.
		writeRuns(b, rs, false)
		return
	}
	if strings.HasPrefix(href, "~") || strings.HasPrefix(href, "^") || strings.HasPrefix(href, "%5E") || strings.HasPrefix(href, "#") {
		if d, err := url.PathUnescape(href); err == nil {
			href = d
		}
	}
	dest := escapeDest(href)
	var text strings.Builder
	for _, r := range rs {
		text.WriteString(r.text)
	}
	if strings.TrimSpace(text.String()) == "" {
		// A link on blanks shows nothing to click: the blanks.
		writeRuns(b, rs, false)
		return
	}
	// Blanks around the link text go outside the link.
	rs = slices.Clone(rs)
	if f := &rs[0]; !hasCode(f.marks) {
		t := strings.TrimLeft(f.text, " \t")
		b.WriteString(f.text[:len(f.text)-len(t)])
		f.text = t
	}
	var after string
	if l := &rs[len(rs)-1]; !hasCode(l.marks) {
		t := strings.TrimRight(l.text, " \t")
		after = l.text[len(t):]
		l.text = t
	}
	defer b.WriteString(after)
	rs = slices.DeleteFunc(rs, func(r run) bool { return r.text == "" })
	text.Reset()
	for _, r := range rs {
		text.WriteString(r.text)
	}
	plainRuns := true
	for _, r := range rs {
		plainRuns = plainRuns && len(r.marks) == 0
	}
	if plainRuns && title == "" && dest == href && !strings.ContainsAny(href, "&\\") && bareLink(href) && text.String() == linkText(href) {
		b.WriteString("[" + href + "]")
		return
	}
	var in strings.Builder
	writeRuns(&in, rs, true)
	t := in.String()
	if t == "" {
		t = escapeText(href, true)
	}
	b.WriteString("[" + t + "|" + dest)
	if title != "" {
		b.WriteString("|" + escapeText(title, true))
	}
	b.WriteString("]")
}

// escapeDest keeps a link destination inside [...|dest]: the characters
// that would end it are percent-encoded.
func escapeDest(href string) string { return destEscaper.Replace(href) }

// destEscaper is escapeDest's replacer, built once (building it for each
// link was most of the time spent on a paragraph of a thousand links).
var destEscaper = strings.NewReplacer("\\", "%5C", "|", "%7C", "]", "%5D", "[", "%5B", " ", "%20", "\n", "%0A", "\t", "%09", "{", "%7B", "}", "%7D")

// writeRuns writes runs of text (no hard breaks, one link or none). Each
// marked run uses the short form (*strong*) where the characters around it
// let wiki markup see it, and the braced form ({*}strong{*}) elsewhere.
func writeRuns(b *strings.Builder, rs []run, atEnd bool) {
	for i, r := range rs {
		last := i == len(rs)-1 && atEnd
		if len(r.marks) == 0 {
			b.WriteString(escapeText(r.text, last))
			continue
		}
		text := r.text
		code := hasCode(r.marks)
		lead, trail := "", ""
		if !code {
			body := strings.TrimLeft(text, " \t")
			lead = text[:len(text)-len(body)]
			body2 := strings.TrimRight(body, " \t")
			trail = body[len(body2):]
			text = body2
		}
		b.WriteString(escapeText(lead, false))
		if text == "" {
			b.WriteString(escapeText(trail, last))
			continue
		}
		var inner string
		if code {
			inner = "{{" + escapeText(text, false) + "}}"
		} else {
			inner = escapeText(text, false)
		}
		prev := lastRune(b.String())
		next := nextOut(rs, i, atEnd)
		if trail != "" {
			next = ' '
		}
		short := shortOK(prev) && shortOK(next)
		if (prev == 0 || prev == '\n') && strings.ContainsAny(inner[:1], "*#-") {
			short = false // "*#* a" would start a list
		}
		writeMarkTags(b, r.marks, short, false)
		b.WriteString(inner)
		writeMarkTags(b, r.marks, short, true)
		b.WriteString(escapeText(trail, last))
	}
}

// writeMarkTags writes the tags opening marks (closing: closing them, in
// reverse order), short (*) or braced ({*}), straight into out.
func writeMarkTags(out *strings.Builder, marks []adf.Mark, short, closing bool) {
	for k := range marks {
		m := marks[k]
		if closing {
			m = marks[len(marks)-1-k]
		}
		if m.Type == "code" {
			continue
		}
		t := markOpen(m)
		if closing {
			t = markClose(m)
		}
		if !short && len(t) == 1 {
			out.WriteByte('{')
			out.WriteString(t)
			out.WriteByte('}')
			continue
		}
		out.WriteString(t)
	}
}

func hasCode(marks []adf.Mark) bool {
	for _, m := range marks {
		if m.Type == "code" {
			return true
		}
	}
	return false
}

// nextOut is the first character written after run i: a marked run
// starts with a mark (not a letter), an unmarked one with its text.
func nextOut(rs []run, i int, atEnd bool) rune {
	if i+1 >= len(rs) {
		if atEnd {
			return ' '
		}
		return '{'
	}
	n := rs[i+1]
	if n.text == "" {
		return '{'
	}
	if len(n.marks) > 0 {
		if r, _ := utf8.DecodeRuneInString(n.text); unicode.IsSpace(r) && !hasCode(n.marks) {
			return r
		}
		return '{'
	}
	r, _ := utf8.DecodeRuneInString(escapeText(n.text, false))
	return r
}

// shortOK: a short mark (*x*) next to this character is read as a mark.
func shortOK(r rune) bool {
	return r == 0 || unicode.IsSpace(r) || strings.ContainsRune(`.,;:)("'`, r)
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError {
		return 0
	}
	return r
}

func markOpen(m adf.Mark) string {
	switch m.Type {
	case "strong":
		return "*"
	case "em":
		return "_"
	case "strike":
		return "-"
	case "underline":
		return "+"
	case "subsup":
		if strAttr(m.Attrs, "type") == "sub" {
			return "~"
		}
		return "^"
	case "textColor":
		c := strAttr(m.Attrs, "color")
		if c == "" || !colorName.MatchString(c) {
			return ""
		}
		return "{color:" + c + "}"
	case "code":
		return "{{"
	}
	return ""
}

var colorName = regexp.MustCompile(`^#?[A-Za-z0-9]+$`)

func markClose(m adf.Mark) string {
	if m.Type == "textColor" {
		return "{color}"
	}
	return markOpen(m)
}

// markChars are the characters of the short marks.
const markChars = "*_-+^~"

// escapeText escapes text so that wiki markup shows it as written. A mark
// character between two letters or digits is left alone (wiki markup does
// not read it as a mark there); other special characters get a backslash;
// a backslash that would escape what follows is written as &#92;, and an
// '&' that would start a character reference as &#38;. end says nothing
// follows on the line.
func escapeText(s string, end bool) string {
	if s == "" {
		return ""
	}
	if !strings.ContainsAny(s, escaped) && utf8.ValidString(s) {
		return s // nothing to escape: each character as itself
	}
	return escapeRunes(s, end)
}

// escapeRunes is escapeText character by character.
func escapeRunes(s string, end bool) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		prev, next := rune(0), rune(0)
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case strings.ContainsRune(markChars, r):
			if isAlnum(prev) && isAlnum(next) && !(r == '-' && (prev == '-' || next == '-')) {
				b.WriteRune(r)
			} else {
				b.WriteString(`\` + string(r))
			}
		case strings.ContainsRune("{}[]|", r):
			b.WriteString(`\` + string(r))
		case r == '?':
			if prev == '?' || next == '?' || (next == 0 && !end) {
				b.WriteString(`\?`)
			} else {
				b.WriteRune(r)
			}
		case r == '!':
			if (next == 0 && !end) || (next != 0 && !unicode.IsSpace(next)) {
				b.WriteString(`\!`)
			} else {
				b.WriteRune(r)
			}
		case r == '\\':
			if next == 0 || unicode.IsSpace(next) || next == '\\' || isSpecial(next) || next == '&' {
				b.WriteString("&#92;")
			} else {
				b.WriteRune(r)
			}
		case r == '&':
			if entityAt(string(rs[i:])) > 0 {
				b.WriteString("&#38;")
			} else {
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escaped are the characters escapeText may write otherwise than as
// themselves.
const escaped = markChars + "{}[]|?!\\&"

// isSpecial reports whether a backslash before r escapes it.
func isSpecial(r rune) bool {
	return strings.ContainsRune(specials, r)
}

// specials are the characters a backslash escapes.
const specials = `*_-+^~?{}[]|!#`

func isAlnum(r rune) bool {
	return r != 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// entityPattern is a character reference, as wiki markup passes it to
// the page (and this package decodes it).
var entityPattern = regexp.MustCompile(`^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// entityAt is the length of the character reference s starts with, or 0.
func entityAt(s string) int {
	m := entityPattern.FindString(s)
	if m == "" {
		return 0
	}
	if decodeEntity(m) == m {
		return 0
	}
	return len(m)
}

// protectLineStarts escapes what would start a block at the start of a
// line of a paragraph or item: '#' (numbered list), "h1." ... "h6." and
// "bq." (heading, quote). '*', '-', '|' and '{' are escaped everywhere.
func protectLineStarts(s string, first bool) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i == 0 && !first {
			continue
		}
		body := strings.TrimLeft(l, " \t")
		lead := l[:len(l)-len(body)]
		switch {
		case strings.HasPrefix(body, "#"):
			body = `\` + body
		case blockWord.MatchString(body):
			dot := strings.IndexByte(body, '.')
			body = body[:dot] + "&#46;" + body[dot+1:]
		}
		lines[i] = lead + body
	}
	return strings.Join(lines, "\n")
}

// afterBlankLine is a blank line and the blanks starting the next line.
var afterBlankLine = regexp.MustCompile(`\n[ \t]*\n[ \t]*`)

// blockWord is a line start wiki markup reads as a heading or quote.
var blockWord = regexp.MustCompile(`^(h[1-6]|bq)\.`)

// bareLink reports whether [href] alone is read as a link to href.
func bareLink(href string) bool {
	return linkLike.MatchString(href)
}

var linkLike = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*://\S+|mailto:\S+|~\S+|\^\S+|#\S+|[A-Z][A-Z0-9_]+-[0-9]+)$`)

// linkText is the text a bare [href] shows: @name for a person, the file
// name for an attachment, the address otherwise.
func linkText(href string) string {
	switch {
	case strings.HasPrefix(href, "~"):
		return "@" + href[1:]
	case strings.HasPrefix(href, "^"):
		return href[1:]
	}
	return href
}

func plain(ns []adf.Node) string {
	var b strings.Builder
	for _, n := range ns {
		switch n.Type {
		case "text":
			b.WriteString(n.Text)
		case "hardBreak":
			b.WriteString("\n")
		default:
			if t := strAttr(n.Attrs, "text"); t != "" {
				b.WriteString(t)
			}
			b.WriteString(plain(n.Content))
		}
	}
	return b.String()
}

func strAttr(attrs map[string]any, key string) string {
	s, _ := attrs[key].(string)
	return s
}

func intAttr(attrs map[string]any, key string) int {
	switch v := attrs[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	case int64:
		return int(v)
	case json.Number: // adf.Parse keeps numbers as written
		n, _ := v.Int64()
		return int(n)
	}
	return 0
}
