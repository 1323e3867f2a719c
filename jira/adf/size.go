package adf

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Size is the length, in characters (runes), of the document's JSON as
// MarshalJSON writes it — what Jira counts against a field's limit —
// counted without writing it. Counting stops as soon as it passes limit:
// a result above limit means "longer than limit", not the exact length.
// A limit below zero counts everything.
func (d Doc) Size(limit int) int {
	s := sizer{limit: limit}
	s.add(len(`{"version":1,"type":"doc","content":[]}`))
	s.nodes(d.Content)
	return s.n
}

// sizeOf is the length of n's JSON encoding.
func sizeOf(n *Node) int {
	s := sizer{limit: -1}
	s.node(n)
	return s.n
}

// sizer adds up the characters of a JSON encoding, stopping past limit.
type sizer struct {
	n     int
	limit int
}

func (s *sizer) over() bool { return s.limit >= 0 && s.n > s.limit }

func (s *sizer) add(n int) { s.n += n }

// nodes adds a list of nodes without its brackets: the nodes and the
// commas between them.
func (s *sizer) nodes(ns []Node) {
	for i := range ns {
		if s.over() {
			return
		}
		if i > 0 {
			s.add(1)
		}
		s.node(&ns[i])
	}
}

// node adds {"type":…,"text":…,"attrs":…,"marks":[…],"content":[…]} as
// nodeJSON encodes it (text on text nodes only; attrs, marks and content
// when not empty).
func (s *sizer) node(n *Node) {
	s.add(len(`{"type":}`) + stringSize(n.Type))
	if n.Type == "text" {
		s.add(len(`,"text":`) + stringSize(n.Text))
	}
	if len(n.Attrs) > 0 {
		s.add(len(`,"attrs":`) + attrsSize(n.Attrs))
	}
	if len(n.Marks) > 0 {
		s.add(len(`,"marks":[]`) + len(n.Marks) - 1)
		for _, m := range n.Marks {
			s.add(len(`{"type":}`) + stringSize(m.Type))
			if len(m.Attrs) > 0 {
				s.add(len(`,"attrs":`) + attrsSize(m.Attrs))
			}
		}
	}
	if len(n.Content) > 0 {
		s.add(len(`,"content":[]`))
		s.nodes(n.Content)
	}
}

// attrsSize is the length of attrs as encoding/json writes the map (its
// keys sorted; the commas and colons do not depend on the order): strings
// and integers counted here, anything else encoded.
func attrsSize(attrs map[string]any) int {
	n := len(`{}`) + len(attrs) - 1
	for k, v := range attrs {
		n += stringSize(k) + 1
		switch v := v.(type) {
		case string:
			n += stringSize(v)
		case int:
			n += len(strconv.Itoa(v))
		case bool:
			n += len(strconv.FormatBool(v))
		case nil:
			n += len("null")
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return n + len(b) // MarshalJSON would fail too
			}
			n += utf8.RuneCount(b)
		}
	}
	return n
}

// TextSize is the length, in characters, of s as a JSON string, as
// encoding/json writes it (stringSize).
func TextSize(s string) int { return stringSize(s) }

// stringSize is the length, in runes, of s as encoding/json writes it:
// quoted, with '"' and '\\' escaped, \b \f \n \r \t as two characters,
// other control characters and '<', '>', '&' (HTML-safe escaping) as
// \u00XX, an invalid byte as \ufffd, U+2028 and U+2029 as \u2028 and
// \u2029; every other character as itself.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			n += asciiSize[b]
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n++
		}
		i += w
	}
	return n
}

// asciiSize is the encoded length of each ASCII character in a JSON
// string, as encoding/json escapes it.
var asciiSize = func() (t [utf8.RuneSelf]int) {
	for b := range t {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			t[b] = 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			t[b] = 6
		default:
			t[b] = 1
		}
	}
	return t
}()
