package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/atomicfile"
	"github.com/devworkwire/devworkwire/core/merge"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Pull: what people changed in the tracker for a document's
// items — the title, description, acceptance criteria (ticked boxes
// included) and the managed fields the document sets — taken back into
// the document, never silently.
//
// The preview compares, per item and part, three values as the import
// does (contentmerge.go, fields.go): the document's, the tracker's and the
// base (what DevWorkWire last wrote). A part a person changed in the
// tracker while the document kept the base is pulled: written into the
// document in place (plan.Rewrite: only that value's span changes). A part
// both changed differently is a conflict: shown with both values, taken
// from neither side unless the caller chooses per item (TakeTracker /
// TakeDocument). The preview shows the document's unified diff and stores
// the plan under an import handle (the document's commit lock, the same
// gate); the commit checks the file is still the one previewed, writes it
// atomically, and then moves the bases forward (BaseRecorder: the
// devworkwire property only, no other tracker write), so that the next
// import of the pulled document is unchanged.

// PullPreviewInput asks for a pull preview of a document.
type PullPreviewInput struct {
	// Path of the Markdown or YAML document; the commit writes this file.
	Path string `json:"path"`
	// TakeTracker and TakeDocument resolve conflicts, per item: item ids
	// ("s-1"), references ("plan/s-1") or the single entry "all".
	// TakeTracker writes the tracker's value of each conflicting part into
	// the document; TakeDocument keeps the document's and moves the base
	// to the tracker's, so the next import writes the document's value. An
	// item in conflict that neither names is shown and left as it is.
	TakeTracker  []string `json:"take_tracker,omitempty"`
	TakeDocument []string `json:"take_document,omitempty"`
	// Items narrows the pull to these items: ids ("s-1") or references
	// ("plan/s-1"); none (or "all") is every item of the document. The
	// others are neither compared nor written, nor shown.
	Items []string `json:"items,omitempty"`
	// DryRun says no commit of this preview follows in this process (a
	// front door's --dry-run): the preview does not read ahead the account
	// the commit would record (checkPermissions). Not part of the tools'
	// input.
	DryRun bool `json:"-"`
}

// PullAction is what a pull does with one item (PullItem.Action).
type PullAction string

// The actions of a pull preview row (PullActions lists them all).
const (
	PullActionPull        PullAction = "pull"         // the tracker's changes go into the document
	PullActionConflict    PullAction = "conflict"     // changed on both sides; not taken from either
	PullActionSettle      PullAction = "settle"       // the document already matches: only the base moves forward
	PullActionUnchanged   PullAction = "unchanged"    // nothing to pull
	PullActionNotImported PullAction = "not_imported" // not in the tracker yet
	PullActionSkipped     PullAction = "skipped"      // left alone (see the warnings)
)

// PullActions are every PullAction, for a front door's schema.
var PullActions = []PullAction{PullActionPull, PullActionConflict, PullActionSettle, PullActionUnchanged, PullActionNotImported, PullActionSkipped}

// PullTake is what a pull does with one part of an item (PullChange.Take).
type PullTake string

// The takes of a part (PullTakes lists them; "" is none: left as it is).
const (
	TakeTracker  PullTake = "tracker"  // written into the document
	TakeDocument PullTake = "document" // kept; the base moves, so the next import writes it
)

// PullTakes are every PullTake but none, for a front door's schema.
var PullTakes = []PullTake{TakeTracker, TakeDocument}

// PullChange is one part of an item that differs between the document and
// the tracker.
type PullChange struct {
	Field string `json:"field"` // title, description, acceptance_criteria, or a field key
	// Document and Tracker are each side's value as a person reads it: a
	// person field's tracker side by the display name the tracker gave
	// ("Name (id)"), its document side as the document names the person.
	Document string `json:"document"`
	Tracker  string `json:"tracker"`
	// Take is TakeTracker, TakeDocument, or "" for a part left as it is
	// (a conflict nobody chose for, or a document change the next import
	// writes).
	Take     PullTake `json:"take,omitempty"`
	Conflict bool     `json:"conflict,omitempty"`
}

// PullItem is one row of a pull preview.
type PullItem struct {
	Reference core.Reference `json:"reference"`
	Kind      core.Kind      `json:"kind"`
	Title     string         `json:"title"`
	Key       string         `json:"key,omitempty"`
	URL       string         `json:"url,omitempty"`
	Action    PullAction     `json:"action"`
	Changes   []PullChange   `json:"changes,omitempty"`
}

// PullCounts are pull preview rows by action.
type PullCounts struct {
	Pull        int `json:"pull"`
	Conflict    int `json:"conflict"`
	Settle      int `json:"settle"`
	Unchanged   int `json:"unchanged"`
	NotImported int `json:"not_imported,omitempty"`
	Skipped     int `json:"skipped,omitempty"`
}

// PullPreviewResult is a stored pull plan as shown.
type PullPreviewResult struct {
	ResultType    string    `json:"result_type"`
	RunID         string    `json:"run_id"`
	PreviewHandle string    `json:"preview_handle,omitempty"`
	ExpiresAt     time.Time `json:"expires_at"`
	PlanDigest    string    `json:"plan_digest,omitempty"`
	Document      string    `json:"document"`
	Path          string    `json:"path"`
	// Diff is the unified diff of the file the commit writes ("" when the
	// file stays as it is).
	Diff     string     `json:"diff"`
	Items    []PullItem `json:"items"`
	Counts   PullCounts `json:"counts"`
	Warnings []string   `json:"warnings,omitempty"`
	// Writes says whether the commit writes anything (the file, or bases
	// in the tracker); false is "nothing to pull".
	Writes bool `json:"writes"`
	// Planned is every write a commit of this stored pull makes (the file,
	// each item's record), each one named: what a front door asks the
	// person to confirm. Not in the JSON (diff, items and counts say it).
	Planned PlanWrites `json:"-"`
}

// PullCommitResult is the outcome of a pull commit.
type PullCommitResult struct {
	ResultType     string    `json:"result_type"`
	RunID          string    `json:"run_id"`
	PreviewHandle  string    `json:"preview_handle"`
	IdempotencyKey string    `json:"idempotency_key"`
	Replayed       bool      `json:"replayed,omitempty"`
	Path           string    `json:"path"`
	FileWritten    bool      `json:"file_written"`
	Settled        []string  `json:"settled,omitempty"` // keys whose bases moved forward
	CommittedAt    time.Time `json:"committed_at"`
	// Warnings: as ImportCommitResult's.
	Warnings []string `json:"warnings,omitempty"`
}

// pullPlanVersion is the stored pull plan's format version.
const pullPlanVersion = 1

// pullPlan is a stored pull plan (an import-kind preview whose plan has
// the "pull" head; decodeImportPlan refuses it).
type pullPlan struct {
	Version int         `json:"version"`
	Pull    pullHead    `json:"pull"`
	Entries []pullEntry `json:"entries"`
	Items   []PullItem  `json:"items"`
}

type pullHead struct {
	RunID      string     `json:"run_id"`
	Document   string     `json:"document"`
	Scope      string     `json:"scope"`
	Path       string     `json:"path"`
	FileDigest string     `json:"file_digest"`        // of the file the preview read
	NewFile    []byte     `json:"new_file,omitempty"` // what the commit writes (nil: the file stays)
	Diff       string     `json:"diff"`
	Warnings   []string   `json:"warnings,omitempty"`
	Counts     PullCounts `json:"counts"`
	MadeBy     string     `json:"made_by,omitempty"` // who or what made the preview (WithMadeBy)
}

// pullEntry is one base the commit moves forward.
type pullEntry struct {
	Key         string        `json:"key"`
	Fingerprint string        `json:"fingerprint"`
	Spec        core.ItemSpec `json:"spec"` // Reference, Kind, Digest, FieldBases, HeldContent
}

// PullPreview compares a document's items with the tracker and stores the
// plan of taking the tracker's changes into the document. It writes
// nothing (neither the tracker nor the file).
// Errors: SOURCE_*, VALIDATION_FAILED (the document; a take entry that
// names no item; a change that cannot be written in place),
// WORK_ITEM_NOT_FOUND (the document was never imported).
func (s *WorkItemService) PullPreview(ctx context.Context, in PullPreviewInput) (PullPreviewResult, error) {
	ctx, o := s.begin(ctx, "pull.preview")
	res, err := s.pullPreview(ctx, o, in)
	if err != nil {
		return PullPreviewResult{}, o.fail(err)
	}
	o.done("preview stored", "handle", res.PreviewHandle, "document", res.Document, "pull", res.Counts.Pull, "conflict", res.Counts.Conflict, "settle", res.Counts.Settle, "unchanged", res.Counts.Unchanged)
	return res, nil
}

// pullItemState is one item's comparison.
type pullItemState struct {
	it      plan.Item
	ref     core.Reference
	w       core.WorkItem
	row     PullItem
	change  plan.Change
	bases   baseSet // what the commit records as last written (ItemSpec.FieldBases, BaseValues)
	held    bool    // an unresolved conflict (or a part that could not be pulled): no base moves
	pulled  bool    // a part goes into the document
	settles bool    // a base moves
}

func (s *WorkItemService) pullPreview(ctx context.Context, o *op, in PullPreviewInput) (PullPreviewResult, error) {
	var data []byte
	var err error = core.Errorf(core.CodeSourceNotFound, "No planning document given: pass the path of the .md, .yaml or .yml file to pull into.").WithDetails(core.Detail{Field: "path", Message: "missing"})
	if strings.TrimSpace(in.Path) != "" {
		data, err = ReadDocument(in.Path)
	}
	if err != nil {
		return PullPreviewResult{}, err
	}
	name := filepath.Base(in.Path)
	opts := plan.Options{CustomFields: s.fields.Custom}
	parsed, err := opts.Parse(name, data)
	if err != nil {
		return PullPreviewResult{}, planError(err)
	}
	doc := withSubtasks(parsed)
	scope := s.p.Scope()
	refs := make([]core.Reference, len(doc.Items))
	for i, it := range doc.Items {
		refs[i] = core.NewReference(doc.ID, it.ID)
	}
	found, err := s.lookupKnown(ctx, scope, refs)
	if err != nil {
		return PullPreviewResult{}, err
	}
	if len(found) == 0 {
		return PullPreviewResult{}, core.Errorf(core.CodeWorkItemNotFound, "None of the %d items of document %s (%s) is in the tracker: the document was never imported, so there is nothing to pull. Import it first; nothing was written.", len(doc.Items), doc.ID, name).
			WithDetails(core.Detail{Item: doc.ID, Message: "no item of the document is in the tracker"})
	}
	takeT, err := pullChoices(doc, in.TakeTracker, "take_tracker", "take the tracker's values for")
	if err != nil {
		return PullPreviewResult{}, err
	}
	takeD, err := pullChoices(doc, in.TakeDocument, "take_document", "keep the document's values for")
	if err != nil {
		return PullPreviewResult{}, err
	}
	only, err := pullChoices(doc, in.Items, "items", "pull")
	if err != nil {
		return PullPreviewResult{}, err
	}
	named := func(ref core.Reference) bool { return len(only) == 0 || only[ref] }
	for ref := range takeT {
		if takeD[ref] {
			return PullPreviewResult{}, core.Errorf(core.CodeValidationFailed, "%s is named both to take the tracker's values and to keep the document's; choose one.", ref).
				WithDetails(core.Detail{Item: string(ref), Field: "take", Message: "named on both sides"})
		}
	}
	// The fields of the items in the tracker, resolved as the import does.
	inTracker := *doc
	inTracker.Items = slices.DeleteFunc(slices.Clone(doc.Items), func(it plan.Item) bool {
		ref := core.NewReference(doc.ID, it.ID)
		_, ok := found[ref]
		return !ok || !named(ref)
	})
	resolved, left, err := s.pullFields(ctx, &inTracker, found)
	if err != nil {
		return PullPreviewResult{}, err
	}
	fieldsOf := map[core.Reference]plan.Fields{}
	for _, it := range inTracker.Items {
		fieldsOf[core.NewReference(doc.ID, it.ID)] = it.Fields
	}
	// Labels from defaults add up with an item's own (plan.Fields.WithDefaults),
	// so an item's pulled labels must keep the defaults'.
	var defLabels []string
	for _, d := range []plan.Fields{parsed.Defaults, s.fields.Defaults} {
		if d.Labels.State == plan.FieldSet {
			defLabels = append(defLabels, d.Labels.Value...)
		}
	}
	// People a pull may write (a field whose tracker value differs from
	// the document's) are written as the export writes them.
	var differ []core.WorkItem
	for ref, fields := range resolved {
		w := found[ref]
		part := core.WorkItem{Key: w.Key, Fields: map[string][]string{}}
		for k, v := range fields {
			if core.FieldDigest(v.Values) != core.FieldDigest(w.Fields[k]) {
				part.Fields[k] = w.Fields[k]
			}
		}
		if len(part.Fields) > 0 {
			differ = append(differ, part)
		}
	}
	people, warnings, err := s.personNames(ctx, differ)
	if err != nil {
		return PullPreviewResult{}, err
	}
	states := make([]*pullItemState, 0, len(doc.Items))
	for _, it := range doc.Items {
		ref := core.NewReference(doc.ID, it.ID)
		if !named(ref) {
			continue
		}
		w, ok := found[ref]
		st := &pullItemState{it: it, ref: ref, w: w, row: PullItem{Reference: ref, Kind: core.Kind(it.Kind), Title: it.Title, Key: w.Key, URL: w.URL}}
		states = append(states, st)
		if !ok {
			st.row.Action = PullActionNotImported
			continue
		}
		if why, bad := left[ref]; bad {
			st.row.Action, st.held = PullActionSkipped, true
			warnings = append(warnings, fmt.Sprintf("%s %s (%s): its fields cannot be checked against the tracker (%s), so the item is left as it is; the rest is pulled. Correct the field in the document or in the tracker and pull again.", core.Kind(it.Kind).Label(), it.ID, w.Key, strings.TrimSuffix(why, ".")))
			continue
		}
		parent := parentOf(doc.ID, it)
		if want := found[parent].Key; (parent == "") != (w.ParentKey == "") || (parent != "" && want != w.ParentKey) {
			st.row.Action, st.held = PullActionSkipped, true
			warnings = append(warnings, fmt.Sprintf("%s %s (%s) sits under another parent in the tracker than in the document; its parent is not pulled, so the item is left as it is. Move it back in the tracker, or change the document and import.", core.Kind(it.Kind).Label(), it.ID, w.Key))
			continue
		}
		st.compareContent(takeT[ref], takeD[ref])
		st.compareFields(resolved[ref], fieldsOf[ref], defLabels, people, takeT[ref], takeD[ref], &warnings)
		st.finish()
	}
	// Write the pulled values into the document, in place; an item whose
	// values cannot be written there is left out (and held), and the rest
	// written.
	newData, newDoc, warnings, err := rewritePulled(opts, name, data, states, warnings)
	if err != nil {
		return PullPreviewResult{}, err
	}
	pl := pullPlan{Version: pullPlanVersion, Pull: pullHead{RunID: o.runID, Document: doc.ID, Scope: scope, Path: in.Path, FileDigest: core.PlanDigest(data), Warnings: warnings, MadeBy: madeByFrom(ctx)}}
	if newData != nil {
		pl.Pull.NewFile = newData
		pl.Pull.Diff = fileDiff(name, string(data), string(newData))
	}
	// The bases: computed from the document as it will be (its digests
	// are what the next import compares).
	after := doc
	if newData != nil {
		after = withSubtasks(newDoc) // as the rewrite read it back
	}
	byID := map[string]plan.Item{}
	for _, it := range after.Items {
		byID[it.ID] = it
	}
	for _, st := range states {
		pl.Items = append(pl.Items, st.row)
		if st.held || !st.settles {
			continue
		}
		it := byID[st.it.ID]
		ac := boxedCriteria(it)
		kind := core.Kind(it.Kind)
		spec := core.ItemSpec{Reference: st.ref, Kind: kind, Title: it.Title, Digest: core.ContentDigest(kind, it.Title, it.Description, ac, parentOf(doc.ID, it))}
		st.bases.record(&spec) // each value as an import keeps it: at most MaxBaseValue
		pl.Entries = append(pl.Entries, pullEntry{Key: st.w.Key, Fingerprint: st.w.Fingerprint, Spec: spec})
	}
	for _, r := range pl.Items {
		switch r.Action {
		case PullActionPull:
			pl.Pull.Counts.Pull++
		case PullActionConflict:
			pl.Pull.Counts.Conflict++
		case PullActionSettle:
			pl.Pull.Counts.Settle++
		case PullActionNotImported:
			pl.Pull.Counts.NotImported++
		case PullActionSkipped:
			pl.Pull.Counts.Skipped++
		default:
			pl.Pull.Counts.Unchanged++
		}
	}
	if len(pl.Entries) > 0 {
		if _, ok := s.p.(core.BaseRecorder); !ok {
			return PullPreviewResult{}, core.Errorf(core.CodeConfigInvalid, "This tracker connection cannot record what DevWorkWire last wrote without writing the items, so a pull cannot move the bases forward; nothing was written.")
		}
	}
	return storePreview(ctx, s, in.DryRun, pullPermissions(pl), core.PreviewPull, pl, pl.result)
}

// lookupKnown looks refs up in the tracker (by key, too, where the dedup
// index knows one).
func (s *WorkItemService) lookupKnown(ctx context.Context, scope string, refs []core.Reference) (map[core.Reference]core.WorkItem, error) {
	idx, err := s.st.LookupIndex(ctx, scope, refs)
	if err != nil {
		return nil, err
	}
	return s.p.Lookup(ctx, refs, knownKeys(idx))
}

// pullPermissions are the permissions the commit's base writes need.
func pullPermissions(pl pullPlan) []core.Permission {
	if len(pl.Entries) == 0 {
		return nil
	}
	return []core.Permission{core.PermissionEdit}
}

// pullChoices resolves the items a take list names (ids, references,
// or "all"), refusing names of no item.
func pullChoices(doc *plan.Document, names []string, field, what string) (map[core.Reference]bool, error) {
	items := make(map[core.Reference]bool, len(doc.Items))
	for _, it := range doc.Items {
		items[core.NewReference(doc.ID, it.ID)] = true
	}
	out := map[core.Reference]bool{}
	var details []core.Detail
	for _, n := range slices.DeleteFunc(slices.Clone(names), func(n string) bool { return strings.TrimSpace(n) == "" }) {
		n = strings.TrimSpace(n)
		ref := core.Reference(n)
		if !strings.Contains(n, "/") {
			ref = core.NewReference(doc.ID, n)
		}
		if strings.EqualFold(n, "all") {
			maps.Copy(out, items)
		} else if items[ref] {
			out[ref] = true
		} else {
			details = append(details, core.Detail{Item: string(ref), Field: field, Message: n + " is not an item of document " + doc.ID})
		}
	}
	if len(details) > 0 {
		verb := "are"
		if len(details) == 1 {
			verb = "is"
		}
		return nil, core.Errorf(core.CodeValidationFailed, "%s chosen to %s %s not in the document (first: %s); name items by their ids, or all.", core.Plural(len(details), "item", "items"), what, verb, details[0].Message).WithDetails(details...)
	}
	return out, nil
}

// compareContent settles the title, description and criteria (core/merge:
// document, tracker, base).
func (st *pullItemState) compareContent(takeT, takeD bool) {
	it, w := st.it, st.w
	ac := boxedCriteria(it)
	doc := contentValues(it.Title, it.Description, ac)
	jira := contentValues(w.Title, w.Description, w.AcceptanceCriteria)
	st.bases = newBaseSet()
	for _, k := range contentKeys {
		d, j := core.ContentFieldDigest(doc[k]...), core.ContentFieldDigest(jira[k]...)
		b, hasBase := w.FieldBases[k]
		sides := merge.Sides{Same: d == j}
		if w.ContentChanged != nil && hasBase {
			sides.TrackerChanged, sides.DocumentChanged = w.ContentChanged[k], d != b
		} else {
			// An item written before per-part bases: one digest for all.
			sides.TrackerChanged = w.EditedOutside
			sides.DocumentChanged = w.LastWritten != core.ContentDigest(core.Kind(it.Kind), it.Title, it.Description, ac, parentOf(st.ref.Document(), it))
		}
		state := sides.Merge(pullResolution(takeT, takeD))
		ch := PullChange{Field: k, Document: shownContent(doc[k]), Tracker: shownContent(jira[k])}
		switch state {
		case merge.Same:
			st.bases.move(k, d, doc[k])
			if w.ContentChanged[k] || (w.ContentChanged == nil && w.EditedOutside) || b != d {
				st.settles = true
			}
		case merge.Write:
			// The document's change: the next import writes it (the base
			// stays, should another part move it).
			if hasBase {
				st.bases.keep(w, k)
			} else {
				st.bases.move(k, j, jira[k])
			}
			st.row.Changes = append(st.row.Changes, ch)
		default:
			st.resolve(ch, state, k, j, jira[k], func() { st.take(k, jira[k]) })
		}
	}
}

// pullResolution is how an item's conflicts are resolved: the pull's
// take_tracker or take_document names it (never both: refused).
func pullResolution(takeT, takeD bool) merge.Resolution {
	switch {
	case takeT:
		return merge.ForTracker
	case takeD:
		return merge.ForDocument
	}
	return merge.Unresolved
}

// resolve settles part k the tracker changed (to digest j of its values
// jv), as merged: the tracker's value taken (pull writes it into the
// document) when only the tracker changed it or the item takes the
// tracker's; the document's kept (only the base moves) when the item takes
// the document's; else a conflict that holds the item.
func (st *pullItemState) resolve(ch PullChange, state merge.State, k, j string, jv []string, pull func()) {
	ch.Conflict = state.Conflicted()
	switch state {
	case merge.Keep, merge.TakeTracker:
		ch.Take = TakeTracker
		st.bases.move(k, j, jv)
		pull()
		st.pulled, st.settles = true, true
	case merge.TakeDocument:
		ch.Take = TakeDocument
		st.bases.move(k, j, jv)
		st.settles = true
	default:
		st.held = true
	}
	st.row.Changes = append(st.row.Changes, ch)
}

// take writes the tracker's value of content part k into the document.
func (st *pullItemState) take(k string, v []string) {
	switch k {
	case core.ContentTitle:
		st.change.Title = &v[0]
	case core.ContentDescription:
		st.change.Description = &v[0]
	default:
		c := &plan.Criteria{}
		c.Texts, c.Boxes = unboxCriteria(v)
		st.change.Criteria = c
	}
}

// compareFields settles the managed fields the document sets (core/merge:
// document, tracker, base).
func (st *pullItemState) compareFields(fields map[string]core.FieldValue, own plan.Fields, defLabels []string, people map[string]string, takeT, takeD bool, warnings *[]string) {
	w := st.w
	written := docFields(own)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		d, j := core.FieldDigest(fields[k].Values), core.FieldDigest(w.Fields[k])
		b, hasBase := w.FieldBases[k]
		if !hasBase && d != j {
			continue // no base: the next import writes the document's value
		}
		state := merge.Of(d, j, b).Merge(pullResolution(takeT, takeD))
		ch := PullChange{Field: k, Document: shownValues(fields[k].Values), Tracker: shownTracker(w, k)}
		if shownPeople(w.Fields[k], w.People) != "" {
			// A person field: the document's side as the document names them.
			ch.Document = shownAsWritten(fields[k].Values, written[k].Values, w.People)
		}
		switch {
		case state == merge.Same:
			st.bases.move(k, d, fields[k].Values)
			if hasBase && b != d {
				st.settles = true
			}
		case state == merge.Write:
			st.bases.keep(w, k) // the document's change: the next import writes it
			st.row.Changes = append(st.row.Changes, ch)
		case state.Tracker() && k == core.FieldLabels && own.Labels.From != plan.SourceItem && !containsAll(w.Fields[k], defLabels):
			*warnings = append(*warnings, fmt.Sprintf("%s %s (%s): its labels in the tracker (%s) drop a label the document's defaults add, so they cannot be written into the item; edit the defaults or the labels by hand.", core.Kind(st.it.Kind).Label(), st.it.ID, w.Key, shownValues(w.Fields[k])))
			st.held, ch.Conflict = true, state.Conflicted()
			st.row.Changes = append(st.row.Changes, ch)
		default:
			st.resolve(ch, state, k, j, w.Fields[k], func() {
				if st.change.Fields == nil {
					st.change.Fields = map[string]string{}
				}
				st.change.Fields[k] = shownValues(asWritten(w.Fields[k], people))
			})
		}
	}
}

// shownAsWritten is a document's person values as a person reads them:
// each by the display name the tracker gave, else as the document wrote
// it, followed by the account id it stands for; plain ids when the
// written values do not line up with the canonical ones (a default the
// item does not write itself).
func shownAsWritten(canonical, written []string, people map[string]string) string {
	if len(written) != len(canonical) {
		written = nil
	}
	out := make([]string, len(canonical))
	for i, v := range canonical {
		switch {
		case people[v] != "":
			out[i] = people[v] + " (" + v + ")"
		case written != nil && written[i] != v:
			out[i] = written[i] + " (" + v + ")"
		default:
			out[i] = v
		}
	}
	return shownValues(out)
}

// asWritten are canonical values as a document writes them: a person's
// account id as personNames names them.
func asWritten(values []string, people map[string]string) []string {
	out := slices.Clone(values)
	for i, v := range out {
		if w, ok := people[v]; ok {
			out[i] = w
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, v := range want {
		if !slices.Contains(have, v) {
			return false
		}
	}
	return true
}

// finish sets the row's action.
func (st *pullItemState) finish() {
	switch {
	case st.held:
		st.row.Action = PullActionConflict
	case st.pulled:
		st.row.Action = PullActionPull
	case st.settles:
		st.row.Action = PullActionSettle
	default:
		st.row.Action = PullActionUnchanged
	}
	if st.row.Action == PullActionUnchanged {
		st.row.Changes = nil
	}
}

// rewritePulled writes every pulled item's values into the document (data,
// already parsed) and returns the new text with the document it reads as.
// An item whose values the rewriter refuses — named by the refusal, or
// found by trying the items in halves when the refusal names none (a
// value that would make the document read differently, two changes that
// overlap) — is left out (held, with a warning saying which and why) and
// the others written; nil means the file stays as it is.
func rewritePulled(opts plan.Options, name string, data []byte, states []*pullItemState, warnings []string) ([]byte, *plan.Document, []string, error) {
	var pulled []*pullItemState
	for _, st := range states {
		if st.pulled && (st.change.Title != nil || st.change.Description != nil || st.change.Criteria != nil || len(st.change.Fields) > 0) {
			pulled = append(pulled, st)
		}
	}
	changes := func(sts []*pullItemState) []plan.Change {
		out := make([]plan.Change, len(sts))
		for i, st := range sts {
			out[i] = st.change
			out[i].Item = st.it.ID
		}
		return out
	}
	leave := func(st *pullItemState, err error) {
		why := err.Error()
		var pe *plan.Error
		if errors.As(err, &pe) {
			why = pe.Message
			if len(pe.Problems) > 0 && pe.Problems[0].Item == st.it.ID && pe.Problems[0].Message != "cannot be rewritten in place" {
				why = pe.Problems[0].Message
			}
		}
		st.pulled, st.held, st.change = false, true, plan.Change{}
		st.row.Action = PullActionSkipped
		warnings = append(warnings, fmt.Sprintf("%s %s (%s): the tracker's values cannot be written into the document in place (%s); the item is left as it is and the rest is pulled. Edit it by hand to match the tracker.", core.Kind(st.it.Kind).Label(), st.it.ID, st.w.Key, strings.TrimSuffix(why, ".")))
	}
	// kept are the items written so far; out and doc what they make.
	var kept []*pullItemState
	var out []byte
	var doc *plan.Document
	var try func(batch []*pullItemState) error
	try = func(batch []*pullItemState) error {
		if len(batch) == 0 {
			return nil
		}
		o, d, err := opts.RewriteParsed(name, data, changes(append(slices.Clone(kept), batch...)))
		if err == nil {
			kept, out, doc = append(kept, batch...), o, d
			return nil
		}
		var pe *plan.Error
		if !errors.As(err, &pe) {
			return planError(err)
		}
		if len(pe.Problems) > 0 { // a refusal naming an item of the batch: that item is left
			if i := slices.IndexFunc(batch, func(st *pullItemState) bool { return st.it.ID == pe.Problems[0].Item }); i >= 0 {
				leave(batch[i], err)
				return try(slices.Delete(slices.Clone(batch), i, i+1))
			}
		}
		if len(batch) == 1 {
			leave(batch[0], err)
			return nil
		}
		h := len(batch) / 2
		if err := try(batch[:h]); err != nil {
			return err
		}
		return try(batch[h:])
	}
	if err := try(pulled); err != nil {
		return nil, nil, nil, err
	}
	if len(kept) == 0 {
		return nil, nil, warnings, nil
	}
	return out, doc, warnings, nil
}

// pullFields resolves the fields of doc's items (in the tracker) as the
// import does; an item whose fields the tracker refuses (a value it no
// longer allows) is left out with why (left), and the others resolved.
func (s *WorkItemService) pullFields(ctx context.Context, doc *plan.Document, found map[core.Reference]core.WorkItem) (map[core.Reference]map[string]core.FieldValue, map[core.Reference]string, error) {
	left := map[core.Reference]string{}
	for {
		resolved, _, err := s.resolveFields(ctx, doc, found)
		e := core.AsError(err)
		if err == nil || e.Code != core.CodeValidationFailed {
			return resolved, left, err
		}
		n := len(left)
		for _, d := range e.Details {
			ref := core.Reference(d.Item)
			if _, done := left[ref]; !done && slices.ContainsFunc(doc.Items, func(it plan.Item) bool { return core.NewReference(doc.ID, it.ID) == ref }) {
				left[ref] = d.Message
			}
		}
		if len(left) == n {
			return nil, nil, err // a refusal of no item: the whole pull's
		}
		doc.Items = slices.DeleteFunc(doc.Items, func(it plan.Item) bool { _, out := left[core.NewReference(doc.ID, it.ID)]; return out })
	}
}

// fileDiff is the unified diff of a file's text before and after.
func fileDiff(name, from, to string) string {
	if from == to {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	writeHunks(&out, splitLines(strings.TrimSuffix(from, "\n")), splitLines(strings.TrimSuffix(to, "\n")), math.MaxInt) // the whole diff: a front door bounds it
	return out.String()
}

// result is the stored pull plan p as shown.
func (pl *pullPlan) result(p core.Preview) PullPreviewResult {
	r := PullPreviewResult{ResultType: ResultPreview, RunID: pl.Pull.RunID, PreviewHandle: p.Handle, ExpiresAt: core.UTCSecond(p.ExpiresAt), PlanDigest: p.Digest,
		Document: pl.Pull.Document, Path: pl.Pull.Path, Diff: pl.Pull.Diff, Items: pl.Items, Counts: pl.Pull.Counts, Warnings: pl.Pull.Warnings,
		Writes: pl.Pull.NewFile != nil || len(pl.Entries) > 0, Planned: pl.writes()}
	if !r.Writes {
		r.PreviewHandle, r.PlanDigest = "", ""
	}
	return r
}

// PullCommit executes a stored pull plan behind the gate: the file is
// written (when it changes) only if it is still the one previewed, then
// the bases move forward in the tracker.
// Errors: the gate's; PREVIEW_STALE (the file or an item changed since
// the preview; nothing written); COMMIT_PARTIAL.
func (s *WorkItemService) PullCommit(ctx context.Context, in CommitInput) (PullCommitResult, error) {
	ctx, o := s.begin(ctx, "pull.commit")
	res, err := commitGated(ctx, s, o, s.pullKind(in.WriteWithin), in)
	if err != nil {
		return PullCommitResult{}, o.fail(err)
	}
	o.done("commit finished", "handle", res.PreviewHandle, "file_written", res.FileWritten, "settled", len(res.Settled), "replayed", res.Replayed)
	return res, nil
}

// pullKind is the pull's part of the gate (its plan decoded into a
// pullCommit that writes only within that folder, when set).
func (s *WorkItemService) pullKind(within string) commitKind[PullCommitResult] {
	return commitKind[PullCommitResult]{
		kind: core.PreviewPull,
		plan: func(p core.Preview) (plannedCommit[PullCommitResult], error) {
			pl, err := decodePullPlan(p)
			if err != nil {
				return nil, err
			}
			return &pullCommit{s: s, pl: pl, within: within}, nil
		},
		marks: func(r *PullCommitResult) (*bool, *[]string) { return &r.Replayed, &r.Warnings },
	}
}

type pullCommit struct {
	s      *WorkItemService
	pl     *pullPlan
	within string // CommitInput.WriteWithin
}

// lock: the document's commit lock (the import's).
func (c *pullCommit) lock() []lockName {
	d := c.pl.Pull.Document
	return []lockName{{name: "import|" + c.pl.Pull.Scope + "|" + d, what: "document " + d, document: d}}
}

// fileStale refuses a file that is not the one previewed.
func (c *pullCommit) fileStale() error {
	h := c.pl.Pull
	b, err := ReadDocument(h.Path)
	if err != nil {
		return err
	}
	if core.PlanDigest(b) != h.FileDigest { // (the same digest a stored plan has)
		return core.Errorf(core.CodePreviewStale, "%s changed since the pull preview, so the stored plan no longer matches it. Nothing was written. %s.", h.Path, rerunPull).WithRerun(rerunPull).
			WithDetails(core.Detail{Item: h.Document, Field: "path", Message: "the file changed since the preview"})
	}
	return nil
}

func (c *pullCommit) stale(ctx context.Context) error {
	if err := c.fileStale(); err != nil {
		return err
	}
	if len(c.pl.Entries) == 0 {
		return nil
	}
	refs := make([]core.Reference, len(c.pl.Entries))
	known := map[core.Reference]string{}
	for i, e := range c.pl.Entries {
		refs[i], known[e.Spec.Reference] = e.Spec.Reference, e.Key
	}
	now, err := c.s.p.Lookup(ctx, refs, known)
	if err != nil {
		return err
	}
	var details []core.Detail
	for _, e := range c.pl.Entries {
		w, ok := now[e.Spec.Reference]
		if d := (seen{e.Spec.Reference, e.Key, e.Fingerprint}).changedSince(w, ok); d != nil {
			details = append(details, *d)
		}
	}
	if len(details) > 0 {
		return refuseStale(fmt.Sprintf("The tracker changed since this pull preview (%d item(s), see details)", len(details)), rerunPull+".", details...)
	}
	return nil
}

// execute writes the document, then moves the items' bases forward, one
// write at a time (writestep.go): each fenced, its outcome recorded before
// the next; the first failure, a cancelled context or a store that cannot
// record stops it.
func (c *pullCommit) execute(ctx context.Context, r *commitRun) (PullCommitResult, error) {
	h := c.pl.Pull
	res := PullCommitResult{ResultType: ResultCommitted, RunID: r.o.runID, PreviewHandle: r.handle, IdempotencyKey: r.key, Path: h.Path}
	var details []core.Detail // the writes made, then the one that stopped the pull, then the rest
	stop := func(err error, from int) (PullCommitResult, error) {
		ae := core.AsError(err)
		for _, e := range c.pl.Entries[from:] {
			details = append(details, core.Detail{Item: string(e.Spec.Reference), Key: e.Key, Outcome: core.OutcomeUntried, Message: "base not moved"})
		}
		if from == 0 && !res.FileWritten && len(details) > 0 {
			// The document's write failed: the first item carries why.
			details[0].Outcome, details[0].Code, details[0].Message = core.OutcomeFailed, ae.Code, ae.Message
		}
		e := core.Errorf(ae.Code, "%s", ae.Message)
		state := core.RunFailed
		if res.FileWritten || len(res.Settled) > 0 {
			e = core.Errorf(core.CodeCommitPartial, "The pull stopped: %s %s %s: what is done is not done twice.", ae.Message, map[bool]string{true: "The document was written; the bases of the items after it were not all moved.", false: ""}[res.FileWritten], rerunPull).WithRerun(rerunPull)
			state = core.RunPartial
		}
		e.Details, e.RunID, e.Err = details, r.o.runID, err
		r.finish(ctx, state, e)
		return PullCommitResult{}, e
	}
	if h.NewFile != nil {
		end := r.write(ctx, writeStep{
			send: func(context.Context) error {
				// Checked again right before the write: the file is still
				// the one previewed.
				if err := c.fileStale(); err != nil {
					return err
				}
				return writeFileAtomic(h.Path, h.NewFile, c.within)
			},
			outcome: func(err error, _ bool) ([]core.IndexEntry, []core.ItemOutcome) {
				if err != nil {
					return nil, nil
				}
				res.FileWritten = true
				return nil, []core.ItemOutcome{{Reference: core.Reference(h.Document), Action: "pull", Outcome: core.OutcomeCommitted, Message: "wrote " + h.Path}}
			},
		})
		if end.err != nil {
			return stop(end.err, 0)
		}
		if end.record != nil {
			return stop(unrecorded("writing "+h.Path, end.record), 0)
		}
	}
	rec, _ := c.s.p.(core.BaseRecorder)
	for i, e := range c.pl.Entries {
		var idx []core.IndexEntry
		end := r.write(ctx, writeStep{
			send: func(ctx context.Context) error {
				if rec == nil {
					return core.Errorf(core.CodeConfigInvalid, "This tracker connection cannot record bases.")
				}
				return rec.RecordBase(ctx, e.Key, e.Fingerprint, e.Spec)
			},
			outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
				oc := core.ItemOutcome{Reference: e.Spec.Reference, Action: "settle", Key: e.Key, Outcome: core.OutcomeCommitted, Message: "base moved forward"}
				if err != nil {
					oc.Outcome, oc.Code, oc.Message = core.OutcomeFailed, core.ErrorCode(err), core.AsError(err).Message
					if writeMayHaveApplied(err, sent) {
						oc.Outcome = core.OutcomeUnknown
					}
					details = append(details, core.Detail{Item: string(e.Spec.Reference), Key: e.Key, Outcome: core.OutcomeFailed, Code: oc.Code, Message: oc.Message})
					return nil, []core.ItemOutcome{oc}
				}
				idx = []core.IndexEntry{{Scope: h.Scope, Reference: e.Spec.Reference, Key: e.Key, Digest: e.Spec.Digest, UpdatedAt: core.UTCSecond(c.s.now())}}
				res.Settled = append(res.Settled, e.Key)
				details = append(details, core.Detail{Item: string(e.Spec.Reference), Key: e.Key, Outcome: core.OutcomeCommitted, Message: "base moved forward"})
				return idx, []core.ItemOutcome{oc}
			},
		})
		if end.err != nil {
			return stop(end.err, i+1)
		}
		if end.record != nil {
			return stop(unrecorded("moving the base of "+e.Key+" forward", end.record), i+1)
		}
		if r.progress != nil {
			r.progress(i+1, len(c.pl.Entries))
		}
	}
	res.CommittedAt = core.UTCSecond(c.s.now())
	r.finish(ctx, core.RunCommitted, res)
	return res, nil
}

// unrecorded is why a run stopped after a write (what) whose outcome the
// state store could not record (err): nothing further was sent, since a
// replay could not tell the write was made.
func unrecorded(what string, err error) *core.Error {
	ae := core.AsError(err)
	e := core.Errorf(ae.Code, "The state store could not record %s (%s: %s), so nothing further was written.", what, ae.Code, strings.TrimSuffix(ae.Message, "."))
	e.Err = err
	return e
}

// writeFileAtomic replaces path's content with data (atomicfile.Write:
// a temporary file in the same folder, synced and renamed over the file;
// its permissions kept, a symbolic link's target written; with within,
// atomicfile.WriteWithin: only inside that folder), in the taxonomy's
// words.
func writeFileAtomic(path string, data []byte, within string) error {
	write := atomicfile.Write
	if within != "" {
		write = func(path string, data []byte) error { return atomicfile.WriteWithin(within, path, data) }
	}
	if err := write(path, data); err != nil {
		code := core.CodeInternal
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, atomicfile.ErrOutside) {
			code = core.CodeSourceNotFound
		}
		return core.Wrap(err, code, "%s could not be written (%s). The file was left as it was; check the folder and its permissions.", path, core.FSReason(err))
	}
	return nil
}
