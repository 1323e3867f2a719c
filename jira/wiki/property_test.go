package wiki

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// Pieces of text chosen to collide with Markdown and wiki markup syntax.
var tricky = []string{
	"a", "b", "word", "é", "2", " ", "  ", "*", "**", "_", "__", "~", "~~", "`", "#", "# ", "-", "--", "----", "+", "^",
	"?", "??", "!", "!x!", "{", "}", "{{", "}}", "{code}", "{noformat}", "{quote}", "{color:red}", "{*}", "[", "]", "[x]",
	"[~bob]", "[a|b]", "|", "||", "\\", "\\\\", "&", "&amp;", "&#92;", "&#", ";", "h1.", "bq.", "1.", "http://x.y", "(", ")",
	"<b>", "\"", "'", ".", ",",
}

func text(t *rapid.T, label string) string {
	return textFrom(t, label, tricky)
}

func textFrom(t *rapid.T, label string, pieces []string) string {
	var b strings.Builder
	for range rapid.IntRange(1, 5).Draw(t, label+"n") {
		b.WriteString(rapid.SampledFrom(pieces).Draw(t, label))
	}
	return b.String()
}

// mdTricky leaves out the pipes. Both generators leave out ':'.
// adf.ToMarkdown writes a line like ":-" after a line of text (or after
// a line whose pipe it escaped) where Markdown reads the two as a table,
// and the line is lost: a defect of jira/adf, reported separately,
// reproduced by Markdown "- [a|b]\n:-" and wiki "* a\n:-".
var mdTricky = func() []string {
	var out []string
	for _, p := range tricky {
		if !strings.Contains(p, "|") {
			out = append(out, p)
		}
	}
	return out
}()

// genMarkdown draws a Markdown document with inline marks, lists, task
// lists, quotes, code and tables around tricky text.
func genMarkdown(t *rapid.T) string {
	text := func(t *rapid.T, label string) string { return textFrom(t, label, mdTricky) }
	inline := func() string {
		s := text(t, "t")
		switch rapid.IntRange(0, 6).Draw(t, "mark") {
		case 1:
			s = "*" + s + "*"
		case 2:
			s = "**" + s + "**"
		case 3:
			s = "~~" + s + "~~"
		case 4:
			s = "`" + s + "`"
		case 5:
			s = "[" + s + "](https://e.com/" + rapid.SampledFrom([]string{"", "a_b", "~x", "%5Ey"}).Draw(t, "href") + ")"
		}
		return s + rapid.SampledFrom([]string{"", " ", "\n", "\\\n", "x"}).Draw(t, "after") + text(t, "u")
	}
	var blocks []string
	for range rapid.IntRange(1, 4).Draw(t, "blocks") {
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			blocks = append(blocks, "## "+strings.ReplaceAll(inline(), "\n", " "))
		case 1:
			blocks = append(blocks, "- "+inline()+"\n  - "+inline()+"\n- "+inline())
		case 2:
			blocks = append(blocks, "1. "+inline()+"\n2. "+inline())
		case 3:
			blocks = append(blocks, "- [ ] "+inline()+"\n- [x] "+inline())
		case 4:
			blocks = append(blocks, "> "+strings.ReplaceAll(inline(), "\n", "\n> "))
		case 5:
			blocks = append(blocks, "```"+rapid.SampledFrom([]string{"", "go"}).Draw(t, "lang")+"\n"+text(t, "code")+"\n```")
		case 6:
			cell := func() string { return strings.NewReplacer("\n", " ", "|", "\\|").Replace(inline()) }
			blocks = append(blocks, "| "+cell()+" | "+cell()+" |\n|---|---|\n| "+cell()+" | "+cell()+" |")
		default:
			blocks = append(blocks, inline())
		}
	}
	return strings.Join(blocks, "\n\n")
}

// TestPropertyMarkdownToWikiToMarkdown: Markdown → wiki keeps every
// visible character, and Markdown → wiki → Markdown → wiki changes nothing
// after the first round.
func TestPropertyMarkdownToWikiToMarkdown(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		md := genMarkdown(t)
		checkMarkdown(t, "generated", md)
	})
}

// genWiki draws wiki markup as people write it: text effects, links,
// mentions, colours, lists, tables, code, quotes and panels.
func genWiki(t *rapid.T) string {
	inline := func() string {
		s := text(t, "t")
		switch rapid.IntRange(0, 9).Draw(t, "mark") {
		case 1:
			s = "*" + s + "*"
		case 2:
			s = "_" + s + "_"
		case 3:
			s = "{{" + s + "}}"
		case 4:
			s = "-" + s + "-"
		case 5:
			s = "{color:red}" + s + "{color}"
		case 6:
			s = "[" + s + "|https://e.com]"
		case 7:
			s = "[~" + rapid.SampledFrom([]string{"bob", "j.doe"}).Draw(t, "user") + "]"
		case 8:
			s = "a{*}" + s + "{*}b"
		}
		return rapid.SampledFrom([]string{"", " ", "x "}).Draw(t, "before") + s + rapid.SampledFrom([]string{"", " ", "\n", "\\\\", "x"}).Draw(t, "after") + text(t, "u")
	}
	var blocks []string
	for range rapid.IntRange(1, 4).Draw(t, "blocks") {
		switch rapid.IntRange(0, 8).Draw(t, "kind") {
		case 0:
			blocks = append(blocks, "h2. "+strings.ReplaceAll(inline(), "\n", " "))
		case 1:
			blocks = append(blocks, "* "+inline()+"\n** "+inline()+"\n* "+inline())
		case 2:
			blocks = append(blocks, "# "+inline()+"\n#* "+inline())
		case 3:
			blocks = append(blocks, "* [ ] "+inline()+"\n* [x] "+inline())
		case 4:
			blocks = append(blocks, "{quote}\n"+inline()+"\n{quote}")
		case 5:
			blocks = append(blocks, "{code:java}\n"+text(t, "code")+"\n{code}")
		case 6:
			cell := func() string { return strings.NewReplacer("\n", " ", "|", "\\|").Replace(inline()) }
			blocks = append(blocks, "||"+cell()+"||"+cell()+"||\n|"+cell()+"|"+cell()+"|")
		case 7:
			blocks = append(blocks, "{panel:title=T}\n"+inline()+"\n{panel}")
		default:
			blocks = append(blocks, inline())
		}
	}
	return strings.Join(blocks, "\n\n")
}

// TestPropertyWikiToMarkdownToWiki: wiki → Markdown keeps every visible
// character, and wiki → Markdown → wiki → Markdown changes nothing after
// the first round.
func TestPropertyWikiToMarkdownToWiki(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkWiki(t, genWiki(t))
	})
}

// checkWiki asserts the promises for one wiki input: wiki → Markdown →
// wiki keeps every visible character, and one round through Markdown is a
// fixed point of the next.
func checkWiki(t tester, w string) {
	t.Helper()
	md := ToMarkdown(w)
	w1, err := FromMarkdown(md)
	if err != nil {
		t.Fatalf("FromMarkdown(ToMarkdown(%q)): %v", w, err)
	}
	before, _ := Parse(w)
	after, _ := Parse(w1)
	if ok, at := mdcorpustest.IsSubsequence(visible(before.Content), visible(after.Content)); !ok {
		t.Fatalf("text lost at rune %d\nwiki:  %q\nmd:    %q\nwiki1: %q", at, w, md, w1)
	}
	md1 := ToMarkdown(w1)
	w2, _ := FromMarkdown(md1)
	if w2 != w1 || ToMarkdown(w2) != md1 {
		t.Fatalf("not stable\nwiki:  %q\nmd:    %q\nwiki1: %q\nmd1:   %q\nwiki2: %q", w, md, w1, md1, w2)
	}
}
