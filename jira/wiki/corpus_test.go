package wiki

import (
	"strings"
	"testing"
	"unicode"

	"github.com/devworkwire/devworkwire/jira/adf"
	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// visible is the text of a document a reader sees, whitespace removed.
func visible(ns []adf.Node) string {
	var b strings.Builder
	var walk func(ns []adf.Node)
	walk = func(ns []adf.Node) {
		for _, n := range ns {
			b.WriteString(n.Text)
			walk(n.Content)
		}
	}
	walk(ns)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, b.String())
}

// tester is what the checks need of a *testing.T or *rapid.T.
type tester interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// checkMarkdown asserts the converter's promises for one Markdown input:
// the wiki markup keeps every visible character of the Markdown (as
// jira/adf reads it), and Markdown → wiki → Markdown → wiki gives the same
// wiki markup (so an untouched item never reads as edited).
func checkMarkdown(t tester, name, md string) (string, string) {
	t.Helper()
	w, err := FromMarkdown(md)
	if err != nil {
		t.Fatalf("%s: FromMarkdown: %v\nmarkdown: %q", name, err, md)
	}
	want, _ := adf.FromMarkdown(md)
	got, _ := Parse(w)
	if ok, at := mdcorpustest.IsSubsequence(visible(want.Content), visible(got.Content)); !ok {
		t.Errorf("%s: text lost at rune %d\nmarkdown: %q\nwiki:     %q\nback:     %s", name, at, md, w, got)
	}
	md2 := ToMarkdown(w)
	w2, err := FromMarkdown(md2)
	if err != nil {
		t.Fatalf("%s: FromMarkdown(ToMarkdown): %v", name, err)
	}
	if w2 != w {
		t.Errorf("%s: not stable\nmarkdown:  %q\nwiki:      %q\nmarkdown2: %q\nwiki2:     %q", name, md, w, md2, w2)
	}
	if md3 := ToMarkdown(w2); md3 != md2 {
		t.Errorf("%s: Markdown not stable\nmarkdown2: %q\nmarkdown3: %q", name, md2, md3)
	}
	return w, md2
}

// TestCorpusKeepsTextAndIsStable runs every CommonMark example of the
// corpus jira/adf is tested with through
// Markdown → wiki → Markdown → wiki.
func TestCorpusKeepsTextAndIsStable(t *testing.T) {
	for _, e := range mdcorpustest.Load(t) {
		checkMarkdown(t, "example "+itoa(e.Example), e.Markdown)
	}
}

// TestCorpusSameMarkdownAsCloud measures how often a document reads back
// from Data Center (through wiki markup) exactly as it reads back from
// Cloud (through ADF), and fails below the floor measured when the
// converter was written.
func TestCorpusSameMarkdownAsCloud(t *testing.T) {
	const floor = 278 // 86.6%, measured when the converter was written
	same := 0
	ex := mdcorpustest.Load(t)
	for _, e := range ex {
		_, viaWiki := checkMarkdown(t, "example "+itoa(e.Example), e.Markdown)
		d, _ := adf.FromMarkdown(e.Markdown)
		if viaADF := adf.ToMarkdown(d); viaADF == viaWiki {
			same++
		} else if testing.Verbose() {
			t.Logf("example %d (%s): via ADF %q, via wiki %q", e.Example, e.Section, viaADF, viaWiki)
		}
	}
	t.Logf("%d of %d examples read back as through ADF", same, len(ex))
	if same < floor {
		t.Errorf("%d examples read back as through ADF, want at least %d", same, floor)
	}
}
