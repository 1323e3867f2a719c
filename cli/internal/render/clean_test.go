package render

import (
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/service"
)

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":              "plain title",
		"a\x1b]0;pwned\x07b":       `a\x1b]0;pwned\x07b`,
		"clear\x1b[2J\x1b[Hscreen": `clear\x1b[2J\x1b[Hscreen`,
		"line one\nline\ttwo":      "line one\nline\ttwo",
		"c1 \u009b31m":             `c1 \x9b31m`,
		"del\x7f":                  `del\x7f`,
		"invoice\u202Efdp.exe":     "invoice<U+202E>fdp.exe",
		"zero\u200Bwidth":          "zero<U+200B>width",
		"family 👨\u200D👩\u200D👧":   "family 👨\u200D👩\u200D👧",
		"Grüße, 日本語":               "Grüße, 日本語",
		"bad \xff byte":            `bad \xff byte`,
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
	if s := Suspicious("a\u202Eb\u200Bc\u202E"); strings.Join(s, ",") != "U+202E,U+200B" {
		t.Errorf("Suspicious = %v", s)
	}
}

func TestCleanCopiesDeep(t *testing.T) {
	now := time.Now()
	v := service.ItemView{Key: "DEMO-1", Title: "t\x1b[8m", Updated: now, AcceptanceCriteria: []string{"\x1b]0;x\x07"},
		Epic: &service.ItemRef{Key: "DEMO-2", Title: "e\x1b[2J"}}
	c := Clean(v)
	if c.Title != `t\x1b[8m` || c.AcceptanceCriteria[0] != `\x1b]0;x\x07` || c.Epic.Title != `e\x1b[2J` || !c.Updated.Equal(now) || c.Key != "DEMO-1" {
		t.Fatalf("Clean = %+v", c)
	}
	if v.Title != "t\x1b[8m" || v.AcceptanceCriteria[0] != "\x1b]0;x\x07" || v.Epic.Title != "e\x1b[2J" {
		t.Fatal("Clean changed its input")
	}
}
