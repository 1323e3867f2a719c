package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core/plan"
)

// unwrittenWarnings names what the document says that this version parses
// and validates but does not write to the tracker yet: field lines
// (Labels, Priority, …, custom fields), dependencies, sprints and
// sub-tasks. The preview says so, so that nobody confirms a plan believing
// those parts will be written (docs/plan-format.md marks them the same way).
func unwrittenWarnings(doc *plan.Document) []string {
	var out []string
	for _, it := range doc.Items {
		var parts []string
		if names := managedFields(it.Fields); len(names) > 0 {
			parts = append(parts, "the field(s) "+strings.Join(names, ", "))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("%s %s sets %s: this version checks them but does not write them to the tracker yet; they are left as they are there.",
				kindLabel(Kind(it.Kind)), it.ID, strings.Join(parts, " and ")))
		}
	}
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

// managedFields lists the names of the fields f manages, in the order of
// docs/plan-format.md.
func managedFields(f plan.Fields) []string {
	var names []string
	add := func(name string, managed bool) {
		if managed {
			names = append(names, name)
		}
	}
	add("Labels", f.Labels.Managed())
	add("Priority", f.Priority.Managed())
	add("Assignee", f.Assignee.Managed())
	add("Estimate", f.Estimate.Managed())
	add("Components", f.Components.Managed())
	add("Fix versions", f.FixVersions.Managed())
	add("Due", f.Due.Managed())
	custom := slices.Sorted(maps.Keys(f.Custom))
	for _, name := range custom {
		add(name, f.Custom[name].Managed())
	}
	return names
}
