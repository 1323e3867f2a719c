package adf

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Markdown forms of what Jira's editor makes and CommonMark has no
// syntax for (docs/markdown-adf.md). Each is ordinary CommonMark, so any
// Markdown tool shows it readably and our own document parser reads it as
// text:
//
//   - inline atoms are links with a scheme of their own, the link text being
//     what Jira shows: [@Ana Lima](mention:ID), [BLOCKED](status:red),
//     [2026-01-01](date:1767225600000), [⚠️](emoji::warning:?id=26a0),
//     [https://…](card:) (a smart link; card:block and card:embed alone in
//     a paragraph are its block forms);
//   - media are images with the media: scheme: ![alt](media:ID?collection=…);
//   - underline, colour, highlight, subscript and superscript are the HTML
//     tags GitHub shows: <u>, <span style="color: #rrggbb">,
//     <span style="background-color: #rrggbb">, <sub>, <sup>;
//   - a panel is a GitHub alert, "> [!INFO]" (the panel type in capitals),
//     and a decision list "> [!DECISION]" holding a bullet list;
//   - an expand is <details><summary>Title</summary> … </details>.
//
// Other attributes ride in the link's query (?style=…&localId=…), so the
// forms carry every attribute of the node.

// atomSchemes are the link schemes of the inline atoms, by node type.
var atomSchemes = map[string]string{"mention": "mention", "status": "status", "date": "date", "emoji": "emoji", "inlineCard": "card"}

// schemeAtoms is atomSchemes the other way round.
var schemeAtoms = map[string]string{"mention": "mention", "status": "status", "date": "date", "emoji": "emoji", "card": "inlineCard"}

// atomPrimary is the attribute each atom's link carries after its scheme.
var atomPrimary = map[string]string{"mention": "id", "status": "color", "date": "timestamp", "emoji": "shortName"}

// numericAttrs are the attributes that are JSON numbers in ADF.
var numericAttrs = map[string]bool{"width": true, "height": true, "originalWidth": true, "originalHeight": true}

// encodeAttrs writes attrs (all but skip) as a URL query, keys sorted.
func encodeAttrs(attrs map[string]any, skip ...string) string {
	v := url.Values{}
	for k, a := range attrs {
		if contains(skip, k) {
			continue
		}
		switch a := a.(type) {
		case string:
			v.Set(k, a)
		case json.Number:
			v.Set(k, a.String())
		default:
			b, _ := json.Marshal(a)
			v.Set(k, string(b))
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// decodeAttrs reads a query written by encodeAttrs into attrs.
func decodeAttrs(q string, attrs map[string]any) {
	v, err := url.ParseQuery(q)
	if err != nil {
		return
	}
	for k, vs := range v {
		if len(vs) == 0 {
			continue
		}
		if numericAttrs[k] {
			if n := json.Number(vs[0]); n.String() != "" {
				if _, err := n.Float64(); err == nil {
					attrs[k] = n
					continue
				}
			}
		}
		attrs[k] = vs[0]
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// dateText is how a date atom reads: its day in UTC.
func dateText(ts string) string {
	var ms int64
	if err := json.Unmarshal([]byte(ts), &ms); err == nil {
		return time.UnixMilli(ms).UTC().Format("2006-01-02")
	}
	return ts
}

// atomLink is an inline atom as the text and link mark its Markdown form
// reads back to; ok is false for atoms with no such form.
func atomLink(n Node) (Node, bool) {
	scheme, ok := atomSchemes[n.Type]
	if !ok {
		return Node{}, false
	}
	var text, href string
	switch n.Type {
	case "inlineCard":
		text = n.attrString("url")
		if text == "" {
			return Node{}, false
		}
		href = "card:" + encodeAttrs(n.Attrs, "url")
	default:
		prim := atomPrimary[n.Type]
		p := n.attrString(prim)
		if p == "" {
			return Node{}, false
		}
		skip := []string{prim}
		switch n.Type {
		case "date":
			text = dateText(p)
		case "emoji":
			text = n.attrString("text")
			skip = append(skip, "text")
			if text == "" {
				text = p
			}
		default:
			text = n.attrString("text")
			skip = append(skip, "text")
			if text == "" {
				return Node{}, false
			}
		}
		href = scheme + ":" + url.PathEscape(p) + encodeAttrs(n.Attrs, skip...)
	}
	return Node{Type: "text", Text: text, Marks: []Mark{linkMark(href, "")}}, true
}

// linkAtom reads back a link atomLink made: the atom whose link is href
// and whose text is text.
func linkAtom(href, text string) (Node, bool) {
	scheme, rest, ok := strings.Cut(href, ":")
	typ := schemeAtoms[scheme]
	if !ok || typ == "" {
		return Node{}, false
	}
	opaque, q, _ := strings.Cut(rest, "?")
	p, err := url.PathUnescape(opaque)
	if err != nil {
		return Node{}, false
	}
	attrs := map[string]any{}
	decodeAttrs(q, attrs)
	switch typ {
	case "inlineCard":
		if p != "" || text == "" {
			return Node{}, false // card:block and card:embed are blocks
		}
		attrs["url"] = text
	case "date":
		if p == "" {
			return Node{}, false
		}
		attrs["timestamp"] = p
		// A person who changes the day shown changes the date.
		if dateText(p) != text {
			if d, err := time.Parse("2006-01-02", strings.TrimSpace(text)); err == nil {
				attrs["timestamp"] = strconv.FormatInt(d.UnixMilli(), 10)
			}
		}
	case "emoji":
		if p == "" {
			return Node{}, false
		}
		attrs["shortName"] = p
		if text != p {
			attrs["text"] = text
		}
	default:
		if p == "" || text == "" {
			return Node{}, false
		}
		attrs[atomPrimary[typ]] = p
		attrs["text"] = text
	}
	return Node{Type: typ, Attrs: attrs}, true
}

// liftAtoms turns the runs of text linked to an atom scheme into the atoms
// (FromMarkdown's last inline step; ToMarkdown's check applies it to what
// it expects).
func liftAtoms(ns []Node) []Node {
	if len(ns) == 0 {
		return nil
	}
	if !slices.ContainsFunc(ns, linksAtom) {
		return ns // nothing to lift: no copy
	}
	out := make([]Node, 0, len(ns))
	for i := 0; i < len(ns); i++ {
		n := ns[i]
		href := ""
		if n.Type == "text" {
			for _, m := range n.Marks {
				if m.Type == "link" {
					href = m.attrString("href")
				}
			}
		}
		scheme, _, _ := strings.Cut(href, ":")
		if schemeAtoms[scheme] == "" {
			out = append(out, n)
			continue
		}
		text := n.Text
		j := i + 1
		for ; j < len(ns) && ns[j].Type == "text" && linkHref(ns[j].Marks) == href; j++ {
			text += ns[j].Text
		}
		if a, ok := linkAtom(href, text); ok {
			out = append(out, a)
			i = j - 1
			continue
		}
		out = append(out, n)
	}
	return out
}

// linksAtom reports whether n is text linked to an atom scheme.
func linksAtom(n Node) bool {
	if n.Type != "text" {
		return false
	}
	scheme, _, _ := strings.Cut(linkHref(n.Marks), ":")
	return schemeAtoms[scheme] != ""
}

func linkHref(ms []Mark) string {
	for _, m := range ms {
		if m.Type == "link" {
			return m.attrString("href")
		}
	}
	return ""
}

// blockCardLink is a blockCard or embedCard as the one link of a
// paragraph: [url](card:block) / [url](card:embed?layout=…).
func blockCardLink(n Node) (Node, bool) {
	u := n.attrString("url")
	if u == "" {
		return Node{}, false
	}
	kind := "block"
	if n.Type == "embedCard" {
		kind = "embed"
	}
	return Node{Type: "text", Text: u, Marks: []Mark{linkMark("card:"+kind+encodeAttrs(n.Attrs, "url"), "")}}, true
}

// paragraphCard reads back a paragraph blockCardLink made.
func paragraphCard(in []Node) (Node, bool) {
	if len(in) != 1 || in[0].Type != "text" || len(in[0].Marks) != 1 {
		return Node{}, false
	}
	href := linkHref(in[0].Marks)
	rest, ok := strings.CutPrefix(href, "card:")
	if !ok {
		return Node{}, false
	}
	kind, q, _ := strings.Cut(rest, "?")
	typ := map[string]string{"block": "blockCard", "embed": "embedCard"}[kind]
	if typ == "" {
		return Node{}, false
	}
	attrs := map[string]any{}
	decodeAttrs(q, attrs)
	attrs["url"] = in[0].Text
	return Node{Type: typ, Attrs: attrs}, true
}

// HTML marks.

var (
	spanColor = regexp.MustCompile(`^<span style="(color|background-color): *(#[0-9a-fA-F]{6});?">$`)
	hexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	htmlTags  = map[string]Mark{"<u>": {Type: "underline"}, "<sub>": {Type: "subsup", Attrs: map[string]any{"type": "sub"}}, "<sup>": {Type: "subsup", Attrs: map[string]any{"type": "sup"}}}
)

// htmlMark reads an inline HTML tag that stands for a mark: the mark, the
// closing tag it waits for, and whether it is an opening tag.
func htmlMark(tag string) (m Mark, closer string, open bool, ok bool) {
	if m, ok := htmlTags[tag]; ok {
		return m, "</" + tag[1:], true, true
	}
	if s := spanColor.FindStringSubmatch(tag); s != nil {
		typ := "textColor"
		if s[1] == "background-color" {
			typ = "backgroundColor"
		}
		return Mark{Type: typ, Attrs: map[string]any{"color": s[2]}}, "</span>", true, true
	}
	switch tag {
	case "</u>", "</sub>", "</sup>", "</span>":
		return Mark{}, tag, false, true
	}
	return Mark{}, "", false, false
}

// markTags are the HTML tags of a mark htmlMark reads ("" when it has
// none).
func markTags(m Mark) (string, string) {
	switch m.Type {
	case "underline":
		return "<u>", "</u>"
	case "subsup":
		if t := m.attrString("type"); t == "sub" || t == "sup" {
			return "<" + t + ">", "</" + t + ">"
		}
	case "textColor", "backgroundColor":
		c := m.attrString("color")
		if !hexColour.MatchString(c) {
			return "", ""
		}
		prop := "color"
		if m.Type == "backgroundColor" {
			prop = "background-color"
		}
		return `<span style="` + prop + `: ` + c + `">`, "</span>"
	}
	return "", ""
}

// Blocks.

// panelTypes are the panel types, as their alert markers name them.
var panelTypes = []string{"info", "note", "tip", "warning", "error", "success", "custom"}

var alertMarker = regexp.MustCompile(`^\[!([A-Za-z]+)\]$`)

// alertKind reads a block quote's first line as an alert marker: the
// panel type, or "decision"; "" when it is not one.
func alertKind(line string) string {
	s := alertMarker.FindStringSubmatch(strings.TrimSpace(line))
	if s == nil {
		return ""
	}
	k := strings.ToLower(s[1])
	if k == "decision" || contains(panelTypes, k) {
		return k
	}
	return ""
}

var (
	detailsOpen  = regexp.MustCompile(`^<details>\s*<summary>(.*)</summary>$`)
	detailsClose = "</details>"
)

// detailsTitle reads an HTML block opening an expand.
func detailsTitle(block string) (string, bool) {
	s := detailsOpen.FindStringSubmatch(strings.TrimSpace(block))
	if s == nil || strings.Contains(s[1], "\n") {
		return "", false
	}
	return html.UnescapeString(s[1]), true
}

// detailsLine is the opening line of an expand titled t.
func detailsLine(t string) string {
	t = html.EscapeString(t)
	t = strings.NewReplacer("\n", "&#10;", "\r", "&#13;").Replace(t)
	return "<details><summary>" + t + "</summary>"
}

// Media.

// mediaImage is a media node (in a mediaSingle or a mediaGroup) or a
// mediaInline as a Markdown image: ![alt](media:ID?…). extra are the
// attributes of its mediaSingle, written with the prefix "single.", and
// group marks a member of a mediaGroup.
func mediaImage(m Node, extra map[string]any, group bool) string {
	attrs := map[string]any{}
	for k, v := range m.Attrs {
		if k != "id" && k != "alt" {
			attrs[k] = v
		}
	}
	for k, v := range extra {
		attrs["single."+k] = v
	}
	if group {
		attrs["group"] = "1"
	}
	if m.Type == "mediaInline" {
		attrs["inline"] = "1"
	}
	return "![" + escapeAlt(m.attrString("alt")) + "](" + linkDest("media:"+url.PathEscape(m.attrString("id"))+encodeAttrs(attrs)) + ")"
}

// escapeAlt escapes every ASCII punctuation character of an image's alt
// text (CommonMark allows it for all of them) and writes line breaks as
// references.
func escapeAlt(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			sb.WriteString(entity(r))
		case r < 128 && isASCIIPunct(r) || strings.ContainsRune(`!"#%'()*,-./:;?@[\]_{}`, r):
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// imageMedia reads back an image mediaImage wrote: the media node, its
// mediaSingle's attributes, and whether it belongs to a group. (A
// paragraph of media becomes a mediaSingle or mediaGroup, media among
// text or written as inline become mediaInline: mediaParagraph,
// inlineMedia.)
func imageMedia(dest, alt string) (n Node, single map[string]any, group, ok bool) {
	rest, found := strings.CutPrefix(dest, "media:")
	if !found {
		return Node{}, nil, false, false
	}
	opaque, q, _ := strings.Cut(rest, "?")
	id, err := url.PathUnescape(opaque)
	if err != nil {
		return Node{}, nil, false, false
	}
	all := map[string]any{}
	decodeAttrs(q, all)
	attrs := map[string]any{}
	if id != "" {
		attrs["id"] = id
	}
	if alt != "" {
		attrs["alt"] = alt
	}
	for k, v := range all {
		switch {
		case k == "group":
			group = true
		case k == "inline":
			attrs["\x00inline"] = true
		case strings.HasPrefix(k, "single."):
			if single == nil {
				single = map[string]any{}
			}
			k = strings.TrimPrefix(k, "single.")
			if s, isStr := v.(string); isStr && k == "width" {
				v = json.Number(s)
			}
			single[k] = v
		default:
			attrs[k] = v
		}
	}
	return Node{Type: "media", Attrs: attrs}, single, group, true
}

// mediaParagraph turns a paragraph of only media images (and blanks
// between them) into a mediaSingle or a mediaGroup.
func mediaParagraph(in []Node) (Node, bool) {
	var media []Node
	var single map[string]any
	group := false
	for _, n := range in {
		switch {
		case n.Type == "media" && n.Attrs["\x00inline"] == nil:
			media = append(media, n)
			if s, ok := n.Attrs["\x00single"].(map[string]any); ok {
				single = s
			}
			if _, ok := n.Attrs["\x00group"]; ok {
				group = true
			}
		case n.Type == "text" && strings.TrimSpace(n.Text) == "" && len(n.Marks) == 0:
		default:
			return Node{}, false
		}
	}
	if len(media) == 0 {
		return Node{}, false
	}
	for i := range media {
		dropMediaMarks(media[i].Attrs)
	}
	if group || len(media) > 1 {
		return Node{Type: "mediaGroup", Content: media}, true
	}
	if single == nil {
		single = map[string]any{"layout": "center"}
	}
	return Node{Type: "mediaSingle", Attrs: single, Content: media}, true
}

// inlineMedia makes what stands in a paragraph's text a mediaInline, and
// a media image's marks of grouping go.
func inlineMedia(ns []Node) []Node {
	for i := range ns {
		if ns[i].Type == "media" {
			dropMediaMarks(ns[i].Attrs)
			ns[i].Type = "mediaInline"
		}
	}
	return ns
}

// dropMediaMarks removes imageMedia's notes from a media node's attrs.
func dropMediaMarks(attrs map[string]any) {
	delete(attrs, "\x00single")
	delete(attrs, "\x00group")
	delete(attrs, "\x00inline")
}
