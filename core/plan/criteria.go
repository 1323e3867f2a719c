package plan

import "strings"

// The task-list boxes of acceptance criteria (Item.CriteriaBoxes).
const (
	BoxTodo = "[ ]"
	BoxDone = "[x]"
)

// CutBox cuts the task-list box from the start of a criterion, the one
// rule every reader uses (the Markdown and YAML readers here, and the
// pull and the export for the criteria the tracker holds): "[ ]" is
// BoxTodo, "[x]" and "[X]" are BoxDone (as in GitHub's task lists), and
// the box must be followed by a space, a tab or the end of the text.
// Spaces and tabs before and after the box are dropped; the rest is
// returned as it is. Without a box, s comes back unchanged with "".
func CutBox(s string) (rest, box string) {
	t := strings.TrimLeft(s, " \t")
	if len(t) < 3 || t[0] != '[' || t[2] != ']' || (len(t) > 3 && t[3] != ' ' && t[3] != '\t') {
		return s, ""
	}
	switch t[1] {
	case ' ':
		box = BoxTodo
	case 'x', 'X':
		box = BoxDone
	default:
		return s, ""
	}
	return strings.TrimLeft(t[3:], " \t"), box
}

// yamlCriterion splits a YAML criterion written with a task-list box
// ("[ ] text", "[x] text") into its text and box (CutBox), as Markdown's
// "- [ ]" items are.
func yamlCriterion(s string) (string, string) {
	text, box := CutBox(strings.TrimSpace(s))
	return strings.TrimSpace(text), box
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
