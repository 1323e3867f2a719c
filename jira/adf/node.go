package adf

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Doc is an ADF document: {"version":1,"type":"doc","content":[...]}.
// The zero value is an empty document.
type Doc struct {
	Content []Node
}

// Node is one ADF node. Attrs, Marks and Content are omitted from JSON when
// empty; Text is only meaningful (and only emitted) for "text" nodes.
type Node struct {
	Type    string
	Text    string
	Attrs   map[string]any
	Marks   []Mark
	Content []Node
}

// Mark is a formatting mark on a text node (em, strong, strike, code, link,
// underline, textColor, subsup, ...).
type Mark struct {
	Type  string
	Attrs map[string]any
}

// The JSON shapes. Node and Mark convert to and from them whole, so one
// encoder or decoder handles a document in one pass: wire types have no
// JSON methods of their own (a method per node would encode and scan each
// subtree again at every level above it).
type docJSON struct {
	Version int        `json:"version"`
	Type    string     `json:"type"`
	Content []nodeJSON `json:"content"`
}

type nodeJSON struct {
	Type    string         `json:"type"`
	Text    *string        `json:"text,omitempty"`
	Attrs   map[string]any `json:"attrs,omitempty"`
	Marks   []markJSON     `json:"marks,omitempty"`
	Content []nodeJSON     `json:"content,omitempty"`
}

type markJSON struct {
	Type  string         `json:"type"`
	Attrs map[string]any `json:"attrs,omitempty"`
}

// wire is n in its JSON shape: text only on text nodes.
func (n Node) wire() nodeJSON {
	j := nodeJSON{Type: n.Type, Attrs: n.Attrs, Content: wireNodes(n.Content)}
	if n.Type == "text" {
		t := n.Text
		j.Text = &t
	}
	if len(n.Marks) > 0 {
		j.Marks = make([]markJSON, len(n.Marks))
		for i, m := range n.Marks {
			j.Marks[i] = markJSON(m)
		}
	}
	return j
}

func wireNodes(ns []Node) []nodeJSON {
	if len(ns) == 0 {
		return nil
	}
	out := make([]nodeJSON, len(ns))
	for i, n := range ns {
		out[i] = n.wire()
	}
	return out
}

// node is the Node j holds (nil and empty lists kept apart, as decoded).
func (j nodeJSON) node() Node {
	n := Node{Type: j.Type, Attrs: j.Attrs, Content: nodes(j.Content)}
	if j.Text != nil {
		n.Text = *j.Text
	}
	if j.Marks != nil {
		n.Marks = make([]Mark, len(j.Marks))
		for i, m := range j.Marks {
			n.Marks[i] = Mark(m)
		}
	}
	return n
}

func nodes(js []nodeJSON) []Node {
	if js == nil {
		return nil
	}
	out := make([]Node, len(js))
	for i, j := range js {
		out[i] = j.node()
	}
	return out
}

// MarshalJSON renders the document exactly as Jira expects it. Content is
// always an array, never null.
func (d Doc) MarshalJSON() ([]byte, error) {
	c := wireNodes(d.Content)
	if c == nil {
		c = []nodeJSON{}
	}
	return json.Marshal(docJSON{Version: 1, Type: "doc", Content: c})
}

// MarshalJSON renders the node with empty attrs, marks and content omitted.
func (n Node) MarshalJSON() ([]byte, error) {
	return json.Marshal(n.wire())
}

// MarshalJSON renders the mark with empty attrs omitted.
func (m Mark) MarshalJSON() ([]byte, error) {
	return json.Marshal(markJSON(m))
}

// UnmarshalJSON reads a node as Jira returns it. Unknown keys are ignored.
func (n *Node) UnmarshalJSON(b []byte) error {
	var j nodeJSON
	if err := unmarshalNumbers(b, &j); err != nil {
		return err
	}
	*n = j.node()
	return nil
}

// UnmarshalJSON reads a mark.
func (m *Mark) UnmarshalJSON(b []byte) error {
	var j markJSON
	if err := unmarshalNumbers(b, &j); err != nil {
		return err
	}
	*m = Mark(j)
	return nil
}

func unmarshalNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// Parse reads an ADF document as Jira returns it (an issue's description or
// a comment body). JSON null or an empty input is an empty document. It
// checks the envelope only; nodes it does not know are kept and rendered as
// text by ToMarkdown.
func Parse(data []byte) (Doc, error) {
	var d Doc
	err := d.UnmarshalJSON(data)
	return d, err
}

// UnmarshalJSON reads a document as Parse does, so json.Unmarshal into a Doc
// checks the envelope too.
func (d *Doc) UnmarshalJSON(data []byte) error {
	*d = Doc{}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil
	}
	var raw struct {
		Type    string          `json:"type"`
		Version json.RawMessage `json:"version"`
		Content []nodeJSON      `json:"content"`
	}
	if err := unmarshalNumbers(trimmed, &raw); err != nil {
		return core.Wrap(err, core.CodeInternal,
			"a rich-text field from Jira is not valid Atlassian Document Format JSON (%s); check the issue's description or comment in Jira", shortJSONError(err))
	}
	if raw.Type != "doc" {
		return core.Errorf(core.CodeInternal,
			"a rich-text field from Jira has type %q, expected \"doc\": it is not an Atlassian Document Format document", shortString(raw.Type))
	}
	d.Content = nodes(raw.Content)
	return nil
}

func shortString(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func shortJSONError(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// attrString returns a string attribute, or "" when absent or not a string.
func (n Node) attrString(key string) string {
	if s, ok := n.Attrs[key].(string); ok {
		return s
	}
	return ""
}

// attrInt returns an integer attribute (JSON numbers of any Go type).
func attrInt(attrs map[string]any, key string) (int, bool) {
	switch v := attrs[key].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i), true
		}
		if f, err := v.Float64(); err == nil {
			return int(f), true
		}
	}
	return 0, false
}

func (m Mark) attrString(key string) string {
	if s, ok := m.Attrs[key].(string); ok {
		return s
	}
	return ""
}

// String renders the document as compact JSON (for logs and tests).
func (d Doc) String() string {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Sprintf("adf.Doc(<%v>)", err)
	}
	return string(b)
}

// markRank orders marks canonically so equal mark sets render and compare
// identically.
var markRank = map[string]int{"link": 0, "strong": 1, "em": 2, "strike": 3, "underline": 4, "subsup": 5, "textColor": 6, "backgroundColor": 7, "code": 8}

func sortMarks(ms []Mark) {
	if len(ms) < 2 {
		return
	}
	slices.SortStableFunc(ms, func(a, b Mark) int {
		ra, ok := markRank[a.Type]
		if !ok {
			ra = 100
		}
		rb, ok := markRank[b.Type]
		if !ok {
			rb = 100
		}
		if ra != rb {
			return cmp.Compare(ra, rb)
		}
		return strings.Compare(a.Type, b.Type)
	})
}
