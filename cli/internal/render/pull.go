package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
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
			for _, l := range pullChangeLines(cs, ch, o.width()-6) {
				fmt.Fprintln(w, "      "+l)
			}
		}
	}
	fmt.Fprintln(w, PullCountsLine(p.Counts))
	if hint := resolveHint(p); hint != "" {
		fmt.Fprintln(w, Wrap(hint, o.width(), ""))
	}
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

// pullChangeLines say what happens to one part, as the import preview
// shows a change (changeLine): the field as the import names it, values
// unquoted ("(none)" when empty), "from → to" on one line when it fits,
// else each value wrapped on its own line, never cut. "~" is what the
// file takes from Jira (document → Jira's); "=" what stays in the
// document; "!" a conflict, with both sides.
func pullChangeLines(cs *iostreams.ColorScheme, ch service.PullChange, avail int) []string {
	switch {
	case ch.Take == service.TakeTracker && ch.Conflict:
		return editLines(cs, "~ "+ch.Field+" (conflict, Jira's taken):", ch.Document, ch.Tracker, "", nil, nil, avail)
	case ch.Take == service.TakeTracker:
		return editLines(cs, "~ "+ch.Field+":", ch.Document, ch.Tracker, "", nil, nil, avail)
	case ch.Take == service.TakeDocument:
		// The document's value stays; the next import writes it over
		// Jira's: that write is Jira's → the document's.
		return editLines(cs, "= "+ch.Field+" (conflict, the document's kept; the next import writes it):", ch.Tracker, ch.Document, "", nil, nil, avail)
	case ch.Conflict:
		out := paint(cs.Red, wrapLines("! "+ch.Field+" (conflict, neither taken):", avail, "  "))
		for _, side := range []string{"in the document: " + shownValue(ch.Document), "in Jira: " + shownValue(ch.Tracker)} {
			out = append(out, indented(wrapLines(side, avail-2, "  "))...)
		}
		return out
	}
	return wrapLines("= "+ch.Field+": the document's change waits for the next import", avail, "  ")
}

// maxHinted bounds the items a conflict hint names; past it, "all".
const maxHinted = 5

// resolveHint says how to resolve the conflicts of a pull preview: the
// command with --take-jira and --take-document and the items in conflict
// (or all, past maxHinted); "" without a conflict.
func resolveHint(p service.PullPreviewResult) string {
	var ids []string
	for _, it := range p.Items {
		if it.Action == service.PullActionConflict {
			_, id := it.Reference.Split()
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	items := strings.Join(ids, ",")
	if len(ids) > maxHinted {
		items = "all"
	}
	return fmt.Sprintf("To resolve: `dwire pull %s --take-jira %s` writes Jira's values into the document; `--take-document %s` keeps the document's (the next import writes them). Choose per item (ids, comma-separated) or all.",
		p.Path, items, items)
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
