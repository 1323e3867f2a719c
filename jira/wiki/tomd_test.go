package wiki

import (
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/jira/adf"
)

// TestToMarkdown: wiki markup as people write it in Jira Data Center
// (Atlassian's text formatting notation), with the Markdown it reads as and
// the formatting reported as not carried.
func TestToMarkdown(t *testing.T) {
	for _, c := range []struct {
		name, wiki, md string
		lost           []string
	}{
		{"headings", "h1. Big\nh3. Small", "# Big\n\n### Small\n", nil},
		{"effects", "*strong* _emphasis_ -deleted- {{mono}}", "**strong** *emphasis* ~~deleted~~ `mono`\n", nil},
		{"braced effects inside a word", "a{*}b{*}c", "a**b**c\n", nil},
		{"mark characters inside words", "snake_case a-b 2*3", "snake_case a-b 2\\*3\n", nil},
		{"citation reads as emphasis", "??cite??", "*cite*\n", []string{"citation"}},
		{"inserted, sup, sub keep their text", "+ins+ ^sup^ ~sub~", "ins sup sub\n", []string{"underline (inserted text)", "superscript and subscript"}},
		{"colour keeps its text", "{color:red}alarm{color} ok", "alarm ok\n", []string{"text colour"}},
		{"line break", "one\\\\two", "one\\\ntwo\n", nil},
		{"rule", "a\n\n----\n\nb", "a\n\n---\n\nb\n", nil},
		{"links", "[Example|https://example.com] [https://x.y] [mailto:a@b.co]", "[Example](https://example.com) <https://x.y> <mailto:a@b.co>\n", nil},
		{"link with a tip", "[here|https://e.com|the tip]", "[here](https://e.com \"the tip\")\n", nil},
		{"mention", "ask [~jsmith] or [John|~jdoe]", "ask [@jsmith](~jsmith) or [John](~jdoe)\n", nil},
		{"attachment link", "see [^log.txt]", "see [log.txt](%5Elog.txt)\n", nil},
		{"issue link", "after [ABC-12]", "after [ABC-12](ABC-12)\n", nil},
		{"not a link", "[just text] and [ ]", "[just text] and [ ]\n", nil},
		{"image becomes a link", "!https://e.com/a.png! and !b.png|thumbnail!", "<https://e.com/a.png> and [b.png](%5Eb.png)\n", []string{"image"}},
		{"anchor has no text", "{anchor:top}Top", "Top\n", []string{"anchor"}},
		{"bullets", "* a\n** b\n* c\n- d", "- a\n  - b\n- c\n- d\n", nil},
		{"numbered and mixed", "# one\n#* sub\n# two", "1. one\n   - sub\n2. two\n", nil},
		{"tasks", "* [ ] todo\n* [x] done", "- [ ] todo\n- [x] done\n", nil},
		{"item continues on the next line", "* a\nb\n* c", "- a\n  b\n- c\n", nil},
		{"table", "||h1||h2||\n|a|[b|https://e.com]|", "| h1 | h2 |\n| --- | --- |\n| a | [b](https://e.com) |\n", nil},
		{"code with language", "{code:java}\nint x = 1; // *not bold*\n{code}", "```java\nint x = 1; // *not bold*\n```\n", nil},
		{"code with a title", "{code:title=A.java|borderStyle=solid}\nx\n{code}", "```\nx\n```\n", []string{"code block title and style"}},
		{"noformat", "{noformat}\n*as is* {color:red}\n{noformat}", "```\n*as is* {color:red}\n```\n", nil},
		{"quote macro", "{quote}\nsaid\n\n* so\n{quote}", "> said\n>\n> - so\n", nil},
		{"bq", "bq. quoted", "> quoted\n", nil},
		{"panel keeps its title and text", "{panel:title=Note|bgColor=#eee}\nbody\n{panel}", "> **Note**\n>\n> body\n", []string{"panel"}},
		{"escapes", "\\*not bold\\* \\[x\\] \\{y\\}", "\\*not bold\\* [x] {y}\n", nil},
		{"entities", "&#123;a&#125; &amp; &copy;", "{a} & ©\n", nil},
		{"unknown macro stays text", "{status:colour=Green}done{status}", "{status:colour=Green}done{status}\n", nil},
		{"unclosed effect stays text", "a *b c", "a \\*b c\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			md, lost := Convert(c.wiki)
			if md != c.md {
				t.Errorf("Convert(%q)\n got %q\nwant %q", c.wiki, md, c.md)
			}
			if !slices.Equal(lost, c.lost) {
				t.Errorf("Convert(%q) reports %q as not carried, want %q", c.wiki, lost, c.lost)
			}
		})
	}
}

// TestFromMarkdown: what Markdown becomes in wiki markup.
func TestFromMarkdown(t *testing.T) {
	for _, c := range []struct{ name, md, wiki string }{
		{"effects", "*em* **strong** ~~del~~ `code`", "_em_ *strong* -del- {{code}}"},
		{"effects inside words use braces", "a**b**c", "a{*}b{*}c"},
		{"special characters are escaped", "a * b [c] {d} x|y 1--2", "a \\* b \\[c\\] \\{d\\} x\\|y 1\\-\\-2"},
		{"words with mark characters are left alone", "snake_case and a-b", "snake_case and a-b"},
		{"line starts that would start a block", "x\n\\# y\nh2. z", "x\n\\# y\nh2&#46; z"},
		{"backslash before a special character", "a\\\\*b", "a&#92;\\*b"},
		{"headings", "## Two", "h2. Two"},
		{"code", "```go\nx := 1\n```", "{code:go}\nx := 1\n{code}"},
		{"code without language", "    plain", "{noformat}\nplain\n{noformat}"},
		{"code holding {noformat}", "```\n{noformat}\n```", "{code}\n{noformat}\n{code}"},
		{"quote", "> a\n>\n> b", "{quote}\na\n\nb\n{quote}"},
		{"lists", "- a\n  1. b\n- c", "* a\n*# b\n* c"},
		{"tasks", "- [ ] a\n- [x] b", "* [ ] a\n* [x] b"},
		{"a list with a box as text", "- \\[ ] a", "* \\[ \\] a"},
		{"table", "| a | b |\n|---|---|\n| 1 | |", "||a||b||\n|1| |"},
		{"links", "[t](https://e.com \"tip\") <https://x.y> [@jsmith](~jsmith)", "[t|https://e.com|tip] [https://x.y] [~jsmith]"},
		{"hard break", "a\\\nb", "a\\\\b"},
		{"rule", "a\n\n---\n\nb", "a\n\n----\n\nb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := FromMarkdown(c.md)
			if err != nil {
				t.Fatal(err)
			}
			if w != c.wiki {
				t.Errorf("FromMarkdown(%q)\n got %q\nwant %q", c.md, w, c.wiki)
			}
		})
	}
}

// TestCodeBlockHoldingBothClosingTags: a code block holding "{code}" and
// "{noformat}" (neither macro can hold its own closing tag) becomes
// monospaced lines with its text whole.
func TestCodeBlockHoldingBothClosingTags(t *testing.T) {
	w, err := FromMarkdown("```\n{code}\n\n{noformat} x\n```")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{{\\{code\\}}}\\\\\\\\{{\\{noformat\\} x}}"; w != want {
		t.Errorf("got %q, want %q", w, want)
	}
	if md := ToMarkdown(w); md != "`{code}`\\\n\\\n`{noformat} x`\n" {
		t.Errorf("reads back as %q", md)
	}
}

// TestFromADFAsJiraSendsIt: a document decoded from JSON (numbers as
// json.Number, as adf.Parse keeps them) keeps its heading levels.
func TestFromADFAsJiraSendsIt(t *testing.T) {
	d, err := adf.Parse([]byte(`{"version":1,"type":"doc","content":[{"type":"heading","attrs":{"level":3},"content":[{"type":"text","text":"T"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := FromADF(d); w != "h3. T" {
		t.Errorf("got %q, want %q", w, "h3. T")
	}
}
