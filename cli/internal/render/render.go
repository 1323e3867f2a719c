// Package render turns the service's result objects into text for people:
// the import preview tree, progress previews, commit summaries, item lists
// and details. Every view fits the given width (80 columns by default);
// meaning is carried by words, colour is only layered on top. Every view
// passes its data through Clean first: no control sequence from Jira or a
// document reaches the terminal.
package render

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// Options shape a view.
type Options struct {
	Width int                    // columns available; <40 is treated as 40
	CS    *iostreams.ColorScheme // nil → no colour
	// Full shows every row of a large import preview; without it, a
	// preview of more than SummaryRows rows shows the rows that write or
	// need attention and counts the unchanged ones.
	Full bool
}

func (o Options) width() int {
	if o.Width < 40 {
		return 40
	}
	return o.Width
}

func (o Options) cs() *iostreams.ColorScheme {
	if o.CS == nil {
		return &iostreams.ColorScheme{}
	}
	return o.CS
}

// Truncate shortens s to at most n runes, ending with "…" when cut.
func Truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n == 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}

func pad(s string, n int) string {
	if c := utf8.RuneCountInString(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// kindWord is a kind as a list's KIND column spells it: epic, story,
// sub-task.
func kindWord(k core.Kind) string {
	if k == core.KindSubtask {
		return "sub-task"
	}
	return string(k)
}

func itemLabel(k core.Kind, ref core.Reference, title string) string {
	_, id := ref.Split()
	if id == "" {
		return k.Label() + ": " + title
	}
	return k.Label() + " " + id + ": " + title
}

func actionColor(cs *iostreams.ColorScheme, a core.Action, s string) string {
	switch a {
	case core.ActionCreate:
		return cs.Green(s)
	case core.ActionUpdate:
		return cs.Yellow(s)
	case service.ActionAdopt:
		return cs.Cyan(s)
	case core.ActionDrift:
		return cs.Red(s)
	case core.ActionUnchanged, service.ActionRemoved:
		return cs.Gray(s)
	case service.ActionClose:
		return cs.Yellow(s)
	}
	return s
}

// FormatTime renders a time for people: UTC, minutes.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// ImportPreview writes the preview tree: epics with their stories, one line
// each with the action (create / update / unchanged / drift), the Jira key
// when the item exists, and notes for updates and drift; then the counts
// and the handle.
func ImportPreview(w io.Writer, p service.ImportPreviewResult, o Options) {
	p = Clean(p)
	cs := o.cs()
	width := o.width()
	if len(p.Documents) > 0 {
		fmt.Fprintf(w, "Import preview of %s (%d documents) → %s\n\n", cs.Bold(setDir(p.Documents)+"/"), len(p.Documents), p.Scope)
	} else {
		fmt.Fprintf(w, "Import preview of %s → %s\n\n", cs.Bold(p.Document), p.Scope)
	}
	if !o.Full && len(p.Items) > SummaryRows {
		for _, l := range fitParts(fmt.Sprintf("%d items:", len(p.Items)), countParts(p.Counts), width-2) {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintln(w)
	}

	keyW := 0
	for _, it := range p.Items {
		if n := utf8.RuneCountInString(it.Key); n > keyW {
			keyW = n
		}
	}
	if keyW > 0 {
		keyW += 2
	}
	const actionW = 11 // "unchanged" + 2
	lead := 2 + actionW + keyW

	line := func(it service.PlanItem, tree, wrap, cont string) {
		act := pad(string(it.Action), actionW)
		if it.BlockedReason != "" {
			act = pad("held", actionW) // a create this plan does not make
		}
		key := pad(it.Key, keyW)
		// The title, the notes and the changes wrap between words (never
		// cut: the person confirms them); a title continues under itself.
		labelLead := strings.Repeat(" ", lead) + wrap
		label := wrapLines(itemLabel(it.Kind, it.Reference, it.Title), width-utf8.RuneCountInString(labelLead), "")
		fmt.Fprintf(w, "  %s%s%s%s\n", actionColor(cs, it.Action, act), key, tree, label[0])
		for _, l := range label[1:] {
			fmt.Fprintf(w, "%s%s\n", labelLead, l)
		}
		noteLead := strings.Repeat(" ", lead) + cont + "  "
		avail := width - utf8.RuneCountInString(noteLead)
		var lines []string
		for _, n := range notes(it) {
			lines = append(lines, paint(cs.Gray, wrapLines(n, avail, "  "))...)
		}
		lines = append(lines, changeLines(cs, it, avail)...)
		if it.Action == core.ActionDrift {
			lines = append(lines, paint(cs.Gray, wrapLines(`to overwrite, add "Drift: take-document" to the item`, avail, "  "))...)
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%s%s\n", noteLead, l)
		}
	}
	if len(p.Items) == 0 {
		fmt.Fprintln(w, "  (the document has no items)")
	}
	summary := !o.Full && len(p.Items) > SummaryRows
	shown := 0
	for g, group := range documentGroups(p) {
		if len(p.Documents) > 0 { // a directory: each document's rows under its id and file
			if g > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "  %s  %s\n", cs.Bold(p.Documents[g].ID), cs.Gray(Truncate(p.Documents[g].File, width-4-utf8.RuneCountInString(p.Documents[g].ID))))
		}
		items := make([]service.PlanItem, len(group))
		for i, k := range group {
			items[i] = p.Items[k]
		}
		rows := treeOrder(planNodes(items), func(i int) bool { return !summary || needsAttention(items[i]) })
		for _, r := range rows {
			line(items[r.i], r.tree, r.wrap, r.cont)
		}
		shown += len(rows)
	}
	if summary {
		if hidden := len(p.Items) - shown; hidden > 0 {
			fmt.Fprintf(w, "  %s\n", cs.Gray(fmt.Sprintf("… and %d unchanged (--full shows every item)", hidden)))
		}
	}
	structureWrites(w, p.Writes, o, actionW)
	fmt.Fprintln(w)
	for _, l := range fitParts("", countParts(p.Counts), width-2) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if p.PreviewHandle != "" {
		fmt.Fprintf(w, "  Preview %s (expires %s)\n", p.PreviewHandle, FormatTime(p.ExpiresAt))
	}
}

// structureWrites lists the plan's structure writes (dependencies added
// and removed, sprint moves, backlog moves), each one, wrapped: a list of
// the stored plan's writes (service.PlanWrites), so the preview names what
// the commit writes. Without Full, each kind shows up to SummaryRows and
// counts the rest.
func structureWrites(w io.Writer, ws service.PlanWrites, o Options, actionW int) {
	cs, width := o.cs(), o.width()
	shown := map[core.Action]int{}
	first := true
	for _, pw := range ws.Writes {
		switch pw.Action {
		case service.ActionLink, service.ActionUnlink, service.ActionSprint, service.ActionRank:
		default:
			continue // an item's write: a row of the tree
		}
		if !o.Full && shown[pw.Action] == SummaryRows {
			continue
		}
		shown[pw.Action]++
		if first {
			fmt.Fprintln(w)
			first = false
		}
		text := CleanText(pw.Text)
		if pw.Document != "" {
			text = CleanText(pw.Document) + ": " + text // a directory: whose structure
		}
		act := pad(string(pw.Action), actionW)
		line := Wrap("  "+act+text, width, strings.Repeat(" ", actionW))
		fmt.Fprintf(w, "  %s%s\n", cs.Cyan(act), line[2+len(act):])
	}
	for _, c := range ws.Counts {
		if n := c.Count - shown[c.Action]; shown[c.Action] > 0 && n > 0 {
			fmt.Fprintf(w, "  %s\n", cs.Gray(fmt.Sprintf("… and %d more %s writes (--full shows every one)", n, c.Action)))
		}
	}
}

// documentGroups are the indices of p's rows per document of p.Documents
// (in its order), or all rows as one group for a preview of one document.
func documentGroups(p service.ImportPreviewResult) [][]int {
	if len(p.Documents) == 0 {
		all := make([]int, len(p.Items))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	at := map[string]int{}
	for i, d := range p.Documents {
		at[d.ID] = i
	}
	groups := make([][]int, len(p.Documents))
	for i, it := range p.Items {
		g := at[it.Reference.Document()]
		groups[g] = append(groups[g], i)
	}
	return groups
}

// setDir is the directory a preview of several documents was read from
// (the first part of its files' names).
func setDir(docs []service.PlanDocument) string {
	dir, _, _ := strings.Cut(docs[0].File, "/")
	return dir
}

func notes(it service.PlanItem) []string {
	var n []string
	if doc, _ := it.Parent.Split(); it.Parent != "" && doc != it.Reference.Document() {
		n = append(n, "epic "+string(it.Parent)+" (another document)")
	}
	if it.BlockedReason != "" {
		n = append(n, "not created: an earlier create's outcome is unknown and Jira search does not show it yet",
			"preview again after "+FormatTime(it.RetryAfter))
	}
	if it.Released {
		n = append(n, "released: you checked Jira, so it is created",
			"(an earlier create's outcome is unknown: if it", "does exist in Jira, this makes a duplicate)")
	}
	switch {
	case it.Action == core.ActionUpdate && it.TakeDocument:
		n = append(n, "takes the document's version over edits made in Jira")
		fallthrough
	case it.Action == core.ActionUpdate:
		if len(it.ChangedFields) > 0 && len(it.Changes) == 0 {
			n = append(n, "changes: "+strings.Join(it.ChangedFields, ", "))
		}
	case it.Action == service.ActionAdopt:
		n = append(n, "existing issue; the plan writes its reference")
		if len(it.ChangedFields) > 0 && len(it.Changes) == 0 {
			n = append(n, "changes: "+strings.Join(it.ChangedFields, ", "))
		}
	case it.Action == core.ActionDrift && len(it.Changes) > 0 && !sidesOnly(it):
		n = append(n, "edited in Jira since the last import; left alone",
			"differs (Jira → document):")
	case it.Action == core.ActionDrift:
		n = append(n, "edited in Jira since the last import; left alone")
	case it.Action == service.ActionRemoved:
		n = append(n, "no longer in the document: left alone",
			"(\"removed: close\" in the front matter closes it)")
	case it.Action == service.ActionClose:
		n = append(n, fmt.Sprintf("not in the document: closed via %q, with a comment", it.Transition))
	}
	return append(n, fieldNotes(it)...)
}

// CountsLine is "2 to create · 1 to update · 3 unchanged · 1 drift (left alone)".
func CountsLine(c service.Counts) string { return strings.Join(countParts(c), " · ") }

// countParts are the parts of CountsLine.
func countParts(c service.Counts) []string {
	create := fmt.Sprintf("%d to create", c.Create)
	if c.Released > 0 {
		create += fmt.Sprintf(" (%d released)", c.Released)
	}
	parts := []string{
		create,
		fmt.Sprintf("%d to update", c.Update),
		fmt.Sprintf("%d unchanged", c.Unchanged),
	}
	if c.Adopt > 0 {
		parts = append(parts[:2:2], append([]string{fmt.Sprintf("%d to adopt", c.Adopt)}, parts[2:]...)...)
	}
	if c.Drift > 0 {
		parts = append(parts, fmt.Sprintf("%d drift (left alone)", c.Drift))
	}
	if c.Blocked > 0 {
		parts = append(parts, fmt.Sprintf("%d held back", c.Blocked))
	}
	if c.Structure > 0 {
		parts = append(parts, core.Plural(c.Structure, "structure write", "structure writes"))
	}
	if c.Close > 0 {
		parts = append(parts, fmt.Sprintf("%d to close (no longer in the document)", c.Close))
	}
	if c.Removed > 0 {
		parts = append(parts, fmt.Sprintf("%d removed (left alone)", c.Removed))
	}
	return parts
}

// fitParts joins head and parts with " · " into lines of at most width
// columns, breaking only between parts (head starts the first line).
func fitParts(head string, parts []string, width int) []string {
	var lines []string
	cur := head
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case cur == head:
			cur += " " + p
		case utf8.RuneCountInString(cur+" · "+p) > width:
			lines = append(lines, cur+" ·")
			cur = p
		default:
			cur += " · " + p
		}
	}
	return append(lines, cur)
}

// Writes reports whether committing the preview would write anything.
func Writes(c service.Counts) bool { return c.Create+c.Update+c.Adopt+c.Structure+c.Close > 0 }

// structureWritten says which structure writes a commit made (they are
// not items: the counts of items do not hold them); none when it made none.
func structureWritten(c service.CommitCounts) []string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{
		{c.Linked, "dependency link added", "dependency links added"},
		{c.Unlinked, "dependency link removed", "dependency links removed"},
		{c.Sprinted, "item moved into a sprint", "items moved into a sprint"},
		{c.Ranked, "item placed in the backlog order", "items placed in the backlog order"},
	} {
		if p.n > 0 {
			parts = append(parts, core.Plural(p.n, p.one, p.many))
		}
	}
	return parts
}

// ImportCommit writes the summary of a committed import: the counts, then
// the items written (and those whose create is unknown) in the preview's
// tree order — the first ShownWritten with their links, the rest counted
// and then one link to a Jira search of everything written.
func ImportCommit(w io.Writer, r service.ImportCommitResult, o Options) {
	r = Clean(r)
	cs := o.cs()
	width := o.width()
	c := r.Counts
	head := fmt.Sprintf("Committed: %d created, %d updated, %d unchanged", c.Created, c.Updated, c.Unchanged)
	if c.Adopted > 0 {
		head = fmt.Sprintf("Committed: %d created, %d adopted, %d updated, %d unchanged", c.Created, c.Adopted, c.Updated, c.Unchanged)
	}
	if c.Drift > 0 {
		head += fmt.Sprintf(", %d drift left alone", c.Drift)
	}
	if c.Unknown > 0 {
		head += fmt.Sprintf(", %d not created (an earlier create's outcome is unknown)", c.Unknown)
	}
	if c.Closed > 0 {
		head += fmt.Sprintf(", %d closed", c.Closed)
	}
	if c.Removed > 0 {
		head += fmt.Sprintf(", %d removed left alone", c.Removed)
	}
	fmt.Fprintln(w, cs.Green(head)+".")
	if st := structureWritten(c); len(st) > 0 {
		for _, l := range fitParts("Structure:", st, width-2) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if r.Replayed {
		fmt.Fprintln(w, "  (This commit had already run; its result is shown again and nothing new was written.)")
	}
	keyW := 0
	for _, it := range r.Items {
		if n := utf8.RuneCountInString(it.Key); n > keyW {
			keyW = n
		}
	}
	several := false // items of several documents (a directory)
	for _, it := range r.Items {
		several = several || it.Reference.Document() != r.Items[0].Reference.Document()
	}
	wrote := func(it service.CommittedItem) bool { return it.Outcome == core.OutcomeCommitted }
	var written []service.CommittedItem
	for _, it := range r.Items {
		if wrote(it) {
			written = append(written, it)
		}
	}
	// The first ShownWritten written items, and every unknown one.
	shown, more := map[int]bool{}, 0
	for _, row := range treeOrder(commitNodes(r.Items), func(int) bool { return true }) {
		switch it := r.Items[row.i]; {
		case wrote(it) && len(shown) < ShownWritten, it.Outcome == core.OutcomeUnknown:
			shown[row.i] = true
		case wrote(it):
			more++
		}
	}
	for _, row := range treeOrder(commitNodes(r.Items), func(i int) bool { return shown[i] }) {
		it := r.Items[row.i]
		word := outcomeWord(it)
		if !shown[row.i] {
			word = "" // an epic shown as its stories' context
		}
		label := itemLabel(it.Kind, it.Reference, it.Title)
		if several {
			label = it.Kind.Label() + " " + string(it.Reference) + ": " + it.Title // ids repeat across documents
		}
		// The title wraps between words (continued under itself), as in
		// the preview.
		wrapLead := "  " + strings.Repeat(" ", 11+keyW+2) + row.wrap
		contLead := "  " + strings.Repeat(" ", 11+keyW+2) + row.cont
		lines := wrapLines(label, width-utf8.RuneCountInString(wrapLead), "")
		fmt.Fprintf(w, "  %s%s  %s%s\n", actionColor(cs, it.Action, pad(word, 11)), pad(it.Key, keyW), row.tree, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", wrapLead, l)
		}
		if it.URL != "" && shown[row.i] && wrote(it) {
			fmt.Fprintf(w, "%s%s\n", contLead, cs.Cyan(it.URL))
		}
	}
	if more > 0 {
		fmt.Fprintf(w, "  %s\n", cs.Gray(fmt.Sprintf("… and %d more written", more)))
	}
	if more > 0 { // (when every written item is listed, each has its link)
		if link := SearchLink(written); link != "" {
			fmt.Fprintf(w, "  All %d written: %s\n", len(written), cs.Cyan(link))
		}
	}
	fmt.Fprintf(w, "  run %s\n", r.RunID)
}

func outcomeWord(it service.CommittedItem) string {
	if it.Outcome == core.OutcomeUnknown {
		return "unknown"
	}
	switch it.Action {
	case core.ActionCreate:
		return "created"
	case core.ActionUpdate:
		return "updated"
	case service.ActionAdopt:
		return "adopted"
	case core.ActionDrift:
		return "drift"
	case core.ActionUnchanged:
		return "unchanged"
	case service.ActionClose:
		return "closed"
	case service.ActionRemoved:
		return "removed"
	}
	return it.Outcome
}

// ProgressPreview writes what a progress commit would do.
func ProgressPreview(w io.Writer, p service.ProgressPreviewResult, o Options) {
	p = Clean(p)
	cs := o.cs()
	width := o.width()
	fmt.Fprintf(w, "Progress preview of %s\n", Truncate(p.Item.Key+": "+p.Item.Title, width-20))
	if p.Item.Reference != "" {
		fmt.Fprintf(w, "  reference  %s\n", p.Item.Reference)
	}
	switch {
	case p.TargetStatus == "":
		fmt.Fprintf(w, "  status     %s (unchanged)\n", p.CurrentStatus)
	case p.TargetStatus == p.CurrentStatus:
		fmt.Fprintf(w, "  status     %s (already; no transition)\n", p.CurrentStatus)
	default:
		via := ""
		if p.Transition != "" {
			via = fmt.Sprintf(" via %q", p.Transition)
		}
		fmt.Fprintf(w, "  status     %s → %s%s\n", p.CurrentStatus, cs.Yellow(string(p.TargetStatus)), via)
		for _, set := range p.TransitionSets {
			fmt.Fprintf(w, "  sets       %s\n", Truncate(set, width-13))
		}
	}
	if p.Comment != "" {
		lines := strings.Split(strings.TrimSpace(p.Comment), "\n")
		for i, l := range lines {
			if i == 5 {
				fmt.Fprintf(w, "             … (%d more lines)\n", len(lines)-5)
				break
			}
			lbl := "             "
			if i == 0 {
				lbl = "  comment    "
			}
			fmt.Fprintf(w, "%s%s\n", lbl, Truncate(l, width-13))
		}
	}
	if p.PreviewHandle != "" {
		fmt.Fprintf(w, "\n  Preview %s (expires %s)\n", p.PreviewHandle, FormatTime(p.ExpiresAt))
	}
}

// ProgressCommit writes the summary of a committed progress report.
func ProgressCommit(w io.Writer, r service.ProgressCommitResult, o Options) {
	r = Clean(r)
	cs := o.cs()
	var did []string
	if r.Transitioned {
		did = append(did, "moved to "+string(r.Status))
	}
	if r.CommentAdded {
		did = append(did, "comment added")
	}
	if len(did) == 0 {
		did = append(did, "nothing to change")
	}
	fmt.Fprintf(w, "%s %s.\n", cs.Green("Committed: "+r.Item.Key), strings.Join(did, ", "))
	if r.Replayed {
		fmt.Fprintln(w, "  (This commit had already run; nothing new was written.)")
	}
	if r.Item.URL != "" {
		fmt.Fprintf(w, "  %s\n", cs.Cyan(r.Item.URL))
	}
	fmt.Fprintf(w, "  run %s\n", r.RunID)
}

// List writes a query result as a table: key, status, kind, title.
func List(w io.Writer, r service.QueryResult, o Options) {
	r = Clean(r)
	width := o.width()
	if len(r.Items) == 0 {
		fmt.Fprintln(w, "No work items match.")
		return
	}
	keyW := len("KEY")
	for _, it := range r.Items {
		if n := utf8.RuneCountInString(it.Key); n > keyW {
			keyW = n
		}
	}
	keyW += 2
	const statusW = 13
	kindW := len("KIND")
	for _, it := range r.Items {
		kindW = max(kindW, utf8.RuneCountInString(kindWord(it.Kind)))
	}
	kindW += 2 // a gap before TITLE
	titleW := width - keyW - statusW - kindW
	fmt.Fprintf(w, "%s%s%s%s\n", pad("KEY", keyW), pad("STATUS", statusW), pad("KIND", kindW), "TITLE")
	for _, it := range r.Items {
		title := it.Title
		if it.Removed {
			title = "(removed from the document) " + title
		}
		fmt.Fprintf(w, "%s%s%s%s\n", pad(it.Key, keyW), pad(string(it.Status), statusW), pad(kindWord(it.Kind), kindW), Truncate(title, titleW))
	}
}

// hangingRow writes label then text wrapped between words within width,
// its further lines starting under the text's first.
func hangingRow(w io.Writer, label, text string, width int) {
	at := utf8.RuneCountInString(label)
	for i, l := range strings.Split(Wrap(text, width-at, ""), "\n") {
		if i > 0 {
			label = strings.Repeat(" ", at)
		}
		fmt.Fprintf(w, "%s%s\n", label, l)
	}
}

// Item writes one work item in full.
func Item(w io.Writer, v service.ItemView, o Options) {
	v = Clean(v)
	cs := o.cs()
	width := o.width()
	fmt.Fprintf(w, "%s  %s\n", cs.Bold(v.Key), Truncate(v.Title, width-utf8.RuneCountInString(v.Key)-2))
	row := func(k, val string) {
		if val != "" {
			fmt.Fprintf(w, "  %-11s%s\n", k, Truncate(val, width-13))
		}
	}
	row("kind", string(v.Kind))
	status := string(v.Status)
	if v.StatusName != "" {
		status += " (" + v.StatusName + ")"
	}
	row("status", status)
	row("reference", string(v.Reference))
	if v.Removed {
		row("plan", "removed: its planning document no longer lists it")
	}
	if v.Epic != nil {
		row("epic", v.Epic.Key+" "+v.Epic.Title)
	}
	if v.Story != nil {
		row("story", v.Story.Key+" "+v.Story.Title)
	}
	row("sprint", v.Sprint)
	row("url", v.URL)
	if !v.Updated.IsZero() {
		row("updated", FormatTime(v.Updated))
	}
	// Each linked item on its own line: key, title and status, wrapped
	// under the first line rather than cut.
	for _, l := range []struct {
		name  string
		items []core.Linked
	}{{"blocked by", v.BlockedBy}, {"blocks", v.Blocks}, {"sub-tasks", v.Subtasks}} {
		for i, x := range l.items {
			name := ""
			if i == 0 {
				name = l.name
			}
			text := x.Key + " " + x.Title + " (" + string(x.Status) + ")"
			if x.Title == "" {
				text = x.Key + " (" + string(x.Status) + ")"
			}
			hangingRow(w, "  "+pad(name, 11), text, width)
		}
	}
	if len(v.Fields) > 0 {
		// The managed fields, as the plan format names them.
		fmt.Fprintln(w, "  fields")
		nameW := 0
		for _, f := range v.Fields {
			nameW = max(nameW, utf8.RuneCountInString(core.FieldName(f.Field)))
		}
		nameW += 2
		for _, f := range v.Fields {
			value := f.Value
			if f.Shown != "" {
				value = f.Shown // a person by name, then id
			}
			hangingRow(w, "    "+pad(core.FieldName(f.Field), nameW), value, width)
		}
	}
	if len(v.Children) > 0 {
		fmt.Fprintln(w, "  stories")
		for _, c := range v.Children {
			fmt.Fprintf(w, "    %s  %s\n", c.Key, Truncate(c.Title, width-6-utf8.RuneCountInString(c.Key)))
		}
	}
	if d := strings.TrimSpace(v.Description); d != "" {
		fmt.Fprintln(w, "\n  Description")
		for _, l := range strings.Split(d, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if len(v.AcceptanceCriteria) > 0 {
		fmt.Fprintln(w, "\n  Acceptance criteria")
		for _, a := range v.AcceptanceCriteria {
			fmt.Fprintf(w, "    - %s\n", a)
		}
	}
}
