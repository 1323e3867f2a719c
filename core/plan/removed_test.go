package plan

import (
	"errors"
	"strings"
	"testing"
)

func TestRemovedSetting(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"p.md", "---\nid: p\nremoved: close\n---\n# P\n\n## Epic e-1: E\n", RemovedClose},
		{"p.md", "---\nid: p\nremoved: Leave\n---\n# P\n\n## Epic e-1: E\n", RemovedLeave},
		{"p.md", "---\nid: p\n---\n# P\n\n## Epic e-1: E\n", ""},
		{"p.yaml", "id: p\nremoved: close\nepics:\n  - id: e-1\n    title: E\n", RemovedClose},
	} {
		doc, err := Parse(c.name, []byte(c.doc))
		if err != nil || doc.Removed != c.want {
			t.Errorf("%s %q: removed %q, %v; want %q", c.name, c.doc, doc.Removed, err, c.want)
		}
	}
	_, err := Parse("p.md", []byte("---\nid: p\nremoved: delete\n---\n# P\n\n## Epic e-1: E\n"))
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Field != "removed" || !strings.Contains(pe.Problems[0].Message, `must be "close"`) {
		t.Fatalf("removed: delete = %v", err)
	}
}
