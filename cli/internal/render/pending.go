package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// Pending writes the previews waiting for a person: one block per
// preview (handle, what it writes, who made it, when it expires), newest
// first.
func Pending(w io.Writer, r service.PendingResult, o Options) {
	r = Clean(r)
	width := o.width()
	blocks(w, r.Previews, "No previews are waiting for review in this project.", r.Truncated, fmt.Sprintf("(the first %d; more are waiting)", r.Returned), func(p service.PendingPreview) {
		var what, detail string
		switch {
		case p.Kind == core.PreviewImport && p.Counts != nil:
			what, detail = "import of "+p.Document, CountsLine(*p.Counts)
			if len(p.Documents) > 0 { // a directory
				what = fmt.Sprintf("import of %d documents (%s)", len(p.Documents), strings.Join(p.Documents, ", "))
			}
		case p.Kind == core.PreviewProgress && p.Item != nil:
			var steps []string
			if p.TargetStatus != "" {
				steps = append(steps, "move to "+string(p.TargetStatus))
			}
			if p.Comment {
				steps = append(steps, "add a comment")
			}
			what, detail = "progress of "+p.Item.Key, strings.Join(steps, ", ")
		case p.Kind == core.PreviewPull:
			what, detail = "pull into "+p.Document, p.Writes
		default:
			what = string(p.Kind)
		}
		fmt.Fprintf(w, "%s  %s\n", p.PreviewHandle, Truncate(what, width-len(p.PreviewHandle)-2))
		if detail != "" {
			fmt.Fprintf(w, "  %s\n", Truncate(detail, width-2))
		}
		by := p.MadeBy
		if by == "" {
			by = "unknown"
		}
		fmt.Fprintf(w, "  %s\n", Truncate("by "+by, width-2))
		fmt.Fprintf(w, "  made %s, expires %s\n", FormatTime(p.CreatedAt), FormatTime(p.ExpiresAt))
	})
}

// blocks writes one block a list element (block), a blank line between
// two; none alone for an empty list, and the note after a blank line
// when the list was cut.
func blocks[T any](w io.Writer, list []T, none string, cut bool, note string, block func(T)) {
	if len(list) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	for i, e := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		block(e)
	}
	if cut {
		fmt.Fprintf(w, "\n%s\n", note)
	}
}
