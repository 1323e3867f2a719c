package adf

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ADF → Markdown, inline level: text with marks, links, code spans and
// inline atoms, normalised and tokenised; the tokens are escaped by
// tomd_escape.go so the Markdown parses back to the same nodes.

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

var supportedMarks = map[string]bool{"link": true, "strong": true, "em": true, "strike": true, "code": true,
	"underline": true, "subsup": true, "textColor": true, "backgroundColor": true}

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
				switch open, _ := markTags(m); {
				case m.Type == "link":
					m = linkMark(m.attrString("href"), m.attrString("title"))
				case open != "":
					m = Mark{Type: m.Type, Attrs: m.Attrs} // an HTML tag: <u>, <sup>, <span style="color: …">
				case supportedMarks[m.Type] && m.Type != "underline" && m.Type != "subsup" && m.Type != "textColor" && m.Type != "backgroundColor":
					m = Mark{Type: m.Type}
				default:
					continue // a colour Markdown cannot name
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
		case "mediaInline":
			if mode == modeCell || n.attrString("id") == "" {
				out = append(out, atomText(n)...)
				continue
			}
			out = append(out, Node{Type: n.Type, Attrs: n.Attrs})
		default:
			if a, ok := atomLink(n); ok {
				out = append(out, a)
				continue
			}
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
	// What FromMarkdown makes of the atoms' links and the media images.
	want = liftAtoms(append([]Node(nil), want...))
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Type != want[i].Type || got[i].Text != want[i].Text || !marksEqual(got[i].Marks, want[i].Marks) ||
			got[i].Type != "text" && !attrsEqual(got[i].Attrs, want[i].Attrs) {
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
	open, _ := markTags(m)
	return open
}

func markClose(m Mark, safe bool) string {
	if m.Type == "link" {
		return "](" + linkDest(m.attrString("href")) + linkTitle(m.attrString("title")) + ")"
	}
	if _, cl := markTags(m); cl != "" {
		return cl
	}
	return markOpen(m, safe)
}

// rawMark reports whether a mark is written as syntax that is no emphasis
// delimiter (a link's brackets, an HTML tag).
func rawMark(m Mark) bool {
	open, _ := markTags(m)
	return m.Type == "link" || open != ""
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
			if rawMark(m) {
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
		if n.Type == "mediaInline" {
			closeTo(0)
			toks = append(toks, tok{kind: tRaw, s: mediaImage(n, nil, false)})
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
			if rawMark(m) {
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
