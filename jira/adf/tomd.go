package adf

import (
	"strings"
)

// ToMarkdown renders an ADF document as CommonMark + GFM. Every node type
// Jira may return is rendered; those Markdown cannot express (mentions,
// emoji, panels, expands, media, status lozenges, dates, smart links, ...)
// degrade to readable text. For documents made by FromMarkdown the result
// converts back to the same document.
func ToMarkdown(d Doc) string {
	w := &mdWriter{}
	lines := w.blocks(d.Content)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

type mdWriter struct{}

// blocks renders sibling blocks separated by blank lines.
func (w *mdWriter) blocks(ns []Node) []string { return w.blocksIn(ns, false) }
