package render

import (
	"strings"
	"unicode/utf8"
)

// Wrap breaks text into lines of at most width columns, at spaces only
// (never inside a word; a word longer than a line gets a line of its
// own). Lines after the first start with indent. Existing line breaks are
// kept; each source line is wrapped on its own, continuing its own leading
// spaces.
func Wrap(text string, width int, indent string) string {
	return wrap(text, max(width, 20), indent)
}

func wrap(text string, width int, indent string) string {
	var b strings.Builder
	for li, src := range strings.Split(text, "\n") {
		if li > 0 {
			b.WriteString("\n")
			b.WriteString(indent)
		}
		lead := indent
		if li == 0 {
			lead = ""
		}
		col := utf8.RuneCountInString(lead)
		trimmed := strings.TrimLeft(src, " ")
		own := src[:len(src)-len(trimmed)]
		b.WriteString(own)
		col += len(own)
		cont := indent + own
		start := col
		for i, tok := range spacedWords(trimmed) {
			n := utf8.RuneCountInString(tok.word)
			gap := utf8.RuneCountInString(tok.space)
			switch {
			case i == 0:
			case col+gap+n > width && col > start:
				b.WriteString("\n")
				b.WriteString(cont)
				col = utf8.RuneCountInString(cont)
				start = col
			default:
				b.WriteString(tok.space) // the spacing as written (alignment)
				col += gap
			}
			b.WriteString(tok.word)
			col += n
		}
	}
	return b.String()
}

type spacedWord struct{ space, word string }

// spacedWords splits s into words, each with the spaces before it.
func spacedWords(s string) []spacedWord {
	var out []spacedWord
	for s != "" {
		t := strings.TrimLeft(s, " ")
		sp := s[:len(s)-len(t)]
		end := strings.IndexByte(t, ' ')
		if end < 0 {
			end = len(t)
		}
		if end == 0 {
			break
		}
		out = append(out, spacedWord{sp, t[:end]})
		s = t[end:]
	}
	return out
}

// wrapLines is text in lines of at most width columns (at least 8),
// wrapped between words and continued after indent; a word longer than a
// line is broken (a narrow terminal sees all of it, never a cut value).
func wrapLines(text string, width int, indent string) []string {
	width = max(width, 8)
	if utf8.RuneCountInString(indent) >= width/2 {
		indent = ""
	}
	var out []string
	for _, l := range strings.Split(wrap(text, width, indent), "\n") {
		for r := []rune(l); ; {
			if len(r) <= width {
				out = append(out, string(r))
				break
			}
			out = append(out, string(r[:width]))
			r = append([]rune(indent), r[width:]...)
		}
	}
	return out
}

// paint colours each line on its own (a colour never spans a line break).
func paint(color func(string) string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = color(l)
	}
	return out
}

// indented puts two spaces before each line.
func indented(lines []string) []string {
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return lines
}
