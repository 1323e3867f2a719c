package wiki

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// TestMarkedParagraphRunsAllocateAtTheirSize: the runs of a paragraph of
// thousands of marked pieces ("*a*a*a…") are made with a few times their
// own size in allocations (each step of normalizeRuns grew its slice one
// run at a time: 16.5 MB for 10,000 pieces, about thirty times their size).
func TestMarkedParagraphRunsAllocateAtTheirSize(t *testing.T) {
	var ns []adf.Node
	for i := range 10000 {
		n := adf.Node{Type: "text", Text: "a"}
		if i%2 == 0 {
			n.Marks = []adf.Mark{{Type: "em"}}
		}
		ns = append(ns, n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	runs := normalizeRuns(toRuns(ns, modePara))
	runtime.ReadMemStats(&after)
	size := uint64(len(ns)) * uint64(unsafe.Sizeof(run{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > 5*size {
		t.Errorf("%d runs of %d nodes took %d bytes; want at most %d (five times their size)", len(runs), len(ns), got, 5*size)
	}
}

// TestLinkDestinationsAreEscapedWithoutBuildingAReplacer: escaping a
// link's destination allocates only its result (a replacer built for
// every link was most of the time spent on paragraphs of a thousand
// links).
func TestLinkDestinationsAreEscapedWithoutBuildingAReplacer(t *testing.T) {
	if got := escapeDest("https://e.com/a b|c"); got != "https://e.com/a%20b%7Cc" {
		t.Fatalf("escapeDest = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = escapeDest("https://e.com/a b") }); n > 1 {
		t.Errorf("escaping a destination took %.0f allocations; want at most 1", n)
	}
}

// TestPlainTextAndMarksAreNotCopied: a text with nothing to escape is
// written as it is, and a text's marks, all of which wiki markup shows,
// are not copied into its run: a paragraph of 16,000 marked pieces made
// a rune slice, a builder and a list of marks for each.
func TestPlainTextAndMarksAreNotCopied(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = escapeText("plain words, 42", true) }); n != 0 {
		t.Errorf("escaping a text with nothing to escape took %.0f allocations; want none", n)
	}
	ns := make([]adf.Node, 1000)
	for i := range ns {
		ns[i] = adf.Node{Type: "text", Text: "a", Marks: []adf.Mark{{Type: "em"}, {Type: "strong"}}}
	}
	if n := testing.AllocsPerRun(10, func() { _ = toRuns(ns, modePara) }); n > 1 {
		t.Errorf("the runs of %d marked texts took %.0f allocations; want 1 (the list of runs)", len(ns), n)
	}
}

// TestOnePlainTextIsRenderedWithoutNormalizing: a table cell or list item
// of one plain text is rendered with one allocation for its run and one
// for the text written, not a second list of runs (a wide table has
// thousands of cells a description).
func TestOnePlainTextIsRenderedWithoutNormalizing(t *testing.T) {
	cell := []adf.Node{{Type: "text", Text: "a cell"}}
	if got := inline(cell, modeCell); got != "a cell" {
		t.Fatalf("inline = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = inline(cell, modeCell) }); n > 2 {
		t.Errorf("rendering one plain text took %.0f allocations; want at most 2", n)
	}
}

// TestMarkTagsAreWrittenInPlace: the tags around a marked text are
// written straight into the markup, not built as strings first (two
// builders and a concatenation for each of the 8,000 marked pieces of a
// paragraph of "*a*a*a…").
func TestMarkTagsAreWrittenInPlace(t *testing.T) {
	ns := []adf.Node{{Type: "text", Text: "a"}, {Type: "text", Text: "b", Marks: []adf.Mark{{Type: "em"}, {Type: "strong"}}}, {Type: "text", Text: "c"}}
	if got := inline(ns, modePara); got != "a{_}{*}b{*}{_}c" && got != "a{*}{_}b{_}{*}c" {
		t.Fatalf("inline = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = inline(ns, modePara) }); n > 8 {
		t.Errorf("rendering a marked text between two others took %.0f allocations; want at most 8 (10 when the tags were built as strings)", n)
	}
}
