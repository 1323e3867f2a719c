package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// Mermaid writes a plan's graph as a Mermaid flowchart (GitHub, GitLab and
// Confluence render it): epics, stories and sub-tasks as boxes, a parent
// joined to its children by a dotted line, a dependency as an arrow from
// the blocker to what it blocks. With statuses, each box says its status
// and key and is coloured by it (done green, in progress yellow).
func Mermaid(w io.Writer, g service.GraphResult) {
	ids := map[string]string{}
	used := map[string]bool{}
	nodeID := func(id string) string {
		if v, ok := ids[id]; ok {
			return v
		}
		var b strings.Builder
		b.WriteString("n_")
		for _, r := range id {
			if r < 128 && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		v := b.String()
		for n := 2; used[v]; n++ {
			v = fmt.Sprintf("%s_%d", b.String(), n)
		}
		used[v], ids[id] = true, v
		return v
	}
	fmt.Fprintf(w, "flowchart TD\n")
	statuses := false
	for _, n := range g.Nodes {
		statuses = statuses || n.Status != ""
	}
	for _, n := range g.Nodes {
		label := n.ID
		switch {
		case n.Outside:
			// An item outside the document: its key or reference.
		case n.Kind == core.KindEpic:
			label = "Epic " + n.ID + ": " + n.Title
		case n.Kind == core.KindSubtask:
			label = "Sub-task " + n.ID + ": " + n.Title
		default:
			label = "Story " + n.ID + ": " + n.Title
		}
		switch {
		case n.Status != "" && n.Outside:
			label += " (" + string(n.Status) + ")"
		case n.Status != "":
			label += " (" + n.Key + ", " + string(n.Status) + ")"
		}
		open, close := "[", "]"
		switch {
		case n.Outside:
			open, close = "([", "])"
		case n.Kind == core.KindEpic:
			open, close = "[[", "]]"
		}
		fmt.Fprintf(w, "  %s%s\"%s\"%s\n", nodeID(n.ID), open, mermaidText(label), close)
	}
	for _, e := range g.Edges {
		arrow := "-->"
		if e.Kind == service.EdgeParent {
			arrow = "-.-"
		}
		fmt.Fprintf(w, "  %s %s %s\n", nodeID(e.From), arrow, nodeID(e.To))
	}
	if !statuses {
		return
	}
	fmt.Fprintln(w, "  classDef done fill:#d3f9d8,stroke:#2b8a3e")
	fmt.Fprintln(w, "  classDef in_progress fill:#fff3bf,stroke:#e67700")
	fmt.Fprintln(w, "  classDef todo fill:#f1f3f5,stroke:#868e96")
	for _, st := range []core.Status{core.StatusDone, core.StatusInProgress, core.StatusTodo} {
		var in []string
		for _, n := range g.Nodes {
			if n.Status == st {
				in = append(in, nodeID(n.ID))
			}
		}
		if len(in) > 0 {
			fmt.Fprintf(w, "  class %s %s\n", strings.Join(in, ","), st)
		}
	}
}

// mermaidText makes a label safe inside a quoted Mermaid label: quotes and
// the characters Mermaid reads as markup become entity codes, control
// characters spaces.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString("#quot;")
		case r == '#':
			b.WriteString("#35;")
		case r == '<':
			b.WriteString("#lt;")
		case r == '>':
			b.WriteString("#gt;")
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
