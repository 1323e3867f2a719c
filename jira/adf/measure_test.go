package adf

import (
	"bytes"
	"encoding/json"
	stdhtml "html"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// Text-loss check. "Text" is the visible characters of the Markdown as a
// reader sees them: goldmark's own HTML rendering (CommonMark + GFM, raw
// HTML omitted as a browser-safe renderer does) with tags removed, image alt
// text kept, entities decoded and all whitespace removed. The ADF's text is
// every text node (and the text of inline atoms) in document order, with
// whitespace removed. No text is lost when the Markdown's text is a
// subsequence of the ADF's text: every visible character appears, in order.
// The ADF may hold more (degraded raw HTML, a link's address as the text of
// an empty link), never less.

var htmlRenderer = goldmark.New(goldmark.WithExtensions(extension.GFM))

var (
	imgTag = regexp.MustCompile(`<img [^>]*alt="([^"]*)"[^>]*>`)
	anyTag = regexp.MustCompile(`<[^>]*>`)
)

func renderedText(t testing.TB, md string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := htmlRenderer.Convert([]byte(normalizeSource(md)), &buf); err != nil {
		t.Fatal(err)
	}
	h := imgTag.ReplaceAllString(buf.String(), "$1")
	h = anyTag.ReplaceAllString(h, "")
	return stripSpace(stdhtml.UnescapeString(h))
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func adfText(ns []Node) string {
	var sb strings.Builder
	var walk func(ns []Node)
	walk = func(ns []Node) {
		for _, n := range ns {
			switch {
			case n.Type == "text":
				sb.WriteString(n.Text)
			case n.Type == "hardBreak":
			case IsInline(n.Type):
				for _, a := range atomText(n) {
					sb.WriteString(a.Text)
				}
			default:
				walk(n.Content)
			}
		}
	}
	walk(ns)
	return stripSpace(sb.String())
}

// isSubsequence reports whether every rune of want appears in got in order;
// it returns the position in want of the first missing rune.
var isSubsequence = mdcorpustest.IsSubsequence

func checkNoTextLoss(t testing.TB, name, md string, d Doc) {
	t.Helper()
	want := renderedText(t, md)
	got := adfText(d.Content)
	if ok, at := isSubsequence(want, got); !ok {
		t.Errorf("%s: text lost at %q\nmarkdown: %q\nrendered text: %q\nADF text:      %q",
			name, string([]rune(want)[at:]), md, want, got)
	}
}

func TestCorpusNoTextLoss(t *testing.T) {
	for _, e := range loadCorpus(t) {
		d, err := FromMarkdown(e.Markdown)
		if err != nil {
			t.Fatal(err)
		}
		checkNoTextLoss(t, "example "+itoa(e.Example), e.Markdown, d)
	}
}

// normalizeADF makes two ADF documents comparable: localIds and empty attrs
// dropped, marks sorted by type, adjacent text nodes with equal marks
// merged, numbers compared by value, keys in a fixed order.
func normalizeADF(t fataler, raw []byte) string {
	t.Helper()
	d, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var norm func(ns []Node) []Node
	norm = func(ns []Node) []Node {
		var out []Node
		for _, n := range ns {
			if n.Attrs != nil {
				a := map[string]any{}
				for k, v := range n.Attrs {
					if k != "localId" {
						a[k] = v
					}
				}
				n.Attrs = a
				if len(a) == 0 {
					n.Attrs = nil
				}
			}
			ms := append([]Mark(nil), n.Marks...)
			sort.SliceStable(ms, func(i, j int) bool { return ms[i].Type < ms[j].Type })
			for i := range ms {
				if len(ms[i].Attrs) == 0 {
					ms[i].Attrs = nil
				}
			}
			if len(ms) == 0 {
				ms = nil
			}
			n.Marks = ms
			n.Content = norm(n.Content)
			out = append(out, n)
		}
		return mergeText(out)
	}
	d.Content = norm(d.Content)
	var v any
	if err := json.Unmarshal(mustJSON(t, d), &v); err != nil {
		t.Fatal(err)
	}
	return string(mustJSON(t, v))
}

// equalityFloor is the share of corpus examples whose ADF equals the ADF of
// Atlassian's transformer after normalisation, as measured; it may only go
// up. See testdata/README.md for the intentional differences.
const equalityFloor = 247.0 / 321

func TestCorpusEqualityWithAtlassian(t *testing.T) {
	ex := loadCorpus(t)
	equal := 0
	textSuperset := 0
	bySection := map[string][2]int{}
	for _, e := range ex {
		d, err := FromMarkdown(e.Markdown)
		if err != nil {
			t.Fatal(err)
		}
		ours := normalizeADF(t, mustJSON(t, d))
		theirs := normalizeADF(t, e.ADF)
		s := bySection[e.Section]
		s[1]++
		if ours == theirs {
			equal++
			s[0]++
		} else if testing.Verbose() {
			t.Logf("example %d (%s) differs:\nmarkdown:  %q\nours:      %s\natlassian: %s", e.Example, e.Section, e.Markdown, ours, theirs)
		}
		bySection[e.Section] = s
		var ad Doc
		if ad, err = Parse(e.ADF); err == nil {
			if ok, _ := isSubsequence(adfText(ad.Content), adfText(d.Content)); ok {
				textSuperset++
			}
		}
	}
	share := float64(equal) / float64(len(ex))
	t.Logf("equal to Atlassian's ADF after normalisation: %d of %d (%.1f%%)", equal, len(ex), 100*share)
	t.Logf("our text contains all of Atlassian's text: %d of %d", textSuperset, len(ex))
	var names []string
	for k := range bySection {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("  %-40s %3d / %3d", k, bySection[k][0], bySection[k][1])
	}
	if share < equalityFloor {
		t.Errorf("equality share %.3f fell below the floor %.3f", share, equalityFloor)
	}
}
