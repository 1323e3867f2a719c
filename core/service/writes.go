package service

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// The full list of writes of a stored plan: what a person is asked to
// confirm, whichever front door asks. It is built from the stored plan
// itself — the entries the commit writes (planEntry.writes) and the
// structure rows it writes them from (docStructure.rows) — so the
// question and the commit cannot disagree: the commit executes exactly
// that plan (its digest is checked), and makes no write that is not in
// this list.

// The actions of a pull's writes (PlannedWrite.Action).
const (
	WriteFile   core.Action = "file"   // the planning document rewritten
	WriteRecord core.Action = "record" // DevWorkWire's record (the base) on an item moved forward
)

// PlannedWrite is one write a commit of a stored plan makes.
type PlannedWrite struct {
	// Action is the write's kind: create, update, adopt, close (items);
	// link, unlink, sprint, rank (structure); file, record (a pull).
	Action core.Action `json:"action"`
	// Document is, in a plan of several documents, the document it
	// belongs to.
	Document string `json:"document,omitempty"`
	// Item is the item it is about as the document names it (an id, a
	// reference, or a key); Key the item's tracker key when it exists.
	Item string `json:"item,omitempty"`
	Key  string `json:"key,omitempty"`
	// Text says what is written, in words, without the action: `story
	// s-2 "Pay" (DEMO-4)`, "s-2 depends on s-1: s-2 is blocked by s-1".
	Text string `json:"text"`
	// Released marks the create of a held-back item the person released
	// (PlanItem.Released): a duplicate if the item does exist.
	Released bool `json:"released,omitempty"`

	// outcome is the reference under which the commit records the
	// write's outcome (an item's reference, or a structure row's).
	outcome core.Reference
}

// WriteCount is how many writes of one action a plan makes.
type WriteCount struct {
	Action core.Action `json:"action"`
	Count  int         `json:"count"`
	// Text is the count in words: "create 2 items", "add 1 dependency
	// link".
	Text string `json:"text"`
}

// PlanWrites is every write a commit of a stored plan makes, in commit
// order, with the counts by action (in the same order, none zero).
type PlanWrites struct {
	Total  int            `json:"total"`
	Counts []WriteCount   `json:"counts"`
	Writes []PlannedWrite `json:"writes"`
}

// Summary is the counts in words: "5 writes: adopt 1 existing issue,
// create 1 item, add 2 dependency links, move 1 item into a sprint"; "no
// writes" when there are none.
func (w PlanWrites) Summary() string {
	if w.Total == 0 {
		return "no writes"
	}
	parts := make([]string, len(w.Counts))
	for i, c := range w.Counts {
		parts[i] = c.Text
	}
	return fmt.Sprintf("%s: %s", core.Plural(w.Total, "write", "writes"), strings.Join(parts, ", "))
}

// writeActions are the actions of writes in the order a commit makes
// them, with the words of their counts.
var writeActions = []struct {
	a         core.Action
	one, many string
	verb      string
}{
	{ActionAdopt, "existing issue", "existing issues", "adopt"},
	{core.ActionCreate, "item", "items", "create"},
	{core.ActionUpdate, "item", "items", "update"},
	{ActionLink, "dependency link", "dependency links", "add"},
	{ActionUnlink, "dependency link", "dependency links", "remove"},
	{ActionSprint, "item into a sprint", "items into a sprint", "move"},
	{ActionRank, "item in the backlog order", "items in the backlog order", "place"},
	{ActionClose, "item the document no longer lists", "items the document no longer lists", "close"},
	{WriteFile, "planning document", "planning documents", "rewrite"},
	{WriteRecord, "item as matching the document", "items as matching the document", "record"},
}

// NewPlanWrites counts ws by action (a front door's tests build their
// lists with it; the service builds them from stored plans).
func NewPlanWrites(ws []PlannedWrite) PlanWrites {
	n := map[core.Action]int{}
	released := 0
	for _, w := range ws {
		n[w.Action]++
		if w.Released {
			released++
		}
	}
	out := PlanWrites{Total: len(ws), Counts: []WriteCount{}, Writes: ws}
	if ws == nil {
		out.Writes = []PlannedWrite{}
	}
	for _, a := range writeActions {
		if c := n[a.a]; c > 0 {
			wc := WriteCount{Action: a.a, Count: c, Text: a.verb + " " + core.Plural(c, a.one, a.many)}
			if a.a == core.ActionCreate && released > 0 {
				wc.Text += fmt.Sprintf(" (%d released)", released)
			}
			out.Counts = append(out.Counts, wc)
		}
	}
	return out
}

// itemText names a plan's item: `story s-2 "Pay" (DEMO-4)`.
func itemText(k core.Kind, ref core.Reference, title, key string) string {
	// (Written out, not through fmt: a preview names every item.)
	id, label := itemID(ref), strings.ToLower(k.Label())
	b := make([]byte, 0, len(label)+len(id)+len(title)+len(key)+8)
	b = append(append(append(b, label...), ' '), id...)
	b = strconv.AppendQuote(append(b, ' '), title) // as %q writes it
	if key != "" {
		b = append(append(append(b, " ("...), key...), ')')
	}
	return string(b)
}

// writes lists every write of the stored import plan, in commit order:
// the items (epics, stories, sub-tasks; a held-back create is not made),
// each document's structure rows, then the closes.
func (pl *importPlan) writes() PlanWrites {
	several := len(pl.Head.Documents) > 0
	var closes []PlannedWrite
	order := map[core.Kind]int{core.KindEpic: 0, core.KindStory: 1, core.KindSubtask: 2}
	kindOf := func(e *planEntry) int {
		if k, ok := order[e.Spec.Kind]; ok {
			return k
		}
		return 1
	}
	writes := func(e *planEntry) bool { return e.writes() && !e.Blocked }
	var n [3]int // (each list made at its size: a plan may have 10,000 items)
	for i := range pl.Entries {
		if e := &pl.Entries[i]; writes(e) && e.Action != ActionClose {
			n[kindOf(e)]++
		}
	}
	byKind := make([][]PlannedWrite, 3)
	for k := range byKind {
		byKind[k] = make([]PlannedWrite, 0, n[k])
	}
	for i := range pl.Entries {
		e := &pl.Entries[i]
		if !writes(e) {
			continue
		}
		w := PlannedWrite{Action: e.Action, Item: itemID(e.Spec.Reference), Key: e.Key, outcome: e.Spec.Reference,
			Text: itemText(e.Spec.Kind, e.Spec.Reference, e.Spec.Title, e.Key)}
		if several {
			w.Document = e.Spec.Reference.Document()
		}
		if e.Parent != "" {
			w.Text += " under " + parentText(e)
		}
		switch e.Action {
		case core.ActionUpdate:
			if len(e.ChangedFields) > 0 {
				w.Text += ": " + strings.Join(e.ChangedFields, ", ")
			}
			if e.TakeDocument {
				w.Text += " (replaces edits made in the tracker)"
			}
		case ActionAdopt:
			w.Text += ": its reference and the document's content are written to it"
		case core.ActionCreate:
			if e.Released {
				w.Released = true
				w.Text += " (released: an earlier create's outcome is unknown; a duplicate if it does exist)"
			}
		case ActionClose:
			if e.Gone != nil {
				w.Text += fmt.Sprintf(": transition %q to done, with a comment", e.Gone.TransitionName)
			}
			closes = append(closes, w)
			continue
		}
		k := kindOf(e)
		byKind[k] = append(byKind[k], w)
	}
	var rows [][]structureRow
	total := n[0] + n[1] + n[2] + len(closes)
	for _, ds := range pl.structures() {
		rows = append(rows, ds.rows())
		total += len(rows[len(rows)-1])
	}
	items := make([]PlannedWrite, 0, total)
	for _, ws := range byKind {
		items = append(items, ws...)
	}
	for i, ds := range pl.structures() {
		for _, r := range rows[i] {
			w := PlannedWrite{Action: r.action, Item: r.item, Key: r.key, Text: r.text, outcome: r.ref}
			if several {
				w.Document = ds.Document
			}
			items = append(items, w)
		}
	}
	return NewPlanWrites(append(items, closes...))
}

// itemID is a reference's item id ("s-2"), or the reference itself.
func itemID(ref core.Reference) string {
	if _, id := ref.Split(); id != "" {
		return id
	}
	return string(ref)
}

// parentText names an entry's parent: "epic e-1", "story s-2", or the
// reference of an epic in another document.
func parentText(e *planEntry) string {
	kind := "epic"
	if e.Spec.Kind == core.KindSubtask {
		kind = "story"
	}
	if e.Parent.Document() != e.Spec.Reference.Document() {
		return kind + " " + string(e.Parent)
	}
	return kind + " " + itemID(e.Parent)
}

// writes lists every write of the stored pull plan: the file, then each
// item's record (its base moved forward: the item matches the document).
func (pl *pullPlan) writes() PlanWrites {
	var ws []PlannedWrite
	if pl.Pull.NewFile != nil {
		ws = append(ws, PlannedWrite{Action: WriteFile, Item: pl.Pull.Document, outcome: core.Reference(pl.Pull.Document),
			Text: fmt.Sprintf("%s (document %q) rewritten with what people changed in the tracker", pl.Pull.Path, pl.Pull.Document)})
	}
	rows := map[core.Reference]PullItem{}
	for _, it := range pl.Items {
		rows[it.Reference] = it
	}
	for _, e := range pl.Entries {
		row, ok := rows[e.Spec.Reference]
		if !ok {
			row.Title = e.Spec.Title
		}
		var taken []string
		for _, ch := range row.Changes {
			if ch.Take == TakeTracker {
				taken = append(taken, ch.Field)
			}
		}
		what := "the item matches the document"
		if len(taken) > 0 {
			what = "the tracker's " + strings.Join(taken, ", ") + " taken into the document, which the item then matches"
		}
		ws = append(ws, PlannedWrite{Action: WriteRecord, Item: itemID(e.Spec.Reference), Key: e.Key, outcome: e.Spec.Reference,
			Text: itemText(e.Spec.Kind, e.Spec.Reference, row.Title, e.Key) + ": " + what})
	}
	return NewPlanWrites(ws)
}
