package plan

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var (
	// markerRe matches an "Epic: <id>" or "Drift: <value>" line.
	markerRe = regexp.MustCompile(`^ {0,3}(?i:(epic|drift))[ \t]*:[ \t]*(.*?)[ \t]*$`)
	// itemLikeRe matches headings shaped like "<Kind> <id>: <title>".
	itemLikeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z-]*[ \t]+[^ \t:]+[ \t]*:`)
)

// trackerKinds are issue kinds that a level-3 heading is reported for,
// since they look like an item DevWorkWire does not support.
// isSubtaskWord reports the kind word of a sub-task heading.
func isSubtaskWord(w string) bool {
	return strings.EqualFold(w, "sub-task") || strings.EqualFold(w, "subtask")
}

var trackerKinds = map[string]bool{
	"task": true, "bug": true, "subtask": true, "sub-task": true, "feature": true,
	"issue": true, "initiative": true, "spike": true, "improvement": true, "theme": true,
}

// mdParser is goldmark's CommonMark block parser; it is safe for
// concurrent use. The plan reads only the block structure (headings,
// paragraphs' lines, lists), so its one inline parser, skipInline, ends
// the inline parsing of each block at its first character.
var mdParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(util.Prioritized(skipInline{}, 0)),
)

// skipInline is an inline parser that takes a whole block as one empty
// text node. Without it goldmark makes a text node of each line of every
// paragraph although the plan never reads them: 150 descriptions that
// were each a paragraph of 16,000 short lines took a gigabyte and seconds
// of CPU to parse. It is asked first at the start of each block: goldmark
// asks the parsers of a punctuation character there, else those of ' '.
type skipInline struct{}

// skipTriggers are ' ' and every ASCII punctuation character.
var skipTriggers = func() []byte {
	t := []byte{' '}
	for c := byte(0); c < utf8.RuneSelf; c++ {
		if util.IsPunct(c) {
			t = append(t, c)
		}
	}
	return t
}()

func (skipInline) Trigger() []byte { return skipTriggers }

func (skipInline) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	for {
		if line, _ := block.PeekLine(); line == nil {
			break
		}
		block.AdvanceLine()
	}
	return ast.NewText()
}

// mdDoc holds the Markdown source and where its lines start.
type mdDoc struct {
	body       []byte
	str        string // body, once; lines are substrings of it
	lineStarts []int  // byte offset of each body line
	lineOffset int    // lines before the body (front matter)
	hint       int    // index of the line last returned by line
}

// bodyLine returns body line i (0-based) without its "\n".
func (d *mdDoc) bodyLine(i int) string {
	end := len(d.str)
	if i+1 < len(d.lineStarts) {
		end = d.lineStarts[i+1] - 1
	} else if end > 0 && d.str[end-1] == '\n' {
		end--
	}
	return d.str[d.lineStarts[i]:end]
}

// line returns the 1-based document line of body offset off. Offsets
// mostly come in increasing order, so it first looks a few lines on from
// the previous answer.
func (d *mdDoc) line(off int) int {
	i := d.hint
	if i < len(d.lineStarts) && d.lineStarts[i] <= off {
		for k := 0; k < 8 && i+1 < len(d.lineStarts) && d.lineStarts[i+1] <= off; k++ {
			i++
		}
		if i+1 < len(d.lineStarts) && d.lineStarts[i+1] <= off {
			i = sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off }) - 1
		}
	} else {
		i = sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off }) - 1
	}
	if i < 0 {
		i = 0
	}
	d.hint = i
	return d.lineOffset + i + 1
}

// text returns document line n (1-based) of the body.
func (d *mdDoc) text(n int) string {
	i := n - d.lineOffset - 1
	if i < 0 || i >= len(d.lineStarts) {
		return ""
	}
	return d.bodyLine(i)
}

func (d *mdDoc) lastLine() int { return d.lineOffset + len(d.lineStarts) }

// sectionOf names, for a message about body line i, the item whose
// section holds it: " (in the section of Story s-3)", after the nearest
// item heading above it ("" when there is none). It reads only lines, for
// a document refused before it is parsed.
func (d *mdDoc) sectionOf(i int) string {
	for ; i >= 0; i-- {
		level, htext, atx, _ := readATX(d.bodyLine(i))
		if !atx || level < 2 || level > 4 {
			continue
		}
		word, rest, ok := splitKind(htext)
		id, _, found := strings.Cut(strings.TrimSpace(rest), ":")
		if !ok || !found || strings.TrimSpace(id) == "" {
			continue
		}
		kind := ""
		switch w := strings.ToLower(word); {
		case w == "epic" && level <= 3:
			kind = KindEpic
		case w == "story" && level <= 3:
			kind = KindStory
		case isSubtaskWord(w) && level == 4:
			kind = KindSubtask
		default:
			continue
		}
		return fmt.Sprintf(" (in the section of %s %s)", kindWord(kind), strings.TrimSpace(id))
	}
	return ""
}

// mdItem is an item being built from its section of the document.
type mdItem struct {
	*rawItem
	start, end int      // first and last line of the section after the heading
	exclude    [][2]int // line ranges that are not description (markers, criteria, fields)
	first      ast.Node // the section's first block (where the field block is)
	// escaped holds the description lines EscapeDescription wrote with an
	// escape, by line: the text they stand for.
	escaped map[int]string
}

func (it *mdItem) unescape(line int, text string) {
	if it.escaped == nil {
		it.escaped = map[int]string{}
	}
	it.escaped[line] = text
}

func parseMarkdown(name string, data []byte, opts *Options) (*result, *Error) {
	r := &result{format: formatMarkdown, opts: opts}
	body, offset, perr := frontMatter(name, data, r)
	if perr != nil {
		return nil, perr
	}
	d := &mdDoc{body: body, str: string(body), lineOffset: offset}
	start := 0
	nl := bytes.Count(body, []byte("\n")) + 1
	d.lineStarts = make([]int, 0, nl)
	for start < len(body) {
		d.lineStarts = append(d.lineStarts, start)
		end := bytes.IndexByte(body[start:], '\n')
		if end < 0 {
			break
		}
		start += end + 1
	}

	if at, why := hostileText(len(d.lineStarts), d.bodyLine); why != "" {
		line := d.lineOffset + at + 1
		return nil, &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s line %d%s %s", nameOrDoc(name), line, d.sectionOf(at), why)}
	}
	root := mdParser.Parse(text.NewReader(body))
	var (
		cur      *mdItem // item whose section we are in; nil in the preamble or an unknown section
		curEpic  *rawItem
		inEpic   bool // under an epic heading (its description or its stories)
		broken   bool // under an epic heading that could not be read
		started  bool // the first item-level heading has been seen
		items    []*mdItem
		gotTitle bool
	)
	var (
		story *mdItem // the story whose section we are in (sub-tasks belong to it)
		sub   *mdItem // the sub-task whose section we are in
	)
	// closeSub ends the open sub-task's section before nextLine; the
	// section is not part of the story's description.
	closeSub := func(nextLine int) {
		sub.end = nextLine - 1
		story.exclude = append(story.exclude, [2]int{sub.Line, sub.end})
		sub, cur = nil, story
	}
	closeSection := func(nextLine int) {
		if sub != nil {
			closeSub(nextLine)
		}
		if cur != nil {
			cur.end = nextLine - 1
			cur = nil
		}
		story = nil
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		pos := n.Pos()
		if pos < 0 {
			continue
		}
		line := d.line(pos)
		if cur != nil && cur.first == nil {
			cur.first = n
		}
		if h, ok := n.(*ast.Heading); ok {
			level, htext, atx, indented := readATX(d.text(line))
			if !atx {
				level, htext = h.Level, ""
			}
			if indented && structuralHeading(level, htext) {
				// Written by EscapeDescription: description text, read
				// with one space less.
				if cur != nil {
					cur.unescape(line, d.text(line)[1:])
				}
				continue
			}
			if cur != nil && level >= 2 && isCriteriaLabel(htextOrSetext(d, h, htext, atx)) {
				d.criteria(r, cur, n, line, line)
				continue
			}
			subHeading := false
			if atx && level == 4 {
				word, _, ok := splitKind(htext)
				subHeading = ok && isSubtaskWord(word)
			}
			if sub != nil && atx && level <= 4 && !subHeading {
				closeSub(line) // a heading of level 4 or less ends a sub-task
			}
			if subHeading {
				raw := strings.TrimSpace(d.text(line))
				_, rest, _ := splitKind(htext)
				if story == nil {
					where := "outside any story"
					if curEpic != nil && inEpic {
						where = "under epic " + curEpic.ID + " but in no story"
					}
					r.addf("", "kind", line, "Heading %q at line %d is a sub-task %s; a sub-task belongs to a story: put it in a story's section, after \"### Story <id>: <title>\"", raw, line, where)
					continue
				}
				if sub != nil {
					closeSub(line)
				}
				idPart, title, found := strings.Cut(strings.TrimSpace(rest), ":")
				id := strings.TrimSpace(idPart)
				if !found || id == "" {
					r.addf("", "id", line, "Heading %q at line %d has no id: write %q, with an id that stays the same across edits", raw, line, suggestHeading(4, "Sub-task", rest))
					continue
				}
				it := &mdItem{rawItem: &rawItem{Item: Item{ID: id, Kind: KindSubtask, Title: strings.TrimSpace(title), Line: line, Story: story.ID}}, start: line + 1}
				sub, cur = it, it
				items = append(items, it)
				r.items = append(r.items, it.rawItem)
				continue
			}
			if !atx {
				// A setext heading is description text, but its text lines
				// may hold markers ("Epic: e-1" right above a "---" line).
				if cur != nil && h.Lines().Len() > 0 {
					d.paragraph(r, cur, n, line, h.Lines().Len(), n == cur.first)
				}
				continue
			}
			switch {
			case level == 1:
				if !started && !gotTitle {
					gotTitle = true
					if r.title == "" {
						r.title = htext
					}
				}
				continue
			case level == 2:
				// item level
			case level == 3:
				word, _, ok := splitKind(htext)
				if ok && (strings.EqualFold(word, "story") || strings.EqualFold(word, "epic")) {
					break // item level
				}
				if ok && isSubtaskWord(word) {
					closeSection(line)
					r.addf("", "kind", line, "Heading %q at line %d is a level-3 sub-task heading; a sub-task is a level-4 heading inside its story's section: %q", strings.TrimSpace(d.text(line)), line, "#### "+htext)
					continue
				}
				if ok && trackerKinds[strings.ToLower(word)] {
					closeSection(line)
					r.addf("", "kind", line, "Heading %q at line %d names the item kind %q; only Epic and Story items exist. Write \"### Story <id>: <title>\" (under an epic) or \"## Epic <id>: <title>\"", strings.TrimSpace(d.text(line)), line, word)
				}
				continue // a sub-heading inside a description
			default:
				continue // level 4+: description text
			}
			word, rest, hasWord := splitKind(htext)
			kind := ""
			if hasWord {
				switch strings.ToLower(word) {
				case "epic":
					kind = KindEpic
				case "story":
					kind = KindStory
				}
			}
			raw := strings.TrimSpace(d.text(line))
			if kind == "" {
				closeSection(line)
				started = true
				inEpic, broken, curEpic = false, false, nil
				if hasWord && itemLikeRe.MatchString(htext) {
					r.addf("", "kind", line, "Heading %q at line %d names the item kind %q; only Epic and Story items exist. Write \"## Epic <id>: <title>\", \"## Story <id>: <title>\" or \"### Story <id>: <title>\" under an epic", raw, line, word)
				} else {
					r.addf("", "kind", line, "Heading %q at line %d is not an item heading: level-2 headings must be \"## Epic <id>: <title>\" or \"## Story <id>: <title>\". Use \"####\" or deeper for a section inside a description", raw, line)
				}
				continue
			}
			closeSection(line)
			started = true
			rest = strings.TrimSpace(rest)
			idPart, title, found := strings.Cut(rest, ":")
			id := strings.TrimSpace(idPart)
			w := kindWord(kind)
			if !found || id == "" {
				what := "has no id"
				if tok, _, _ := strings.Cut(rest, " "); !found && ValidID(tok) && strings.ContainsAny(tok, "0123456789") {
					what = "has no colon after the id"
				}
				r.addf("", "id", line, "Heading %q at line %d %s: write %q, with an id that stays the same across edits", raw, line, what, suggestHeading(level, w, rest))
				if kind == KindEpic {
					inEpic, broken, curEpic = true, true, nil
				}
				continue
			}
			it := &mdItem{rawItem: &rawItem{Item: Item{ID: id, Kind: kind, Title: strings.TrimSpace(title), Line: line}}, start: line + 1}
			if kind == KindEpic {
				if level == 3 {
					r.addf(id, "kind", line, "Epic %s at line %d is a level-3 heading; epics are level-2 headings: \"## Epic %s: %s\"", id, line, id, strings.TrimSpace(title))
				}
				inEpic, broken, curEpic = true, false, it.rawItem
			} else if level == 2 {
				inEpic, broken, curEpic = false, false, nil
			} else if inEpic {
				if broken {
					it.parentBroken = true
				} else if curEpic != nil {
					it.parent, it.parentLine = curEpic.ID, curEpic.Line
				}
			}
			cur = it
			if kind == KindStory {
				story = it
			}
			items = append(items, it)
			r.items = append(r.items, it.rawItem)
			continue
		}
		if cur == nil {
			continue
		}
		if p, ok := n.(*ast.Paragraph); ok && p.Lines().Len() > 0 {
			d.paragraph(r, cur, p, d.line(p.Lines().At(0).Start), p.Lines().Len(), n == cur.first)
		}
	}
	closeSection(d.lastLine() + 1)
	for _, it := range items {
		it.Description = d.description(it)
		it.span.start, it.span.end = it.start, it.end
		it.span.exclude = it.exclude
	}
	return r, nil
}

func htextOrSetext(d *mdDoc, h *ast.Heading, htext string, atx bool) string {
	if atx {
		return htext
	}
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		b.Write(seg.Value(d.body))
	}
	return strings.TrimSpace(b.String())
}

func isCriteriaLabel(s string) bool {
	// Cheap checks first: this runs on every paragraph line.
	if len(s) < len("acceptance criteria") || len(s) > 40 {
		return false
	}
	t := strings.TrimSpace(s)
	for _, cut := range []string{":", "**", "__", ":"} {
		t = strings.TrimSpace(strings.TrimSuffix(t, cut))
	}
	for _, cut := range []string{"**", "__"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, cut))
	}
	return len(t) == len("acceptance criteria") && strings.EqualFold(t[:10], "acceptance") &&
		(t[10] == ' ' || t[10] == '-') && strings.EqualFold(t[11:], "criteria")
}

// splitKind splits heading text into its leading word (letters and '-')
// and the rest; ok is false when the text does not start with a letter.
func splitKind(text string) (word, rest string, ok bool) {
	i := 0
	for i < len(text) {
		c := text[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (c == '-' && i > 0) {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return "", "", false
	}
	return text[:i], text[i:], true
}

// markerKey returns true when line may be an "Epic:" or "Drift:" marker
// (a cheap check before the regular expression).
func markerKey(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(t) >= 5 && (strings.EqualFold(t[:4], "epic") || strings.EqualFold(t[:5], "drift"))
}

// suggestHeading proposes a corrected item heading for rest (the heading
// text after the kind word).
func suggestHeading(level int, kind, rest string) string {
	hashes := strings.Repeat("#", level)
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
	ex := "e-1"
	switch kind {
	case "Story":
		ex = "s-1"
	case "Sub-task":
		ex = "t-1"
	}
	if tok, after, ok := strings.Cut(rest, " "); ok && ValidID(tok) && strings.ContainsAny(tok, "0123456789") {
		after = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(after), "-–—|"))
		return fmt.Sprintf("%s %s %s: %s", hashes, kind, tok, after)
	}
	if rest == "" {
		rest = "<title>"
	}
	return fmt.Sprintf("%s %s %s: %s", hashes, kind, ex, rest)
}

// paragraph handles the n lines, from line first, of a top-level
// paragraph (or setext heading text) inside an item's section: "Epic:"
// and "Drift:" marker lines, an "Acceptance criteria:" label and, when
// the paragraph is the section's first block (fieldBlock), the field
// lines among its leading "Name: value" lines.
func (d *mdDoc) paragraph(r *result, it *mdItem, p ast.Node, first, n int, fieldBlock bool) {
	for i := 0; i < n; i++ {
		line := first + i // a paragraph's lines are consecutive
		raw := d.text(line)
		var fname, fval string
		if fieldBlock {
			fname, fval, fieldBlock = fieldLine(raw)
		}
		if u, ok := unescapeLine(raw, false); ok {
			it.unescape(line, u)
			continue
		}
		if isCriteriaLabel(raw) {
			if _, heading := p.(*ast.Heading); i == n-1 && !heading {
				d.criteria(r, it, p, line, line)
			} else {
				it.exclude = append(it.exclude, [2]int{line, line})
				r.addf(it.ID, "acceptance_criteria", line, "%s %s has \"Acceptance criteria:\" at line %d but no bullet list right after it; list each criterion on its own line starting with \"- \"", kindWord(it.Kind), it.ID, line)
			}
			continue
		}
		var m []string
		if markerKey(raw) {
			m = markerRe.FindStringSubmatch(raw)
		}
		if m == nil {
			if fieldBlock {
				d.field(r, it, line, fname, fval)
			}
			continue
		}
		val := m[2]
		if strings.EqualFold(m[1], "epic") {
			if val == "" || strings.ContainsAny(val, " \t") {
				continue // prose that starts with "Epic:", not a marker
			}
			it.exclude = append(it.exclude, [2]int{line, line})
			if it.Kind == KindSubtask {
				r.addf(it.ID, "epic", line, "Sub-task %s has an \"Epic:\" line (line %d); a sub-task belongs to its story %s (and so to the story's epic). Remove the line", it.ID, line, it.Story)
				continue
			}
			if it.Kind == KindEpic {
				r.addf(it.ID, "epic", line, "Epic %s has an \"Epic:\" line (line %d); an epic cannot belong to another epic. Remove the line", it.ID, line)
				continue
			}
			if it.epicRef != "" && it.epicRef != val {
				r.addf(it.ID, "epic", line, "Story %s has two Epic: lines naming different epics (%s at line %d, %s at line %d); keep one", it.ID, it.epicRef, it.epicRefLine, val, line)
				continue
			}
			it.epicRef, it.epicRefLine = val, line
			continue
		}
		it.exclude = append(it.exclude, [2]int{line, line})
		if keys, problem, ok := r.opts.takeDocument(val); ok && problem == "" {
			it.TakeDocument, it.TakeFields = true, keys
		} else if ok {
			r.addf(it.ID, "drift", line, "%s %s has \"Drift: %s\" at line %d, which %s", kindWord(it.Kind), it.ID, val, line, problem)
		} else {
			r.addf(it.ID, "drift", line, "%s %s has \"Drift: %s\" at line %d; the only drift marker is \"Drift: take-document\" (take the document's version over edits made in Jira). Fix or remove the line", kindWord(it.Kind), it.ID, val, line)
		}
	}
}

// field handles a "Name: value" line of an item's field block: a field
// when the name is one (built-in or declared custom), an error when it
// looks like a misspelt one, description otherwise.
func (d *mdDoc) field(r *result, it *mdItem, line int, name, value string) {
	who := kindWord(it.Kind) + " " + it.ID
	if normName(name) == keyName && !strings.ContainsAny(value, " \t") { // key.go; with spaces it is prose
		it.exclude = append(it.exclude, [2]int{line, line})
		r.setKey(it.rawItem, value, line, strings.TrimSpace("Key: "+value))
		return
	}
	if key := linkNames[normName(name)]; key != "" {
		it.exclude = append(it.exclude, [2]int{line, line})
		shown := linkDisplay(key) + ": " + value
		var entries []string
		switch {
		case value == "":
			r.addf(it.ID, key, line, "%s has %q with no entries at line %d; list item ids, references or Jira keys separated by commas, or remove the line", who, linkDisplay(key)+":", line)
			return
		case !strings.EqualFold(value, "none"):
			entries = strings.Split(value, ",")
		}
		r.addLinks(it.rawItem, key, entries, line, who, shown)
		return
	}
	f, ok := r.opts.markdownField(name)
	if !ok {
		if c := r.opts.closeField(name); c != "" {
			it.exclude = append(it.exclude, [2]int{line, line})
			key := linkNames[normName(c)]
			if cf, ok := r.opts.markdownField(c); ok {
				key = cf.key()
			}
			r.addf(it.ID, key, line, "%s has %q at line %d, which is not a field name (did you mean %q?); correct it. The fields are %s", who, name+":", line, c, r.opts.fieldNames())
		}
		return
	}
	it.exclude = append(it.exclude, [2]int{line, line})
	shown := f.display() + ":"
	if value != "" {
		shown += " " + value
	}
	v, msg := parseText(f, value, who, shown, line)
	if msg != "" {
		r.addf(it.ID, f.key(), line, "%s", msg)
		return
	}
	if prev := it.setter().set(f, v, line); prev != 0 {
		r.addf(it.ID, f.key(), line, "%s sets %s twice (lines %d and %d); keep one line", who, f.display(), prev, line)
	}
}

// criteria reads the list that follows an acceptance-criteria label (the
// block n, whose label is on line labelLine).
func (d *mdDoc) criteria(r *result, it *mdItem, n ast.Node, labelLine, _ int) {
	list, ok := n.NextSibling().(*ast.List)
	if !ok || list.Pos() < 0 {
		it.exclude = append(it.exclude, [2]int{labelLine, labelLine})
		r.addf(it.ID, "acceptance_criteria", labelLine, "%s %s has \"Acceptance criteria:\" at line %d but no bullet list right after it; list each criterion on its own line starting with \"- \"", kindWord(it.Kind), it.ID, labelLine)
		return
	}
	// Adjacent lists (a change of marker starts a new list in CommonMark)
	// all hold criteria. The last one ends before the next top-level
	// block, or at the end of the document, not counting trailing blank
	// lines.
	var lists []*ast.List
	var after ast.Node
	for m := ast.Node(list); m != nil; m = m.NextSibling() {
		l, ok := m.(*ast.List)
		if !ok || l.Pos() < 0 {
			after = m
			break
		}
		lists = append(lists, l)
	}
	end := d.lastLine()
	for next := after; next != nil; next = next.NextSibling() {
		if p := next.Pos(); p >= 0 {
			end = d.line(p) - 1
			break
		}
	}
	for end > labelLine && strings.TrimSpace(d.text(end)) == "" {
		end--
	}
	it.exclude = append(it.exclude, [2]int{labelLine, end})
	if it.span.critLabel == 0 {
		it.span.critLabel = labelLine
	}
	it.span.critEnd = end
	var starts []int
	for _, l := range lists {
		for li := l.FirstChild(); li != nil; li = li.NextSibling() {
			if p := li.Pos(); p >= 0 {
				starts = append(starts, d.line(p))
			}
		}
	}
	for i, s := range starts {
		e := end
		if i+1 < len(starts) {
			e = starts[i+1] - 1
		}
		for e > s && strings.TrimSpace(d.text(e)) == "" {
			e--
		}
		text, box := d.listItemText(s, e)
		it.AcceptanceCriteria = append(it.AcceptanceCriteria, text)
		it.critLines = append(it.critLines, s)
		it.addBox(box)
	}
}

// listItemText returns the Markdown of the list item on lines s..e
// without its marker, checkbox and indentation, and its checkbox
// (BoxTodo, BoxDone, or "" for none).
func (d *mdDoc) listItemText(s, e int) (string, string) {
	first := d.text(s)
	indent := listMarkerEnd(first)
	first = first[indent:]
	first, box := CutBox(first)
	out := []string{first}
	for l := s + 1; l <= e; l++ {
		t := d.text(l)
		k := 0
		for k < len(t) && k < indent && (t[k] == ' ' || t[k] == '\t') {
			k++
		}
		out = append(out, t[k:])
	}
	return strings.TrimSpace(strings.Join(out, "\n")), box
}

// description returns the item's section without marker lines and the
// acceptance criteria, trimmed of leading and trailing blank lines.
func (d *mdDoc) description(it *mdItem) string {
	keep := make([]string, 0, max(it.end-it.start+1, 0))
	nums := make([]int, 0, cap(keep)) // the line of each kept line
	afterExclude := false
	text := false // a line with text has been kept
	ex := it.exclude
	sort.Slice(ex, func(i, j int) bool { return ex[i][0] < ex[j][0] })
	k := 0 // ex[k] is the first range that does not end before l
	for l := it.start; l <= it.end; l++ {
		for k < len(ex) && ex[k][1] < l {
			k++
		}
		if k < len(ex) && ex[k][0] <= l {
			afterExclude = true
			continue
		}
		t := d.text(l)
		blank := strings.TrimSpace(t) == ""
		if blank && afterExclude && len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
			continue // do not leave a double blank line where a marker or the criteria were
		}
		if !blank {
			afterExclude = false
		}
		if u, ok := it.escaped[l]; ok {
			t = u
		} else if !text && !blank {
			t, _ = unescapeLine(t, true) // the first line: an escaped field line
		}
		text = text || !blank
		keep = append(keep, t)
		nums = append(nums, l)
	}
	trimmed := trimEdges(keep)
	if len(trimmed) > 0 {
		first := 0
		for &keep[first] != &trimmed[0] {
			first++
		}
		it.span.descLines = nums[first : first+len(trimmed)]
	}
	return strings.Join(trimmed, "\n")
}

// readATX reads an ATX heading line: its level, its text without the
// opening and closing '#' sequences, and whether the heading is indented
// (by one to three spaces). ok is false for any other line.
func readATX(line string) (level int, text string, ok, indented bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	level = j - i
	if level < 1 || level > 6 || (j < len(line) && line[j] != ' ' && line[j] != '\t') {
		return 0, "", false, false
	}
	t := strings.TrimSpace(line[j:])
	// Remove a closing sequence: spaces then only '#'.
	k := len(t)
	for k > 0 && t[k-1] == '#' {
		k--
	}
	if k == 0 {
		t = ""
	} else if t[k-1] == ' ' || t[k-1] == '\t' {
		t = strings.TrimSpace(t[:k])
	}
	return level, t, true, i > 0
}

// listMarkerEnd returns the offset of a list item's content on its first
// line: after the indentation, the marker ("-", "*", "+", "1." or "1)")
// and the spaces after it; 0 when the line has no marker.
func listMarkerEnd(line string) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	switch {
	case i < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+'):
		i++
	default:
		j := i
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == i || j >= len(line) || (line[j] != '.' && line[j] != ')') {
			return 0
		}
		i = j + 1
	}
	if i < len(line) && line[i] != ' ' && line[i] != '\t' {
		return 0
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// MaxNesting bounds, in columns, the indentation and block quote and list
// markers at the start of a line that opens a list item or a block quote
// (nestingWidth). The Markdown parser's work on each line grows with the
// lists and block quotes open around it, and so does the converter's:
// 150 descriptions of lists 40 deep (80 columns) took more than 3 s of
// CPU to preview. 64 columns hold lists 16 deep at four columns a level
// and 32 at two, block quotes 32 deep ("> "); Jira's editor nests lists at
// most 6 deep. Indentation alone (code, however deep) does not count: a
// line that starts no list item or block quote opens nothing, so the
// nesting around it is bounded by the lines that opened it.
const MaxNesting = 64

// MaxBrackets is how many unescaped '[' one paragraph may have: the
// Markdown parser's work on link and image openers grows with the square
// of their number in a paragraph (8,000 "[a](" in one description took
// seconds, 150 of them minutes), so a paragraph past it is refused before
// it is parsed. A paragraph of 1,000 links is far past any real plan's.
const MaxBrackets = 1000

// destinationBudget bounds, per line, the bytes the Markdown parser reads
// looking for the ends of link destinations, as a multiple of the line's
// length (plus a floor for short lines). The parser reads each "](" 's
// destination up to a space or an unbalanced ')' ('>' for "](<"), so an
// unclosed destination after each of many "](" ("[a](" repeated) is
// quadratic in the line: 150 descriptions of 32,000 such characters took
// 6 s of CPU to preview. Real links close at once and cost nothing here.
const (
	destinationBudget      = 64
	destinationBudgetFloor = 1 << 16
)

// hostileText finds the first line of Markdown text past the limits that
// keep parsing it linear in its size: MaxNesting columns of nesting,
// MaxBrackets openers in a paragraph, or the destination budget of a line.
// It returns that line's index (the paragraph's first line for the
// brackets) and the rest of a sentence that starts "<doc> line N"; why is
// "" when the text is within every limit.
func hostileText(n int, line func(i int) string) (at int, why string) {
	brackets, para := 0, 0 // the '[' of the paragraph so far, and its first line
	for i := range n {
		l := line(i)
		if nestingWidth(l) > MaxNesting {
			return i, fmt.Sprintf("starts a list item or block quote nested too deeply: more than %d columns of indentation and list or block quote markers before its text (Jira's editor nests lists at most 6 deep). Flatten the list or quote, or put that line in a code block", MaxNesting)
		}
		if strings.TrimSpace(l) == "" {
			brackets = 0
			continue
		}
		if brackets == 0 {
			para = i
		}
		if brackets += openBrackets(l); brackets > MaxBrackets {
			return para, fmt.Sprintf("starts a paragraph with more than %d '[' (link and image openers); reading one costs time that grows with the square of their number. Split the paragraph with blank lines, or write \\[ for a bracket that opens no link", MaxBrackets)
		}
		if destinationCost(l) > max(destinationBudget*len(l), destinationBudgetFloor) {
			return i, "has many links whose destination is never closed (\"](\" with no ')' before the next space or '('); reading them costs time that grows with the square of the line's length. Close each link's destination, or write \\] for a bracket that closes no link"
		}
	}
	return -1, ""
}

// hostileLines is hostileText of text split into lines.
func hostileLines(lines []string) (at int, why string) {
	return hostileText(len(lines), func(i int) string { return lines[i] })
}

// destinationCost is how many bytes the Markdown parser reads for the link
// destinations of line (an upper bound: a destination it reads past a
// nested '(' is counted up to the next space), in one pass from the end
// of the line and constant memory.
func destinationCost(line string) int {
	if !strings.Contains(line, "](") {
		return 0
	}
	// next is, for position at, the index of the next space, '>' and '('
	// or ')' at or after it (len(line) when there is none).
	type next struct{ at, space, gt, paren int }
	n := len(line)
	cur := next{n, n, n, n}
	// snap and prev are cur at the nearest and second nearest non-space
	// positions after i: for "](" at i, the '(' and the destination's
	// first character.
	snap, prev := cur, cur
	cost := 0
	for i := n - 1; i >= 0; i-- {
		c := line[i]
		if c == ']' && snap.at == i+1 && line[i+1] == '(' && (i == 0 || line[i-1] != '\\') {
			d, j := prev, prev.at
			switch {
			case j < n && line[j] == '<':
				cost += d.gt - j
			case d.paren < d.space && line[d.paren] == '(':
				cost += d.space - j // nested '(': to the space at most
			default:
				cost += min(d.paren, d.space) - j // closed, or ends at the space
			}
		}
		cur.at = i
		switch c {
		case ' ', '\t', '\v', '\f', '\r', '\n':
			cur.space = i
			continue
		case '>':
			cur.gt = i
		case '(', ')':
			cur.paren = i
		}
		prev, snap = snap, cur
	}
	return cost
}

// openBrackets counts the '[' of line that no backslash escapes.
func openBrackets(line string) int {
	n := 0
	for i := strings.IndexByte(line, '['); i >= 0; {
		if i == 0 || line[i-1] != '\\' {
			n++
		}
		j := strings.IndexByte(line[i+1:], '[')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return n
}

// nestingWidth is prefixWidth of a line that opens a list item or a block
// quote (a list marker or '>' after its indentation), and 0 for any other
// line: indentation alone only continues the lists and quotes that lines
// before it opened (or makes code), so it cannot nest deeper.
func nestingWidth(line string) int {
	t := strings.TrimLeft(line, " \t")
	if t == "" || (t[0] != '>' && listMarkerEnd(t) == 0) {
		return 0
	}
	return prefixWidth(line)
}

// prefixWidth returns the width in columns of the indentation, block quote
// markers and list item markers at the start of line (a tab counts 4).
func prefixWidth(line string) int {
	w, i := 0, 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '>':
			w++
			i++
			continue
		case c == '\t':
			w += 4
			i++
			continue
		}
		n := listMarkerEnd(line[i:])
		if n == 0 {
			return w
		}
		w += n
		i += n
	}
	return w
}
