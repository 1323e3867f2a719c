package service

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/devworkwire/devworkwire/core"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core/merge"
	"github.com/devworkwire/devworkwire/core/plan"
)

// BuiltinFields are the built-in managed field keys, in the order of
// docs/plan-format.md.
var BuiltinFields = []string{core.FieldLabels, core.FieldPriority, core.FieldAssignee, core.FieldEstimate, core.FieldComponents, core.FieldFixVersions, core.FieldDue}

// FieldOptions are the project's field settings (ServiceOptions.Fields).
type FieldOptions struct {
	// Custom are the custom field names documents may set (the
	// configuration's `fields:`), passed to the parser.
	Custom []string
	// Defaults are the project's defaults (the configuration's
	// `defaults:`): applied after the document's, so an item's own value
	// wins, then the document's, then these (labels add up).
	Defaults plan.Fields
	// People maps a person's canonical value (the account id a document's
	// e-mail or name resolves to; the configuration's `users:` reversed)
	// to how documents write that person: a pull writes people this way
	// instead of as account ids.
	People map[string]string
}

// docFields converts an item's managed fields (sprint excepted: it is not
// a field of the item in the tracker) to field values as written.
func docFields(f plan.Fields) map[string]core.FieldValue {
	out := map[string]core.FieldValue{}
	text := func(key string, v plan.Field[string]) {
		if v.Managed() {
			fv := core.FieldValue{Source: string(v.From)}
			if v.State == plan.FieldSet {
				fv.Values = []string{v.Value}
			}
			out[key] = fv
		}
	}
	list := func(key string, v plan.Field[[]string]) {
		if v.Managed() {
			out[key] = core.FieldValue{Values: slices.Clone(v.Value), Source: string(v.From)}
		}
	}
	list(core.FieldLabels, f.Labels)
	text(core.FieldPriority, f.Priority)
	text(core.FieldAssignee, f.Assignee)
	if f.Estimate.Managed() {
		fv := core.FieldValue{Source: string(f.Estimate.From)}
		if f.Estimate.State == plan.FieldSet {
			fv.Values = []string{strconv.FormatFloat(f.Estimate.Value, 'f', -1, 64)}
		}
		out[core.FieldEstimate] = fv
	}
	list(core.FieldComponents, f.Components)
	list(core.FieldFixVersions, f.FixVersions)
	text(core.FieldDue, f.Due)
	for name, v := range f.Custom {
		text(core.FieldCustomPrefix+name, v)
	}
	return out
}

// PlanField is one managed field of a preview row.
type PlanField struct {
	Field string `json:"field" jsonschema:"the field: labels, priority, assignee, estimate, components, fix_versions, due, or fields.<name> for a custom field"`
	// Value is the document's value as written (lists joined by ", "),
	// "" when the document clears the field (Cleared).
	Value   string `json:"value" jsonschema:"the value as the document writes it (lists joined by comma and space); empty when cleared"`
	Cleared bool   `json:"cleared,omitempty"` // the document clears the field ("none")
	Source  string `json:"source" jsonschema:"where the value came from: item, document (its defaults), config (the project's defaults), or e.g. item+document for labels that add up"`
	// Write is what the commit does with the field (FieldWrite).
	Write FieldWrite `json:"write" jsonschema:"what the commit does: set, unchanged, kept (a person's change in the tracker is kept), conflict (changed in both: not written), take-document (a conflict the document overrides)"`
	// Tracker is the tracker's value where it differs from the
	// document's: on kept and conflict rows (a person as "Name (id)" when
	// the tracker named them, else canonical).
	Tracker string `json:"tracker,omitempty"`
}

// FieldWrite is what a commit does with one managed field or content
// part of an existing item (PlanField.Write): the outcome of the
// three-way merge of the document's value, the tracker's, and what
// DevWorkWire last wrote (docs/plan-format.md, "Drift is per field").
type FieldWrite string

// The writes of a field.
const (
	WriteSet       FieldWrite = "set"       // written: the document changed it, or the item is created
	WriteUnchanged FieldWrite = "unchanged" // the tracker holds the document's value
	// WriteKept: a person changed it in the tracker and the document did
	// not: the tracker's value is kept (whatever the drift marker says).
	WriteKept FieldWrite = "kept"
	// WriteConflict: both changed it, differently: not written; the
	// item's other fields are.
	WriteConflict FieldWrite = "conflict"
	// WriteTakeDocument: a conflict the item's "Drift: take-document"
	// resolves for the document: written.
	WriteTakeDocument FieldWrite = "take-document"
)

// resolveFields applies the project's defaults to every item, then has
// the provider check and resolve the fields of the items that manage any
// (one call for the whole document). It returns the canonical fields per
// reference and the values as written.
func (s *WorkItemService) resolveFields(ctx context.Context, doc *plan.Document, found map[core.Reference]core.WorkItem) (map[core.Reference]map[string]core.FieldValue, map[core.Reference]map[string]core.FieldValue, error) {
	// Every create is checked (a required field no item sets), and every
	// item that sets fields.
	reqs := make([]core.FieldRequest, 0, len(doc.Items))
	var first *core.FieldRequest // the first request that sets a field
	written := make(map[core.Reference]map[string]core.FieldValue, len(doc.Items))
	for i := range doc.Items {
		it := &doc.Items[i]
		it.Fields = it.Fields.WithDefaults(s.fields.Defaults)
		f := docFields(it.Fields)
		ref := core.NewReference(doc.ID, it.ID)
		w, exists := found[ref]
		if len(f) == 0 && exists {
			continue
		}
		written[ref] = f
		reqs = append(reqs, core.FieldRequest{Reference: ref, Kind: core.Kind(it.Kind), Create: !exists, Key: w.Key, Fields: f})
		if first == nil && len(f) > 0 {
			r := reqs[len(reqs)-1]
			first = &r
		}
	}
	fr, ok := s.p.(core.FieldResolver)
	switch {
	case !ok && first != nil:
		return nil, nil, core.Errorf(core.CodeValidationFailed, "The document sets fields (%s of %s, …), but this tracker connection cannot write fields. Remove the field lines, or use a tracker that supports them.",
			strings.Join(fieldNames(first.Fields), ", "), first.Reference).WithDetails(core.Detail{Item: string(first.Reference), Field: "fields", Message: "fields are not supported by this tracker"})
	case !ok || len(reqs) == 0:
		return nil, nil, nil
	}
	res, err := fr.ResolveFields(ctx, reqs)
	if err != nil {
		return nil, nil, err
	}
	if len(res) != len(reqs) {
		return nil, nil, core.Errorf(core.CodeInternal, "The tracker resolved the fields of %d items, not %d.", len(res), len(reqs))
	}
	out := make(map[core.Reference]map[string]core.FieldValue, len(reqs))
	for i, r := range reqs {
		for k, v := range res[i] {
			v.Source = r.Fields[k].Source
			res[i][k] = v
		}
		out[r.Reference] = res[i]
	}
	return out, written, nil
}

func fieldNames(f map[string]core.FieldValue) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(f)) {
		out = append(out, core.FieldName(k))
	}
	return out
}

// applyFields settles each entry's managed fields after classify: a create
// writes them all; an existing item's fields are merged three ways
// (core/merge) — the document's value, the tracker's, and the base (what
// DevWorkWire last wrote, WorkItem.FieldBases):
//   - document = tracker: unchanged (the base moves forward on the next write);
//   - no base (a field not managed before, or an item written before
//     per-field bases): the document's value is written;
//   - document = base, tracker ≠ base: a person changed it: kept;
//   - document ≠ base, tracker = base: written;
//   - all three differ: a conflict, not written unless the item says
//     "Drift: take-document"; the item's other fields are written.
//
// An unchanged item with a field to write becomes an update; an item
// left as drift writes nothing. It returns the warnings to show.
func applyFields(doc *plan.Document, entries []planEntry, resolved, written map[core.Reference]map[string]core.FieldValue, found map[core.Reference]core.WorkItem) []string {
	var warnings []string
	for i := range entries {
		e := &entries[i]
		ref := e.Spec.Reference
		it := &doc.Items[i]
		w, exists := found[ref]
		label := e.Spec.Kind.Label() + " " + it.ID
		for _, k := range slices.Sorted(maps.Keys(w.FieldBases)) {
			if _, still := resolved[ref][k]; !still && exists && !isContentKey(k) {
				warnings = append(warnings, fmt.Sprintf("%s (%s): %s is no longer managed by the document; it is left as %s in the tracker.", label, w.Key, core.FieldName(k), shownValues(w.Fields[k])))
			}
		}
		fields := resolved[ref]
		if len(fields) == 0 {
			continue
		}
		e.docFields, e.writtenFields = fields, written[ref]
		write := map[string]core.FieldValue{}
		bases := newBaseSet()
		var kept, conflicts []string
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			v := fields[k]
			d := core.FieldDigest(v.Values)
			row := PlanField{Field: k, Value: strings.Join(written[ref][k].Values, ", "), Cleared: len(v.Values) == 0, Source: v.Source, Write: WriteSet}
			if !exists || e.Action == core.ActionCreate {
				write[k] = v
				bases.move(k, d, v.Values)
				e.Fields = append(e.Fields, row)
				continue
			}
			sides := merge.Unbased(d, core.FieldDigest(w.Fields[k]))
			if b, ok := w.FieldBases[k]; ok {
				sides = merge.Of(d, core.FieldDigest(w.Fields[k]), b)
			}
			state := sides.Merge(takeFor(*it, k))
			row.Write = fieldWrite(state)
			if state != merge.Same && state != merge.Write {
				row.Tracker = shownTracker(w, k)
			}
			switch state {
			case merge.Same:
				bases.move(k, d, v.Values)
			case merge.Write, merge.TakeDocument:
				write[k] = v
				bases.move(k, d, v.Values)
			case merge.Keep:
				bases.keep(w, k) // the base stays what DevWorkWire last wrote
				kept = append(kept, core.FieldName(k))
			default:
				bases.keep(w, k)
				conflicts = append(conflicts, core.FieldName(k))
			}
			e.Fields = append(e.Fields, row)
		}
		if e.Action == core.ActionDrift {
			continue // nothing of a drifted item is written
		}
		e.Spec.Fields = write
		bases.record(&e.Spec) // next to the content's (contentmerge.go)
		if len(kept) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s (%s): %s changed in the tracker since DevWorkWire wrote it and the document did not change it: kept Jira's change.", label, w.Key, strings.Join(kept, ", ")))
		}
		if len(conflicts) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s (%s): %s changed both in the tracker and in the document, differently: not written (the item's other fields are). Make the document match the tracker, or add \"Drift: take-document\" to the item to write the document's value.", label, w.Key, strings.Join(conflicts, ", ")))
		}
		if len(write) > 0 && e.Action == core.ActionUnchanged {
			e.Action = core.ActionUpdate
		}
		if e.Action == core.ActionUpdate {
			for _, k := range slices.Sorted(maps.Keys(write)) {
				e.ChangedFields = append(e.ChangedFields, k)
			}
		}
	}
	return warnings
}

// boxedCriteria are an item's acceptance criteria as written to the
// tracker: when any criterion has a task-list box, every one is written
// as a task ("[ ] text" / "[x] text"; a criterion without a box is
// unchecked), which the tracker shows as a checklist; otherwise the plain
// texts.
func boxedCriteria(it plan.Item) []string {
	if len(it.AcceptanceCriteria) == 0 {
		return nil // none, however the document wrote that
	}
	if !slices.ContainsFunc(it.CriteriaBoxes, func(b string) bool { return b != "" }) {
		return it.AcceptanceCriteria
	}
	out := make([]string, len(it.AcceptanceCriteria))
	for i, c := range it.AcceptanceCriteria {
		box := plan.BoxTodo
		if i < len(it.CriteriaBoxes) && it.CriteriaBoxes[i] == plan.BoxDone {
			box = plan.BoxDone
		}
		out[i] = box + " " + c
	}
	return out
}

// unboxCriteria is boxedCriteria's inverse, for the criteria the tracker
// holds (the pull takes them, the export writes them): each one's text
// and task-list box by plan.CutBox, the boxes nil when none has one.
func unboxCriteria(cs []string) (texts, boxes []string) {
	boxes = make([]string, len(cs))
	for i, c := range cs {
		text, box := plan.CutBox(c)
		if box != "" {
			text = strings.TrimSpace(text)
		}
		texts, boxes[i] = append(texts, text), box
	}
	if !slices.ContainsFunc(boxes, func(b string) bool { return b != "" }) {
		boxes = nil
	}
	return texts, boxes
}

// takesContent reports whether the item's drift marker takes the
// document's content (title, description, criteria, epic: one unit) over
// edits in the tracker: "Drift: take-document" alone, or naming one of
// them.
func takesContent(it plan.Item) bool {
	return it.TakeDocument && (len(it.TakeFields) == 0 || slices.ContainsFunc(it.TakeFields, plan.IsContentKey))
}

// takesField reports whether the item's drift marker takes the document's
// value of field k in a conflict.
func takesField(it plan.Item, k string) bool {
	return it.TakeDocument && (len(it.TakeFields) == 0 || slices.Contains(it.TakeFields, k))
}

// shownValues is a field's values for a message ("none" when empty).
// shownTracker is the tracker's value of field k of w as a person reads
// it: people by the display names the tracker gave with the item.
func shownTracker(w core.WorkItem, k string) string {
	if named := shownPeople(w.Fields[k], w.People); named != "" {
		return named
	}
	return shownValues(w.Fields[k])
}

func shownValues(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}

// setBaseValue keeps vals as the base value of k in spec, when short
// enough.
func setBaseValue(spec *core.ItemSpec, k string, vals []string) {
	if !baseValueKept(vals) {
		return
	}
	if spec.BaseValues == nil {
		spec.BaseValues = map[string][]string{}
	}
	spec.BaseValues[k] = slices.Clone(vals)
}

// baseValueKept reports whether vals is short enough to be kept as a
// base value (at most MaxBaseValue bytes as JSON).
func baseValueKept(vals []string) bool {
	if jsonBound(vals) <= core.MaxBaseValue {
		return true
	}
	b, _ := json.Marshal(vals)
	return len(b) <= core.MaxBaseValue
}

// jsonBound is at least the length of vals as JSON ("null", or every
// byte escaped as \u00XX, with its quotes and comma), so that most values
// are known to be short without encoding them.
func jsonBound(vals []string) int {
	n := len("null")
	for _, v := range vals {
		n += 6*len(v) + 3
	}
	return n
}

// baseValue is the value DevWorkWire last wrote to w's field or content
// part k, when the provider kept it. A managed field's is trusted only
// when it matches the base digest (a content part's is in the form the
// provider reads it back, which its digest need not match).
func baseValue(w core.WorkItem, k string) ([]string, bool) {
	v, ok := w.BaseValues[k]
	if !ok {
		return nil, false
	}
	if !isContentKey(k) && core.FieldDigest(v) != w.FieldBases[k] {
		return nil, false
	}
	return v, true
}
