package plan

import (
	"errors"
	"strings"
	"testing"
)

func TestKeyLineAdopts(t *testing.T) {
	md := "---\nid: adopt\n---\n## Epic e-1: Checkout\nKey: PROJ-12\nLabels: pay\n\n### Story s-1: Pay\nkey: proj-13\n\nKey: the main point is prose\n\n#### Sub-task t-1: Wire\nKey: PROJ-14\n"
	doc := mustParse(t, "plan.md", md)
	got := map[string]string{}
	for _, it := range append(doc.Items, doc.Subtasks...) {
		got[it.ID] = it.Key
	}
	want := map[string]string{"e-1": "PROJ-12", "s-1": "PROJ-13", "t-1": "PROJ-14"}
	for id, k := range want {
		if got[id] != k {
			t.Errorf("%s: Key = %q, want %q", id, got[id], k)
		}
	}
	if s := doc.Items[1]; !strings.Contains(s.Description, "Key: the main point is prose") {
		t.Errorf("a Key: line with spaces after the field block is description; got %q", s.Description)
	}
	if e := doc.Items[0]; strings.Contains(e.Description, "PROJ-12") || e.KeyLine != 5 {
		t.Errorf("the Key line is not description and records its line; got %q, line %d", e.Description, e.KeyLine)
	}

	y := "id: adopt\nepics:\n  - id: e-1\n    title: Checkout\n    key: PROJ-12\n    stories:\n      - id: s-1\n        title: Pay\n        key: PROJ-13\n        subtasks:\n          - id: t-1\n            title: Wire\n            key: PROJ-14\n"
	ydoc := mustParse(t, "plan.yaml", y)
	for _, it := range append(ydoc.Items, ydoc.Subtasks...) {
		if it.Key != want[it.ID] {
			t.Errorf("YAML %s: Key = %q, want %q", it.ID, it.Key, want[it.ID])
		}
	}
}

func TestKeyProblems(t *testing.T) {
	md := "## Epic e-1: A\nKey: PROJ-12\n\n## Story s-1: B\nKey: PROJ-12\n\n## Story s-2: C\nKey: 12\n\n## Story s-3: D\nKey: PROJ-1\nKey: PROJ-2\n\n## Story s-4: E\nKey:\n"
	_, err := Parse("plan.md", []byte(md))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed {
		t.Fatalf("got %v, want VALIDATION_FAILED", err)
	}
	want := map[string]string{
		"s-1": "Story s-1 adopts PROJ-12 at line 5, which Epic e-1 adopts already (line 2)",
		"s-2": `Story s-2 has "Key: 12" at line 8, which is not a Jira issue key`,
		"s-3": "Story s-3 has two Key lines (lines 11 and 12)",
		"s-4": `Story s-4 has "Key:" with no issue key at line 15`,
	}
	for _, p := range pe.Problems {
		if w, ok := want[p.Item]; ok && strings.Contains(p.Message, w) && p.Field == "key" {
			delete(want, p.Item)
		}
	}
	for id, w := range want {
		t.Errorf("no problem for %s containing %q; got %+v", id, w, pe.Problems)
	}

	y := "stories:\n  - id: s-1\n    title: A\n    key: [PROJ-1]\n  - id: s-2\n    title: B\n    key: nope\n"
	_, err = Parse("plan.yaml", []byte(y))
	if !errors.As(err, &pe) || len(pe.Problems) != 2 {
		t.Fatalf("YAML: got %v, want 2 problems", err)
	}
}
