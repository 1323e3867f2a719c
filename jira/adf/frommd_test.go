package adf

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// shape renders a document compactly for assertions: node types with their
// interesting attributes, text quoted with its marks.
func shape(ns []Node) string {
	var parts []string
	for _, n := range ns {
		var sb strings.Builder
		if n.Type == "text" {
			fmt.Fprintf(&sb, "%q", n.Text)
			for _, m := range n.Marks {
				sb.WriteString("+" + m.Type)
				if h := m.attrString("href"); h != "" || m.Type == "link" {
					sb.WriteString("=" + h)
				}
			}
			parts = append(parts, sb.String())
			continue
		}
		sb.WriteString(n.Type)
		var keys []string
		for k := range n.Attrs {
			if k != "localId" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&sb, "[%s=%v]", k, n.Attrs[k])
		}
		if len(n.Content) > 0 {
			sb.WriteString("(" + shape(n.Content) + ")")
		}
		parts = append(parts, sb.String())
	}
	return strings.Join(parts, " ")
}

func TestFromMarkdownConstructs(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"heading levels", "# One\n\n###### Six\n", `heading[level=1]("One") heading[level=6]("Six")`},
		{"setext heading", "Title\n-----\n", `heading[level=2]("Title")`},
		{"paragraph soft break", "one\ntwo\n", `paragraph("one\ntwo")`},
		{"emphasis", "*a* _b_ **c** __d__ ~~e~~ ~f~", `paragraph("a"+em " " "b"+em " " "c"+strong " " "d"+strong " " "e"+strike " " "f"+strike)`},
		{"nested marks", "***both*** **bold *and em***", `paragraph("both"+strong+em " " "bold "+strong "and em"+strong+em)`},
		{"inline code", "use `go test` now", `paragraph("use " "go test"+code " now")`},
		{"code drops other marks", "**`x`** [`y`](u)", `paragraph("x"+code " " "y"+link=u+code)`},
		{"link with title", `[text](<https://example.com/a b> "T")`, `paragraph("text"+link=https://example.com/a%20b)`},
		{"link", "[text](https://example.com/ö)", `paragraph("text"+link=https://example.com/%C3%B6)`},
		{"empty link keeps address", "[](https://example.com)", `paragraph("https://example.com"+link=https://example.com)`},
		{"autolink", "<https://example.com> <me@example.com>", `paragraph("https://example.com"+link=https://example.com " " "me@example.com"+link=mailto:me@example.com)`},
		{"GFM autolink", "see www.example.com", `paragraph("see " "www.example.com"+link=http://www.example.com)`},
		{"bullet list", "- a\n- b\n", `bulletList(listItem(paragraph("a")) listItem(paragraph("b")))`},
		{"ordered list start", "7. a\n8. b\n", `orderedList[order=7](listItem(paragraph("a")) listItem(paragraph("b")))`},
		{"nested list", "- a\n  1. b\n", `bulletList(listItem(paragraph("a") orderedList[order=1](listItem(paragraph("b")))))`},
		{"task list", "- [ ] a\n- [x] b\n  - [X] c\n", `taskList(taskItem[state=TODO]("a") taskItem[state=DONE]("b") taskList(taskItem[state=DONE]("c")))`},
		{"mixed task list stays a bullet list", "- [ ] a\n- b\n", `bulletList(listItem(paragraph("[ ] a")) listItem(paragraph("b")))`},
		{"ordered task list stays ordered", "1. [x] a\n", `orderedList[order=1](listItem(paragraph("[x] a")))`},
		{"list item starting with a list", "- - a\n", `bulletList(listItem(paragraph bulletList(listItem(paragraph("a")))))`},
		{"list item starting with a heading", "- # H\n", `bulletList(listItem(paragraph("H")))`},
		{"code block with language", "```go\nfunc f() {}\n```\n", `codeBlock[language=go]("func f() {}")`},
		{"indented code block", "    x := 1\n", `codeBlock("x := 1")`},
		{"empty code block", "```\n```\n", `codeBlock`},
		{"block quote", "> a\n>\n> - b\n", `blockquote(paragraph("a") bulletList(listItem(paragraph("b"))))`},
		{"heading in quote degrades", "> # H\n> text\n", `blockquote(paragraph("H") paragraph("text"))`},
		{"nested quote flattens", "> a\n> > b\n", `blockquote(paragraph("a") paragraph("b"))`},
		{"rule in quote degrades", "> a\n>\n> ---\n", `blockquote(paragraph("a") paragraph("---"))`},
		{"task list in quote degrades", "> - [ ] t\n", `blockquote(bulletList(listItem(paragraph("[ ] t"))))`},
		{"rule", "a\n\n---\n\nb\n", `paragraph("a") rule paragraph("b")`},
		{"table", "| h1 | h2 |\n|----|---:|\n| *a* | b |\n", `table(tableRow(tableHeader(paragraph("h1")) tableHeader(paragraph("h2"))) tableRow(tableCell(paragraph("a"+em)) tableCell(paragraph("b"))))`},
		{"table empty cell", "| h |\n|---|\n| |\n", `table(tableRow(tableHeader(paragraph("h"))) tableRow(tableCell(paragraph)))`},
		{"table in list degrades", "- | h | i |\n  |---|---|\n  | a | b |\n", `bulletList(listItem(paragraph("h | i") paragraph("a | b")))`},
		{"hard breaks", "a\\\nb  \nc", `paragraph("a" hardBreak "b" hardBreak "c")`},
		{"image degrades to link", `![a diagram](https://example.com/d.png "T")`, `paragraph("a diagram"+link=https://example.com/d.png)`},
		{"image without alt", `![](d.png)`, `paragraph("d.png"+link=d.png)`},
		{"image in link keeps link", `[![alt](i.png)](https://x.y)`, `paragraph("alt"+link=https://x.y)`},
		{"raw inline HTML", "a <b>bold</b>", `paragraph("a <b>bold</b>")`},
		{"HTML block", "<div>\n*x*\n</div>\n", `paragraph("<div>\n*x*\n</div>")`},
		{"HTML comment", "<!-- note -->\n", `paragraph("<!-- note -->")`},
		{"entities and escapes", "&copy; &#35; \\*", `paragraph("© # *")`},
		{"link reference", "[a][r]\n\n[r]: https://x.y\n", `paragraph("a"+link=https://x.y)`},
		{"CRLF", "a\r\nb\r\n", `paragraph("a\nb")`},
		{"NUL", "a\x00b", "paragraph(\"a\uFFFDb\")"},
		{"invalid UTF-8", "a\xffb", "paragraph(\"a\uFFFDb\")"},
		{"empty list item dropped", "- a\n-\n- b\n", `bulletList(listItem(paragraph("a")) listItem(paragraph("b")))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := checkMarkdown(t, tt.name, tt.md)
			checkNoTextLoss(t, tt.name, tt.md, d)
			if got := shape(d.Content); got != tt.want {
				t.Errorf("FromMarkdown(%q)\n got  %s\n want %s", tt.md, got, tt.want)
			}
		})
	}
}
