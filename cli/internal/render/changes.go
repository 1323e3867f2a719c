package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core/service"
)

// The changes of a preview row (core.FieldChange), as Terraform shows
// them: "~ field: old → new" on one line when it fits, a set as
// "+added −removed", and a text over several lines as a compact line
// diff (removed lines "- ", added "+ ", context "  ", "…" between hunks,
// the lines not shown counted). A field in conflict (not written) is
// "! field (conflict, not written):" with, when its base is known, what
// the person changed ("in Jira: base → Jira's") and what the document
// wants ("in the document: base → the document's"). Each returned line
// fits avail columns: what does not fit is wrapped between words, never
// cut (the person confirms these values).

// changeLines renders the changes of a row, each line at most avail
// columns; a changed field without a FieldChange is "~ field: changed".
func changeLines(cs *iostreams.ColorScheme, it service.PlanItem, avail int) []string {
	var out []string
	for _, c := range it.Changes {
		out = append(out, changeLine(cs, c, avail)...)
	}
	if len(it.Changes) > 0 {
		for _, f := range undescribed(it) {
			out = append(out, paint(cs.Yellow, wrapLines("~ "+f+": changed", avail, "  "))...)
		}
	}
	return out
}

func changeLine(cs *iostreams.ColorScheme, c service.FieldChange, avail int) []string {
	if c.Conflict {
		if c.Tracker != nil && c.Document != nil {
			out := paint(cs.Red, wrapLines("! "+c.Field+" (conflict, not written):", avail, "  "))
			for _, s := range []struct {
				label string
				side  *service.FieldSide
			}{{"in Jira:", c.Tracker}, {"in the document:", c.Document}} {
				for _, l := range editLines(cs, s.label, c.Base, s.side.To, s.side.Diff, s.side.Added, s.side.Removed, avail-2) {
					out = append(out, "  "+l)
				}
			}
			return out
		}
		return editLines(cs, "! "+c.Field+" (conflict, not written):", c.From, c.To, c.Diff, c.Added, c.Removed, avail)
	}
	return editLines(cs, "~ "+c.Field+":", c.From, c.To, c.Diff, c.Added, c.Removed, avail)
}

// editLines are the lines of one edit under head: a set as "+added
// −removed", a text diff under the head, a short value "from → to" on the
// head's line, else the two values under it.
func editLines(cs *iostreams.ColorScheme, head, from, to, diff string, added, removed []string, avail int) []string {
	switch {
	case len(added) > 0 || len(removed) > 0:
		var parts []string
		for _, v := range added {
			parts = append(parts, "+"+oneLine(v))
		}
		for _, v := range removed {
			parts = append(parts, "−"+oneLine(v))
		}
		return paint(cs.Yellow, wrapLines(head+" "+strings.Join(parts, " "), avail, "  "))
	case diff != "":
		return append(paint(cs.Yellow, wrapLines(head, avail, "  ")), diffLines(cs, diff, avail-2)...)
	}
	from, to = shownValue(from), shownValue(to)
	if inline := head + " " + from + " → " + to; utf8.RuneCountInString(inline) <= avail {
		return []string{cs.Yellow(inline)}
	}
	out := paint(cs.Yellow, wrapLines(head, avail, "  "))
	for _, l := range paint(cs.Red, wrapLines("- "+from, avail-2, "  ")) {
		out = append(out, "  "+l)
	}
	for _, l := range paint(cs.Green, wrapLines("+ "+to, avail-2, "  ")) {
		out = append(out, "  "+l)
	}
	return out
}

// shownValue is a value on one line; an empty one is "(none)".
func shownValue(s string) string {
	if s = oneLine(s); s == "" {
		return "(none)"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// diffLines is a unified diff (core.FieldChange.Diff) as compact lines
// indented by two, each at most avail+2 columns (a long line wrapped).
func diffLines(cs *iostreams.ColorScheme, diff string, avail int) []string {
	var out []string
	hunks := 0
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if l == "" {
			continue
		}
		text := strings.ReplaceAll(l[1:], "\t", "    ")
		switch l[0] {
		case '@':
			if hunks++; hunks > 1 {
				out = append(out, "  "+cs.Gray("…"))
			}
		case '\\':
			out = append(out, indented(paint(cs.Gray, wrapLines("… "+notShown(text), avail, "  ")))...)
		case '-':
			out = append(out, indented(paint(cs.Red, wrapLines("- "+strings.TrimRight(text, " "), avail, "  ")))...)
		case '+':
			out = append(out, indented(paint(cs.Green, wrapLines("+ "+strings.TrimRight(text, " "), avail, "  ")))...)
		default:
			out = append(out, indented(paint(cs.Gray, wrapLines("  "+strings.TrimRight(text, " "), avail, "  ")))...)
		}
	}
	return out
}

// notShown turns the diff's "N more changed lines not shown" into
// "N more changed lines".
func notShown(s string) string {
	f := strings.Fields(s)
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return fmt.Sprintf("%d more changed %s", n, map[bool]string{true: "line", false: "lines"}[n == 1])
		}
	}
	return oneLine(s)
}

// cut shortens s to n runes keeping its spaces (a diff line's indentation
// is part of it).
func cut(s string, n int) string {
	s = strings.TrimRight(s, " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n <= 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}

// undescribed are the changed fields of an update that have no
// core.FieldChange (named only).
func undescribed(it service.PlanItem) []string {
	var out []string
	for _, f := range it.ChangedFields {
		if !slices.ContainsFunc(it.Changes, func(c service.FieldChange) bool { return c.Field == f }) {
			out = append(out, f)
		}
	}
	return out
}

// conflictShown reports whether the row's changes show field's conflict
// (its fields note would say it again).
func conflictShown(it service.PlanItem, field string) bool {
	return slices.ContainsFunc(it.Changes, func(c service.FieldChange) bool { return c.Conflict && c.Field == field })
}

// sidesOnly reports whether every change of the row is a conflict shown
// with both sides (no "Jira → document" change to announce).
func sidesOnly(it service.PlanItem) bool {
	return !slices.ContainsFunc(it.Changes, func(c service.FieldChange) bool { return c.Tracker == nil || c.Document == nil })
}
