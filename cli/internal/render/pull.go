package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// PullPreview renders a pull preview: one row per item that differs
// (pull, conflict, settle, skipped), each changed part with what happens
// to it, the counts, then the document's unified diff.
func PullPreview(w io.Writer, p service.PullPreviewResult, o Options) {
	cs := o.cs()
	fmt.Fprintf(w, "%s\n", cs.Bold(fmt.Sprintf("Pull from Jira into %s (document %s)", p.Path, p.Document)))
	for _, it := range p.Items {
		if it.Action == service.PullActionUnchanged || it.Action == service.PullActionNotImported {
			continue
		}
		color := cs.Cyan
		switch it.Action {
		case service.PullActionPull:
			color = cs.Green
		case service.PullActionConflict, service.PullActionSkipped:
			color = cs.Red
		}
		rest := cut(fmt.Sprintf(" %-8s %s", it.Key, itemLabel(it.Kind, it.Reference, it.Title)), o.width()-11)
		fmt.Fprintln(w, "  "+color(pad(string(it.Action), 9))+rest)
		for _, ch := range it.Changes {
			for _, l := range pullChangeLines(ch) {
				fmt.Fprintln(w, Wrap("      "+l, o.width(), "          "))
			}
		}
	}
	fmt.Fprintln(w, PullCountsLine(p.Counts))
	if p.Diff != "" {
		fmt.Fprintln(w)
		for _, l := range strings.Split(strings.TrimSuffix(p.Diff, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				l = cs.Green(l)
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				l = cs.Red(l)
			case strings.HasPrefix(l, "@@"):
				l = cs.Cyan(l)
			}
			fmt.Fprintln(w, l)
		}
	}
}

// PullPreviewView is PullPreview of p, as a command hands a view over.
func PullPreviewView(p service.PullPreviewResult) func(io.Writer, Options) {
	return func(w io.Writer, o Options) { PullPreview(w, p, o) }
}

// pullChangeLines say what happens to one part.
func pullChangeLines(ch service.PullChange) []string {
	name := core.FieldName(ch.Field)
	switch {
	case ch.Take == service.TakeTracker && ch.Conflict:
		return []string{fmt.Sprintf("~ %s: Jira's value taken (%s); the document had %s", name, quoteShort(ch.Tracker), quoteShort(ch.Document))}
	case ch.Take == service.TakeTracker:
		return []string{fmt.Sprintf("~ %s: %s → %s (changed in Jira)", name, quoteShort(ch.Document), quoteShort(ch.Tracker))}
	case ch.Take == service.TakeDocument:
		return []string{fmt.Sprintf("= %s: the document's %s kept over Jira's %s (the next import writes it)", name, quoteShort(ch.Document), quoteShort(ch.Tracker))}
	case ch.Conflict:
		return []string{fmt.Sprintf("! %s changed on both sides, neither taken:", name), "    document: " + quoteShort(ch.Document), "    Jira:     " + quoteShort(ch.Tracker)}
	}
	return []string{fmt.Sprintf("= %s: the document's change waits for the next import", name)}
}

func quoteShort(s string) string {
	if s == "" {
		return "(empty)"
	}
	return fmt.Sprintf("%q", Truncate(s, 60))
}

// PullCountsLine is the counts of a pull preview.
func PullCountsLine(c service.PullCounts) string {
	parts := []string{fmt.Sprintf("%d to pull", c.Pull), fmt.Sprintf("%d in conflict", c.Conflict)}
	if c.Settle > 0 {
		parts = append(parts, core.Plural(c.Settle, "base", "bases")+" to move")
	}
	parts = append(parts, fmt.Sprintf("%d unchanged", c.Unchanged))
	if c.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d left alone", c.Skipped))
	}
	if c.NotImported > 0 {
		parts = append(parts, fmt.Sprintf("%d not in Jira yet", c.NotImported))
	}
	return strings.Join(parts, " · ")
}

// PullCommit renders a pull commit's result.
func PullCommit(w io.Writer, r service.PullCommitResult, o Options) {
	cs := o.cs()
	var parts []string
	if r.FileWritten {
		parts = append(parts, "wrote "+r.Path)
	}
	if n := len(r.Settled); n > 0 {
		keys := strings.Join(r.Settled[:min(n, 10)], ", ")
		if n > 10 {
			keys += fmt.Sprintf(", … (%d in all)", n)
		}
		parts = append(parts, fmt.Sprintf("Jira records %s as matching the document (%s)", core.Plural(n, "item", "items"), keys))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to write")
	}
	line := Wrap("Pulled: "+strings.Join(parts, "; ")+".", o.width(), "  ")
	fmt.Fprintln(w, cs.Green("Pulled:")+strings.TrimPrefix(line, "Pulled:"))
}
