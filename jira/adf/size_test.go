package adf

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/text"
	"pgregory.net/rapid"
)

// sizeInputs are Markdown documents whose JSON holds every escape
// encoding/json writes (quotes, backslashes, control characters, HTML
// characters, invalid UTF-8, U+2028/U+2029, characters outside ASCII) and
// every node shape the converter makes, besides the fuzz seeds and the
// CommonMark corpus.
var sizeInputs = []string{
	"\"quoted\" \\ back\\\\slash <tag> a & b > c\n\n\x01\x02\x1f\x7f\ttab\vvt\ffeed\x08bs",
	"bad \xff\xfe utf-8, \u2028 line sep \u2029 para sep, é ü 漢字 😀",
	"| a | b |\n|---|---|\n| 1 | 2 |\n",
	"- [ ] one\n- [x] two\n  - [ ] three\n",
	"1. one\n2. two\n\n7) seven\n",
	"```go\ncode <here>\n```\n",
	"<details><summary>More</summary>\n\nhidden *text*\n\n</details>\n",
	"> [!NOTE]\n> a note\n",
	"[link](https://example.com/?a=1&b=<2> \"title & more\") ![img](x.png)",
	strings.Repeat("  ", 10) + "- a\n" + strings.Repeat("- a\n  ", 20),
	// Tables are measured row by row at the top level only.
	"intro\n\n" + wideTable(6, 30) + "\nafter\n\n" + wideTable(2, 3),
	"- item\n\n  " + strings.ReplaceAll(wideTable(3, 20), "\n", "\n  ") + "\n> " + strings.ReplaceAll(wideTable(3, 20), "\n", "\n> "),
	"<details><summary>t</summary>\n\n" + wideTable(4, 25) + "\n</details>\n",
	"| a |\n|---|\n|\n| b |\n|\n",
}

// wideTable is a table of cols columns and rows body rows, with some
// emphasis and links in its cells.
func wideTable(cols, rows int) string {
	row := func(cell string) string { return strings.Repeat("| "+cell+" ", cols) + "|\n" }
	var b strings.Builder
	b.WriteString(row("h") + row("---"))
	for i := range rows {
		b.WriteString(row([]string{"a", "*b*", "[c](u)", "`d`"}[i%4]))
	}
	return b.String()
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Converting a paragraph of many small texts adds little to what the
// Markdown parser allocates: each text is added to the node before it as
// it comes, not kept as a node of its own until the paragraph ends ("_a"
// 16,000 times allocated 7 MB more than its parse, 230 bytes a character).
func TestConvertingManySmallTextsKeepsOneNode(t *testing.T) {
	md := strings.Repeat("_a", 16000)
	parse := allocated(func() { mdParser.Parse(text.NewReader([]byte(md))) })
	for name, f := range map[string]func(){
		"FromMarkdown": func() { _, _ = FromMarkdown(md) },
		"MarkdownSize": func() { MarkdownSize(md, -1) },
	} {
		if got := allocated(f); got > parse+16*uint64(len(md)) {
			t.Errorf("%s of %d characters allocated %d bytes, %d more than the parse; want at most %d more", name, len(md), got, got-parse, 16*len(md))
		}
	}
}

// A top-level table or paragraph past MarkdownSize's limit is converted
// only until it is surely past it (a 40-column table of 400 rows,
// measured against a limit of 1,000 characters, was converted whole: 10 MB
// more than its parse; "*a" 16,000 times, 7 MB more).
func TestMarkdownSizeStopsInsideALongBlock(t *testing.T) {
	for name, md := range map[string]string{
		"table":     wideTable(40, 400),
		"paragraph": strings.Repeat("*a", 16000),
		"second":    "first paragraph\n\n" + strings.Repeat("**a** b ", 4000),
	} {
		parse := allocated(func() { mdParser.Parse(text.NewReader([]byte(md))) })
		if got := allocated(func() { MarkdownSize(md, 1000) }); got > parse+2*uint64(len(md)) {
			t.Errorf("%s: MarkdownSize of %d characters with limit 1000 allocated %d bytes, %d more than the parse; want at most %d more", name, len(md), got, got-parse, 2*len(md))
		}
		if got := MarkdownSize(md, 1000); got <= 1000 {
			t.Errorf("%s: MarkdownSize(md, 1000) = %d, want more than 1000", name, got)
		}
	}
}

// sizeMarkdown is what the size tests convert: sizeInputs, the fuzz
// seeds and the CommonMark corpus.
func sizeMarkdown(t testing.TB) []string {
	mds := append(append([]string{}, sizeInputs...), fuzzSeeds...)
	for _, e := range loadCorpus(t) {
		mds = append(mds, e.Markdown)
	}
	return mds
}

func checkSize(t fataler, name string, d Doc) {
	t.Helper()
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := utf8.RuneCount(b)
	if got := d.Size(-1); got != want {
		t.Fatal(name+": Size", got, "want", want, "for", string(b))
	}
	for _, limit := range []int{0, want / 2, want - 1, want, want + 1} {
		got := d.Size(limit)
		if want <= limit && got != want || want > limit && got <= limit {
			t.Fatal(name+": Size with limit", limit, "=", got, "; the length is", want)
		}
	}
}

// Size is the length of MarshalJSON's output in characters, counted
// without encoding; past a limit it says only "over".
func TestSizeIsTheEncodedLength(t *testing.T) {
	mds := sizeMarkdown(t)
	for i, md := range mds {
		d, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		checkSize(t, "markdown "+itoa(i), d)
	}
	for i, s := range jiraDocs {
		d, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		checkSize(t, "jira document "+itoa(i), d)
	}
	checkSize(t, "empty", Doc{})
	odd := Doc{Content: []Node{{Type: "paragraph", Attrs: map[string]any{"f": 1.5, "n": nil, "b": true, "s": "<x>", "i": -3, "l": []any{"a", 2}, "m": map[string]any{"k": "v"}},
		Content: []Node{{Type: "text", Text: ""}, {Type: "text", Text: "x", Marks: []Mark{{Type: "link", Attrs: map[string]any{"href": "a&b"}}, {Type: "strong"}}}}}}}
	checkSize(t, "odd attributes", odd)
}

func TestSizeOfGeneratedDocuments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkSize(t, "generated", Doc{Content: genDocBlocks(t)})
	})
}

func FuzzSize(f *testing.F) {
	for _, s := range append(append([]string{}, sizeInputs...), fuzzSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if len(md) > 4096 {
			return
		}
		d, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		checkSize(t, "fuzz", d)
		if got, want := MarkdownSize(md, -1), d.Size(-1); got != want {
			t.Fatalf("MarkdownSize = %d, want %d", got, want)
		}
	})
}

// MarkdownSize, which converts one top-level block at a time and stops
// past the limit, counts what FromMarkdown's document counts.
func TestMarkdownSizeIsTheSizeOfTheConvertedDocument(t *testing.T) {
	mds := sizeMarkdown(t)
	mds = append(mds, strings.Join(mds, "\n\n"))
	for i, md := range mds {
		d, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Size(-1)
		if got := MarkdownSize(md, -1); got != want {
			t.Fatalf("markdown %d: MarkdownSize = %d, want %d\n%q", i, got, want, md)
		}
		for _, limit := range []int{0, want / 3, want - 1, want, want + 1} {
			if got := MarkdownSize(md, limit); want <= limit && got != want || want > limit && got <= limit {
				t.Fatalf("markdown %d: MarkdownSize with limit %d = %d; the size is %d", i, limit, got, want)
			}
		}
	}
}

// markdownPieces are what TestMarkdownSizeAtAnyLimit builds paragraphs
// from: texts, blanks, line breaks, marks, links, images, HTML marks and
// block starts.
var markdownPieces = []string{"a", "bc", " ", "  ", "\t", "\n", "  \n", "\\\n", "*", "**", "_", "__", "~~", "`", "[", "]", "(", ")",
	"[a](u)", "[b](u \"t\")", "[](v)", "<http://x.y>", "<u>", "</u>", "<sub>", "</sub>", "![i](p.png)", "![](attachment:x)", "![a](card:block)",
	"&amp;", "&#32;", "\\*", "<span style=\"color: #ff0000\">", "</span>", "- ", "1. ", "> ", "# ", "|", "|-|", "[ ] ", "[x] ", "```", "    ",
	"www.a.b", "\n\n", "[a]", "[a]: /u\n", "[c][a]", "@user", ":smile:", "<", ">", "\"", "é", "中文"}

// MarkdownSize, which stops converting a table or a paragraph once it is
// surely past the limit, says "over" exactly when the converted document
// is longer than the limit, and the exact size otherwise, at any limit.
func TestMarkdownSizeAtAnyLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(1, 200).Draw(t, "pieces") {
			b.WriteString(rapid.SampledFrom(markdownPieces).Draw(t, "piece"))
		}
		md := b.String()
		d, err := FromMarkdown(md)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Size(-1)
		limit := rapid.IntRange(0, want+10).Draw(t, "limit")
		if got := MarkdownSize(md, limit); want <= limit && got != want || want > limit && got <= limit {
			t.Fatalf("MarkdownSize(%q, %d) = %d; the size is %d", md, limit, got, want)
		}
	})
}

// A paragraph of characters of three bytes each is measured by its
// characters: counting bytes, MarkdownSize stopped at 22,317 of a
// description of 40,495 characters and said it fitted the limit.
func TestMarkdownSizeCountsCharactersNotBytes(t *testing.T) {
	md := strings.Repeat(strings.Repeat("中", 99)+"\n", 400)
	d, err := FromMarkdown(md)
	if err != nil {
		t.Fatal(err)
	}
	want := d.Size(-1)
	for _, limit := range []int{32767, 2 * 32767} {
		if got := MarkdownSize(md, limit); want <= limit && got != want || want > limit && got <= limit {
			t.Errorf("MarkdownSize with limit %d = %d; the size is %d", limit, got, want)
		}
	}
}
