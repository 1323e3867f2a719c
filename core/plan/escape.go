package plan

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// A description is Markdown, and some Markdown lines are the format's
// structure: an item heading, an "Epic:" line, an acceptance-criteria
// label. A description that holds such a line (a Jira description with a
// "## Story s-99: …" heading, exported or pulled) is written with an
// escape that CommonMark reads as the same text and that Parse reads back
// as the description itself (docs/plan-format.md, "Descriptions that look
// like structure"):
//
//   - an ATX heading the format would read as structure (any level-2
//     heading; a level-3 heading naming an item kind; a level-4 sub-task
//     heading; an acceptance-criteria heading) is indented by one space
//     (" ### Story s-99: Notes"): CommonMark reads up to three spaces
//     before a heading as nothing, the format reads an indented heading as
//     description text (item headings start at the line's first column);
//   - a paragraph line that would be an "Epic:" or "Drift:" marker or an
//     acceptance-criteria label gets a backslash before its colon
//     ("Epic\: e-9"); a label with no colon has its first letter written
//     as a character reference ("&#65;cceptance criteria");
//   - a first line that would read as a field line ("Priority: High")
//     gets a backslash before its colon.
//
// Parse reads each of these back as the line without the escape, so the
// description is exactly the text written.

// EscapeDescription returns description md as it is written in an item's
// Markdown section so that Parse reads exactly md back as the item's
// description: the lines the format would read as structure are escaped
// (see above); everything else is unchanged.
func EscapeDescription(md string) string {
	if md == "" {
		return md
	}
	lines := strings.Split(md, "\n")
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	lineOf := func(pos int) int {
		i := 0
		for i+1 < len(starts) && starts[i+1] <= pos {
			i++
		}
		return i
	}
	src := []byte(md)
	changed := false
	escape := func(i int, l string) {
		if l != lines[i] {
			lines[i], changed = l, true
		}
	}
	root := mdParser.Parse(text.NewReader(src))
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, heading := n.(*ast.Heading)
		var first int
		switch {
		case heading && n.Pos() >= 0:
			first = lineOf(n.Pos())
		case n.Lines().Len() > 0:
			first = lineOf(n.Lines().At(0).Start)
		default:
			continue
		}
		if heading {
			if level, htext, atx, _ := readATX(lines[first]); atx {
				if structuralHeading(level, htext) {
					escape(first, indentHeading(lines[first]))
				}
				continue
			}
		}
		if _, para := n.(*ast.Paragraph); !para && (!heading || h.Lines().Len() == 0) {
			continue
		}
		for k := 0; k < n.Lines().Len(); k++ {
			i := lineOf(n.Lines().At(k).Start)
			escape(i, escapeLine(lines[i]))
		}
	}
	if _, _, ok := fieldLine(lines[0]); ok {
		escape(0, escapeColon(lines[0]))
	}
	if !changed {
		return md
	}
	return strings.Join(lines, "\n")
}

// structuralHeading reports whether an ATX heading of level with text
// htext is structure in an item's section: an item heading, a heading the
// format refuses (any other level-2 heading, a level-3 heading naming
// another item kind or a sub-task), a sub-task heading or an
// acceptance-criteria heading.
func structuralHeading(level int, htext string) bool {
	if level < 2 {
		return false
	}
	if level == 2 || isCriteriaLabel(htext) {
		return true
	}
	word, _, ok := splitKind(htext)
	if !ok {
		return false
	}
	w := strings.ToLower(word)
	switch level {
	case 3:
		return w == "story" || w == "epic" || trackerKinds[w]
	case 4:
		return isSubtaskWord(word)
	}
	return false
}

// indentHeading indents an ATX heading line by one more space (at most
// three: a heading indented that much already stays as it is, and the
// export's round-trip check names its item).
func indentHeading(line string) string {
	if strings.HasPrefix(line, "   ") {
		return line
	}
	return " " + line
}

// escapeLine escapes a paragraph line that the format would read as a
// marker or an acceptance-criteria label.
func escapeLine(l string) string {
	switch {
	case isMarkerLine(l):
		return escapeColon(l)
	case isCriteriaLabel(l):
		if strings.Contains(l, ":") {
			return escapeColon(l)
		}
		i := strings.IndexAny(l, "Aa")
		return l[:i] + entity(l[i]) + l[i+1:]
	}
	return l
}

func entity(c byte) string {
	if c == 'A' {
		return "&#65;"
	}
	return "&#97;"
}

// isMarkerLine reports whether a paragraph line is an "Epic:" or "Drift:"
// marker as the parser reads one (an "Epic:" line whose value holds a
// blank is prose).
func isMarkerLine(l string) bool {
	if !markerKey(l) {
		return false
	}
	m := markerRe.FindStringSubmatch(l)
	if m == nil {
		return false
	}
	return !strings.EqualFold(m[1], "epic") || (m[2] != "" && !strings.ContainsAny(m[2], " \t"))
}

// escapeColon puts a backslash before the line's first colon.
func escapeColon(l string) string {
	i := strings.IndexByte(l, ':')
	return l[:i] + `\` + l[i:]
}

// unescapeLine returns the text a paragraph line written by
// EscapeDescription stands for, and whether it was such a line: a marker
// or a label with its escape, or (first: the description's first line)
// an escaped field line.
func unescapeLine(l string, first bool) (string, bool) {
	if i := strings.IndexByte(l, ':'); i > 0 && l[i-1] == '\\' {
		u := l[:i-1] + l[i:]
		if isMarkerLine(u) || isCriteriaLabel(u) {
			return u, true
		}
		if _, _, ok := fieldLine(u); ok && first {
			return u, true
		}
	}
	for _, e := range [...]struct{ ref, letter string }{{"&#65;", "A"}, {"&#97;", "a"}} {
		if i := strings.Index(l, e.ref); i >= 0 {
			if u := l[:i] + e.letter + l[i+len(e.ref):]; isCriteriaLabel(u) {
				return u, true
			}
		}
	}
	return l, false
}

// SameItems compares the items (epics, stories and sub-tasks) of two
// readings of a document, lines aside: it returns the ids of the items of
// want that got does not hold exactly as want does, then the ids of the
// items only got holds, each in document order; none when they are the
// same. The export checks its own text with it.
func SameItems(want, got *Document) []string {
	all := func(d *Document) []Item { return append(slices.Clone(d.Items), d.Subtasks...) }
	have := map[string]string{}
	for _, it := range all(got) {
		have[it.ID] = itemText(it)
	}
	var off []string
	for _, it := range all(want) {
		g, ok := have[it.ID]
		if !ok || g != itemText(it) {
			off = append(off, it.ID)
		}
		delete(have, it.ID)
	}
	for _, it := range all(got) {
		if _, extra := have[it.ID]; extra {
			off = append(off, it.ID)
		}
	}
	return off
}

// itemText is an item without its lines, as JSON (empty and absent lists
// alike).
func itemText(it Item) string {
	it.Line, it.KeyLine, it.EpicRefLine = 0, 0, 0
	unline := func(l []Link) []Link {
		l = slices.Clone(l)
		for i := range l {
			l[i].Line = 0
		}
		return l
	}
	it.DependsOn, it.Blocks = unline(it.DependsOn), unline(it.Blocks)
	f := &it.Fields
	f.Labels.Line, f.Priority.Line, f.Assignee.Line, f.Estimate.Line = 0, 0, 0, 0
	f.Components.Line, f.FixVersions.Line, f.Due.Line, f.Sprint.Line = 0, 0, 0, 0
	if f.Custom != nil {
		c := make(map[string]Field[string], len(f.Custom))
		for k, v := range f.Custom {
			v.Line = 0
			c[k] = v
		}
		f.Custom = c
	}
	b, _ := json.Marshal(it)
	return string(b)
}
