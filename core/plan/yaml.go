package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/devworkwire/devworkwire/core"
)

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// decodeYAML parses src into a node tree. Lines in errors are shifted by
// lineOffset; what names the part of the document ("front matter").
func decodeYAML(name string, src []byte, lineOffset int, what string) (*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var root yaml.Node
	err := dec.Decode(&root)
	if errors.Is(err, io.EOF) {
		return nil, nil // empty
	}
	if err != nil {
		return nil, yamlError(name, err, lineOffset, what)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		line := lineOffset + extra.Line
		return nil, &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s line %d: a second YAML document starts here (after a \"---\" line); a planning document is one YAML document. Remove the \"---\" separator or split the file", nameOrDoc(name), line)}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(name, err, lineOffset, what)
	}
	if perr := duplicateKey(name, &root, lineOffset, what); perr != nil {
		return nil, perr
	}
	return &root, nil
}

// duplicateKey refuses a mapping that holds a key twice. The YAML parser
// accepts it and keeps the last value, which would silently drop the
// first (a second `stories:` list, a second `title:`); YAML itself
// requires keys to be unique, so this is invalid YAML, reported at the
// second occurrence with both lines.
func duplicateKey(name string, root *yaml.Node, lineOffset int, what string) *Error {
	var key string
	first, second := 0, 0 // lines of the earliest second occurrence found
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.MappingNode {
			seen := make(map[string]int, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				if prev, dup := seen[k.Value]; dup {
					if second == 0 || k.Line < second {
						key, first, second = k.Value, prev, k.Line
					}
					continue
				}
				seen[k.Value] = k.Line
			}
		}
		stack = append(stack, n.Content...)
	}
	if second == 0 {
		return nil
	}
	line := lineOffset + second
	where := ""
	if what != "document" {
		where = " of the " + what
	}
	return &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s line %d: the key %q is given twice in the same mapping%s (lines %d and %d); YAML allows each key once and would keep only the last value, silently dropping the first. Remove one of them or merge their values", nameOrDoc(name), line, key, where, lineOffset+first, line)}
}

func yamlError(name string, err error, lineOffset int, what string) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			n, _ := strconv.Atoi(m[1])
			line = n + lineOffset
		}
		msg = m[2]
	}
	where := ""
	if line > 0 {
		where = fmt.Sprintf(" line %d", line)
	}
	fix := "fix the YAML syntax there (indent with spaces, not tabs; quote values that contain \": \" or start with a special character)"
	return &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s%s: the %s is not valid YAML (%s); %s", nameOrDoc(name), where, what, msg, fix)}
}

// frontMatter reads an optional YAML front matter block ("---" lines) at
// the start of a Markdown document into r and returns the body after it
// and the number of lines before the body.
func frontMatter(name string, data []byte, r *result) ([]byte, int, *Error) {
	firstEnd := bytes.IndexByte(data, '\n')
	first := data
	if firstEnd >= 0 {
		first = data[:firstEnd]
	}
	if string(bytes.TrimRight(first, " \t")) != "---" {
		return data, 0, nil
	}
	if firstEnd < 0 {
		return nil, 0, unclosedFrontMatter(name)
	}
	off := firstEnd + 1
	line := 1
	for off <= len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		var l []byte
		next := len(data)
		if end < 0 {
			l = data[off:]
		} else {
			l = data[off : off+end]
			next = off + end + 1
		}
		line++
		t := string(bytes.TrimRight(l, " \t"))
		if t == "---" || t == "..." {
			fm := data[firstEnd+1 : off]
			root, perr := decodeYAML(name, fm, 1, "front matter")
			if perr != nil {
				return nil, 0, perr
			}
			if perr := readFrontMatter(name, root, r); perr != nil {
				return nil, 0, perr
			}
			return data[next:], line, nil
		}
		if end < 0 {
			break
		}
		off = next
	}
	return nil, 0, unclosedFrontMatter(name)
}

func unclosedFrontMatter(name string) *Error {
	return &Error{Code: CodeSourceParseFailed, Line: 1, Message: fmt.Sprintf("%s line 1: the front matter that starts with \"---\" is never closed; add a line \"---\" after its last key (for example after \"id: checkout-v2\")", nameOrDoc(name))}
}

func readFrontMatter(name string, root *yaml.Node, r *result) *Error {
	m := topLevel(root)
	if m == nil {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		line := m.Line + 1
		return &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s line %d: the front matter must be \"key: value\" lines (such as \"id: checkout-v2\"), not a %s", nameOrDoc(name), line, nodeKind(m))}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		r.documentKey(m.Content[i], resolveAlias(m.Content[i+1]), 1, " in the front matter")
	}
	return nil
}

// topLevel is the node a YAML text holds (nil when it holds nothing or
// null).
func topLevel(root *yaml.Node) *yaml.Node {
	m := root
	if m != nil && m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	if m == nil || (m.Kind == yaml.ScalarNode && m.Tag == "!!null") {
		return nil
	}
	return m
}

// documentKey reads a key about the whole document — id, title,
// defaults, removed — at the top of a YAML document or in a Markdown
// document's front matter: in says where for messages ("" or " in the
// front matter"), off is the number of lines before the YAML. It reports
// false for any other key.
func (r *result) documentKey(k, v *yaml.Node, off int, in string) bool {
	line := k.Line + off
	switch k.Value {
	case "id":
		r.docIDSet, r.docIDLine = true, line
		if s, ok := scalar(v); ok {
			r.docID = strings.TrimSpace(s)
		} else {
			r.addf("", "id", line, "The document id%s (line %d) is a %s; write it as a single value such as \"id: checkout-v2\"", in, line, nodeKind(v))
			r.docID = "-"
		}
	case "title":
		if s, ok := scalar(v); ok {
			r.title = strings.TrimSpace(s)
		} else {
			r.addf("", "title", line, "The document title%s (line %d) is a %s; write it as one line of text", in, line, nodeKind(v))
		}
	case "defaults":
		r.readDefaults(v, off)
	case "removed":
		r.readRemoved(v, line) // removed.go
	default:
		return false
	}
	return true
}

// defaultsWho names the document's defaults in messages.
const defaultsWho = "The document's `defaults:`"

// readDefaults reads a `defaults:` mapping (front matter or top level);
// off is the number of lines before the YAML.
func (r *result) readDefaults(v *yaml.Node, off int) {
	r.readDefaultsOf(v, off, defaultsOf{"The document's defaults", defaultsWho, SourceDocument})
}

// defaultsOf says whose defaults are read: what messages call them
// (name, who) and the source of their fields.
type defaultsOf struct {
	name, who string
	from      Source
}

func (r *result) readDefaultsOf(v *yaml.Node, off int, d defaultsOf) {
	line := v.Line + off
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		r.addf("", "defaults", line, "%s (line %d) are a %s; write them as a mapping of field keys, such as \"defaults: {labels: [checkout], priority: High}\"", d.name, line, nodeKind(v))
		return
	}
	s := &fieldSetter{fields: &r.defaults, from: d.from}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i]
		if !slices.Contains(fieldKeys, k.Value) {
			kl := k.Line + off
			r.addf("", "defaults."+k.Value, kl, "%s have an unknown key %q at line %d%s; the keys of the defaults are %s", d.name, k.Value, kl, didYouMean(k.Value, fieldKeys), strings.Join(fieldKeys, ", "))
			continue
		}
		r.yamlField(s, "", d.who, k, resolveAlias(v.Content[i+1]), off)
	}
}

// yamlField reads the value v of the field key k (a built-in field's key
// or "fields") of an item (item, who) or of the defaults into s.
func (r *result) yamlField(s *fieldSetter, item, who string, k, v *yaml.Node, off int) {
	line := k.Line + off
	if k.Value == "fields" {
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			return
		}
		if v.Kind != yaml.MappingNode {
			r.addf(item, "fields", line, "%s has `fields:` that is a %s (line %d); write a mapping from custom field name to value, such as \"fields: {Team: Payments}\"", who, nodeKind(v), line)
			return
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			nk, nv := v.Content[i], resolveAlias(v.Content[i+1])
			nl := nk.Line + off
			f, ok := r.opts.customField(nk.Value)
			if !ok {
				if b, builtin := r.opts.markdownField(nk.Value); builtin && b.builtin != nil {
					r.addf(item, "fields."+nk.Value, nl, "%s sets %q under `fields:` (line %d), but %s is a built-in field; write `%s:` next to the title instead", who, nk.Value, nl, b.builtin.display, b.builtin.key)
					continue
				}
				hint := "no custom fields are declared"
				if names := r.opts.declaredCustom(); len(names) > 0 {
					hint = "declared: " + strings.Join(names, ", ")
				}
				r.addf(item, "fields."+nk.Value, nl, "%s sets the custom field %q at line %d, which the configuration does not declare%s; declare it under `fields:` in the configuration or correct the name (%s)", who, nk.Value, nl, didYouMeanName(nk.Value, r.opts.declaredCustom()), hint)
				continue
			}
			text, ok := scalar(nv)
			if !ok {
				r.addf(item, f.key(), nl, "%s has a %s value that is a %s (line %d); write it as one value (several values of a list field separated by commas)", who, f.custom, nodeKind(nv), nl)
				continue
			}
			r.setYAMLValue(s, f, item, who, text, nk.Value, nl)
		}
		return
	}
	var f fieldRef
	for i := range builtinFields {
		if builtinFields[i].key == k.Value {
			f = fieldRef{builtin: &builtinFields[i]}
		}
	}
	if v.Kind == yaml.SequenceNode && f.kind() == kindList {
		var list []string
		for _, e := range v.Content {
			e = resolveAlias(e)
			t, ok := scalar(e)
			t = strings.TrimSpace(t)
			if !ok || t == "" {
				el := e.Line + off
				r.addf(item, f.key(), el, "%s has a %s entry that is %s (line %d); write each entry as one value", who, k.Value, map[bool]string{true: "empty", false: "a " + nodeKind(e)}[ok], el)
				return
			}
			list = appendNew(list, t)
		}
		if msg := checkList(f, list, who, line); msg != "" {
			r.addf(item, f.key(), line, "%s", msg)
			return
		}
		v := fieldValue{list: list, cleared: len(list) == 0}
		if prev := s.set(f, v, line); prev != 0 {
			r.addf(item, f.key(), line, "%s sets %s twice (lines %d and %d); keep one", who, f.display(), prev, line)
		}
		return
	}
	text, ok := scalar(v)
	if !ok {
		what := "one value"
		if f.kind() == kindList {
			what = "a list or one line of comma-separated values"
		}
		r.addf(item, f.key(), line, "%s has a %s value that is a %s (line %d); write %s", who, k.Value, nodeKind(v), line, what)
		return
	}
	r.setYAMLValue(s, f, item, who, text, k.Value, line)
}

func (r *result) setYAMLValue(s *fieldSetter, f fieldRef, item, who, text, key string, line int) {
	shown := key + ":"
	if strings.TrimSpace(text) != "" {
		shown += " " + strings.TrimSpace(text)
	}
	fv, msg := parseText(f, text, who, shown, line)
	if msg != "" {
		r.addf(item, f.key(), line, "%s", msg)
		return
	}
	if prev := s.set(f, fv, line); prev != 0 {
		r.addf(item, f.key(), line, "%s sets %s twice (lines %d and %d); keep one", who, f.display(), prev, line)
	}
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && n.Alias.Kind == yaml.ScalarNode {
		return n.Alias
	}
	return n
}

// scalar returns the text of a scalar node ("" for null).
func scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.Tag == "!!null" {
		return "", true
	}
	return n.Value, true
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "YAML alias"
	case yaml.ScalarNode:
		return "single value"
	}
	return "YAML document"
}

var (
	docKeys   = []string{"id", "title", "defaults", "removed", "epics", "stories"}
	epicKeys  = []string{"id", "title", "description", "acceptance_criteria", "drift", "key", "depends_on", "blocks", "stories"}
	storyKeys = []string{"id", "title", "description", "acceptance_criteria", "drift", "epic", "key", "depends_on", "blocks", "subtasks"}
	subKeys   = []string{"id", "title", "description", "acceptance_criteria", "drift", "key", "depends_on", "blocks"}
)

func parseYAML(name string, data []byte, opts *Options) (*result, *Error) {
	r := &result{format: formatYAML, opts: opts}
	root, perr := decodeYAML(name, data, 0, "document")
	if perr != nil {
		return nil, perr
	}
	m := topLevel(root)
	if m == nil {
		return r, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, &Error{Code: CodeSourceParseFailed, Line: m.Line, Message: fmt.Sprintf("%s line %d: the document must be a YAML mapping with the keys id, title, epics and stories, not a %s", nameOrDoc(name), m.Line, nodeKind(m))}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		switch k.Value {
		case "epics":
			r.listsKeys = true
			for _, e := range r.list(v, "", "epics", k.Line, "epics") {
				ep := r.yamlItem(e, KindEpic, nil)
				if ep == nil {
					continue
				}
				for j := 0; j+1 < len(e.Content); j += 2 {
					if e.Content[j].Value != "stories" {
						continue
					}
					sk := e.Content[j]
					for _, s := range r.list(resolveAlias(e.Content[j+1]), ep.ID, "stories", sk.Line, "stories of epic "+ep.ID) {
						r.yamlItem(s, KindStory, ep)
					}
				}
			}
		case "stories":
			r.listsKeys = true
			for _, s := range r.list(v, "", "stories", k.Line, "stories") {
				r.yamlItem(s, KindStory, nil)
			}
		default:
			if r.documentKey(k, v, 0, "") {
				continue
			}
			r.addf("", k.Value, k.Line, "Unknown top-level key %q at line %d%s; the top-level keys are %s", k.Value, k.Line, didYouMean(k.Value, docKeys), strings.Join(docKeys, ", "))
		}
	}
	return r, nil
}

// list returns the entries of a sequence node (nil for null), reporting
// any other kind of value.
func (r *result) list(n *yaml.Node, item, field string, line int, what string) []*yaml.Node {
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.addf(item, field, line, "The %s (line %d) must be a list (entries starting with \"- \"), not a %s", what, line, nodeKind(n))
		return nil
	}
	return n.Content
}

// yamlItem reads one epic or story mapping. parent is the epic a nested
// story sits under.
func (r *result) yamlItem(n *yaml.Node, kind string, parent *rawItem) *rawItem {
	w := kindWord(kind)
	if n.Kind != yaml.MappingNode {
		if kind == KindSubtask {
			r.addf("", "", n.Line, "The sub-task entry at line %d is a %s; each sub-task is a mapping with at least id and title", n.Line, nodeKind(n))
			return nil
		}
		r.addf("", "", n.Line, "The %s entry at line %d is a %s; each %s is a mapping with at least id and title", strings.ToLower(w), n.Line, nodeKind(n), strings.ToLower(w))
		return nil
	}
	it := &rawItem{Item: Item{Kind: kind, Line: n.Line}, span: itemSpan{node: n}}
	if kind == KindSubtask {
		it.Story = parent.ID
	} else if parent != nil {
		it.parent, it.parentLine = parent.ID, parent.Line
		it.parentBroken = parent.noID
	}
	hasID := false
	keys := storyKeys
	switch kind {
	case KindEpic:
		keys = epicKeys
	case KindSubtask:
		keys = subKeys
	}
	var subtasks *yaml.Node // read after the story, so they follow it
	// Read the id first so that every other problem can name the item.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" {
			hasID = true
			if s, ok := scalar(resolveAlias(n.Content[i+1])); ok {
				it.ID = strings.TrimSpace(s)
			} else {
				r.addf("", "id", n.Content[i].Line, "The %s at line %d has an id that is a %s; write a single value such as \"id: %s\"", strings.ToLower(w), n.Line, nodeKind(n.Content[i+1]), exampleID(kind))
				it.noID = true
			}
		}
	}
	if !hasID || (it.ID == "" && !it.noID) {
		r.addf("", "id", n.Line, "The %s at line %d has no id; add \"id: %s\" (an id that stays the same across edits)", strings.ToLower(w), n.Line, exampleID(kind))
		it.noID = true
	}
	name := it.ID
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		switch k.Value {
		case "id", "stories":
			if k.Value == "stories" && kind != KindEpic {
				r.addf(name, "stories", k.Line, "Story %s has a \"stories\" key at line %d; stories cannot contain stories. Move them under an epic", name, k.Line)
			}
		case "title":
			if s, ok := scalar(v); ok {
				it.Title = strings.TrimSpace(s)
			} else {
				r.addf(name, "title", k.Line, "%s %s has a title that is a %s (line %d); write it as one line of text", w, name, nodeKind(v), k.Line)
				it.Title = "-"
			}
		case "description":
			if s, ok := scalar(v); ok {
				it.Description = trimBlankLines(s)
				r.hostile(name, w, "description", "its description", k.Line, it.Description)
			} else {
				r.addf(name, "description", k.Line, "%s %s has a description that is a %s (line %d); write it as text, for a long one as a block: \"description: |\" followed by indented lines", w, name, nodeKind(v), k.Line)
			}
		case "acceptance_criteria":
			for _, c := range r.list(v, name, "acceptance_criteria", k.Line, "acceptance_criteria of "+strings.ToLower(w)+" "+name) {
				c = resolveAlias(c)
				s, ok := scalar(c)
				if !ok {
					r.addf(name, "acceptance_criteria", c.Line, "%s %s has an acceptance criterion that is a %s (line %d); write each criterion as text", w, name, nodeKind(c), c.Line)
					continue
				}
				text, box := yamlCriterion(s)
				r.hostile(name, w, "acceptance_criteria", "an acceptance criterion", c.Line, text)
				it.AcceptanceCriteria = append(it.AcceptanceCriteria, text)
				it.critLines = append(it.critLines, c.Line)
				it.addBox(box)
			}
		case "drift":
			s, ok := scalar(v)
			switch {
			case ok && r.opts.isTakeDocument(s):
				keys, problem, _ := r.opts.takeDocument(s)
				if problem != "" {
					r.addf(name, "drift", k.Line, "%s %s has \"drift: %s\" at line %d, which %s", w, name, s, k.Line, problem)
					break
				}
				it.TakeDocument, it.TakeFields = true, keys
			case ok && s == "":
			default:
				shown := s
				if !ok {
					shown = nodeKind(v)
				}
				r.addf(name, "drift", k.Line, "%s %s has \"drift: %s\" at line %d; the only value is \"take-document\" (take the document's version over edits made in Jira). Fix or remove the key", w, name, shown, k.Line)
			}
		case "key": // key.go
			s, ok := scalar(v)
			if !ok {
				r.addf(name, keyName, k.Line, "%s %s has a key that is a %s (line %d); write the key of the Jira issue it adopts, such as \"key: PROJ-12\"", w, name, nodeKind(v), k.Line)
				continue
			}
			r.setKey(it, s, k.Line, "key: "+s)
		case "subtasks":
			if kind != KindStory {
				r.addf(name, "subtasks", k.Line, "%s %s has a \"subtasks\" key at line %d; only a story has sub-tasks. Move them into a story", w, itemName(name, n.Line), k.Line)
				continue
			}
			subtasks = k
		case "epic":
			if kind == KindSubtask {
				r.addf(name, "epic", k.Line, "Sub-task %s has an \"epic\" key (line %d); a sub-task belongs to its story %s. Remove the key", itemName(name, n.Line), k.Line, it.Story)
				continue
			}
			if kind == KindEpic {
				r.addf(name, "epic", k.Line, "Epic %s has an \"epic\" key (line %d); an epic cannot belong to another epic. Remove the key", name, k.Line)
				continue
			}
			s, ok := scalar(v)
			if !ok {
				r.addf(name, "epic", k.Line, "Story %s has an epic that is a %s (line %d); write the id of an epic, such as \"epic: e-1\"", name, nodeKind(v), k.Line)
				continue
			}
			it.epicRef, it.epicRefLine = strings.TrimSpace(s), k.Line
		case "depends_on", "blocks":
			who := w + " " + itemName(name, n.Line)
			var entries []string
			if v.Kind == yaml.SequenceNode {
				for _, e := range v.Content {
					s, ok := scalar(resolveAlias(e))
					if !ok {
						r.addf(name, k.Value, e.Line, "%s has a %s entry that is a %s (line %d); write each entry as an item id, a reference or a Jira key", who, k.Value, nodeKind(e), e.Line)
						continue
					}
					entries = append(entries, s)
				}
			} else if s, ok := scalar(v); ok && strings.TrimSpace(s) != "" {
				if !strings.EqualFold(strings.TrimSpace(s), "none") {
					entries = strings.Split(s, ",")
				}
			} else {
				r.addf(name, k.Value, k.Line, "%s has a %s value that is %s (line %d); write a list of item ids, references or Jira keys", who, k.Value, map[bool]string{true: "empty", false: "a " + nodeKind(v)}[ok], k.Line)
				continue
			}
			r.addLinks(it, k.Value, entries, k.Line, who, k.Value+":")
		default:
			if slices.Contains(fieldKeys, k.Value) {
				r.yamlField(it.setter(), name, w+" "+itemName(name, n.Line), k, v, 0)
				continue
			}
			r.addf(name, k.Value, k.Line, "%s %s has an unknown key %q at line %d%s; the keys of a%s are %s, and the field keys %s", w, itemName(name, n.Line), k.Value, k.Line, didYouMean(k.Value, append(slices.Clone(keys), fieldKeys...)), map[string]string{KindEpic: "n epic", KindStory: " story", KindSubtask: " sub-task"}[kind], strings.Join(keys, ", "), strings.Join(fieldKeys, ", "))
		}
	}
	if it.epicRefLine == 0 {
		it.epicRefLine = it.Line
	}
	r.items = append(r.items, it)
	if subtasks != nil {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i] == subtasks {
				for _, s := range r.list(resolveAlias(n.Content[i+1]), it.ID, "subtasks", subtasks.Line, "subtasks of story "+itemName(name, n.Line)) {
					r.yamlItem(s, KindSubtask, it)
				}
			}
		}
	}
	return it
}

// hostile adds a problem when Markdown text of a YAML item is past the
// limits that keep parsing it linear (hostileText), as a Markdown
// document's text is refused.
func (r *result) hostile(name, kind, field, what string, line int, text string) {
	if at, why := hostileLines(strings.Split(text, "\n")); why != "" {
		r.addf(name, field, line, "%s %s: line %d of %s (at line %d) %s", kind, name, at+1, what, line, why)
	}
}

func itemName(id string, line int) string {
	if id == "" {
		return fmt.Sprintf("at line %d", line)
	}
	return id
}

// trimBlankLines removes leading and trailing blank lines and thematic
// breaks (and the final newline a YAML block scalar keeps).
func trimBlankLines(s string) string {
	return strings.Join(trimEdges(strings.Split(s, "\n")), "\n")
}

// trimEdges drops blank lines and thematic breaks ("---", "***", "___")
// at the start and end of a description: they separate items in a
// document and are not part of any item's text.
func trimEdges(lines []string) []string {
	for len(lines) > 0 && edgeLine(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && edgeLine(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func edgeLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return true
	}
	if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
		return false // indented code
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// didYouMean suggests the known key closest to an unknown one, if any is
// close (Closest).
func didYouMean(key string, known []string) string {
	if best := core.Closest(key, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
