package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// The rewriter: values written into a document in place (for a pull of
// the tracker's changes). Only the spans of the changed values are edited
// — a heading's title, a field line's value, the description's lines, the
// acceptance criteria's lines (Markdown); a key's value (YAML) — so every
// other byte (comments, blank lines, odd spacing, unmanaged text) is kept.
// The result is parsed again and must read as the document with exactly
// the changes applied; otherwise nothing is returned but a problem naming
// the item.

// Change is what Rewrite writes into one item. A nil part is left as it
// is; Fields maps a field key ("priority", "fields.Team") to its value as
// a document writes it ("High", "ui, web", "none"): the item's own field
// line (or key) is rewritten, or added when the value came from defaults.
type Change struct {
	Item        string
	Title       *string
	Description *string
	Criteria    *Criteria
	Fields      map[string]string
}

// Criteria are acceptance criteria with their task-list boxes (Boxes nil
// or one entry per text: BoxTodo, BoxDone or "").
type Criteria struct {
	Texts []string
	Boxes []string
}

// Rewrite returns data (a document named name, as Parse takes it) with
// changes applied and everything else byte for byte. The error is a
// *Error: the codes of Parse for a document that does not parse, and
// VALIDATION_FAILED (a Problem per item) when a change cannot be written
// in place without changing how other parts of the document read.
func (o Options) Rewrite(name string, data []byte, changes []Change) ([]byte, error) {
	if _, err := o.Parse(name, data); err != nil {
		return nil, err
	}
	out, _, err := o.RewriteParsed(name, data, changes)
	return out, err
}

// RewriteParsed is Rewrite for a document the caller has already read
// with Parse (data parses without a problem): it reads data once, and
// returns with the new text the document that text reads as (verified
// against data with the changes applied), so the caller parses neither
// again. A data that does not parse is refused, without Parse's list of
// problems.
func (o Options) RewriteParsed(name string, data []byte, changes []Change) ([]byte, *Document, error) {
	f := formatOf(name)
	if f == formatUnknown {
		_, err := o.Parse(name, data)
		return nil, nil, err
	}
	r, text, perr := o.parseRaw(name, data, f)
	if perr != nil {
		return nil, nil, perr
	}
	w := &rewriter{text: string(text), opts: &o, format: f}
	w.index()
	byID := map[string]*rawItem{}
	for _, it := range r.items {
		byID[it.ID] = it
	}
	for _, c := range changes {
		it := byID[c.Item]
		if it == nil {
			w.problem(c.Item, "", "Item %s is not in the document", c.Item)
			continue
		}
		if f == formatMarkdown {
			w.markdownItem(it, c)
		} else {
			w.yamlItem(it, c)
		}
	}
	if len(w.problems) > 0 {
		return nil, nil, w.refusal(name)
	}
	out, err := w.apply()
	if err != nil {
		return nil, nil, err
	}
	doc, err := w.verify(name, r, byID, out, changes)
	if err != nil {
		return nil, nil, err
	}
	if out, err = restoreEndings(data, out); err != nil {
		return nil, nil, err
	}
	return out, doc, nil
}

type edit struct {
	from, to int // byte offsets in the text; to == from inserts
	text     string
	seq      int
}

type rewriter struct {
	text     string
	starts   []int // byte offset of each line
	opts     *Options
	format   format
	edits    []edit
	problems []Problem
}

func (w *rewriter) index() {
	w.starts = []int{0}
	for i := 0; i < len(w.text); i++ {
		if w.text[i] == '\n' {
			w.starts = append(w.starts, i+1)
		}
	}
}

func (w *rewriter) lines() int { return len(w.starts) }

// line returns line n (1-based) without its "\n".
func (w *rewriter) line(n int) string {
	if n < 1 || n > len(w.starts) {
		return ""
	}
	s := w.starts[n-1]
	e := len(w.text)
	if n < len(w.starts) {
		e = w.starts[n] - 1
	}
	return w.text[s:e]
}

func (w *rewriter) off(n int) int { return w.starts[n-1] }

// lineAt is the line (1-based) holding byte offset off.
func (w *rewriter) lineAt(off int) int {
	return sort.Search(len(w.starts), func(i int) bool { return w.starts[i] > off })
}

func (w *rewriter) lineEnd(n int) int { return w.off(n) + len(w.line(n)) }

func (w *rewriter) replace(from, to int, text string) {
	w.edits = append(w.edits, edit{from: from, to: to, text: text, seq: len(w.edits)})
}

func (w *rewriter) problem(item, field, format string, args ...any) {
	w.problems = append(w.problems, Problem{Item: item, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (w *rewriter) refusal(name string) *Error {
	msg := fmt.Sprintf("%s cannot take the tracker's values in place: %s", nameOrDoc(name), w.problems[0].Message)
	if len(w.problems) > 1 {
		msg = fmt.Sprintf("%s cannot take the tracker's values in place (%d problems, each in details). The first: %s", nameOrDoc(name), len(w.problems), w.problems[0].Message)
	}
	return &Error{Code: CodeValidationFailed, Message: msg, Problems: w.problems}
}

// apply applies the edits (inserts at one offset in the order made).
func (w *rewriter) apply() ([]byte, error) {
	es := slices.Clone(w.edits)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].from != es[j].from {
			return es[i].from < es[j].from
		}
		return es[i].seq < es[j].seq
	})
	var b strings.Builder
	at := 0
	for _, e := range es {
		if e.text == "" && e.from < at { // a deletion reaching into the edit before: the rest of it
			if e.to <= at {
				continue
			}
			e.from = at
		}
		if e.from < at {
			return nil, &Error{Code: CodeValidationFailed, Message: "two of the changes would overlap in the document"}
		}
		b.WriteString(w.text[at:e.from])
		b.WriteString(e.text)
		at = e.to
	}
	b.WriteString(w.text[at:])
	return []byte(b.String()), nil
}

// restoreEndings gives out the original's byte order mark and CRLF line
// endings (out was made from the text as parsed: LF only).
func restoreEndings(orig, out []byte) ([]byte, error) {
	bom := bytes.HasPrefix(orig, []byte("\xef\xbb\xbf"))
	if crlf := bytes.Count(orig, []byte("\r\n")); crlf > 0 || bytes.IndexByte(orig, '\r') >= 0 {
		if crlf != bytes.Count(orig, []byte("\n")) || crlf != bytes.Count(orig, []byte("\r")) {
			return nil, &Error{Code: CodeValidationFailed, Message: "The document mixes line endings (CRLF and LF, or CR alone), so it cannot be rewritten byte for byte; save it with one kind of line ending and pull again"}
		}
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if bom {
		out = append([]byte("\xef\xbb\xbf"), out...)
	}
	return out, nil
}

// verify parses out and compares it with the original document (r, as
// read raw for the rewrite, its items by id in byID; they are changed
// here) with the changes applied: nothing else may read differently. It
// returns out's document.
func (w *rewriter) verify(name string, r *result, byID map[string]*rawItem, out []byte, changes []Change) (*Document, error) {
	got, err := w.opts.Parse(name, out)
	if err != nil {
		return nil, &Error{Code: CodeValidationFailed, Message: fmt.Sprintf("%s would no longer be a valid planning document with the tracker's values written in (%s); edit the items by hand to match the tracker", nameOrDoc(name), err.Error())}
	}
	for _, c := range changes {
		it := byID[c.Item]
		if c.Title != nil {
			it.Title = *c.Title
		}
		if c.Description != nil {
			it.Description = *c.Description
		}
		if c.Criteria != nil {
			it.AcceptanceCriteria = slices.Clone(c.Criteria.Texts)
			it.CriteriaBoxes = nil
			if slices.ContainsFunc(c.Criteria.Boxes, func(b string) bool { return b != "" }) {
				it.CriteriaBoxes = slices.Clone(c.Criteria.Boxes)
			}
			if len(it.AcceptanceCriteria) == 0 {
				it.AcceptanceCriteria = nil
			}
		}
		for _, k := range slices.Sorted(maps.Keys(c.Fields)) {
			ref, ok := w.fieldRef(k)
			if !ok {
				continue
			}
			v, msg := parseText(ref, c.Fields[k], kindWord(it.Kind)+" "+it.ID, k, 0)
			if msg != "" {
				return nil, &Error{Code: CodeValidationFailed, Message: msg, Problems: []Problem{{Item: it.ID, Field: k, Message: msg}}}
			}
			s := it.setter()
			delete(s.lines, k)
			s.set(ref, v, 0)
		}
	}
	want, err := r.finish(name)
	if err != nil {
		return nil, err
	}
	a, b := comparable(want), comparable(got)
	if reflect.DeepEqual(a, b) {
		return got, nil
	}
	item := ""
	for i := range want.Items {
		if i >= len(got.Items) || !reflect.DeepEqual(comparable(want.Items[i]), comparable(got.Items[i])) {
			item = want.Items[i].ID
			break
		}
	}
	for i := range want.Subtasks {
		if item == "" && (i >= len(got.Subtasks) || !reflect.DeepEqual(comparable(want.Subtasks[i]), comparable(got.Subtasks[i]))) {
			item = want.Subtasks[i].ID
		}
	}
	what := "the document"
	if item != "" {
		what = "item " + item
	}
	return nil, &Error{Code: CodeValidationFailed, Message: fmt.Sprintf("The tracker's values cannot be written into %s in place without changing how %s reads (for example a description line that would read as a field, a marker or a heading); edit it by hand to match the tracker", nameOrDoc(name), what),
		Problems: []Problem{{Item: item, Message: "cannot be rewritten in place"}}}
}

// comparable is v as JSON values without source lines.
func comparable(v any) any {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	var strip func(any)
	strip = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			delete(t, "Line")
			for _, v := range t {
				strip(v)
			}
		case []any:
			for _, v := range t {
				strip(v)
			}
		}
	}
	strip(x)
	return x
}

// fieldRef resolves a field key.
func (w *rewriter) fieldRef(key string) (fieldRef, bool) {
	if c, ok := strings.CutPrefix(key, "fields."); ok {
		return w.opts.customField(c)
	}
	for i := range builtinFields {
		if builtinFields[i].key == key {
			return fieldRef{builtin: &builtinFields[i]}, true
		}
	}
	return fieldRef{}, false
}

// ---- Markdown -------------------------------------------------------

// itemSpan is where an item's parts are written: Markdown lines (the
// section, the lines excluded from its description, the description's
// lines, the criteria's label and last line) or the YAML node.
type itemSpan struct {
	start, end         int
	exclude            [][2]int
	descLines          []int
	critLabel, critEnd int
	node               *yaml.Node
}

func (w *rewriter) markdownItem(it *rawItem, c Change) {
	who := kindWord(it.Kind) + " " + it.ID
	if c.Title != nil && *c.Title != it.Title {
		w.mdTitle(it, *c.Title)
	}
	anchor := w.mdFieldBlockEnd(it)
	for _, k := range fieldOrder(c.Fields) {
		ref, ok := w.fieldRef(k)
		if !ok {
			w.problem(it.ID, k, "%s: %s is not a field of this document", who, k)
			continue
		}
		line := 0
		if it.fields != nil {
			line = it.fields.lines[k]
		}
		val := c.Fields[k]
		if line == 0 {
			w.replace(w.lineEnd(anchor), w.lineEnd(anchor), "\n"+ref.display()+": "+val)
			continue
		}
		s := w.line(line)
		colon := strings.IndexByte(s, ':')
		start := colon + 1
		for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
			start++
		}
		end := len(strings.TrimRight(s, " \t"))
		if start > end {
			start = end
		}
		w.replace(w.off(line)+start, w.off(line)+end, val)
	}
	if c.Description != nil && strings.TrimSpace(*c.Description) != strings.TrimSpace(it.Description) {
		w.mdDescription(it, anchor, EscapeDescription(strings.Trim(*c.Description, "\n")), who)
	}
	if c.Criteria != nil {
		w.mdCriteria(it, anchor, *c.Criteria, who)
	}
}

// fieldOrder is the keys of fields in the documentation's order.
func fieldOrder(fields map[string]string) []string {
	keys := slices.Sorted(maps.Keys(fields))
	rank := func(k string) int {
		for i, b := range builtinFields {
			if b.key == k {
				return i
			}
		}
		return len(builtinFields)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
	return keys
}

func (w *rewriter) mdTitle(it *rawItem, title string) {
	s := w.line(it.Line)
	colon := strings.IndexByte(s, ':')
	start := colon + 1
	for start < len(s) && (s[start] == ' ' || s[start] == '\t') {
		start++
	}
	end := len(strings.TrimRight(s, " \t"))
	t := s[start:end]
	k := len(t)
	for k > 0 && t[k-1] == '#' {
		k--
	}
	if k < len(t) && k > 0 && (t[k-1] == ' ' || t[k-1] == '\t') {
		end = start + len(strings.TrimRight(t[:k], " \t"))
	}
	w.replace(w.off(it.Line)+start, w.off(it.Line)+end, title)
}

// mdFieldBlockEnd is the last line of the heading and the single lines
// right after it that the description does not hold (fields, markers).
func (w *rewriter) mdFieldBlockEnd(it *rawItem) int {
	last := it.Line
	for {
		next := last + 1
		if !slices.ContainsFunc(it.span.exclude, func(r [2]int) bool { return r[0] == next && r[1] == next }) {
			return last
		}
		last = next
	}
}

func (w *rewriter) blank(n int) bool { return n <= w.lines() && strings.TrimSpace(w.line(n)) == "" }

// deleteLines removes lines a..b with the blank line after them.
func (w *rewriter) deleteLines(a, b int) {
	from, to := w.off(a), w.lineEnd(b)
	if b < w.lines() {
		to = w.off(b + 1)
	}
	switch {
	case b+1 < w.lines() && w.blank(b+1):
		to = w.off(b + 2)
	case a > 1 && w.blank(a-1):
		from = w.off(a - 1)
	}
	w.replace(from, to, "")
}

// insertBlock inserts lines as a block of their own after line anchor.
func (w *rewriter) insertBlock(anchor int, text string) {
	tail := ""
	if anchor < w.lines() && !w.blank(anchor+1) {
		tail = "\n"
	}
	w.replace(w.lineEnd(anchor), w.lineEnd(anchor), "\n\n"+text+tail)
}

func (w *rewriter) mdDescription(it *rawItem, anchor int, desc, who string) {
	old := it.span.descLines
	switch {
	case len(old) == 0 && desc == "":
	case len(old) == 0:
		w.insertBlock(anchor, desc)
	case old[len(old)-1]-old[0]+1 != len(old):
		w.problem(it.ID, "description", "%s has its description in several places (around its acceptance criteria or marker lines); move the description into one place and pull again", who)
	case desc == "":
		w.deleteLines(old[0], old[len(old)-1])
	default:
		w.replace(w.off(old[0]), w.lineEnd(old[len(old)-1]), desc)
	}
}

func boxText(box string) string {
	switch box {
	case BoxTodo:
		return "[ ] "
	case BoxDone:
		return "[x] "
	}
	return ""
}

func boxAt(boxes []string, i int) string {
	if i < len(boxes) {
		return boxes[i]
	}
	return ""
}

func (w *rewriter) mdCriteria(it *rawItem, anchor int, c Criteria, who string) {
	oldN, newN := len(it.AcceptanceCriteria), len(c.Texts)
	lines := it.critLines
	endOf := func(i int) int {
		e := it.span.critEnd
		if i+1 < len(lines) {
			e = lines[i+1] - 1
		}
		for e > lines[i] && w.blank(e) {
			e--
		}
		return e
	}
	switch {
	case oldN == 0 && newN == 0:
	case oldN == 0:
		at := anchor
		if d := it.span.descLines; len(d) > 0 {
			at = max(at, d[len(d)-1])
		}
		var b strings.Builder
		b.WriteString("Acceptance criteria:")
		for i, t := range c.Texts {
			b.WriteString("\n- " + boxText(boxAt(c.Boxes, i)) + strings.ReplaceAll(t, "\n", "\n  "))
		}
		w.insertBlock(at, b.String())
	case newN == 0:
		w.deleteLines(it.span.critLabel, it.span.critEnd)
	case oldN == newN:
		for i := range c.Texts {
			if c.Texts[i] == it.AcceptanceCriteria[i] && boxAt(c.Boxes, i) == boxAt(it.CriteriaBoxes, i) {
				continue
			}
			s := w.line(lines[i])
			m := listMarkerEnd(s)
			indent := strings.Repeat(" ", m)
			w.replace(w.off(lines[i])+m, w.lineEnd(endOf(i)), boxText(boxAt(c.Boxes, i))+strings.ReplaceAll(c.Texts[i], "\n", "\n"+indent))
		}
	default:
		first := w.line(lines[0])
		m := listMarkerEnd(first)
		prefix := first[:m]
		marker := strings.TrimSpace(prefix)
		num, ordered := 0, false
		if n, err := strconv.Atoi(strings.TrimRight(marker, ".)")); err == nil {
			num, ordered = n, true
		}
		var b strings.Builder
		for i, t := range c.Texts {
			p := prefix
			if ordered {
				p = strings.Replace(prefix, marker, strconv.Itoa(num+i)+marker[len(marker)-1:], 1)
			}
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p + boxText(boxAt(c.Boxes, i)) + strings.ReplaceAll(t, "\n", "\n"+strings.Repeat(" ", len(p))))
		}
		w.replace(w.off(lines[0]), w.lineEnd(endOf(len(lines)-1)), b.String())
	}
	_ = who
}

// ---- YAML -----------------------------------------------------------

// yamlOff is the byte offset of a node's line and column (characters).
func (w *rewriter) yamlOff(line, col int) int {
	s := w.line(line)
	i := 0
	for c := 1; c < col && i < len(s); c++ {
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return w.off(line) + i
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// valueEnd is the end offset of value v of key k.
func (w *rewriter) valueEnd(k, v *yaml.Node) int {
	keyIndent := k.Column - 1
	last := v.Line
	for l := v.Line + 1; l <= w.lines(); l++ {
		s := w.line(l)
		if strings.TrimSpace(s) == "" {
			continue
		}
		ind := indentOf(s)
		t := strings.TrimSpace(s)
		if ind > keyIndent || (v.Kind == yaml.SequenceNode && ind == keyIndent && (t == "-" || strings.HasPrefix(t, "- "))) {
			last = l
			continue
		}
		break
	}
	if last > v.Line {
		return w.lineEnd(last)
	}
	return w.inlineEnd(v)
}

// inlineEnd is the end offset of a value written on its own line's rest.
func (w *rewriter) inlineEnd(v *yaml.Node) int {
	start := w.yamlOff(v.Line, v.Column)
	s := w.text[start:w.lineEnd(v.Line)]
	if s == "" {
		return start
	}
	switch s[0] {
	case '"':
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '"' {
				return start + i + 1
			}
		}
	case '\'':
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1
			}
		}
	case '[', '{':
		depth, q := 0, byte(0)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case q != 0:
				if c == q {
					q = 0
				}
			case c == '"' || c == '\'':
				q = c
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
				if depth == 0 {
					return start + i + 1
				}
			}
		}
	}
	if v.Kind == yaml.ScalarNode && v.Style == 0 && v.Value != "" && strings.HasPrefix(s, v.Value) {
		return start + len(v.Value) // a plain scalar (in flow context too) reads as written
	}
	end := len(s)
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			end = i
			break
		}
	}
	return start + len(strings.TrimRight(s[:end], " \t"))
}

// yamlScalar writes s as a one-line YAML scalar in style (the original's
// quoting kept).
func yamlScalar(s string, style yaml.Style) string {
	if style&yaml.SingleQuotedStyle != 0 && !strings.ContainsAny(s, "\n") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	if style&yaml.DoubleQuotedStyle == 0 && plainSafe(s) {
		return s
	}
	return strconv.Quote(s)
}

// plainSafe reports whether s reads back as the same string unquoted.
func plainSafe(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\t") {
		return false
	}
	var v map[string]any
	if err := yaml.Unmarshal([]byte("k: "+s), &v); err != nil {
		return false
	}
	got, ok := v["k"].(string)
	return ok && got == s
}

// find returns the key and value nodes of key in mapping n.
func find(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func (w *rewriter) yamlItem(it *rawItem, c Change) {
	n := it.span.node
	who := kindWord(it.Kind) + " " + it.ID
	tk, tv := find(n, "title")
	if tk == nil {
		w.problem(it.ID, "title", "%s has no title key", who)
		return
	}
	after := w.lineEnd(w.lineAt(w.valueEnd(tk, tv))) // where missing keys are added: after the title's line (and its comment)
	pad := "\n" + strings.Repeat(" ", tk.Column-1)
	if c.Title != nil && *c.Title != it.Title {
		w.replace(w.yamlOff(tv.Line, tv.Column), w.valueEnd(tk, tv), yamlScalar(*c.Title, tv.Style))
	}
	if c.Description != nil && strings.TrimSpace(*c.Description) != strings.TrimSpace(it.Description) {
		desc := strings.Trim(*c.Description, "\n")
		k, v := find(n, "description")
		ind := strings.Repeat(" ", tk.Column+1)
		if v != nil && v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && v.Line+1 <= w.lines() {
			ind = strings.Repeat(" ", max(indentOf(w.line(v.Line+1)), tk.Column))
		}
		val := yamlText(desc, ind)
		if v == nil {
			if desc != "" {
				w.replace(after, after, pad+"description: "+val)
			}
		} else {
			w.replace(w.yamlOff(v.Line, v.Column), w.valueEnd(k, v), val)
		}
	}
	if c.Criteria != nil {
		w.yamlCriteria(it, *c.Criteria, after, pad, who)
	}
	for _, key := range fieldOrder(c.Fields) {
		val := c.Fields[key]
		if custom, ok := strings.CutPrefix(key, "fields."); ok {
			fk, fv := find(n, "fields")
			var ck, cv *yaml.Node
			if fv != nil && fv.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(fv.Content); i += 2 {
					if normName(fv.Content[i].Value) == normName(custom) {
						ck, cv = fv.Content[i], fv.Content[i+1]
					}
				}
			}
			switch {
			case cv != nil:
				w.replace(w.yamlOff(cv.Line, cv.Column), w.valueEnd(ck, cv), yamlScalar(val, cv.Style))
			case fk == nil:
				w.replace(after, after, pad+"fields:"+pad+"  "+yamlScalar(custom, 0)+": "+yamlScalar(val, 0))
			case fv.Kind == yaml.MappingNode && fv.Style&yaml.FlowStyle == 0 && len(fv.Content) > 0:
				first := fv.Content[0]
				end := w.valueEnd(fv.Content[len(fv.Content)-2], fv.Content[len(fv.Content)-1])
				w.replace(end, end, "\n"+strings.Repeat(" ", first.Column-1)+yamlScalar(custom, 0)+": "+yamlScalar(val, 0))
			default:
				w.problem(it.ID, key, "%s writes its custom fields in a form the pull cannot add %s to; add the line \"%s: %s\" under its fields by hand", who, custom, custom, val)
			}
			continue
		}
		k, v := find(n, key)
		switch {
		case v == nil:
			w.replace(after, after, pad+key+": "+yamlScalar(val, 0))
		case v.Kind == yaml.SequenceNode:
			var entries []string
			if !strings.EqualFold(val, "none") {
				for _, e := range strings.Split(val, ",") {
					entries = append(entries, strings.TrimSpace(e))
				}
			}
			w.yamlList(k, v, entries)
		default:
			w.replace(w.yamlOff(v.Line, v.Column), w.valueEnd(k, v), yamlScalar(val, v.Style))
		}
	}
}

// yamlText is a value of one or more lines: a literal block for several
// (content indented by ind), else a scalar.
func yamlText(s, ind string) string {
	if !strings.Contains(s, "\n") {
		return yamlScalar(s, 0)
	}
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t") {
		return strconv.Quote(s)
	}
	var b strings.Builder
	b.WriteString("|-")
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("\n")
		if l != "" {
			b.WriteString(ind + l)
		}
	}
	return b.String()
}

// yamlList replaces the sequence v of key k with entries, in its style.
func (w *rewriter) yamlList(k, v *yaml.Node, entries []string) {
	start, end := w.yamlOff(v.Line, v.Column), w.valueEnd(k, v)
	if len(entries) == 0 {
		if v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 {
			ks := w.yamlOff(k.Line, k.Column)
			if c := strings.IndexByte(w.text[ks:w.lineEnd(k.Line)], ':'); c >= 0 {
				w.replace(ks+c+1, end, " []")
				return
			}
		}
		w.replace(start, end, "[]")
		return
	}
	if v.Style&yaml.FlowStyle != 0 || len(v.Content) == 0 {
		q := make([]string, len(entries))
		for i, e := range entries {
			q[i] = yamlScalar(e, 0)
			if strings.ContainsAny(q[i], ",[]{}") && q[i][0] != '"' {
				q[i] = strconv.Quote(e)
			}
		}
		w.replace(start, end, "["+strings.Join(q, ", ")+"]")
		return
	}
	ind := "\n" + strings.Repeat(" ", v.Column-1)
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString(ind)
		}
		b.WriteString("- " + yamlScalar(e, 0))
	}
	w.replace(start, end, b.String())
}

func (w *rewriter) yamlCriteria(it *rawItem, c Criteria, after int, pad, who string) {
	k, v := find(it.span.node, "acceptance_criteria")
	entries := make([]string, len(c.Texts))
	for i, t := range c.Texts {
		entries[i] = boxText(boxAt(c.Boxes, i)) + t
	}
	old := make([]string, len(it.AcceptanceCriteria))
	for i, t := range it.AcceptanceCriteria {
		old[i] = boxText(boxAt(it.CriteriaBoxes, i)) + t
	}
	if slices.Equal(entries, old) {
		return
	}
	switch {
	case v == nil:
		if len(entries) == 0 {
			return
		}
		var b strings.Builder
		b.WriteString(pad + "acceptance_criteria:")
		for _, e := range entries {
			b.WriteString(pad + "  - " + yamlText(e, strings.Repeat(" ", len(pad)+3)))
		}
		w.replace(after, after, b.String())
	case v.Kind == yaml.SequenceNode && len(v.Content) == len(entries) && v.Style&yaml.FlowStyle == 0:
		for i, e := range v.Content {
			if entries[i] == old[i] {
				continue
			}
			if e.Kind != yaml.ScalarNode {
				w.problem(it.ID, "acceptance_criteria", "%s has an acceptance criterion that is not one value", who)
				return
			}
			ind := strings.Repeat(" ", e.Column+1)
			w.replace(w.yamlOff(e.Line, e.Column), w.entryEnd(e), yamlText(entries[i], ind))
		}
	case v.Kind == yaml.SequenceNode:
		w.yamlList(k, v, entries)
	default:
		w.problem(it.ID, "acceptance_criteria", "%s writes its acceptance criteria as a %s; write them as a list to pull the tracker's", who, nodeKind(v))
	}
}

// entryEnd is the end offset of a sequence entry (a scalar).
func (w *rewriter) entryEnd(e *yaml.Node) int {
	if e.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return w.inlineEnd(e)
	}
	last := e.Line
	for l := e.Line + 1; l <= w.lines(); l++ {
		s := w.line(l)
		if strings.TrimSpace(s) == "" {
			continue
		}
		if indentOf(s) < e.Column {
			break
		}
		last = l
	}
	return w.lineEnd(last)
}
