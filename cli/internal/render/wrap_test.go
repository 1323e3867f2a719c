package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapNeverBreaksAWord(t *testing.T) {
	text := "Error: CONFIRMATION_REQUIRED: Writing to Jira needs your confirmation, but this is not an interactive terminal, so nobody can be asked. Nothing was written. Run `dwire review imp_0123456789abcdef0123456789abcdef` before it expires."
	got := Wrap(text, 40, "  ")
	words := strings.Fields(text)
	if w := strings.Fields(got); strings.Join(w, " ") != strings.Join(words, " ") {
		t.Fatalf("words changed:\n%s", got)
	}
	for i, l := range strings.Split(got, "\n") {
		if n := utf8.RuneCountInString(l); n > 40 && !strings.Contains(l, "imp_") {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
		if i > 0 && !strings.HasPrefix(l, "  ") {
			t.Errorf("line %d lacks the indent: %q", i+1, l)
		}
	}
	if Wrap("short", 80, "  ") != "short" {
		t.Error("short text changed")
	}
	if got := Wrap("a\n  - b c", 80, "  "); got != "a\n    - b c" {
		t.Errorf("line breaks: %q", got)
	}
}

// Alignment padding between words is kept where the line is not broken.
func TestWrapKeepsAlignment(t *testing.T) {
	in := "✓ config           /tmp/x/.devworkwire.yaml"
	if got := Wrap(in, 80, "                   "); got != in {
		t.Fatalf("Wrap(%q) = %q", in, got)
	}
	got := Wrap("✗ jira             JIRA_UNAUTHORIZED: Jira rejected the credentials of demo@example.com at http://127.0.0.1:1.", 60, strings.Repeat(" ", 19))
	if !strings.HasPrefix(got, "✗ jira             JIRA_UNAUTHORIZED:") || !strings.Contains(got, "\n"+strings.Repeat(" ", 19)) {
		t.Fatalf("got %q", got)
	}
}
