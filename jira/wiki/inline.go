package wiki

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// shortMarks are the text effects written between two equal characters,
// with the ADF mark each becomes.
var shortMarks = map[byte]adf.Mark{
	'*': {Type: "strong"},
	'_': {Type: "em"},
	'-': {Type: "strike"},
	'+': {Type: "underline"},
	'^': {Type: "subsup", Attrs: map[string]any{"type": "sup"}},
	'~': {Type: "subsup", Attrs: map[string]any{"type": "sub"}},
}

var (
	colorOpen  = regexp.MustCompile(`^\{color:([^}]*)\}`)
	anchorTag  = regexp.MustCompile(`^\{anchor:[^}]*\}`)
	imageToken = regexp.MustCompile(`^!([^\s!|\\]+)(\|[^!\n]*)?!`)
)

// inline parses inline wiki markup into text nodes carrying marks.
func (p *parser) inline(s string, marks []adf.Mark) []adf.Node {
	var out []adf.Node
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, adf.Node{Type: "text", Text: text.String(), Marks: marks})
			text.Reset()
		}
	}
	emit := func(ns []adf.Node) {
		flush()
		out = append(out, ns...)
	}
	// A search for a closing token that failed from some position fails
	// from every later one: remembering that keeps long text of unclosed
	// openers linear.
	// (A text effect closes on its own line: its misses hold to the line's
	// end.)
	type miss struct{ from, until int }
	missed := map[string]miss{}
	find := func(from int, tok string, search func(string, int, string) int) int {
		if m, ok := missed[tok]; ok && from >= m.from && from < m.until {
			return -1
		}
		j := search(s, from, tok)
		if j < 0 {
			until := len(s)
			if tok != "}}" && tok != "{color}" && tok != "]" && !strings.HasPrefix(tok, "{") {
				if k := strings.IndexByte(s[from:], '\n'); k >= 0 {
					until = from + k
				}
			}
			missed[tok] = miss{from, until}
		}
		return j
	}
	for i := 0; i < len(s); {
		c := s[i]
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, `\\`):
			emit([]adf.Node{{Type: "hardBreak"}})
			i += 2
			continue
		case c == '\\' && i+1 < len(s) && isSpecial(rune(s[i+1])):
			text.WriteByte(s[i+1])
			i += 2
			continue
		case c == '&':
			if n := entityAt(rest); n > 0 {
				text.WriteString(decodeEntity(rest[:n]))
				i += n
				continue
			}
		case strings.HasPrefix(rest, "{{"):
			if end := find(i+2, "}}", findUnescaped); end > i+2 {
				emit([]adf.Node{{Type: "text", Text: p.literal(s[i+2 : end]), Marks: withMark(marks, adf.Mark{Type: "code"})}})
				i = end + 2
				continue
			}
		case c == '{':
			if m := colorOpen.FindStringSubmatch(rest); m != nil {
				if end := find(i+len(m[0]), "{color}", findUnescaped); end >= 0 {
					p.note("text colour")
					inner := s[i+len(m[0]) : end]
					mk := adf.Mark{Type: "textColor", Attrs: map[string]any{"color": m[1]}}
					emit(p.inline(inner, withMark(marks, mk)))
					i = end + len("{color}")
					continue
				}
			}
			if m := anchorTag.FindString(rest); m != "" {
				p.note("anchor")
				flush()
				i += len(m)
				continue
			}
			if len(rest) >= 3 && rest[2] == '}' {
				if mk, ok := shortMarks[rest[1]]; ok {
					tag := rest[:3]
					if end := find(i+3, tag, findUnescaped); end > i+3 {
						emit(p.inline(s[i+3:end], p.withShort(marks, mk)))
						i = end + 3
						continue
					}
				}
			}
		case c == '[':
			if find(i+1, "]", findUnescaped) < 0 {
				break
			}
			if ns, n := p.link(s, i, marks); n > 0 {
				emit(ns)
				i += n
				continue
			}
		case c == '!':
			if m := imageToken.FindStringSubmatch(rest); m != nil {
				p.note("image")
				href := m[1]
				if !strings.Contains(href, "://") {
					href = "^" + href
				}
				alt := param(strings.TrimPrefix(m[2], "|"), "alt")
				if alt == "" {
					alt = m[1]
				}
				emit([]adf.Node{{Type: "text", Text: alt, Marks: withMark(marks, linkMark(href, ""))}})
				i += len(m[0])
				continue
			}
		case strings.HasPrefix(rest, "??") && opens(s, i, 2):
			if end := find(i+2, "??", closerFrom); end > 0 {
				p.note("citation")
				emit(p.inline(s[i+2:end], p.withShort(marks, adf.Mark{Type: "em"})))
				i = end + 2
				continue
			}
		case strings.IndexByte(markChars, c) >= 0 && opens(s, i, 1):
			if end := find(i+1, string(c), closerFrom); end > 0 {
				emit(p.inline(s[i+1:end], p.withShort(marks, shortMarks[c])))
				i = end + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(rest)
		text.WriteString(rest[:size])
		i += size
	}
	flush()
	return out
}

// withShort adds a text effect, noting those the wiki writer cannot
// write back: those are left out (adf.ToMarkdown would write them as HTML
// tags, which the wiki writer does not carry back to Jira).
func (p *parser) withShort(marks []adf.Mark, m adf.Mark) []adf.Mark {
	switch m.Type {
	case "underline":
		p.note("underline (inserted text)")
		return marks
	case "subsup":
		p.note("superscript and subscript")
		return marks
	}
	return withMark(marks, m)
}

// withMark adds m to marks unless a mark of its type is there.
func withMark(marks []adf.Mark, m adf.Mark) []adf.Mark {
	for _, x := range marks {
		if x.Type == m.Type {
			return marks
		}
	}
	out := make([]adf.Mark, 0, len(marks)+1)
	out = append(out, marks...)
	return append(out, m)
}

// linkMark is a link to href, percent-encoded as Markdown links are (so
// the Markdown of the link reads back as the same link).
func linkMark(href, title string) adf.Mark {
	attrs := map[string]any{"href": string(util.URLEscape([]byte(href), false))}
	if title != "" {
		attrs["title"] = title
	}
	return adf.Mark{Type: "link", Attrs: attrs}
}

// literal resolves escapes and character references in monospaced text;
// other markup there is shown as written.
func (p *parser) literal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isSpecial(rune(s[i+1])):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case s[i] == '&':
			if n := entityAt(s[i:]); n > 0 {
				b.WriteString(decodeEntity(s[i : i+n]))
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// link reads [dest], [text|dest] or [text|dest|title] at s[i]; n is 0
// when there is none.
func (p *parser) link(s string, i int, marks []adf.Mark) ([]adf.Node, int) {
	end := findUnescaped(s, i+1, "]")
	if end < 0 {
		return nil, 0
	}
	body := s[i+1 : end]
	parts := splitUnescaped(body, '|')
	var text, dest, title string
	switch len(parts) {
	case 1:
		dest = strings.TrimSpace(body)
		if !bareLink(dest) {
			return nil, 0
		}
	default:
		text, dest = parts[0], strings.TrimSpace(parts[1])
		if len(parts) > 2 {
			title = p.literal(strings.Join(parts[2:], "|"))
		}
		if dest == "" {
			return nil, 0
		}
	}
	mk := linkMark(dest, title)
	if text == "" {
		return []adf.Node{{Type: "text", Text: linkText(dest), Marks: withMark(marks, mk)}}, end + 1 - i
	}
	ns := p.inline(text, withMark(marks, mk))
	if len(ns) == 0 {
		ns = []adf.Node{{Type: "text", Text: linkText(dest), Marks: withMark(marks, mk)}}
	}
	return ns, end + 1 - i
}

// findUnescaped is the index of the first tok in s at or after from that
// is not escaped by a backslash, or -1.
func findUnescaped(s string, from int, tok string) int {
	for j := from; j < len(s); j++ {
		if escapeAt(s, j) {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], tok) {
			return j
		}
	}
	return -1
}

// escapeAt reports whether s[j] is a backslash escaping the character
// after it (another backslash, or a special character): a scan for a
// delimiter steps over the two, which are text.
func escapeAt(s string, j int) bool {
	return s[j] == '\\' && j+1 < len(s) && (s[j+1] == '\\' || isSpecial(rune(s[j+1])))
}

// splitUnescaped splits s at unescaped sep characters.
func splitUnescaped(s string, sep byte) []string {
	var out []string
	start := 0
	for j := 0; j < len(s); j++ {
		if escapeAt(s, j) {
			j++
			continue
		}
		if s[j] == sep {
			out = append(out, s[start:j])
			start = j + 1
		}
	}
	return append(out, s[start:])
}

// opens reports whether the delimiter of width w at s[i] can open a text
// effect: not after a letter or digit, not before a blank.
func opens(s string, i, w int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if isAlnum(r) {
			return false
		}
	}
	if i+w >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i+w:])
	return !unicode.IsSpace(r)
}

// closerFrom is closer with findUnescaped's arguments.
func closerFrom(s string, from int, tok string) int { return closer(s, from, tok) }

// closer is the index of the delimiter closing a text effect opened before
// from: on the same line, after a non-blank, not before a letter or digit.
func closer(s string, from int, tok string) int {
	for j := from; j < len(s); j++ {
		switch {
		case s[j] == '\n':
			return -1
		case escapeAt(s, j):
			j++
			continue
		}
		if j == from || !strings.HasPrefix(s[j:], tok) {
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(s[:j])
		if unicode.IsSpace(prev) {
			continue
		}
		if k := j + len(tok); k < len(s) {
			next, _ := utf8.DecodeRuneInString(s[k:])
			if isAlnum(next) {
				continue
			}
		}
		return j
	}
	return -1
}

// decodeEntity decodes one character reference.
func decodeEntity(e string) string {
	return html.UnescapeString(e)
}
