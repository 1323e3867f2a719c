package service

import (
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core/plan"
)

// unwrittenWarnings names what the document says that this version parses
// and validates but does not write to the tracker: sub-tasks kept apart
// from the plan. (Field lines are written (fields.go), and so are
// dependencies and sprints (structure.go).) The preview says so, so that
// nobody confirms a plan believing those parts will be written
// (docs/plan-format.md marks them the same way).
func unwrittenWarnings(doc *plan.Document) []string {
	var out []string
	if n := len(doc.Subtasks); n > 0 {
		ids := make([]string, 0, min(n, 5))
		for _, st := range doc.Subtasks[:min(n, 5)] {
			ids = append(ids, st.ID+" (story "+st.Story+")")
		}
		more := ""
		if n > 5 {
			more = fmt.Sprintf(" and %d more", n-5)
		}
		out = append(out, fmt.Sprintf("%d sub-task(s) — %s%s — are checked but not written to the tracker by this version: they are not part of this plan.", n, strings.Join(ids, ", "), more))
	}
	return out
}
