package render

import (
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// fieldNotes are a preview row's managed fields: on a create every value
// to set; otherwise the fields written, kept and in conflict (unchanged
// ones are not listed). Each names where the value came from when it is
// not the item itself.
func fieldNotes(it service.PlanItem) []string {
	var set []string
	var n []string
	for _, f := range it.Fields {
		v := f.Value
		if f.Cleared {
			v = "none"
		}
		shown := core.FieldName(f.Field) + ": " + v
		if f.Source != "" && f.Source != "item" {
			shown += " (" + f.Source + ")"
		}
		switch f.Write {
		case "set", "take-document":
			set = append(set, shown)
		case "kept":
			n = append(n, fmt.Sprintf("%s: kept Jira's change (%s); the document still says %s", core.FieldName(f.Field), f.Tracker, v))
		case "conflict":
			if conflictShown(it, f.Field) {
				continue // its change lines say it, with both sides
			}
			n = append(n, fmt.Sprintf("%s: changed in Jira (%s) and in the document (%s): not written", core.FieldName(f.Field), f.Tracker, v))
		}
	}
	if len(set) > 0 && it.Action != core.ActionDrift {
		n = append([]string{"sets " + strings.Join(set, " · ")}, n...)
	}
	for _, f := range it.Fills { // what the tracker requires and dwire fills itself (an epic's Epic Name)
		n = append(n, fmt.Sprintf("fills %s: %s (%s)", f.Field, f.Value, f.Why))
	}
	return n
}
