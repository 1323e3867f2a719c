package plan

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// What an import does with the items DevWorkWire created under a
// document's id that the document no longer lists (`removed:` in the front
// matter or at the top level of a YAML document).
const (
	// RemovedLeave (the default) shows them as removed and leaves them
	// alone.
	RemovedLeave = "leave"
	// RemovedClose plans a transition of each to done, with a comment.
	RemovedClose = "close"
)

// readRemoved reads `removed: close | leave`.
func (r *result) readRemoved(v *yaml.Node, line int) {
	s, ok := scalar(v)
	switch s = strings.ToLower(strings.TrimSpace(s)); {
	case ok && (s == RemovedClose || s == RemovedLeave):
		r.removed = s
	default:
		r.addf("", "removed", line, "`removed:` (line %d) must be %q (close the items the document no longer lists, with a comment) or %q (show them and leave them alone, the default)", line, RemovedClose, RemovedLeave)
	}
}
