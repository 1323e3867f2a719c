package wiki

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// parser reads wiki markup into ADF nodes, noting the formatting Markdown
// cannot show.
type parser struct {
	lost []string
}

func (p *parser) note(what string) {
	if !slices.Contains(p.lost, what) {
		p.lost = append(p.lost, what)
	}
}

var (
	headingLine = regexp.MustCompile(`^h([1-6])\.(\s+|$)`)
	quoteLine   = regexp.MustCompile(`^bq\.(\s+|$)`)
	listLine    = regexp.MustCompile(`^([*#]+|-)\s+`)
	listEmpty   = regexp.MustCompile(`^([*#]+|-)$`)
	ruleLine    = regexp.MustCompile(`^-{4,}\s*$`)
	blockMacro  = regexp.MustCompile(`^\{(code|noformat|quote|panel)(:[^}]*)?\}`)
)

// blocks parses a run of wiki markup into blocks.
func (p *parser) blocks(src string) []adf.Node {
	var out []adf.Node
	lines := strings.Split(src, "\n")
	var para []string
	endPara := func() {
		if len(para) > 0 {
			if in := p.inline(strings.Join(para, "\n"), nil); len(in) > 0 {
				out = append(out, adf.Node{Type: "paragraph", Content: in})
			}
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		t := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(t) == "" {
			endPara()
			continue
		}
		if m := blockMacro.FindStringSubmatch(t); m != nil {
			rest := strings.Join(append([]string{t[len(m[0]):]}, lines[i+1:]...), "\n")
			closing := "{" + m[1] + "}"
			end := strings.Index(rest, closing)
			if m[1] == "quote" || m[1] == "panel" {
				end = findClosing(rest, closing)
			}
			if end >= 0 {
				endPara()
				body := rest[:end]
				after := rest[end+len(closing):]
				out = append(out, p.macro(m[1], strings.TrimPrefix(m[2], ":"), body)...)
				// What follows the closing tag is read on.
				lines = append([]string{}, strings.Split(after, "\n")...)
				i = -1
				continue
			}
		}
		switch {
		case headingLine.MatchString(t):
			endPara()
			m := headingLine.FindStringSubmatch(t)
			level, _ := strconv.Atoi(m[1])
			in := p.inline(t[len(m[0]):], nil)
			if len(in) > 0 {
				out = append(out, adf.Node{Type: "heading", Attrs: map[string]any{"level": level}, Content: in})
			}
			continue
		case quoteLine.MatchString(t):
			endPara()
			m := quoteLine.FindString(t)
			if in := p.inline(t[len(m):], nil); len(in) > 0 {
				out = append(out, adf.Node{Type: "blockquote", Content: []adf.Node{{Type: "paragraph", Content: in}}})
			}
			continue
		case ruleLine.MatchString(t):
			endPara()
			out = append(out, adf.Node{Type: "rule"})
			continue
		case strings.HasPrefix(t, "|"):
			endPara()
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[j], " \t"), "|") {
				j++
			}
			out = append(out, p.table(lines[i:j]))
			i = j - 1
			continue
		case isListLine(t):
			endPara()
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) != "" && (isListLine(strings.TrimLeft(lines[j], " \t")) || !startsBlock(strings.TrimLeft(lines[j], " \t"))) {
				j++
			}
			out = append(out, p.list(lines[i:j])...)
			i = j - 1
			continue
		}
		para = append(para, line)
	}
	endPara()
	return out
}

func isListLine(t string) bool {
	return listLine.MatchString(t) || listEmpty.MatchString(t)
}

// startsBlock reports whether a line starts a block other than a
// paragraph.
func startsBlock(t string) bool {
	return headingLine.MatchString(t) || quoteLine.MatchString(t) || ruleLine.MatchString(t) || strings.HasPrefix(t, "|") || blockMacro.MatchString(t) || isListLine(t)
}

// macro is a block macro: code, noformat, quote or panel.
func (p *parser) macro(name, params, body string) []adf.Node {
	switch name {
	case "code", "noformat":
		body = strings.TrimPrefix(body, "\n")
		body = strings.TrimSuffix(body, "\n")
		n := adf.Node{Type: "codeBlock"}
		if name == "code" {
			if lang := codeLanguage(params); lang != "" {
				n.Attrs = map[string]any{"language": lang}
			}
			if strings.Contains(params, "=") {
				p.note("code block title and style")
			}
		}
		if body != "" {
			n.Content = []adf.Node{{Type: "text", Text: body}}
		}
		return []adf.Node{n}
	case "quote":
		inner := p.blocks(body)
		if len(inner) == 0 {
			return nil
		}
		return []adf.Node{{Type: "blockquote", Content: inner}}
	default: // panel
		p.note("panel")
		inner := p.blocks(body)
		if title := param(params, "title"); title != "" {
			inner = append([]adf.Node{{Type: "paragraph", Content: []adf.Node{{Type: "text", Text: title, Marks: []adf.Mark{{Type: "strong"}}}}}}, inner...)
		}
		if len(inner) == 0 {
			return nil
		}
		return []adf.Node{{Type: "blockquote", Content: inner}}
	}
}

// codeLanguage is the language of {code:lang} or {code:lang|title=...}.
func codeLanguage(params string) string {
	first, _, _ := strings.Cut(params, "|")
	if first == "" || strings.Contains(first, "=") {
		return ""
	}
	return strings.TrimSpace(first)
}

// param is the value of key in "a|key=value|...".
func param(params, key string) string {
	for _, kv := range strings.Split(params, "|") {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), key) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// listEntry is one line of a list: its markers and its text (with any
// continuation lines).
type listEntry struct {
	markers string
	text    string
}

func (p *parser) list(lines []string) []adf.Node {
	var entries []listEntry
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if isListLine(t) {
			m := listLine.FindStringSubmatch(t)
			if m == nil {
				entries = append(entries, listEntry{markers: normMarkers(t)})
				continue
			}
			entries = append(entries, listEntry{markers: normMarkers(m[1]), text: t[len(m[0]):]})
			continue
		}
		last := &entries[len(entries)-1]
		last.text += "\n" + l
	}
	nodes, _ := p.buildList(entries, 0)
	return nodes
}

func normMarkers(m string) string {
	if m == "-" {
		return "*"
	}
	return m
}

// buildList builds the lists at depth d from entries, returning them and
// how many entries they used.
func (p *parser) buildList(entries []listEntry, d int) ([]adf.Node, int) {
	var out []adf.Node
	i := 0
	for i < len(entries) {
		e := entries[i]
		if len(e.markers) <= d {
			break
		}
		kind := e.markers[d]
		list := adf.Node{Type: "bulletList"}
		if kind == '#' {
			list = adf.Node{Type: "orderedList", Attrs: map[string]any{"order": 1}}
		}
		for i < len(entries) && len(entries[i].markers) > d && entries[i].markers[d] == kind {
			e := entries[i]
			item := adf.Node{Type: "listItem"}
			if len(e.markers) == d+1 {
				text := e.text
				if box := taskBox.FindString(text); box != "" {
					item.Attrs = map[string]any{"box": box[1:2]}
					text = strings.TrimPrefix(text[3:], " ")
				}
				item.Content = []adf.Node{{Type: "paragraph", Content: p.inline(text, nil)}}
				i++
			} else {
				// A deeper line with no item of its own above it.
				item.Content = []adf.Node{{Type: "paragraph"}}
			}
			kids, n := p.buildList(entries[i:], d+1)
			item.Content = append(item.Content, kids...)
			i += n
			list.Content = append(list.Content, item)
		}
		out = append(out, taskListOf(list))
	}
	return out, i
}

// taskListOf turns a bullet list whose every item starts with "[ ]" or
// "[x]" (written that way, not escaped) into a task list, as the Markdown
// side writes task lists.
func taskListOf(list adf.Node) adf.Node {
	if list.Type != "bulletList" {
		return list
	}
	tl := adf.Node{Type: "taskList", Attrs: map[string]any{"localId": ""}}
	for _, it := range list.Content {
		box := strAttr(it.Attrs, "box")
		if box == "" || len(it.Content) == 0 || it.Content[0].Type != "paragraph" {
			return untask(list)
		}
		state := "TODO"
		if box != " " {
			state = "DONE"
		}
		tl.Content = append(tl.Content, adf.Node{Type: "taskItem", Attrs: map[string]any{"localId": "", "state": state}, Content: it.Content[0].Content})
		for _, k := range it.Content[1:] {
			if k.Type != "taskList" {
				return untask(list)
			}
			tl.Content = append(tl.Content, k)
		}
	}
	return tl
}

// taskBox is a task's box at the start of a list item: "[ ]" or "[x]".
var taskBox = regexp.MustCompile(`^\[[ xX]\]( |$)`)

// untask puts the boxes of a list that is not a task list back as text.
func untask(list adf.Node) adf.Node {
	for i, it := range list.Content {
		box := strAttr(it.Attrs, "box")
		if box == "" {
			continue
		}
		list.Content[i].Attrs = nil
		if len(it.Content) > 0 && it.Content[0].Type == "paragraph" {
			para := it.Content[0].Content
			lead := adf.Node{Type: "text", Text: "[" + box + "]"}
			if len(para) > 0 {
				lead.Text += " "
			}
			list.Content[i].Content[0].Content = append([]adf.Node{lead}, para...)
		}
	}
	return list
}

// table reads rows of cells: "||" before a header cell, "|" before a
// cell, one row a line.
func (p *parser) table(lines []string) adf.Node {
	t := adf.Node{Type: "table"}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		row := adf.Node{Type: "tableRow"}
		for _, c := range splitCells(l) {
			typ := "tableCell"
			if c.header {
				typ = "tableHeader"
			}
			var para []adf.Node
			if in := p.inline(strings.TrimSpace(c.text), nil); len(in) > 0 {
				para = in
			}
			row.Content = append(row.Content, adf.Node{Type: typ, Content: []adf.Node{{Type: "paragraph", Content: para}}})
		}
		if len(row.Content) > 0 {
			t.Content = append(t.Content, row)
		}
	}
	return t
}

type cell struct {
	header bool
	text   string
}

// splitCells splits a table row at its separators; a "|" inside a link
// or escaped is not one. The separator closing the row ends no cell.
func splitCells(l string) []cell {
	var out []cell
	var cur *cell
	depth := 0
	start := 0
	for j := 0; j < len(l); j++ {
		switch {
		case escapeAt(l, j):
			j++
			continue
		case l[j] == '[':
			depth++
			continue
		case l[j] == ']' && depth > 0:
			depth--
			continue
		case l[j] != '|' || depth > 0:
			continue
		}
		if cur != nil {
			cur.text = l[start:j]
			out = append(out, *cur)
		}
		h := strings.HasPrefix(l[j:], "||")
		cur = &cell{header: h}
		if h {
			j++
		}
		start = j + 1
	}
	if cur != nil && strings.TrimSpace(l[start:]) != "" {
		cur.text = l[start:]
		out = append(out, *cur)
	}
	return out
}

// findClosing is where the closing tag of a quote or panel is in rest:
// not escaped (their content is wiki markup) and not inside a code or
// noformat block they hold. -1 when there is none.
func findClosing(rest, closing string) int {
	for j := 0; j < len(rest); j++ {
		switch {
		case escapeAt(rest, j):
			j++
			continue
		case strings.HasPrefix(rest[j:], "{{"):
			// Monospaced text may hold the tag's letters.
			if k := findUnescaped(rest, j+2, "}}"); k > j+2 {
				j = k + 1
			}
			continue
		case strings.HasPrefix(rest[j:], closing):
			return j
		}
		if m := codeOpen.FindStringSubmatch(rest[j:]); m != nil {
			tag := "{" + m[1] + "}"
			if k := strings.Index(rest[j+len(m[0]):], tag); k >= 0 {
				j += len(m[0]) + k + len(tag) - 1
			}
		}
	}
	return -1
}

var codeOpen = regexp.MustCompile(`^\{(code|noformat)(:[^}]*)?\}`)
