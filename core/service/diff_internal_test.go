package service

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineDiff(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"
	for _, c := range []struct{ name, from, to, want string }{
		{"equal", "a\nb", "a\nb", ""},
		{"from empty", "", "a\nb", "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\nb", "", "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"one line in the middle", ten, strings.Replace(ten, "5", "five", 1),
			"@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n"},
		{"two far changes are two hunks", ten, strings.Replace(strings.Replace(ten, "1\n", "one\n", 1), "\n10", "\nten", 1),
			"@@ -1,3 +1,3 @@\n-1\n+one\n 2\n 3\n@@ -8,3 +8,3 @@\n 8\n 9\n-10\n+ten\n"},
		{"near changes share a hunk", ten, strings.Replace(strings.Replace(ten, "3", "three", 1), "6", "six", 1),
			"@@ -1,8 +1,8 @@\n 1\n 2\n-3\n+three\n 4\n 5\n-6\n+six\n 7\n 8\n"},
		{"insertion", "a\nc", "a\nb\nc", "@@ -1,2 +1,3 @@\n a\n+b\n c\n"},
	} {
		if got := lineDiff(c.from, c.to); got != c.want {
			t.Errorf("%s:\n%s", c.name, cmp.Diff(c.want, got))
		}
	}
}

// Texts too large for the table are diffed as a whole middle, not
// refused, and stay bounded.
func TestLineDiffOfHugeTexts(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "a"+strings.Repeat("x", i%7))
		b = append(b, "b"+strings.Repeat("x", i%5))
	}
	d := lineDiff("same\n"+strings.Join(a, "\n"), "same\n"+strings.Join(b, "\n"))
	if n := strings.Count(d, "\n"); n != MaxDiffLines+2 || !strings.Contains(d, "\\ 5977 more changed lines not shown") {
		t.Errorf("%d lines:\n%s", n, d)
	}
}

func TestListChange(t *testing.T) {
	c := listChange("labels", []string{"legacy", "checkout"}, []string{"checkout", "guest"}).api()
	if c.From != "legacy, checkout" || c.To != "checkout, guest" || !slices.Equal(c.Added, []string{"guest"}) || !slices.Equal(c.Removed, []string{"legacy"}) {
		t.Errorf("%+v", c)
	}
}
