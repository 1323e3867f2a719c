package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// A document's structure at preview and commit: sub-tasks (written like
// stories, after them), dependencies ("Depends on" / "Blocks"), the sprint
// and the backlog order (rank). The preview plans every change and refuses
// what cannot be written; the commit runs, after the items, the links, then
// the sprint moves, then the rank moves, each outcome recorded.

// The structure actions of commit outcomes.
const (
	ActionLink   core.Action = "link"   // a dependency added
	ActionUnlink core.Action = "unlink" // a dependency DevWorkWire made, removed
	ActionSprint core.Action = "sprint" // moved into a sprint
	ActionRank   core.Action = "rank"   // moved in the backlog order
)

// StructureChange is one planned change of the structure, as the preview
// shows it.
type StructureChange struct {
	Action string `json:"action"` // link | unlink | sprint | rank
	Item   string `json:"item"`   // the item (local id, reference or key) it is about
	// Document is, in a preview of several documents, the document whose
	// structure it is.
	Document string `json:"document,omitempty" jsonschema:"in a preview of a directory: the document whose structure it is"`
	Message  string `json:"message"`
}

// linksItem is the item id under which the dedup index keeps the
// dependencies DevWorkWire made for a document ("~" is in no item id).
const linksItem = "~links"

// endpoint is one end of a planned dependency or the subject of a move: a
// document item (Ref; Key filled when it exists) or an issue key only.
type endpoint struct {
	Ref   core.Reference `json:"ref,omitempty"`
	Key   string         `json:"key,omitempty"`
	Label string         `json:"label"` // as the document names it
}

// linkOp is a dependency to add, or (ID set) one to remove.
type linkOp struct {
	Blocked endpoint `json:"blocked"`
	Blocker endpoint `json:"blocker"`
	ID      string   `json:"id,omitempty"` // removals: the tracker's id
}

// sprintOp moves items into one sprint (resolved at the preview).
type sprintOp struct {
	SprintID string     `json:"sprint_id"`
	Sprint   string     `json:"sprint"`
	Items    []endpoint `json:"items"`
}

// rankOp places items, in order, right before or after an anchor.
type rankOp struct {
	Items  []endpoint `json:"items"`
	Anchor endpoint   `json:"anchor"`
	Before bool       `json:"before"`
}

// structurePlan is the stored plan of the structure.
type structurePlan struct {
	Links   []linkOp          `json:"links,omitempty"`
	Unlinks []linkOp          `json:"unlinks,omitempty"`
	Made    []core.Dependency `json:"made,omitempty"` // made by DevWorkWire, still listed: kept in the record
	Sprints []sprintOp        `json:"sprints,omitempty"`
	Ranks   []rankOp          `json:"ranks,omitempty"`
	Changes []StructureChange `json:"changes,omitempty"`
}

func (sp *structurePlan) empty() bool {
	return sp == nil || len(sp.Links)+len(sp.Unlinks)+len(sp.Sprints)+len(sp.Ranks) == 0 && len(sp.Made) == 0
}

// writes counts the structure writes of the plan.
func (sp *structurePlan) writes() int {
	n := len(sp.Links) + len(sp.Unlinks)
	for _, op := range sp.Sprints {
		n += len(op.Items)
	}
	for _, op := range sp.Ranks {
		n += len(op.Items)
	}
	return n
}

// withSubtasks returns doc with its sub-tasks appended to Items (so they
// are looked up, classified and written like stories); the copy's
// Subtasks is empty.
func withSubtasks(doc *plan.Document) *plan.Document {
	if len(doc.Subtasks) == 0 {
		return doc
	}
	d := *doc
	d.Items = slices.Concat(doc.Items, doc.Subtasks)
	d.Subtasks = nil
	return &d
}

// parentOf is the reference of an item's parent: a story's epic (of its
// document, or of another: plan.Item.EpicRef), a sub-task's story.
func parentOf(docID string, it plan.Item) core.Reference {
	switch {
	case core.Kind(it.Kind) == core.KindStory && it.EpicRef != "": // an epic of another document
		return core.Reference(it.EpicRef)
	case core.Kind(it.Kind) == core.KindStory && it.Epic != "":
		return core.NewReference(docID, it.Epic)
	case core.Kind(it.Kind) == core.KindSubtask && it.Story != "":
		return core.NewReference(docID, it.Story)
	}
	return ""
}

// hasStructure reports whether the document asks for anything a
// StructureProvider writes.
func (s *WorkItemService) hasStructure(doc *plan.Document) bool {
	if s.rank && len(doc.Items) > 1 {
		return true
	}
	for _, it := range doc.Items {
		if len(it.DependsOn) > 0 || len(it.Blocks) > 0 || it.Fields.Sprint.Managed() || core.Kind(it.Kind) == core.KindSubtask {
			return true
		}
	}
	return false
}

// planStructure plans the document's structure against the tracker (doc
// with its sub-tasks in Items). problems are refusals (every one at once).
// planned are the items of every document planned with doc (a
// directory): a dependency on an item of another of them is written after
// the items, even when this plan creates it.
func (s *WorkItemService) planStructure(ctx context.Context, doc *plan.Document, entries []planEntry, found map[core.Reference]core.WorkItem, planned map[core.Reference]bool) (*structurePlan, []core.Detail, error) {
	if !s.hasStructure(doc) {
		return nil, nil, nil
	}
	sp, ok := s.p.(core.StructureProvider)
	if !ok {
		return nil, []core.Detail{{Field: "structure", Message: "the tracker provider cannot write dependencies, sub-tasks, sprints or the backlog order; remove them from the document"}}, nil
	}
	pl := &structurePlan{}
	var problems []core.Detail
	if slices.ContainsFunc(doc.Items, func(it plan.Item) bool { return core.Kind(it.Kind) == core.KindSubtask }) {
		if err := sp.CheckSubtasks(ctx); err != nil {
			if core.ErrorCode(err) != core.CodeConfigInvalid {
				return nil, nil, err
			}
			problems = append(problems, core.Detail{Field: "kind", Message: core.AsError(err).Message})
		}
	}
	lp, err := s.planLinks(ctx, sp, doc, found, planned, pl)
	if err != nil {
		return nil, nil, err
	}
	problems = append(problems, lp...)
	spp, err := planSprints(ctx, sp, doc, found, pl)
	if err != nil {
		return nil, nil, err
	}
	problems = append(problems, spp...)
	if s.rank {
		planRank(doc, entries, found, pl)
	}
	return pl, problems, nil
}

// item endpoint of a document item.
func (s *WorkItemService) itemEnd(doc *plan.Document, id string, found map[core.Reference]core.WorkItem) endpoint {
	ref := core.NewReference(doc.ID, id)
	return endpoint{Ref: ref, Key: found[ref].Key, Label: id}
}

// planLinks plans the dependencies: links the document lists that the
// tracker lacks are added; links DevWorkWire made that the document no
// longer lists are removed; a link a person made is never removed.
func (s *WorkItemService) planLinks(ctx context.Context, sp core.StructureProvider, doc *plan.Document, found map[core.Reference]core.WorkItem, planned map[core.Reference]bool, pl *structurePlan) ([]core.Detail, error) {
	var problems []core.Detail
	// External ends: references into other documents (must be in the
	// tracker) and keys (must exist).
	external := map[string]endpoint{}
	var refs []core.Reference
	for _, it := range doc.Items {
		for _, l := range slices.Concat(it.DependsOn, it.Blocks) {
			if l.Kind == plan.LinkReference {
				refs = append(refs, core.Reference(l.Target))
			}
		}
	}
	if len(refs) > 0 {
		idx, err := s.st.LookupIndex(ctx, s.p.Scope(), refs)
		if err != nil {
			return nil, err
		}
		got, err := s.p.Lookup(ctx, refs, knownKeys(idx))
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if w, ok := got[r]; ok {
				external[string(r)] = endpoint{Key: w.Key, Label: string(r)}
			}
		}
	}
	for _, r := range refs {
		if planned[r] { // an item of another document of this plan: its key is known at commit
			external[string(r)] = endpoint{Ref: r, Key: found[r].Key, Label: string(r)}
		}
	}
	end := func(it plan.Item, l plan.Link) (endpoint, bool) {
		switch l.Kind {
		case plan.LinkItem:
			return s.itemEnd(doc, l.Target, found), true
		case plan.LinkReference:
			e, ok := external[l.Target]
			if !ok {
				problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "depends_on", Message: fmt.Sprintf("%s %s names %s, which is not in the tracker (import that document first, or correct the reference)", core.Kind(it.Kind).Label(), it.ID, l.Target)})
			}
			return e, ok
		default:
			if e, ok := external[l.Target]; ok {
				return e, true
			}
			w, err := s.p.Get(ctx, l.Target)
			if err != nil {
				if core.ErrorCode(err) != core.CodeWorkItemNotFound {
					problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Key: l.Target, Message: core.AsError(err).Message})
					return endpoint{}, false
				}
				problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "depends_on", Key: l.Target, Message: fmt.Sprintf("%s %s names %s, which does not exist in the tracker (or cannot be seen)", core.Kind(it.Kind).Label(), it.ID, l.Target)})
				return endpoint{}, false
			}
			e := endpoint{Key: w.Key, Label: l.Target}
			external[l.Target] = e
			return e, true
		}
	}
	var want []linkOp
	seen := map[string]bool{}
	add := func(op linkOp) {
		k := op.Blocked.Label + "<-" + op.Blocker.Label
		if !seen[k] {
			seen[k] = true
			want = append(want, op)
		}
	}
	for _, it := range doc.Items {
		self := s.itemEnd(doc, it.ID, found)
		for _, l := range it.DependsOn {
			if e, ok := end(it, l); ok {
				add(linkOp{Blocked: self, Blocker: e})
			}
		}
		for _, l := range it.Blocks {
			if e, ok := end(it, l); ok {
				add(linkOp{Blocked: e, Blocker: self})
			}
		}
	}
	// What DevWorkWire made before, and what the tracker holds now at
	// the ends of a link the document lists or DevWorkWire made: no other
	// link is ever matched or removed, so an unchanged plan without
	// dependencies reads none.
	made, err := s.madeLinks(ctx, doc.ID)
	if err != nil {
		return nil, err
	}
	var current []core.Dependency
	if keys := linkEnds(want, made); len(keys) > 0 {
		if current, err = sp.Dependencies(ctx, keys); err != nil {
			return nil, err
		}
	}
	madeIDs := map[string]bool{}
	for _, m := range made {
		madeIDs[m.ID] = true
	}
	matched := map[string]bool{}
	for _, op := range want {
		i := slices.IndexFunc(current, func(d core.Dependency) bool {
			return op.Blocked.Key != "" && op.Blocker.Key != "" && strings.EqualFold(d.Blocked, op.Blocked.Key) && strings.EqualFold(d.Blocker, op.Blocker.Key)
		})
		if i >= 0 {
			matched[current[i].ID] = true
			if madeIDs[current[i].ID] {
				pl.Made = append(pl.Made, core.Dependency{ID: current[i].ID, Blocked: current[i].Blocked, Blocker: current[i].Blocker})
			}
			continue
		}
		pl.Links = append(pl.Links, op)
		pl.Changes = append(pl.Changes, StructureChange{Action: string(ActionLink), Item: op.Blocked.Label, Message: fmt.Sprintf("%s depends on %s: link to add (%s is blocked by %s)", op.Blocked.Label, op.Blocker.Label, op.Blocked.Label, op.Blocker.Label)})
	}
	byKey := map[string]string{}
	for _, it := range doc.Items {
		if w, ok := found[core.NewReference(doc.ID, it.ID)]; ok {
			byKey[strings.ToUpper(w.Key)] = it.ID
		}
	}
	label := func(k string) string {
		if id, ok := byKey[strings.ToUpper(k)]; ok {
			return id
		}
		return k
	}
	for _, d := range current {
		if matched[d.ID] || !madeIDs[d.ID] {
			continue // listed, or made by a person: left alone
		}
		op := linkOp{Blocked: endpoint{Key: d.Blocked, Label: label(d.Blocked)}, Blocker: endpoint{Key: d.Blocker, Label: label(d.Blocker)}, ID: d.ID}
		matched[d.ID] = true
		pl.Unlinks = append(pl.Unlinks, op)
		pl.Changes = append(pl.Changes, StructureChange{Action: string(ActionUnlink), Item: op.Blocked.Label, Message: fmt.Sprintf("%s no longer depends on %s: the link DevWorkWire made is removed", op.Blocked.Label, op.Blocker.Label)})
	}
	return problems, nil
}

// linkEnds are the keys at either end of the wanted and the made links
// (an item this plan creates has none yet), upper-cased, each once.
func linkEnds(want []linkOp, made []core.Dependency) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if k = strings.ToUpper(k); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, op := range want {
		add(op.Blocked.Key)
		add(op.Blocker.Key)
	}
	for _, m := range made {
		add(m.Blocked)
		add(m.Blocker)
	}
	return keys
}

// madeLinks reads the dependencies DevWorkWire recorded for a document.
func (s *WorkItemService) madeLinks(ctx context.Context, docID string) ([]core.Dependency, error) {
	ref := core.NewReference(docID, linksItem)
	idx, err := s.st.LookupIndex(ctx, s.p.Scope(), []core.Reference{ref})
	if err != nil {
		return nil, err
	}
	var made []core.Dependency
	if ie, ok := idx[ref]; ok && strings.HasPrefix(ie.Digest, "links:") {
		_ = json.Unmarshal([]byte(strings.TrimPrefix(ie.Digest, "links:")), &made)
	}
	return made, nil
}

// maxSprintsNamed bounds the sprints an unknown sprint's problem lists.
const maxSprintsNamed = 8

// unknownSprint says that no sprint is named name, which active and future
// sprints there are (at most maxSprintsNamed, with how many more), and
// the one meant when a name is close (core.Closest).
func unknownSprint(name string, existing []core.Sprint) string {
	var open, lower []string
	for _, s := range existing {
		if s.State == core.SprintClosed {
			continue
		}
		if len(open) < maxSprintsNamed {
			open = append(open, fmt.Sprintf("%s (%s, board %s)", s.Name, s.State, s.Board))
		}
		lower = append(lower, strings.ToLower(s.Name))
	}
	msg := fmt.Sprintf("sprint %q does not exist on the project's boards", name)
	if c := core.Closest(name, lower); c != "" {
		for _, s := range existing {
			if strings.ToLower(s.Name) == c && s.State != core.SprintClosed {
				msg += fmt.Sprintf("; did you mean %q?", s.Name)
				break
			}
		}
	}
	switch n := len(lower); {
	case n == 0:
		return msg + "; the project's boards have no active or future sprint: create one in Jira, or remove the Sprint line"
	case n > len(open):
		return msg + fmt.Sprintf("; name an active or future sprint: %s, and %d more", strings.Join(open, ", "), n-len(open))
	}
	return msg + "; name an active or future sprint: " + strings.Join(open, ", ")
}

// planSprints resolves each sprint name (an active or future sprint of one
// of the project's boards) and plans the moves of items not in it yet.
func planSprints(ctx context.Context, sp core.StructureProvider, doc *plan.Document, found map[core.Reference]core.WorkItem, pl *structurePlan) ([]core.Detail, error) {
	var problems []core.Detail
	byName := map[string]*sprintOp{}
	var order []string
	var existing []core.Sprint // every sprint, once a name is unknown
	listed := false
	for _, it := range doc.Items {
		f := it.Fields.Sprint
		if f.State != plan.FieldSet || core.Kind(it.Kind) == core.KindSubtask {
			continue // a sub-task is in its story's sprint
		}
		name := strings.TrimSpace(f.Value)
		key := strings.ToLower(name)
		op, ok := byName[key]
		if !ok {
			sprints, err := sp.Sprints(ctx, name)
			if err != nil {
				return nil, err
			}
			var open, closed []string
			var pick core.Sprint
			for _, s := range sprints {
				desc := fmt.Sprintf("%s (%s, board %s)", s.Name, s.State, s.Board)
				if s.State == core.SprintClosed {
					closed = append(closed, desc)
					continue
				}
				open = append(open, desc)
				pick = s
			}
			switch {
			case len(open) == 1:
				op = &sprintOp{SprintID: pick.ID, Sprint: pick.Name}
			case len(open) > 1:
				problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "sprint", Message: fmt.Sprintf("sprint %q is ambiguous: %s; rename one in the tracker", name, strings.Join(open, "; "))})
			case len(closed) > 0:
				problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "sprint", Message: fmt.Sprintf("sprint %q is closed (%s); name an active or future sprint", name, strings.Join(closed, "; "))})
			default:
				if !listed { // read once, for every unknown name
					if existing, err = sp.Sprints(ctx, ""); err != nil {
						return nil, err
					}
					listed = true
				}
				problems = append(problems, core.Detail{Item: string(core.NewReference(doc.ID, it.ID)), Field: "sprint", Message: unknownSprint(name, existing)})
			}
			byName[key] = op
			if op != nil {
				order = append(order, key)
			}
		}
		if op == nil {
			continue
		}
		ref := core.NewReference(doc.ID, it.ID)
		if w, ok := found[ref]; ok && strings.EqualFold(w.Sprint, op.Sprint) {
			continue
		}
		op.Items = append(op.Items, endpoint{Ref: ref, Key: found[ref].Key, Label: it.ID})
		from := ""
		if w, ok := found[ref]; ok && w.Sprint != "" {
			from = " from " + w.Sprint
		}
		pl.Changes = append(pl.Changes, StructureChange{Action: string(ActionSprint), Item: it.ID, Message: fmt.Sprintf("%s moves to sprint %s%s", it.ID, op.Sprint, from)})
	}
	for _, k := range order {
		if op := byName[k]; len(op.Items) > 0 {
			pl.Sprints = append(pl.Sprints, *op)
		}
	}
	return problems, nil
}

// planRank plans the backlog order: the document's epics and stories keep
// their relative order. The longest run of existing items already in that
// order stays; every other item is placed right after the item before it
// in the document (before the first that stays, for those ahead of it).
// Items held back (an earlier create of unknown outcome) have no key to
// rank and are left out.
func planRank(doc *plan.Document, entries []planEntry, found map[core.Reference]core.WorkItem, pl *structurePlan) {
	held := map[core.Reference]bool{} // neither in the tracker nor created by this plan
	for _, e := range entries {
		if e.Blocked {
			held[e.Spec.Reference] = true
		}
	}
	var ids []string // the ranked items' ids, in document order (only ids: an item is large to copy)
	for i := range doc.Items {
		if it := &doc.Items[i]; core.Kind(it.Kind) != core.KindSubtask && !held[core.NewReference(doc.ID, it.ID)] {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) < 2 {
		return
	}
	ranks := make([]string, len(ids)) // "" = unknown (created by this plan)
	for i, id := range ids {
		ranks[i] = found[core.NewReference(doc.ID, id)].Rank
	}
	stay := longestOrdered(ranks)
	if len(stay) == 0 {
		stay = map[int]bool{0: true} // nothing is placed yet: the first item anchors
	}
	end := func(i int) endpoint {
		ref := core.NewReference(doc.ID, ids[i])
		return endpoint{Ref: ref, Key: found[ref].Key, Label: ids[i]}
	}
	first := slices.Min(keysOf(stay))
	for i := 0; i < len(ids); {
		if stay[i] {
			i++
			continue
		}
		j := i
		for j < len(ids) && !stay[j] {
			j++
		}
		run := make([]endpoint, 0, j-i)
		for k := i; k < j; k++ {
			run = append(run, end(k))
		}
		if i < first {
			pl.Ranks = append(pl.Ranks, rankOp{Items: run, Anchor: end(first), Before: true})
		} else {
			pl.Ranks = append(pl.Ranks, rankOp{Items: run, Anchor: end(i - 1)})
		}
		var fresh []string // created by this plan: one line for the run
		for k := i; k < j; k++ {
			if ranks[k] == "" {
				fresh = append(fresh, ids[k])
				continue
			}
			msg := fmt.Sprintf("%s moves before %s", ids[k], ids[first])
			if i > first {
				msg = fmt.Sprintf("%s moves after %s", ids[k], ids[k-1])
			}
			pl.Changes = append(pl.Changes, StructureChange{Action: string(ActionRank), Item: ids[k], Message: msg})
		}
		if len(fresh) > 0 {
			where := "before " + ids[first]
			if i > first {
				where = "after " + ids[i-1]
			}
			pl.Changes = append(pl.Changes, StructureChange{Action: string(ActionRank), Item: fresh[0], Message: newRanked(fresh, where)})
		}
		i = j
	}
}

// newRanked is the preview line of the new items of one rank run: they
// are counted as structure changes, so the preview lists them too.
func newRanked(ids []string, where string) string {
	switch len(ids) {
	case 1:
		return fmt.Sprintf("new item %s is placed %s in the backlog", ids[0], where)
	case 2:
		return fmt.Sprintf("new items %s and %s are placed %s in the backlog, in the document's order", ids[0], ids[1], where)
	}
	return fmt.Sprintf("%d new items (%s … %s) are placed %s in the backlog, in the document's order", len(ids), ids[0], ids[len(ids)-1], where)
}

func keysOf(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// longestOrdered returns the indices of a longest strictly increasing
// subsequence of the known ranks (O(n log n)).
func longestOrdered(ranks []string) map[int]bool {
	var tails []int // tails[l] = index of the smallest tail of an increasing run of length l+1
	prev := make([]int, len(ranks))
	for i, r := range ranks {
		if r == "" {
			continue
		}
		l, _ := slices.BinarySearchFunc(tails, r, func(t int, r string) int { return strings.Compare(ranks[t], r) })
		if l > 0 {
			prev[i] = tails[l-1]
		} else {
			prev[i] = -1
		}
		if l == len(tails) {
			tails = append(tails, i)
		} else {
			tails[l] = i
		}
	}
	out := map[int]bool{}
	if len(tails) == 0 {
		return out
	}
	for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
		out[i] = true
	}
	return out
}

// structureRefusal is the refusal of a plan whose structure cannot be
// written.
func structureRefusal(problems []core.Detail) error {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	return core.Errorf(core.CodeValidationFailed, "The document's structure cannot be written (%d problem(s)): %s. Nothing was stored; correct the document or the tracker and preview again.", len(problems), strings.Join(msgs, "; ")).WithDetails(problems...)
}
