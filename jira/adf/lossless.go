package adf

import "strings"

// Unrepresentable names the first part of d that Markdown cannot carry
// ("" when ToMarkdown carries all of it): a node, mark or attribute
// outside the forms of docs/markdown-adf.md, or one in a place those forms
// cannot hold (a panel in a list, a list in a table cell). A write of
// Markdown read from such a document would lose that part, so the caller
// leaves it to Jira. Attributes of presentation only (localIds, a table's
// layout and column widths) are not counted: losing them changes nothing
// a person sees.
func Unrepresentable(d Doc) string {
	return blocksLoss(d.Content, inDoc, 0)
}

// what a context may hold: the top level (and an expand's content), a
// list item, a block quote, a panel, a table cell.
const inCell container = 100

var allowedBlocks = map[container]map[string]bool{
	inDoc: {"paragraph": true, "heading": true, "bulletList": true, "orderedList": true, "taskList": true, "codeBlock": true,
		"blockquote": true, "rule": true, "table": true, "panel": true, "expand": true, "decisionList": true,
		"mediaSingle": true, "mediaGroup": true, "blockCard": true, "embedCard": true},
	inListItem:   {"paragraph": true, "bulletList": true, "orderedList": true, "codeBlock": true},
	inBlockquote: {"paragraph": true, "bulletList": true, "orderedList": true, "codeBlock": true},
	inPanel:      {"paragraph": true, "heading": true, "bulletList": true, "orderedList": true, "codeBlock": true, "rule": true, "taskList": true},
}

// presentation are attributes whose loss is invisible.
var presentation = map[string]bool{"localId": true, "layout": true, "width": true, "colwidth": true, "displayMode": true, "__autoSize": true}

var nodeName = map[string]string{
	"layoutSection": "a layout (columns)", "extension": "a macro", "bodiedExtension": "a macro", "inlineExtension": "a macro",
	"placeholder": "a placeholder", "blockTaskItem": "a task holding blocks", "syncBlock": "a synced block",
	"inlineCard": "a smart link", "blockCard": "a smart link card", "embedCard": "an embed", "mediaSingle": "an image",
	"mediaGroup": "files", "media": "a file", "mediaInline": "an inline file", "expand": "an expand", "nestedExpand": "an expand",
	"emoji": "an emoji", "table": "a table", "panel": "a panel", "decisionList": "a decision list", "heading": "a heading",
}

func describe(t string) string {
	if s, ok := nodeName[t]; ok {
		return s
	}
	return "a " + t
}

// blocksLoss checks sibling blocks in context ctx; depth counts expands.
func blocksLoss(ns []Node, ctx container, depth int) string {
	for _, n := range ns {
		if len(n.Marks) > 0 {
			return "formatting of " + describe(n.Type) + " (" + n.Marks[0].Type + ")"
		}
		ok := allowedBlocks[ctx][n.Type] || n.Type == "nestedExpand" && depth == 1 && ctx == inDoc
		if n.Type == "expand" && depth > 0 {
			ok = false
		}
		if !ok && (allowedBlocks[inDoc][n.Type] || n.Type == "nestedExpand") {
			return describe(n.Type) + " where Markdown cannot hold it"
		}
		if !ok {
			return describe(n.Type)
		}
		if s := blockLoss(n, depth); s != "" {
			return s
		}
	}
	return ""
}

func blockLoss(n Node, depth int) string {
	switch n.Type {
	case "paragraph", "heading":
		return inlineLoss(n.Content, n.Type == "paragraph")
	case "codeBlock":
		return ""
	case "bulletList", "orderedList":
		for _, it := range n.Content {
			if it.Type != "listItem" || len(it.Content) == 0 {
				return describe(it.Type) + " in a list"
			}
			if s := blocksLoss(it.Content, inListItem, depth); s != "" {
				return s
			}
		}
	case "taskList":
		for _, it := range n.Content {
			switch it.Type {
			case "taskItem":
				if s := inlineLoss(it.Content, false); s != "" {
					return s
				}
			case "taskList":
				if s := blockLoss(it, depth); s != "" {
					return s
				}
			default:
				return describe(it.Type) + " in a task list"
			}
		}
	case "decisionList":
		for _, it := range n.Content {
			if it.Type != "decisionItem" || it.attrString("state") != "DECIDED" || len(it.Content) == 0 {
				return "a decision that is not decided, or empty"
			}
			if s := inlineLoss(it.Content, false); s != "" {
				return s
			}
		}
	case "blockquote":
		return blocksLoss(n.Content, inBlockquote, depth)
	case "panel":
		for k := range n.Attrs {
			if k != "panelType" && !presentation[k] {
				return "a panel's custom " + strings.TrimPrefix(k, "panel")
			}
		}
		if !contains(panelTypes, n.attrString("panelType")) {
			return "a panel of type " + n.attrString("panelType")
		}
		return blocksLoss(n.Content, inPanel, depth)
	case "expand", "nestedExpand":
		return blocksLoss(n.Content, inDoc, depth+1)
	case "table":
		if v, _ := n.Attrs["isNumberColumnEnabled"].(bool); v {
			return "a table's numbered column"
		}
		for _, r := range n.Content {
			for _, c := range r.Content {
				for k := range c.Attrs {
					if one, ok := attrInt(c.Attrs, k); presentation[k] || (k == "colspan" || k == "rowspan") && ok && one == 1 {
						continue
					}
					return "a table cell's " + k
				}
				if len(c.Content) != 1 || c.Content[0].Type != "paragraph" || len(c.Content[0].Marks) > 0 {
					return "blocks in a table cell"
				}
				if s := inlineLoss(c.Content[0].Content, false); s != "" {
					return s
				}
			}
		}
	case "mediaSingle", "mediaGroup":
		for _, m := range n.Content {
			if m.Type != "media" || len(m.Marks) > 0 {
				return describe(m.Type) + " in " + describe(n.Type)
			}
		}
	case "blockCard", "inlineCard":
		if n.attrString("url") == "" {
			return "a smart link without an address (a data source)"
		}
	case "embedCard":
		if n.attrString("url") == "" {
			return "an embed without an address"
		}
	}
	return ""
}

// inlineLoss checks inline content (para: of a paragraph, where media
// images alone would read as a media block).
func inlineLoss(ns []Node, para bool) string {
	for _, n := range ns {
		switch n.Type {
		case "text":
			for _, m := range n.Marks {
				if m.Type == "link" || m.Type == "strong" || m.Type == "em" || m.Type == "strike" || m.Type == "code" {
					continue
				}
				if open, _ := markTags(m); open == "" {
					return "text formatting (" + m.Type + ")"
				}
			}
		case "hardBreak":
		case "mediaInline":
			if n.attrString("id") == "" {
				return "an inline file without an id"
			}
		case "mention", "emoji", "date", "status", "inlineCard":
			if len(n.Marks) > 0 {
				return "formatting of " + describe(n.Type)
			}
			for _, v := range n.Attrs {
				if _, ok := v.(string); !ok {
					return describe(n.Type) + " with data Markdown cannot hold"
				}
			}
			if _, ok := atomLink(n); !ok {
				return describe(n.Type) + " without its text"
			}
		default:
			return describe(n.Type)
		}
	}
	return ""
}
