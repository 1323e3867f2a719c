package plan

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// The formats Render writes.
const (
	FormatMarkdown = "markdown"
	FormatYAML     = "yaml"
)

// Render writes doc as a planning document in format (FormatMarkdown or
// FormatYAML; "" is Markdown). comment, when not empty, is written as a
// YAML comment at the top of the front matter (Markdown) or of the
// document (YAML), one "# " line per line of it. Parsing the result gives
// doc back (apart from lines), within the limits RenderMarkdown and
// RenderYAML name.
func Render(doc *Document, format, comment string) ([]byte, error) {
	switch format {
	case "", FormatMarkdown:
		return renderMarkdown(doc, comment), nil
	case FormatYAML:
		return renderYAML(doc, comment)
	}
	return nil, fmt.Errorf("unknown document format %q; use %s or %s", format, FormatMarkdown, FormatYAML)
}

// RenderMarkdown writes doc as a Markdown planning document: front matter
// with the document id (and title), then every item in document order. A
// story that follows its epic (or a sibling story of that epic) is written
// as "### Story" under it; any other story as "## Story" with an "Epic:"
// line when it has an epic, so any order of epics and stories is kept.
// Sub-tasks follow their story as "#### Sub-task". Each item's field block
// holds its Key, Drift marker, fields and dependencies; its description
// follows after a blank line.
//
// Descriptions are written with EscapeDescription, so a description line
// the format would read as structure (an item heading, an "Epic:" line,
// an "Acceptance criteria:" label) stays description text. Parsing the
// result gives doc back (apart from Line and KeyLine); SameItems checks
// it (the export does).
func RenderMarkdown(doc *Document) []byte { return renderMarkdown(doc, "") }

func renderMarkdown(doc *Document, comment string) []byte {
	var b bytes.Buffer
	fm := yaml.Node{Kind: yaml.MappingNode, HeadComment: comment}
	add := func(k, v string) {
		fm.Content = append(fm.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: k},
			&yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: "!!str"})
	}
	if doc.ID != "" {
		add("id", doc.ID)
	}
	if doc.Title != "" {
		add("title", doc.Title)
	}
	if doc.Removed != "" {
		add("removed", doc.Removed)
	}
	if len(fm.Content) > 0 {
		out, err := yaml.Marshal(&fm)
		if err == nil {
			b.WriteString("---\n")
			b.Write(out)
			b.WriteString("---\n")
		}
	}
	if doc.Title != "" && !strings.ContainsAny(doc.Title, "\n\r") {
		fmt.Fprintf(&b, "# %s\n", doc.Title)
	}
	subs := subtasksByStory(doc)
	epic := "" // the epic whose section we are in
	for _, it := range doc.Items {
		b.WriteByte('\n')
		var marker []string
		switch {
		case it.Kind == KindEpic:
			fmt.Fprintf(&b, "## Epic %s: %s\n", it.ID, it.Title)
			epic = it.ID
		case it.Epic != "" && it.Epic == epic:
			fmt.Fprintf(&b, "### Story %s: %s\n", it.ID, it.Title)
		default:
			fmt.Fprintf(&b, "## Story %s: %s\n", it.ID, it.Title)
			epic = ""
			if it.Epic != "" {
				marker = append(marker, "Epic: "+it.Epic)
			}
		}
		writeMarkdownBody(&b, it, marker)
		for _, st := range subs[it.ID] {
			fmt.Fprintf(&b, "\n#### Sub-task %s: %s\n", st.ID, st.Title)
			writeMarkdownBody(&b, st, nil)
		}
	}
	return b.Bytes()
}

// writeMarkdownBody writes an item's field block (after the marker
// lines), description and criteria.
func writeMarkdownBody(b *bytes.Buffer, it Item, marker []string) {
	if it.Key != "" {
		marker = append(marker, "Key: "+it.Key)
	}
	if it.TakeDocument {
		marker = append(marker, "Drift: "+takeText(it))
	}
	for _, f := range fieldsInOrder(it) {
		marker = append(marker, f[1]+": "+f[2])
	}
	for _, m := range marker {
		b.WriteString(m + "\n")
	}
	if it.Description != "" {
		b.WriteByte('\n')
		b.WriteString(EscapeDescription(it.Description))
		b.WriteByte('\n')
	}
	if len(it.AcceptanceCriteria) > 0 {
		b.WriteString("\nAcceptance criteria:\n")
		for i, c := range it.AcceptanceCriteria {
			b.WriteString("- " + boxPrefix(it, i) + strings.ReplaceAll(c, "\n", "\n  ") + "\n")
		}
	}
}

// takeText is the value of an item's drift marker.
func takeText(it Item) string {
	if len(it.TakeFields) == 0 {
		return DriftTakeDocument
	}
	return DriftTakeDocument + " " + strings.Join(it.TakeFields, ", ")
}

// boxPrefix is criterion i's task-list box as written before its text
// ("[ ] ", "[x] " or "").
func boxPrefix(it Item, i int) string {
	if i < len(it.CriteriaBoxes) && it.CriteriaBoxes[i] != "" {
		return it.CriteriaBoxes[i] + " "
	}
	return ""
}

// subtasksByStory groups the document's sub-tasks by story id, in order.
func subtasksByStory(doc *Document) map[string][]Item {
	out := map[string][]Item{}
	for _, st := range doc.Subtasks {
		out[st.Story] = append(out[st.Story], st)
	}
	return out
}

// addField appends a managed field's row (key, name, text) to out; the
// text is "none" when the field is cleared.
func addField[T any](out *[][3]string, key, name string, f Field[T], text func(T) string) {
	switch f.State {
	case FieldCleared:
		*out = append(*out, [3]string{key, name, "none"})
	case FieldSet:
		*out = append(*out, [3]string{key, name, text(f.Value)})
	}
}

func joinList(l []string) string { return strings.Join(l, ", ") }
func same(s string) string       { return s }
func number(f float64) string    { return strconv.FormatFloat(f, 'f', -1, 64) }

// fieldsInOrder lists an item's managed fields and dependencies as (YAML
// key, Markdown name, text) in a fixed order; custom fields are under
// "fields".
func fieldsInOrder(it Item) [][3]string {
	var out [][3]string
	add := func(key, name, text string, ok bool) {
		if ok {
			out = append(out, [3]string{key, name, text})
		}
	}
	f := it.Fields
	addField(&out, "labels", "Labels", f.Labels, joinList)
	addField(&out, "priority", "Priority", f.Priority, same)
	addField(&out, "assignee", "Assignee", f.Assignee, same)
	addField(&out, "estimate", "Estimate", f.Estimate, number)
	addField(&out, "components", "Components", f.Components, joinList)
	addField(&out, "fix_versions", "Fix versions", f.FixVersions, joinList)
	addField(&out, "due", "Due", f.Due, same)
	addField(&out, "sprint", "Sprint", f.Sprint, same)
	for _, name := range slices.Sorted(maps.Keys(f.Custom)) {
		addField(&out, "fields", name, f.Custom[name], same)
	}
	targets := func(l []Link) string {
		var s []string
		for _, x := range l {
			s = append(s, x.Target)
		}
		return strings.Join(s, ", ")
	}
	add("depends_on", "Depends on", targets(it.DependsOn), len(it.DependsOn) > 0)
	add("blocks", "Blocks", targets(it.Blocks), len(it.Blocks) > 0)
	return out
}

// yamlFieldKeys adds an item's field keys to its mapping m.
func yamlFieldKeys(m *yaml.Node, it Item) {
	var custom *yaml.Node
	for _, f := range fieldsInOrder(it) {
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f[2]}
		if f[0] != "fields" {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f[0]}, v)
			continue
		}
		if custom == nil {
			custom = &yaml.Node{Kind: yaml.MappingNode}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "fields"}, custom)
		}
		custom.Content = append(custom.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f[1]}, v)
	}
}

// RenderYAML writes doc in the YAML form: every epic under `epics:` with
// the stories that belong to it nested under it, the stories without an
// epic under `stories:`, sub-tasks under their story's `subtasks:`.
// Parsing the result gives doc back (apart from Line and KeyLine) when
// doc's items are in that order: each epic followed by its stories,
// epic-less stories last; texts are written as they are (multi-line ones
// as literal blocks).
func RenderYAML(doc *Document) []byte {
	b, _ := renderYAML(doc, "")
	return b
}

func renderYAML(doc *Document, comment string) ([]byte, error) {
	str := func(v string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.Contains(v, "\n") {
			n.Style = yaml.LiteralStyle
		}
		return n
	}
	key := func(m *yaml.Node, k string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	subs := subtasksByStory(doc)
	var item func(it Item) *yaml.Node
	item = func(it Item) *yaml.Node {
		m := &yaml.Node{Kind: yaml.MappingNode}
		key(m, "id", str(it.ID))
		key(m, "title", str(it.Title))
		if it.Key != "" {
			key(m, "key", str(it.Key))
		}
		if it.Description != "" {
			key(m, "description", str(it.Description))
		}
		if len(it.AcceptanceCriteria) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode}
			for i, c := range it.AcceptanceCriteria {
				l.Content = append(l.Content, str(boxPrefix(it, i)+c))
			}
			key(m, "acceptance_criteria", l)
		}
		if it.TakeDocument {
			key(m, "drift", str(takeText(it)))
		}
		yamlFieldKeys(m, it)
		if it.Kind == KindStory && len(subs[it.ID]) > 0 {
			l := &yaml.Node{Kind: yaml.SequenceNode}
			for _, st := range subs[it.ID] {
				l.Content = append(l.Content, item(st))
			}
			key(m, "subtasks", l)
		}
		return m
	}
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: comment}
	if doc.ID != "" {
		key(root, "id", str(doc.ID))
	}
	if doc.Title != "" {
		key(root, "title", str(doc.Title))
	}
	if doc.Removed != "" {
		key(root, "removed", str(doc.Removed))
	}
	epics := &yaml.Node{Kind: yaml.SequenceNode}
	stories := &yaml.Node{Kind: yaml.SequenceNode}
	nested := map[string]*yaml.Node{}
	for _, it := range doc.Items {
		if it.Kind == KindEpic {
			m := item(it)
			epics.Content = append(epics.Content, m)
			nested[it.ID] = m
		}
	}
	for _, it := range doc.Items {
		if it.Kind != KindStory {
			continue
		}
		if e, ok := nested[it.Epic]; ok {
			var l *yaml.Node
			if n := len(e.Content); n >= 2 && e.Content[n-2].Value == "stories" {
				l = e.Content[n-1]
			} else {
				l = &yaml.Node{Kind: yaml.SequenceNode}
				key(e, "stories", l)
			}
			l.Content = append(l.Content, item(it))
			continue
		}
		m := item(it)
		if it.Epic != "" {
			key(m, "epic", str(it.Epic))
		}
		stories.Content = append(stories.Content, m)
	}
	if len(epics.Content) > 0 {
		key(root, "epics", epics)
	}
	if len(stories.Content) > 0 {
		key(root, "stories", stories)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("the document could not be written as YAML: %v", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("the document could not be written as YAML: %v", err)
	}
	return b.Bytes(), nil
}
