package service

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
)

// The changes of a preview row as data: for an update, each
// field it writes with the tracker's value and the document's; for a
// drift, each field where the tracker (with the person's edits) and the
// document differ. Computed once here, stored with the plan, and rendered
// by each front door (the CLI's tree, --json, the MCP result).
//
// Bounds, so that a 1,000-item plan stays a readable result: From and To
// are cut at MaxChangeValue runes (FieldChange.Truncated says so), and a
// text diff shows at most MaxDiffLines lines (the rest counted on its last
// line).
const (
	MaxChangeValue = 200
	MaxDiffLines   = 24
	// DiffContext is the number of unchanged lines shown around each
	// changed run of a text diff.
	DiffContext = 2
)

// The field names of FieldChange for the content every item has.
const (
	FieldTitle              = "title"
	FieldDescription        = "description"
	FieldAcceptanceCriteria = "acceptance_criteria"
	FieldParent             = "parent"
)

// describeChanges fills the changes of every update and drift entry from
// what the tracker holds (found): an update's ChangedFields, a drift's
// differences between the tracker and the document, and on both the
// fields and content parts in conflict (changed in both, differently: not
// written), each with what the person changed and what the document
// wants when the base value is known. For an item merged part by part
// (contentmerge.go) a drift's changes are its parts in conflict; a part
// or field whose person's change is kept is not written and has no
// change (its Fields row says "kept").
func describeChanges(entries []planEntry, found map[core.Reference]core.WorkItem) {
	for i := range entries {
		e := &entries[i]
		w, ok := found[e.Spec.Reference]
		if !ok {
			continue
		}
		names := e.ChangedFields
		switch e.Action {
		case core.ActionDrift:
			names = nil
			if e.docContent == nil { // drift of the whole item: what differs
				names = changedFields(w, e.Spec)
			}
			if e.Parent != "" && e.Spec.ParentKey == "" && !slices.Contains(names, FieldParent) {
				names = append(names, FieldParent) // the epic is created by this plan
			}
		case core.ActionUpdate:
		default:
			continue
		}
		e.Changes = nil
		for _, f := range names {
			if c, ok := e.change(w, f); ok {
				e.Changes = append(e.Changes, c)
			}
		}
		for _, r := range e.Fields {
			if r.Write != WriteConflict || slices.Contains(names, r.Field) {
				continue
			}
			if c, ok := e.change(w, r.Field); ok {
				c.Conflict = true
				if base, known := baseValue(w, r.Field); known {
					c.Sides = []storedChange{partChange(r.Field, base, e.trackerValues(w, r.Field)), partChange(r.Field, base, e.docValues(r.Field))}
				}
				e.Changes = append(e.Changes, c)
			}
		}
	}
}

// change is the change of one field of e, from the tracker's value to
// the document's (false for a field neither the content nor the
// document's managed fields have).
func (e *planEntry) change(w core.WorkItem, field string) (storedChange, bool) {
	if c, ok := contentChange(w, e, field); ok {
		return c, true
	}
	if _, ok := e.docFields[field]; !ok {
		return storedChange{}, false
	}
	return partChange(field, e.trackerValues(w, field), e.docValues(field)), true
}

// trackerValues are the tracker's values of a content part or managed
// field of w.
func (e *planEntry) trackerValues(w core.WorkItem, field string) []string {
	if isContentKey(field) {
		return contentValues(w.Title, w.Description, w.AcceptanceCriteria)[field]
	}
	return w.Fields[field]
}

// docValues are the document's values of a content part or managed field:
// a managed field's in canonical form, except a single value the document
// writes otherwise than by case (a person's e-mail, not the account id it
// resolves to), which is shown as written.
func (e *planEntry) docValues(field string) []string {
	if isContentKey(field) {
		doc := &e.Spec
		if e.docContent != nil {
			doc = e.docContent
		}
		return contentValues(doc.Title, doc.Description, doc.AcceptanceCriteria)[field]
	}
	v := e.docFields[field].Values
	if wr := e.writtenFields[field].Values; len(v) == 1 && len(wr) == 1 && !strings.EqualFold(v[0], wr[0]) {
		return wr
	}
	return v
}

// partChange is the change of a content part or managed field from one
// value to another: a title or a one-valued field inline, a description or
// criteria as text (one criterion a line), a list field (labels,
// components, fix versions, or any field with more than one value on a
// side) as a set.
func partChange(field string, from, to []string) storedChange {
	switch {
	case field == core.ContentTitle:
		return valueChange(field, strings.Join(from, ""), strings.Join(to, ""))
	case isContentKey(field):
		return textChange(field, strings.Join(from, "\n"), strings.Join(to, "\n"))
	case field == core.FieldLabels || field == core.FieldComponents || field == core.FieldFixVersions || len(from) > 1 || len(to) > 1:
		return listChange(field, from, to)
	}
	return valueChange(field, strings.Join(from, ", "), strings.Join(to, ", "))
}

// contentChange is the change of one content field of e (false for a
// field this function does not know: the managed fields are partChange's).
func contentChange(w core.WorkItem, e *planEntry, field string) (storedChange, bool) {
	switch field {
	case FieldTitle, FieldDescription, FieldAcceptanceCriteria:
		return partChange(field, e.trackerValues(w, field), e.docValues(field)), true
	case FieldParent:
		to := e.Spec.ParentKey
		if to == "" && e.Parent != "" {
			to = string(e.Parent) // the epic this plan creates: its key is not known yet
		}
		return valueChange(field, w.ParentKey, to), true
	}
	return storedChange{}, false
}

// valueChange is the change of a one-line value, bounded.
func valueChange(field, from, to string) storedChange {
	c := storedChange{Field: field}
	var cut1, cut2 bool
	c.Values[0], cut1 = bounded(from)
	c.Values[1], cut2 = bounded(to)
	c.Cut = cut1 || cut2
	return c
}

// textChange is the change of a text that may span lines: bounded values
// and, when either side has more than one line, a line diff.
func textChange(field, from, to string) storedChange {
	c := valueChange(field, from, to)
	if strings.Contains(from, "\n") || strings.Contains(to, "\n") {
		c.Diff = lineDiff(from, to)
	}
	return c
}

// bounded cuts s at MaxChangeValue runes, ending with "…" when cut.
func bounded(s string) (string, bool) {
	if utf8.RuneCountInString(s) <= MaxChangeValue {
		return s, false
	}
	r := []rune(s)
	return string(r[:MaxChangeValue-1]) + "…", true
}

// listChange is the change of a set-valued field (labels, components):
// From and To the values joined by ", ", Added and Removed what the write
// adds and takes away, each in its side's order.
func listChange(field string, from, to []string) storedChange {
	c := valueChange(field, strings.Join(from, ", "), strings.Join(to, ", "))
	var added, removed []string
	for _, v := range to {
		if !slices.Contains(from, v) {
			added = append(added, v)
		}
	}
	for _, v := range from {
		if !slices.Contains(to, v) {
			removed = append(removed, v)
		}
	}
	if added != nil || removed != nil {
		c.Sets = [][]string{added, removed}
	}
	return c
}

// lineDiff is a unified diff (hunks only, no file header) of the lines of
// from and to, with DiffContext lines of context, at most MaxDiffLines
// lines long; when cut, its last line is "\ N more changed lines not
// shown". "" when the texts are equal.
func lineDiff(from, to string) string {
	var out strings.Builder
	if hidden := writeHunks(&out, splitLines(from), splitLines(to), MaxDiffLines); hidden > 0 {
		fmt.Fprintf(&out, "\\ %d more changed lines not shown\n", hidden)
	}
	return out.String()
}

// writeHunks writes the hunks of the unified diff of the lines a and b
// (DiffContext lines of context) to out, at most limit lines of them, and
// returns how many changed lines it left out. The one hunk writer: the
// import's field changes (lineDiff) and the pull's file diff (fileDiff).
func writeHunks(out *strings.Builder, a, b []string, limit int) (hidden int) {
	shown := 0
	for _, h := range hunks(lineOps(a, b)) {
		if shown >= limit {
			hidden += h.changed()
			continue
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", span(h.aStart, h.aLen), span(h.bStart, h.bLen))
		for i, op := range h.ops {
			if shown >= limit {
				hidden += changedOps(h.ops[i:])
				break
			}
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			out.WriteByte('\n')
			shown++
		}
	}
	return hidden
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// span is a hunk range: "start,len" (1-based; start is the line before
// the hunk when it is empty, as diff -u writes it).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lineOp is one line of a diff: ' ' kept, '-' removed, '+' added.
type lineOp struct {
	kind byte
	line string
}

func changedOps(ops []lineOp) int {
	n := 0
	for _, op := range ops {
		if op.kind != ' ' {
			n++
		}
	}
	return n
}

// maxDiffCells bounds the longest-common-subsequence table: beyond it the
// differing middle of the texts is shown as removed and added as a whole.
const maxDiffCells = 1 << 20

// lineOps is an edit script from a to b: the common prefix and suffix
// kept, the middle by a longest common subsequence of its lines.
func lineOps(a, b []string) []lineOp {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ops := make([]lineOp, 0, len(a)+len(b))
	for _, l := range a[:p] {
		ops = append(ops, lineOp{' ', l})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, lineOp{'+', l})
		}
	} else {
		ops = append(ops, lcsOps(ma, mb)...)
	}
	for _, l := range a[len(a)-s:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

// lcsOps diffs a and b by their longest common subsequence (removals
// before additions within a changed run).
func lcsOps(a, b []string) []lineOp {
	n, m := len(a), len(b)
	// l[i][j]: LCS length of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i]})
			i++
			j++
		case j == m || (i < n && l[i+1][j] >= l[i][j+1]):
			ops = append(ops, lineOp{'-', a[i]})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// hunk is a run of changes with its context.
type hunk struct {
	aStart, aLen, bStart, bLen int
	ops                        []lineOp
}

func (h hunk) changed() int { return changedOps(h.ops) }

// hunks groups ops into hunks: changed lines with DiffContext kept lines
// around them; changes closer than twice that share a hunk.
func hunks(ops []lineOp) []hunk {
	var out []hunk
	ai, bi := 0, 0 // line numbers (0-based) before ops[k]
	type pos struct{ a, b int }
	at := make([]pos, len(ops)+1)
	for k, op := range ops {
		at[k] = pos{ai, bi}
		if op.kind != '+' {
			ai++
		}
		if op.kind != '-' {
			bi++
		}
	}
	at[len(ops)] = pos{ai, bi}
	k := 0
	for k < len(ops) {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-DiffContext)
		end := k // one past the last changed op of the hunk
		for j := k; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*DiffContext {
				break
			}
		}
		stop := min(len(ops), end+DiffContext)
		h := hunk{aStart: at[start].a, bStart: at[start].b, ops: ops[start:stop]}
		h.aLen, h.bLen = at[stop].a-at[start].a, at[stop].b-at[start].b
		out = append(out, h)
		k = stop
	}
	return out
}
