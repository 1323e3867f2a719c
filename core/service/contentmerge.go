package service

import (
	"fmt"
	"github.com/devworkwire/devworkwire/core"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core/merge"
	"github.com/devworkwire/devworkwire/core/plan"
)

var contentKeys = []string{core.ContentTitle, core.ContentDescription, core.ContentCriteria}

func isContentKey(k string) bool {
	return k == core.ContentTitle || k == core.ContentDescription || k == core.ContentCriteria
}

// contentBases puts the per-part digests of what spec writes into its
// FieldBases (the bases of the next import's merge) and returns what it
// derived them from.
func contentBases(spec *core.ItemSpec) derivedBases {
	if spec.FieldBases == nil {
		spec.FieldBases = make(map[string]string, len(contentKeys))
	}
	var d derivedBases
	for i, p := range contentParts(spec) {
		d.parts[i], d.digests[i] = contentPart{p.k, slices.Clone(p.v)}, core.ContentFieldDigest(p.v...) // (criteria may be changed in place)
		spec.FieldBases[p.k] = d.digests[i]
		setBaseValue(spec, p.k, p.v)
	}
	return d
}

// derivedBases are the content parts contentBases derived a spec's bases
// from, and their digests: while a part is unchanged, its digest is
// known without taking it again.
type derivedBases struct {
	parts   [3]contentPart
	digests [3]string
}

// contentPart is one content part of a spec and its value.
type contentPart struct {
	k string
	v []string
}

// contentParts are spec's content parts as ContentDigests and
// contentValues see them, without their maps (a preview does this for
// every item).
func contentParts(spec *core.ItemSpec) [3]contentPart {
	return [...]contentPart{{core.ContentTitle, []string{spec.Title}}, {core.ContentDescription, []string{strings.TrimSpace(spec.Description)}}, {core.ContentCriteria, spec.AcceptanceCriteria}}
}

// hasDerivedBases reports whether spec's content bases (the content keys
// of FieldBases and BaseValues) are exactly what contentBases records for
// it, so that they can be derived again instead of stored. known, when
// not nil, is what contentBases last derived for spec.
func hasDerivedBases(spec *core.ItemSpec, known *derivedBases) bool {
	for i, p := range contentParts(spec) {
		var digest string
		if known != nil && known.parts[i].k == p.k && slices.Equal(known.parts[i].v, p.v) {
			digest = known.digests[i] // (a digest of the same values)
		} else {
			digest = core.ContentFieldDigest(p.v...)
		}
		if d, ok := spec.FieldBases[p.k]; !ok || d != digest {
			return false
		}
		v, ok := spec.BaseValues[p.k]
		if kept := baseValueKept(p.v); ok != kept || kept && (!slices.Equal(v, p.v) || (v == nil) != (p.v == nil)) {
			return false
		}
	}
	return true
}

// contentValues are the values of each content part, as ContentDigests
// digests them.
func contentValues(title, description string, ac []string) map[string][]string {
	return map[string][]string{core.ContentTitle: {title}, core.ContentDescription: {strings.TrimSpace(description)}, core.ContentCriteria: ac}
}

// mergesContent reports whether an existing item's content is settled part
// by part: the tracker says which parts changed since DevWorkWire wrote
// them, the item has the bases of all three parts, and its parent is the
// document's (a person moving it is drift of the whole item, as before).
// Items written before per-part bases are settled as one unit.
func mergesContent(w core.WorkItem, spec core.ItemSpec) bool {
	if w.ContentChanged == nil || w.ParentKey != spec.ParentKey {
		return false
	}
	for _, k := range contentKeys {
		if _, ok := w.FieldBases[k]; !ok {
			return false
		}
	}
	return true
}

// mergeContent settles the title, description and criteria of an existing
// item three ways (core/merge: document, tracker, base) and sets spec's
// content to what will be in the tracker: the document's part where it is
// written, the tracker's where a person's change is kept or conflicts. It
// returns whether any part is written, the preview rows of the parts not
// simply written, and the kept and conflicting parts' names. The tracker
// says which parts it changed (WorkItem.ContentChanged: what it reads back
// need not be in the form DevWorkWire wrote), so an unchanged part is the
// base:
//   - tracker unchanged: the document's part (written when it differs from the base);
//   - tracker changed, document = tracker: unchanged;
//   - tracker changed, document = base: kept (the tracker's part), whatever
//     the drift marker says, as a managed field is;
//   - tracker changed, document ≠ base: a conflict (the tracker's part)
//     unless "Drift: take-document" takes it.
func mergeContent(it plan.Item, w core.WorkItem, spec *core.ItemSpec) (writes bool, rows []PlanField, kept, conflicts []string) {
	doc := contentValues(spec.Title, spec.Description, spec.AcceptanceCriteria)
	jira := contentValues(w.Title, w.Description, w.AcceptanceCriteria)
	bases := newBaseSet()
	for _, k := range contentKeys {
		d, b := core.ContentFieldDigest(doc[k]...), w.FieldBases[k]
		sides := merge.Sides{Same: d == b, DocumentChanged: d != b, TrackerChanged: w.ContentChanged[k]}
		if sides.TrackerChanged {
			sides.Same = d == core.ContentFieldDigest(jira[k]...)
		}
		state := sides.Merge(takeFor(it, k))
		switch state {
		case merge.Same, merge.Write:
			bases.move(k, d, doc[k])
			writes = writes || state == merge.Write
			continue
		case merge.TakeDocument:
			bases.move(k, d, doc[k])
			writes = true
		case merge.Keep:
			bases.keep(w, k) // the base stays what DevWorkWire last wrote
			kept = append(kept, k)
		default:
			bases.keep(w, k)
			conflicts = append(conflicts, k)
		}
		if !state.Document() {
			takeTracker(spec, w, k)
			spec.HeldContent = append(spec.HeldContent, k)
		}
		rows = append(rows, PlanField{Field: k, Value: shownContent(doc[k]), Source: "item", Write: fieldWrite(state), Tracker: shownContent(jira[k])})
	}
	bases.record(spec)
	return writes, rows, kept, conflicts
}

// takeTracker sets spec's content part k to the tracker's.
func takeTracker(spec *core.ItemSpec, w core.WorkItem, k string) {
	switch k {
	case core.ContentTitle:
		spec.Title = w.Title
	case core.ContentDescription:
		spec.Description = w.Description
	default:
		spec.AcceptanceCriteria = w.AcceptanceCriteria
	}
}

// keepUnrepresentable keeps the tracker's value of each content part that
// holds what the document's text cannot carry (WorkItem.Unrepresentable)
// where the document would change it: the part is not written, and the
// preview says so (one warning per part).
func keepUnrepresentable(label string, w core.WorkItem, spec *core.ItemSpec) []string {
	doc, jira := contentValues(spec.Title, spec.Description, spec.AcceptanceCriteria), contentValues(w.Title, w.Description, w.AcceptanceCriteria)
	var out []string
	for _, k := range contentKeys {
		what, ok := w.Unrepresentable[k]
		if !ok || slices.Equal(doc[k], jira[k]) {
			continue
		}
		takeTracker(spec, w, k)
		spec.HeldContent = append(spec.HeldContent, k)
		out = append(out, fmt.Sprintf("%s (%s): its %s in the tracker holds %s, which the document's text cannot carry, so the document's change to it is not written and the tracker's stays as it is. Make the change in the tracker, or remove %s there and preview again.",
			label, w.Key, strings.ToLower(core.FieldName(k)), what, what))
	}
	return out
}

// sameInTracker are the content keys whose value in spec the tracker
// already holds (ItemSpec.Unsent): an update leaves them out.
func sameInTracker(w core.WorkItem, spec core.ItemSpec) []string {
	jira, doc := contentValues(w.Title, w.Description, w.AcceptanceCriteria), contentValues(spec.Title, spec.Description, spec.AcceptanceCriteria)
	var out []string
	for _, k := range contentKeys {
		if slices.Equal(jira[k], doc[k]) {
			out = append(out, k)
		}
	}
	return out
}

// shownContent is a content part for a preview row (criteria joined by
// "; "), whole: a person choosing which side to take sees all of what
// would be overwritten (a front door bounds what it shows in all, as the
// MCP server's MaxChangeBytes does, and says so).
func shownContent(v []string) string {
	return strings.Join(v, "; ")
}

// contentWarnings is the one message of an item's kept and conflicting
// content parts (none when there are neither).
func contentWarnings(label, key string, kept, conflicts []string) []string {
	var parts []string
	if len(kept) > 0 {
		parts = append(parts, fmt.Sprintf("%s changed in the tracker since DevWorkWire wrote it and the document did not change it: kept Jira's change", shownFieldNames(kept)))
	}
	if len(conflicts) > 0 {
		parts = append(parts, fmt.Sprintf("%s changed both in the tracker and in the document, differently: not written (the item's other parts and fields are). Make the document match the tracker, or add \"Drift: take-document %s\" to the item to write the document's version", shownFieldNames(conflicts), strings.Join(conflicts, ", ")))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s (%s): %s.", label, key, strings.Join(parts, "; "))}
}

// shownFieldNames are keys as messages name them (FieldName), joined by ", ".
func shownFieldNames(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = core.FieldName(k)
	}
	return strings.Join(names, ", ")
}

// settleContentConflicts makes an item whose only changes are conflicts
// (content parts or managed fields changed in both, differently: nothing
// to write, once the managed fields are settled) drift, as a whole-item
// conflict was.
func settleContentConflicts(entries []planEntry) {
	for i := range entries {
		e := &entries[i]
		if e.Action == core.ActionUnchanged && slices.ContainsFunc(e.Fields, func(r PlanField) bool { return r.Write == WriteConflict }) {
			e.Action = core.ActionDrift
		}
	}
}
