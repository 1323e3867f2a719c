package wiki

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// FromMarkdown converts Markdown (CommonMark + GFM, as jira/adf reads it)
// to Jira wiki markup. The error is reserved for future limits; today
// every input converts.
func FromMarkdown(md string) (string, error) {
	d, err := adf.FromMarkdown(md)
	if err != nil {
		return "", err
	}
	return FromADF(d)
}

// MarkdownSize is the length, in characters, of FromMarkdown(md) as a
// JSON string — the description Jira Data Center is sent, as the adapter
// measures it against the limit — converting and rendering one top-level
// block at a time, so that it stops as soon as the count passes limit: a
// result above limit means "longer than limit". A limit below zero counts
// everything. A paragraph or table stops converting once the characters
// its texts surely keep take the count past limit (adf.MarkdownBlocks):
// wiki markup keeps every character of a text that is not white space.
func MarkdownSize(md string, limit int) int {
	w := &writer{}
	n := len(`""`)
	lines := 0
	adf.MarkdownBlocks(md, func(floor int) bool {
		return limit >= 0 && n+floor > limit
	}, marksChange, func(ns []adf.Node) bool {
		for _, b := range ns {
			ls := w.block(b)
			if len(ls) == 0 {
				continue
			}
			if lines > 0 {
				n += len(`\n`) // the blank line between blocks (FromADF)
				lines++
			}
			for _, l := range ls {
				if lines > 0 {
					n += len(`\n`)
				}
				n += adf.TextSize(l) - len(`""`)
				lines++
			}
		}
		return limit < 0 || n <= limit
	})
	return n
}

// marksChange is what wiki markup spends at least where the marks of a
// paragraph's texts change from prev to cur: a run of text with marks
// opens and closes each of them ("_a_"), so a change to marks wiki markup
// shows starts a run of at least two more characters.
func marksChange(prev, cur []adf.Mark) int {
	p, c := shownMarks(prev), shownMarks(cur)
	if len(c) == 0 || slices.Equal(p, c) {
		return 0
	}
	return 2
}

// shownMarks are the marks of ms wiki markup shows (toRuns), in order.
func shownMarks(ms []adf.Mark) []string {
	var out []string
	for _, m := range ms {
		if m.Type != "link" {
			if o := markOpen(m); o != "" {
				out = append(out, o)
			}
		}
	}
	return out
}

// FromADF renders a document (the node and mark types adf.FromMarkdown
// makes) as wiki markup.
func FromADF(d adf.Doc) (string, error) {
	w := &writer{}
	return strings.Join(w.blocks(d.Content), "\n"), nil
}

// ToMarkdown converts wiki markup to Markdown. Formatting Markdown cannot
// show is left out (the text stays); Convert says which.
func ToMarkdown(w string) string {
	md, _ := Convert(w)
	return md
}

// Convert converts wiki markup to Markdown and names the kinds of
// formatting the Markdown does not carry (colour, underline, panel, ...),
// in the order first met.
func Convert(w string) (string, []string) {
	d, lost := Parse(w)
	return adf.ToMarkdown(d), lost
}

// Parse reads wiki markup into an ADF document and names the kinds of
// formatting the document keeps only as marks or text Markdown cannot
// show. Task lists get localIds "dwire-1", "dwire-2", ... in document
// order, as adf.FromMarkdown numbers them.
func Parse(w string) (adf.Doc, []string) {
	w = normalize(w)
	p := &parser{}
	content := p.blocks(w)
	content = tidy(content)
	n := 0
	number(content, &n)
	return adf.Doc{Content: content}, p.lost
}

// normalize makes the input well-formed: valid UTF-8, "\n" line endings,
// no NUL characters.
func normalize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// tidy merges adjacent text nodes with equal marks and drops empty ones.
func tidy(ns []adf.Node) []adf.Node {
	var out []adf.Node
	for _, n := range ns {
		if n.Type == "text" {
			if n.Text == "" {
				continue
			}
			if k := len(out) - 1; k >= 0 && out[k].Type == "text" && sameMarks(out[k].Marks, n.Marks) {
				out[k].Text += n.Text
				continue
			}
		}
		if n.Type == "heading" {
			// Markdown headings are one line.
			for i := range n.Content {
				if n.Content[i].Type == "hardBreak" {
					n.Content[i] = adf.Node{Type: "text", Text: " "}
				}
			}
		}
		n.Content = tidy(n.Content)
		if n.Type != "paragraph" && n.Type != "heading" && n.Type != "taskItem" {
			out = append(out, n)
			continue
		}
		// Line breaks and blanks starting or ending a paragraph, heading or
		// cell show nothing.
		for len(n.Content) > 0 {
			last := &n.Content[len(n.Content)-1]
			if last.Type == "text" && !hasCode(last.Marks) {
				last.Text = strings.TrimRight(last.Text, " \t\n")
			}
			if last.Type != "hardBreak" && (last.Type != "text" || last.Text != "") {
				break
			}
			n.Content = n.Content[:len(n.Content)-1]
		}
		for len(n.Content) > 0 {
			first := &n.Content[0]
			if first.Type == "text" && !hasCode(first.Marks) {
				first.Text = strings.TrimLeft(first.Text, " \t\n")
			}
			if first.Type != "hardBreak" && (first.Type != "text" || first.Text != "") {
				break
			}
			n.Content = n.Content[1:]
		}
		out = append(out, n)
	}
	return out
}

func sameMarks(a, b []adf.Mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || fmt.Sprint(a[i].Attrs) != fmt.Sprint(b[i].Attrs) {
			return false
		}
	}
	return true
}

// number gives task lists and items their localIds in document order.
func number(ns []adf.Node, next *int) {
	for i := range ns {
		if ns[i].Type == "taskList" || ns[i].Type == "taskItem" {
			*next++
			ns[i].Attrs["localId"] = fmt.Sprintf("dwire-%d", *next)
		}
		number(ns[i].Content, next)
	}
}
