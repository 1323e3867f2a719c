package plan_test

import (
	"strconv"
	"testing"

	"github.com/devworkwire/devworkwire/core/plan"
)

// One rule reads a criterion's task-list box, whichever reader: "[ ]",
// "[x]" and "[X]" followed by a space, a tab or the end; anything else is
// text. A Markdown list item and a YAML criterion read alike.
func TestCutBox(t *testing.T) {
	for _, c := range []struct{ in, text, box string }{
		{"[ ] todo", "todo", plan.BoxTodo},
		{"[x] done", "done", plan.BoxDone},
		{"[X] done", "done", plan.BoxDone},
		{"[x]\tdone", "done", plan.BoxDone},
		{"[ ]   spaced", "spaced", plan.BoxTodo},
		{"  [x] indented", "indented", plan.BoxDone},
		{"[x]", "", plan.BoxDone},
		{"[x]done", "[x]done", ""},
		{"[-] other", "[-] other", ""},
		{"[xx] two", "[xx] two", ""},
		{"plain", "plain", ""},
	} {
		if text, box := plan.CutBox(c.in); text != c.text || box != c.box {
			t.Errorf("CutBox(%q) = %q, %q; want %q, %q", c.in, text, box, c.text, c.box)
		}
		if c.text == "" {
			continue // an empty criterion: an error in either format
		}
		md, err := plan.Parse("p.md", []byte("# P\n\n## Story s-1: S\nAcceptance criteria:\n- "+c.in+"\n"))
		if err != nil {
			t.Fatalf("%q in Markdown: %v", c.in, err)
		}
		y, err := plan.Parse("p.yaml", []byte("id: p\nstories:\n  - id: s-1\n    title: S\n    acceptance_criteria:\n      - "+strconv.Quote(c.in)+"\n"))
		if err != nil {
			t.Fatalf("%q in YAML: %v", c.in, err)
		}
		for name, it := range map[string]plan.Item{"Markdown": md.Items[0], "YAML": y.Items[0]} {
			box := ""
			if len(it.CriteriaBoxes) > 0 {
				box = it.CriteriaBoxes[0]
			}
			if it.AcceptanceCriteria[0] != c.text || box != c.box {
				t.Errorf("%q in %s reads as %q, %q; want %q, %q", c.in, name, it.AcceptanceCriteria[0], box, c.text, c.box)
			}
		}
	}
}
