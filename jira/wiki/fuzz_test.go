package wiki

import (
	"testing"

	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// FuzzWikiToMarkdown: any wiki markup converts without a panic, keeps its
// visible text through Markdown and back, and is stable after one round.
func FuzzWikiToMarkdown(f *testing.F) {
	for _, s := range []string{
		"h1. T\n\n*b* _e_ -s- +u+ ^p^ ~b~ ??c?? {{m}} {color:red}r{color}",
		"* a\n** b\n# c\n#* d\n* [ ] t\n* [x] u",
		"||h||h||\n|a|[x|https://e.com]|",
		"{code:java}\nx\n{code}\n{noformat}\ny\n{noformat}\n{quote}\nq\n{quote}\n{panel:title=P}\np\n{panel}",
		"[~u] [^f.txt] [ABC-1] !i.png! \\\\ \\* &#92; {anchor:a}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		checkWiki(t, w)
	})
}

// FuzzMarkdownToWiki: any Markdown converts without a panic, keeps its
// text and is stable (the corpus test's check).
func FuzzMarkdownToWiki(f *testing.F) {
	for _, e := range mdcorpustest.Load(f) {
		f.Add(e.Markdown)
	}
	f.Fuzz(func(t *testing.T, md string) {
		checkMarkdown(t, "fuzzed", md)
	})
}
