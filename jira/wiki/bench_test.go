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

// hostileShapes are 32,000-character descriptions built to be slow for a
// Markdown parser or the wiki renderer (the shapes of the benchmarks'
// hostile-Markdown row).
func hostileShapes() []struct{ name, md string } {
	const n = 32000
	fill := func(unit string) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }
	var nest strings.Builder
	for i := range 32 {
		nest.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	lazy := func(first string) string { return (first + strings.Repeat("a\n", n))[:n] }
	return []struct{ name, md string }{
		{"nested32", fill(nest.String())},
		{"list32lines", lazy(strings.Repeat("- ", 32) + "a\n")},
		{"lines", lazy("")},
		{"emphasis", fill("*a")},
		{"underscores", fill("_a")},
		{"codespans", fill("`a")},
		{"html", fill("<a")},
		{"table", strings.Repeat("|a", 40) + "|\n" + strings.Repeat("|-", 40) + "|\n" + fill(strings.Repeat("|a", 40)+"|\n")},
		{"openers", fill(strings.Repeat("[a]", 999) + "\n\n")},
		{"closedlinks", fill(strings.Repeat("[a](b) ", 999) + "\n\n")},
	}
}

// BenchmarkMarkdownSizeHostile: the preview's size check of one hostile
// description against Jira's limit.
func BenchmarkMarkdownSizeHostile(b *testing.B) {
	for _, s := range hostileShapes() {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = MarkdownSize(s.md, 2*32767)
			}
		})
	}
}
