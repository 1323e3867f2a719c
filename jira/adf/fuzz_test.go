package adf

import (
	"testing"
)

// fuzzSeeds are Markdown inputs that exercise every construct the converter
// handles, plus known edge cases. The spec corpus is added too.
var fuzzSeeds = []string{
	"",
	"# Heading\n\nPara with *em*, **strong**, ~~strike~~, `code`, [link](https://example.com \"t\").\n",
	"- a\n- b\n  - nested\n    1. deep\n\n3. three\n4. four\n",
	"- [ ] todo\n- [x] done\n  - [ ] sub\n",
	"> quote\n> - list\n> ```go\n> code\n> ```\n",
	"| a | b |\n|---|:-:|\n| `x\\|y` | **z** |\n",
	"![alt](img.png) <b>html</b>\n\n<div>\nblock\n</div>\n",
	"line one\\\nline two  \nline three\n",
	"***\n\nSetext\n===\n\nwww.example.com and foo@bar.com and https://x.y/z\n",
	"a*\"b\"*c **a***b* _a_b ~~a~~b\n",
	"&amp; &copy; &#35; \\* \\_ \\\\\n",
	"- # heading in list\n- ---\n- | a |\n  |---|\n  | b |\n",
	"> # heading in quote\n> > nested\n> - [ ] task in quote\n",
	"```\n\tcode with tab\n```\n\n    indented\n",
	"[]()\n\n[](<>)\n\n![](x)\n",
	"* a\n\n  b\n\n* c\n",
	"1) x\n2) y\n\n0. zero\n",
}

func FuzzFromMarkdown(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, e := range loadCorpus(f) {
		f.Add(e.Markdown)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if len(md) > 4096 {
			return
		}
		d := checkMarkdown(t, "fuzz", md)
		checkNoTextLoss(t, "fuzz", md, d)
	})
}

func FuzzToMarkdown(f *testing.F) {
	for _, s := range fuzzSeeds {
		d, err := FromMarkdown(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(mustJSON(f, d))
	}
	for _, s := range jiraDocs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		md := ToMarkdown(d)
		// Whatever Jira holds, its Markdown converts back to valid ADF that
		// is itself stable.
		checkMarkdown(t, "fuzz-to", md)
	})
}
