package plan

import "strings"

// The task-list boxes of acceptance criteria (Item.CriteriaBoxes).
const (
	BoxTodo = "[ ]"
	BoxDone = "[x]"
)

// yamlCriterion splits a YAML criterion written with a task-list box
// ("[ ] text", "[x] text") into its text and box, as Markdown's "- [ ]"
// items are.
func yamlCriterion(s string) (string, string) {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && s[0] == '[' && s[2] == ']' && (s[3] == ' ' || s[3] == '\t') {
		switch s[1] {
		case ' ':
			return strings.TrimSpace(s[3:]), BoxTodo
		case 'x', 'X':
			return strings.TrimSpace(s[3:]), BoxDone
		}
	}
	return s, ""
}

// addBox records the box of the criterion just appended to a YAML item.
func (it *rawItem) addBox(box string) {
	n := len(it.AcceptanceCriteria)
	if box == "" && it.CriteriaBoxes == nil {
		return
	}
	for len(it.CriteriaBoxes) < n-1 {
		it.CriteriaBoxes = append(it.CriteriaBoxes, "")
	}
	it.CriteriaBoxes = append(it.CriteriaBoxes, box)
}
