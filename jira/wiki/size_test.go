package wiki

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// sentSize is the size MarkdownSize stands for: FromMarkdown's wiki
// markup as a JSON string, in characters.
func sentSize(t interface{ Fatal(...any) }, md string) int {
	w, err := FromMarkdown(md)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return utf8.RuneCount(b)
}

// checkSizeAt fails unless MarkdownSize(md, limit) is the size when it is
// within limit, and above limit otherwise.
func checkSizeAt(t interface{ Fatalf(string, ...any) }, md string, limit, want int) {
	if got := MarkdownSize(md, limit); want <= limit && got != want || want > limit && got <= limit {
		t.Fatalf("MarkdownSize(%q, %d) = %d; the size is %d", md, limit, got, want)
	}
}

// MarkdownSize counts what FromMarkdown's wiki markup counts, as a JSON
// string, on the Markdown corpus, at limits around the size.
func TestMarkdownSizeOfTheCorpus(t *testing.T) {
	var all []string
	for _, e := range mdcorpustest.Load(t) {
		all = append(all, e.Markdown)
	}
	for _, md := range append(all, strings.Join(all, "\n\n")) {
		want := sentSize(t, md)
		for _, limit := range []int{-1, 0, want / 3, want - 1, want, want + 1} {
			checkSizeAt(t, md, limit, want)
		}
	}
}

// MarkdownSize, which stops converting a paragraph or a table once the
// characters its texts keep are past the limit, says "over" exactly when
// the wiki markup is longer than the limit, and the size otherwise.
func TestMarkdownSizeAtAnyLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		md := genMarkdown(t)
		if rapid.Bool().Draw(t, "long") {
			var b strings.Builder
			for range rapid.IntRange(1, 200).Draw(t, "pieces") {
				b.WriteString(rapid.SampledFrom(sizePieces).Draw(t, "piece"))
			}
			md += b.String()
		}
		want := sentSize(t, md)
		checkSizeAt(t, md, rapid.IntRange(0, want+10).Draw(t, "limit"), want)
	})
}

// sizePieces make paragraphs, tables and lists of texts whose characters
// wiki markup escapes, drops (white space at the edges) or keeps.
var sizePieces = []string{"a", "中文", "é", " ", "  ", "\t", "\n", "  \n", "\\\n", "\n\n", "*", "**", "_", "~~", "`", "{", "}", "|", "||", "[", "]", "[a](u)",
	"<u>", "</u>", "&#10;", "&#32;", "&amp;", "<", ">", "- ", "1. ", "> ", "# ", "|-|", "```", "    ", "[ ] ", "h1. ", "----", "\\", "!"}

// A long description is measured without converting all of it: a
// paragraph of 30,000 emphasised characters is over a limit of 1,000
// after converting a little more than 1,000 of them.
func TestMarkdownSizeStopsPastTheLimit(t *testing.T) {
	md := strings.Repeat("*a*", 30000)
	allocs := testing.AllocsPerRun(1, func() { MarkdownSize(md, 1000) })
	full := testing.AllocsPerRun(1, func() { MarkdownSize(md, -1) })
	if got := MarkdownSize(md, 1000); got <= 1000 {
		t.Fatalf("MarkdownSize = %d, want over 1000", got)
	}
	if allocs*2 > full {
		t.Errorf("measuring up to 1,000 took %.0f allocations, the whole text %.0f: it did not stop", allocs, full)
	}
}

// A paragraph of many lines is rendered in memory linear in its length:
// its runs, one a line, were joined one by one, so that twice the lines
// took four times the memory (150 descriptions of 16,000 lines took 34 s
// of CPU to preview on Data Center).
func TestLongParagraphIsRenderedInLinearMemory(t *testing.T) {
	alloc := func(lines int) uint64 {
		md := strings.Repeat("a\n", lines)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w, err := FromMarkdown(md)
		runtime.ReadMemStats(&after)
		if err != nil || len(w) < len(md)-2 {
			t.Fatalf("FromMarkdown = %d characters, %v", len(w), err)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	if n, twice := alloc(8000), alloc(16000); twice > 3*n {
		t.Errorf("rendering 8,000 lines allocated %d bytes, 16,000 lines %d", n, twice)
	}
}
