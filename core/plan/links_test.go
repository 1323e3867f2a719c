package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDependencies: what each entry names, and the refusals.
func TestDependencies(t *testing.T) {
	src := "---\nid: doc\n---\n" +
		"## Story s-1: One\nDepends on: PROJ-120, other/s-9, doc/s-2\n\n" +
		"## Story s-2: Two\nBlocks: AB-1\n\n" +
		"## Story AB-1: A local id shaped like a key\n"
	d := mustParse(t, "p.md", src)
	want := []Link{{LinkKey, "PROJ-120", 5}, {LinkReference, "other/s-9", 5}, {LinkItem, "s-2", 5}}
	if diff := cmp.Diff(want, d.Items[0].DependsOn); diff != "" {
		t.Errorf("s-1 DependsOn (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Link{{LinkItem, "AB-1", 8}}, d.Items[1].Blocks); diff != "" {
		t.Errorf("s-2 Blocks: a defined id wins over a key (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name, src string
		want      []string // one message fragment per problem, in order
	}{
		{"undefined", "## Story s-3: T\nDepends on: s-9\n", []string{"Story s-3 depends on s-9, which is not defined in this document"}},
		{"self", "## Story s-1: T\nBlocks: s-1\n", []string{"Story s-1 blocks itself (line 2)"}},
		{"self by reference", "---\nid: d\n---\n## Story s-1: T\nDepends on: d/s-1\n", []string{"Story s-1 depends on itself"}},
		{"two-cycle", "## Story s-1: A\nDepends on: s-2\n\n## Story s-2: B\nDepends on: s-1\n", []string{"dependency cycle: s-1 → s-2 → s-1"}},
		{"cycle through blocks", "## Story s-1: A\nBlocks: s-2\n\n## Story s-2: B\nBlocks: s-3\n\n## Story s-3: C\nBlocks: s-1\n", []string{"dependency cycle: s-1 → s-3 → s-2 → s-1"}},
		{"two cycles, all at once", "## Story a: A\nDepends on: b\n\n## Story b: B\nDepends on: a\n\n## Story c: C\nDepends on: d, zz\n\n## Story d: D\nDepends on: c\n",
			[]string{"cycle: a → b → a", "c depends on zz, which is not defined", "cycle: c → d → c"}},
		{"bad entries", "## Story s-1: T\nDepends on: a b, x/y/z, ,\n", []string{`"a b"`, `"x/y/z"`, "empty entry", "empty entry"}},
		{"two lines", "## Story s-1: T\nDepends on: s-2\nDepends on: s-3\n\n## Story s-2: U\n\n## Story s-3: V\n", []string{"two Depends on lines (lines 2 and 3)"}},
		{"sub-task depends on undefined", "## Story s-1: T\n\n#### Sub-task t-1: U\nDepends on: t-9\n", []string{"Sub-task t-1 depends on t-9, which is not defined"}},
		{"yaml", "stories:\n  - id: s-1\n    title: T\n    depends_on: [s-2]\n  - id: s-2\n    title: U\n    depends_on: s-1\n", []string{"cycle: s-1 → s-2 → s-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe, err := parseSource(tc.src)
			if pe == nil || pe.Code != CodeValidationFailed {
				t.Fatalf("got %v, want VALIDATION_FAILED", err)
			}
			if len(pe.Problems) != len(tc.want) {
				t.Fatalf("%d problems, want %d: %+v", len(pe.Problems), len(tc.want), pe.Problems)
			}
			for i, w := range tc.want {
				if !strings.Contains(pe.Problems[i].Message, w) {
					t.Errorf("problem %d %q does not contain %q", i, pe.Problems[i].Message, w)
				}
			}
		})
	}
}

// TestSubtasks: sub-tasks sit in Document.Subtasks (Items, which the
// import writes, keeps only epics and stories), with their own section.
func TestSubtasks(t *testing.T) {
	src := "## Story s-1: Story\nIntro.\n\n#### Sub-task t-1: First\nEstimate: 2\nIts text.\n\n#### Acceptance criteria\n- done\n\n#### Subtask t-2: Second\n\n##### Deep heading stays in t-2\n\n#### Notes\nStory text again.\n\n## Story s-2: Next\n"
	d := mustParse(t, "p.md", src)
	if len(d.Items) != 2 || len(d.Subtasks) != 2 {
		t.Fatalf("items %d, sub-tasks %d", len(d.Items), len(d.Subtasks))
	}
	if got := d.Items[0].Description; got != "Intro.\n\n#### Notes\nStory text again." {
		t.Errorf("story description %q", got)
	}
	t1, t2 := d.Subtasks[0], d.Subtasks[1]
	if t1.Story != "s-1" || t1.Kind != KindSubtask || t1.Description != "Its text." || !cmp.Equal(t1.AcceptanceCriteria, []string{"done"}) || t1.Fields.Estimate.Value != 2 {
		t.Errorf("t-1 = %+v", t1)
	}
	if t2.Story != "s-1" || t2.Description != "##### Deep heading stays in t-2" {
		t.Errorf("t-2 = %+v", t2)
	}
	// Ids are unique across items and sub-tasks.
	_, err := Parse("p.md", []byte("## Story s-1: A\n\n#### Sub-task s-1: B\n"))
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Problems[0].Message, "Sub-task s-1 at line 3 has the same id as the story at line 1") {
		t.Errorf("duplicate id: %v", err)
	}
}

// A long dependency cycle is one short problem: its first and last items,
// how many are left out between them, and its length.
func TestLongCycleIsShownShort(t *testing.T) {
	const n = 10000
	var b strings.Builder
	b.WriteString("---\nid: chain\n---\n")
	for i := 1; i <= n; i++ {
		next := i%n + 1
		fmt.Fprintf(&b, "## Story s-%d: S%d\nDepends on: s-%d\n\n", i, i, next)
	}
	_, err := Parse("chain.md", []byte(b.String()))
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 1 {
		t.Fatalf("Parse: %v; want one cycle problem", err)
	}
	msg := pe.Problems[0].Message
	if len(msg) > 600 || !strings.Contains(msg, "a cycle of 10000 items") || !strings.Contains(msg, fmt.Sprintf("… %d more …", n+1-MaxCycleShown)) || !strings.HasPrefix(msg, "Story s-1 is part of a dependency cycle: s-1 → s-2 → ") || !strings.Contains(msg, "→ s-1 (a cycle") {
		t.Errorf("%d-byte problem %q; want the cycle's ends, how many are left out and its length", len(msg), msg)
	}
	if len(pe.Message) > 1000 {
		t.Errorf("the error's message is %d bytes", len(pe.Message))
	}
}
