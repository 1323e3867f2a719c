package wiki

import (
	"strings"
	"testing"
)

// BenchmarkToMarkdownUnclosed: long text full of openers that never close
// ("{{", "*a ") is read in linear time (each failed search for a closing
// token is remembered).
func BenchmarkToMarkdownUnclosed(b *testing.B) {
	w := strings.Repeat("{{", 3000) + "\n\n" + strings.Repeat("*a ", 3000)
	for b.Loop() {
		_ = ToMarkdown(w)
	}
}

// BenchmarkRoundTrip: a story description, Markdown → wiki → Markdown.
func BenchmarkRoundTrip(b *testing.B) {
	md := strings.Repeat("## Goal\n\nSome *em*, **strong** and `code` with a [link](https://e.com).\n\n- [ ] one\n- [x] two\n  - nested\n\n```go\nx := 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n", 8)
	for b.Loop() {
		w, _ := FromMarkdown(md)
		_ = ToMarkdown(w)
	}
}
