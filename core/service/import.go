package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// ImportPreview parses and validates a planning document, looks up every
// item in the tracker (one provider call), classifies each item and stores
// the plan under a new import handle. It writes nothing to the tracker.
func (s *WorkItemService) ImportPreview(ctx context.Context, in ImportPreviewInput) (ImportPreviewResult, error) {
	ctx, o := s.begin(ctx, "import.preview")
	res, err := s.importPreview(ctx, o, in)
	if err != nil {
		return ImportPreviewResult{}, o.fail(err)
	}
	o.done("preview stored", "handle", res.PreviewHandle, "document", res.Document, "items", len(res.Items),
		"create", res.Counts.Create, "update", res.Counts.Update, "unchanged", res.Counts.Unchanged, "drift", res.Counts.Drift)
	return res, nil
}

func (s *WorkItemService) importPreview(ctx context.Context, o *op, in ImportPreviewInput) (ImportPreviewResult, error) {
	docs, set, skipped, bad, err := s.previewDocuments(in) // documentset.go
	if err != nil {
		return ImportPreviewResult{}, err
	}
	// Every problem at once (problems.go): the parser's, then each later
	// check's of what parsed.
	var problems problemList
	if err := problems.add(bad, ""); err != nil {
		return ImportPreviewResult{}, err
	}
	// One lookup for every item of every document, their removed items and
	// the epics of other documents their stories name.
	scope := s.p.Scope()
	var refs []core.Reference
	removed := make([][]core.Reference, len(docs))
	for i, d := range docs {
		for _, it := range d.doc.Items {
			refs = append(refs, core.NewReference(d.doc.ID, it.ID))
		}
		if removed[i], err = s.removedRefs(ctx, scope, d.doc); err != nil { // removed.go: looked up with the others
			return ImportPreviewResult{}, err
		}
		refs = append(refs, removed[i]...)
	}
	refs = append(refs, externalEpics(docs)...)
	idx, err := s.st.LookupIndex(ctx, scope, refs)
	if err != nil {
		return ImportPreviewResult{}, err
	}
	found, err := s.p.Lookup(ctx, refs, knownKeys(idx))
	if err != nil {
		return ImportPreviewResult{}, err
	}
	s.resolveMarkers(ctx, o, scope, idx, found)
	if err := problems.add(checkExternalEpics(docs, found), ""); err != nil {
		return ImportPreviewResult{}, err
	}
	pl := importPlan{Version: importPlanVersion, Head: importHead{RunID: o.runID, Scope: scope, MadeBy: madeByFrom(ctx), Path: in.Path}}
	if set == nil {
		pl.Head.Document = docs[0].doc.ID
	} else if w := skippedWarning(skipped); w != "" {
		pl.Head.Warnings = append(pl.Head.Warnings, w)
	}
	planned := map[core.Reference]bool{} // every item of every document
	for _, d := range docs {
		for _, it := range d.doc.Items {
			planned[core.NewReference(d.doc.ID, it.ID)] = true
		}
	}
	releases, err := releaseFor(docs, set != nil, in.ReleaseHeld)
	if err != nil {
		if err := problems.add(err, ""); err != nil {
			return ImportPreviewResult{}, err
		}
		releases = make([][]string, len(docs))
	}
	for i, d := range docs {
		dp, err := s.planDocument(ctx, d, in, idx, found, removed[i], planned, releases[i], &problems)
		if err != nil {
			return ImportPreviewResult{}, inFile(err, d.file)
		}
		if pl.Entries == nil && len(dp.entries) > 0 {
			pl.Entries = dp.entries // the first document's: no copy
		} else {
			pl.Entries = append(pl.Entries, dp.entries...)
		}
		if set == nil {
			pl.Head.Warnings, pl.Structure = dp.warnings, dp.structure
			continue
		}
		pl.Head.Documents = append(pl.Head.Documents, storedDocument{ID: d.doc.ID, Path: d.path, File: d.file})
		for _, w := range dp.warnings {
			pl.Head.Warnings = append(pl.Head.Warnings, d.file+": "+w)
		}
		if dp.structure != nil {
			pl.Structures = append(pl.Structures, docStructure{Document: d.doc.ID, Plan: dp.structure})
		}
	}
	if !problems.any() {
		if err := problems.add(releasedAny(set != nil, in.ReleaseHeld, pl.Entries), ""); err != nil {
			return ImportPreviewResult{}, err
		}
	}
	if err := problems.refusal(); err != nil {
		return ImportPreviewResult{}, err
	}
	return storePreview(ctx, s, in.DryRun, importPermissions(pl.Entries, pl.structures()), core.PreviewImport, pl, pl.result)
}

// documentPlan is one document's part of an import plan.
type documentPlan struct {
	entries   []planEntry
	warnings  []string
	structure *structurePlan
}

// planDocument plans one document of a preview against what the tracker
// holds (found, looked up with every document's items) and the dedup
// index (idx); removed are its references it no longer lists. A check
// that refuses the document adds its refusal to problems, and the checks
// that do not need its result still run, so that every problem is found
// in one preview; the plan is then only good for finding problems.
func (s *WorkItemService) planDocument(ctx context.Context, d sourceDoc, in ImportPreviewInput, idx map[core.Reference]core.IndexEntry, found map[core.Reference]core.WorkItem, removed []core.Reference, planned map[core.Reference]bool, release []string, problems *problemList) (documentPlan, error) {
	doc := d.doc
	refused := func(err error) (bool, error) { // the check refused (kept in problems), or another error
		before := len(problems.errs)
		if e := core.AsError(err); e != nil && e.Code == core.CodeValidationFailed {
			placed(doc, e.Details)
		}
		if err := problems.add(err, d.file); err != nil {
			return true, err
		}
		return len(problems.errs) > before, nil
	}
	adopted, err := s.adoptIssues(ctx, doc, found) // adopt.go: Key lines
	if _, err := refused(err); err != nil {
		return documentPlan{}, err
	}
	lost, err := s.lostIssues(ctx, doc, idx, found)
	if err != nil {
		return documentPlan{}, err
	}
	resolved, written, err := s.resolveFields(ctx, doc, found)
	noFields, err := refused(err)
	if err != nil {
		return documentPlan{}, err
	}
	entries, warnings, err := classify(doc, found, idx, core.UTCSecond(s.now()), s.lagWindow, release)
	if stop, err := refused(err); stop || err != nil {
		return documentPlan{}, err // no entries: nothing more to check
	}
	if !noFields {
		warnings = append(warnings, applyFields(doc, entries, resolved, written, found)...)
	}
	settleContentConflicts(entries)
	if _, err := refused(s.checkItems(ctx, doc, entries)); err != nil { // measure.go
		return documentPlan{}, err
	}
	if err := s.fillCreates(ctx, entries); err != nil { // fills.go
		return documentPlan{}, err
	}
	describeChanges(entries, found) // diff.go
	markAdopted(entries, adopted)
	all, gone, err := s.planRemoved(ctx, removed, found, doc, in.Removed, entries)
	if stop, err := refused(err); err != nil {
		return documentPlan{}, err
	} else if !stop {
		entries = all
	}
	warnings = append(warnings, gone...)
	w, err := s.documentCollision(ctx, s.p.Scope(), doc, d.path, found) // documents.go
	if _, err := refused(err); err != nil {
		return documentPlan{}, err
	}
	if w != "" {
		warnings = append([]string{w}, warnings...)
	}
	warnings = append(append(lost, warnings...), unwrittenWarnings(doc)...)
	structure, bad, err := s.planStructure(ctx, doc, entries, found, planned) // structure.go
	if err != nil {
		return documentPlan{}, err
	}
	placed(doc, bad)
	for _, p := range bad {
		if p.File == "" {
			p.File = d.file
		}
		problems.structure = append(problems.structure, p)
	}
	return documentPlan{entries: entries, warnings: warnings, structure: structure}, nil
}

// resolveMarkers replaces the unknown-create markers of items the tracker
// now shows with their keys (and updates idx to match).
func (s *WorkItemService) resolveMarkers(ctx context.Context, o *op, scope string, idx map[core.Reference]core.IndexEntry, found map[core.Reference]core.WorkItem) {
	var entries []core.IndexEntry
	now := core.UTCSecond(s.now())
	for ref, ie := range idx {
		if w, ok := found[ref]; ok && unknownMarker(ie, true) {
			e := core.IndexEntry{Scope: scope, Reference: ref, Key: w.Key, Digest: w.LastWritten, UpdatedAt: now}
			entries = append(entries, e)
			idx[ref] = e
		}
	}
	if len(entries) == 0 {
		return
	}
	if err := s.st.UpsertIndex(context.WithoutCancel(ctx), entries); err != nil {
		o.log.Warn("could not record found items in the dedup index", "code", core.ErrorCode(err), "items", len(entries))
		return
	}
	o.log.Info("items of unknown create outcome found", "items", len(entries))
}

// lostIssues explains the items the dedup index knows by key but the
// tracker no longer shows under their reference, which the plan creates
// again (they would otherwise be silent): the issue was deleted, or a
// person edited its reference field. One read per such item (rare).
func (s *WorkItemService) lostIssues(ctx context.Context, doc *plan.Document, idx map[core.Reference]core.IndexEntry, found map[core.Reference]core.WorkItem) ([]string, error) {
	var warnings []string
	for _, it := range doc.Items {
		ref := core.NewReference(doc.ID, it.ID)
		ie, ok := idx[ref]
		if _, exists := found[ref]; exists || !ok || ie.Key == "" {
			continue
		}
		label := core.Kind(it.Kind).Label()
		w, err := s.p.Get(ctx, ie.Key)
		switch {
		case core.ErrorCode(err) == core.CodeWorkItemNotFound:
			warnings = append(warnings, fmt.Sprintf("%s %s was created as %s, which is no longer in the tracker (deleted?): it will be created again as a new issue. If it should stay gone, remove it from the document.",
				label, it.ID, ie.Key))
		case err != nil:
			return nil, err
		case w.Reference != ref:
			now := "an empty reference field"
			if w.Reference != "" {
				now = fmt.Sprintf("the reference %s", w.Reference)
			}
			warnings = append(warnings, fmt.Sprintf("%s %s was created as %s, but %s now has %s (someone edited its reference field), so DevWorkWire no longer takes it as this item: it will be created again, as a second issue with the same content. To keep %s as this item, set its reference field back to %s in the tracker and preview again.",
				label, it.ID, ie.Key, ie.Key, now, ie.Key, ref))
		}
	}
	return warnings, nil
}

func knownKeys(idx map[core.Reference]core.IndexEntry) map[core.Reference]string {
	known := make(map[core.Reference]string, len(idx))
	for r, e := range idx {
		if e.Key != "" {
			known[r] = e.Key
		}
	}
	return known
}

// classify decides each item's action from what the tracker holds.
// release names the held-back items the caller releases
// (ImportPreviewInput.ReleaseHeld).
func classify(doc *plan.Document, found map[core.Reference]core.WorkItem, idx map[core.Reference]core.IndexEntry, now time.Time, window time.Duration, release []string) ([]planEntry, []string, error) {
	entries := make([]planEntry, 0, len(doc.Items))
	var warnings []string
	// held: items not in the tracker whose earlier create's outcome is
	// unknown, within the search-lag window: not created by this plan
	// unless released.
	held := map[core.Reference]bool{}
	for _, it := range doc.Items {
		ref := core.NewReference(doc.ID, it.ID)
		if ie, ok := idx[ref]; unknownMarker(ie, ok) && now.Before(core.UTCSecond(ie.UpdatedAt).Add(window)) {
			if _, exists := found[ref]; !exists {
				held[ref] = true
			}
		}
	}
	released, err := releaseHeld(doc, held, release)
	if err != nil {
		return nil, nil, err
	}
	for ref := range released {
		delete(held, ref) // created by this plan: its stories get its key
	}
	for _, it := range doc.Items {
		ref := core.NewReference(doc.ID, it.ID)
		kind := core.Kind(it.Kind)
		parent := parentOf(doc.ID, it) // a story's epic, a sub-task's story (structure.go)
		ac := boxedCriteria(it)
		spec := core.ItemSpec{
			Reference: ref, Kind: kind, Title: it.Title, Description: it.Description, AcceptanceCriteria: ac,
			Digest: core.ContentDigest(kind, it.Title, it.Description, ac, parent),
		}
		if parent != "" {
			spec.ParentKey = found[parent].Key // "" when the epic is created by this plan
		}
		w, exists := found[ref]
		if exists {
			warnings = append(warnings, keepUnrepresentable(kind.Label()+" "+it.ID, w, &spec)...)
		}
		e := planEntry{Spec: spec, Parent: parent}
		// (A story whose epic this plan creates is not merged: it is an
		// update, to get the new epic's key as parent.)
		merges := exists && mergesContent(w, spec) && (parent == "" || spec.ParentKey != "")
		switch {
		case !exists:
			e.Action = core.ActionCreate
			if ie, ok := idx[ref]; unknownMarker(ie, ok) {
				since, until := core.UTCSecond(ie.UpdatedAt), core.UTCSecond(ie.UpdatedAt).Add(window)
				switch {
				case now.Before(until) && released[ref]:
					e.Released, e.UnknownSince = true, since
					warnings = append(warnings, fmt.Sprintf("%s %s is RELEASED and will be created by this plan, although an earlier create (%s) had an unknown outcome and the tracker's search does not show the item yet: it was released as checked and missing in the tracker. If reference %s does exist in the tracker, do not commit this plan: it would make a duplicate.",
						kind.Label(), it.ID, since.Format(time.RFC3339), ref))
				case now.Before(until):
					e.Blocked, e.UnknownSince, e.RetryAfter = true, since, until
					warnings = append(warnings, fmt.Sprintf("%s %s will NOT be created by this plan: an earlier create (%s) had an unknown outcome, and the tracker's search does not show the item yet (search can lag behind writes; if that create went through, creating it again makes a duplicate). Look for reference %s in the tracker; a preview after %s finds it, or plans it as a normal create if it is still missing.",
						kind.Label(), it.ID, since.Format(time.RFC3339), ref, until.Format(time.RFC3339)))
				default:
					warnings = append(warnings, fmt.Sprintf("%s %s: an earlier create (%s) had an unknown outcome, and %s later the tracker's search still does not show the item, so it is taken as absent and planned as a create. If it does exist in the tracker (search for reference %s), do not commit this plan.",
						kind.Label(), it.ID, since.Format(time.RFC3339), core.Ago(now.Sub(since)), ref))
				}
			}
		default:
			e.Key, e.URL, e.Fingerprint = w.Key, w.URL, w.Fingerprint
			changed := changedFields(w, spec)
			switch {
			case merges: // part by part (contentmerge.go)
				doc := e.Spec
				e.docContent = &doc
				writes, rows, kept, conflicts := mergeContent(it, w, &e.Spec)
				e.Fields = append(e.Fields, rows...)
				warnings = append(warnings, contentWarnings(kind.Label()+" "+it.ID, w.Key, kept, conflicts)...)
				e.TakeDocument = slices.ContainsFunc(rows, func(r PlanField) bool { return r.Write == WriteTakeDocument })
				e.Action = core.ActionUnchanged
				if writes {
					e.Action, e.ChangedFields = core.ActionUpdate, changedFields(w, e.Spec)
				}
			case w.EditedOutside && takesContent(it):
				e.Action, e.TakeDocument = core.ActionUpdate, true
				e.ChangedFields = changed
			case w.EditedOutside:
				e.Action = core.ActionDrift
				warnings = append(warnings, fmt.Sprintf("%s %s (%s) was edited in the tracker since DevWorkWire last wrote it, so it is left alone. To replace those edits with the document's version, add the line \"Drift: take-document\" to the item and preview again.",
					kind.Label(), it.ID, w.Key))
			case w.LastWritten == spec.Digest && w.ParentKey == spec.ParentKey && (parent == "" || spec.ParentKey != "" || held[parent]):
				// (A story whose epic this plan creates is an update: it
				// gets the new epic's key as parent.)
				e.Action = core.ActionUnchanged
			default:
				e.Action = core.ActionUpdate
				e.ChangedFields = changed
				if parent != "" && spec.ParentKey == "" && !held[parent] && !slices.Contains(changed, "parent") {
					e.ChangedFields = append(e.ChangedFields, "parent")
				}
			}
			e.Spec.Unsent = sameInTracker(w, e.Spec)
			if len(w.Duplicates) > 0 {
				warnings = append(warnings, fmt.Sprintf("%s %s: its reference %s is held by more than one issue in the tracker, %s and %s; DevWorkWire uses %s (the one it knows, else the oldest) and leaves %s alone. Delete the issue you do not want, or clear its reference field.",
					kind.Label(), it.ID, ref, w.Key, strings.Join(w.Duplicates, ", "), w.Key, strings.Join(w.Duplicates, ", ")))
			}
			if w.Kind != "" && w.Kind != kind {
				warnings = append(warnings, fmt.Sprintf("%s %s is a %s in the document but %s is a %s in the tracker; its type is not changed.", kind.Label(), it.ID, kind, w.Key, w.Kind))
			}
		}
		if !merges {
			d := contentBases(&e.Spec) // what this write puts in the tracker: the next import merges part by part
			e.derived = &d
		}
		if takesContent(it) && !(exists && w.EditedOutside) && len(it.TakeFields) == 0 {
			warnings = append(warnings, fmt.Sprintf("%s %s is marked \"Drift: take-document\" but has no outside edits to replace; the marker has no effect and can be removed.", kind.Label(), it.ID))
		}
		entries = append(entries, e)
	}
	return entries, warnings, nil
}

// releaseHeld resolves the items a caller releases (item ids or
// references, or the single entry "all") against the held-back ones, and
// refuses, naming them, entries that are not held back.
func releaseHeld(doc *plan.Document, held map[core.Reference]bool, release []string) (map[core.Reference]bool, error) {
	out := map[core.Reference]bool{}
	var details []core.Detail
	for _, r := range release {
		r = strings.TrimSpace(r)
		switch {
		case r == "":
			continue
		case r == releaseAny: // "all" given for several documents (documentset.go)
			for ref := range held {
				out[ref] = true
			}
			continue
		case strings.EqualFold(r, "all"):
			if len(held) == 0 {
				details = append(details, core.Detail{Field: "release_held", Message: "all: no item of this document is held back"})
			}
			for ref := range held {
				out[ref] = true
			}
			continue
		}
		ref := core.Reference(r)
		if !strings.Contains(r, "/") {
			ref = core.NewReference(doc.ID, r)
		}
		if held[ref] {
			out[ref] = true
			continue
		}
		why := "is not an item of document " + doc.ID
		if slices.ContainsFunc(doc.Items, func(it plan.Item) bool { return core.NewReference(doc.ID, it.ID) == ref }) {
			why = "is not held back (only an item whose earlier create had an unknown outcome, and that the tracker's search does not show yet, is held back)"
		}
		details = append(details, core.Detail{Field: "release_held", Item: string(ref), Message: fmt.Sprintf("%s %s", r, why)})
	}
	if len(details) == 0 {
		return out, nil
	}
	var names []string
	for ref := range held {
		names = append(names, string(ref))
	}
	slices.Sort(names)
	now := "Nothing is held back in this preview"
	if len(names) > 0 {
		now = "Held back now: " + strings.Join(names, ", ")
	}
	return nil, core.Errorf(core.CodeValidationFailed, "Cannot release %d item(s) that are not held back (see details); nothing was stored. %s. Release only held-back items, or preview without releasing.",
		len(details), now).WithDetails(details...)
}

// changedFields compares the document's content with the tracker's.
func changedFields(w core.WorkItem, s core.ItemSpec) []string {
	var out []string
	if w.Title != s.Title {
		out = append(out, "title")
	}
	if strings.TrimSpace(w.Description) != strings.TrimSpace(s.Description) {
		out = append(out, "description")
	}
	if !slices.Equal(w.AcceptanceCriteria, s.AcceptanceCriteria) && (len(w.AcceptanceCriteria) > 0 || len(s.AcceptanceCriteria) > 0) {
		out = append(out, "acceptance_criteria")
	}
	if w.ParentKey != s.ParentKey {
		out = append(out, "parent")
	}
	return out
}

// ImportCommit executes a stored import plan behind the gate.
func (s *WorkItemService) ImportCommit(ctx context.Context, in CommitInput) (ImportCommitResult, error) {
	ctx, o := s.begin(ctx, "import.commit")
	res, err := commitGated(ctx, s, o, s.importKind(), in)
	if err != nil {
		return ImportCommitResult{}, o.fail(err)
	}
	o.done("commit finished", "handle", res.PreviewHandle, "idempotency_key", res.IdempotencyKey, "replayed", res.Replayed,
		"created", res.Counts.Created, "updated", res.Counts.Updated, "unchanged", res.Counts.Unchanged, "drift", res.Counts.Drift)
	return res, nil
}

// importKind is the import's part of the gate (its plan decoded into an
// importCommit).
func (s *WorkItemService) importKind() commitKind[ImportCommitResult] {
	return commitKind[ImportCommitResult]{
		kind: core.PreviewImport,
		plan: func(p core.Preview) (plannedCommit[ImportCommitResult], error) {
			pl, err := decodeImportPlan(p)
			if err != nil {
				return nil, err
			}
			return &importCommit{s: s, pl: pl}, nil
		},
		marks: func(r *ImportCommitResult) (*bool, *[]string) { return &r.Replayed, &r.Warnings },
	}
}

// importCommit is the import part of a commit (see commitGated).
type importCommit struct {
	s  *WorkItemService
	pl *importPlan
}

// lock: the stale check and the run hold the document's commit lock, so a
// concurrent commit of another preview of this document checks only after
// this one finished, and sees what it wrote.
// A plan of several documents takes each document's lock (commitGated
// takes them in sorted order).
func (c *importCommit) lock() []lockName {
	var out []lockName
	for _, d := range c.pl.Head.docs() {
		out = append(out, lockName{name: "import|" + c.pl.Head.Scope + "|" + d.ID, what: "document " + d.ID, document: d.ID})
	}
	return out
}

func (c *importCommit) stale(ctx context.Context) error { return c.s.checkStale(ctx, c.pl) }

func (c *importCommit) execute(ctx context.Context, r *commitRun) (ImportCommitResult, error) {
	x := &execution{commitRun: r, pl: c.pl, keys: map[core.Reference]string{}, urls: map[core.Reference]string{}, outcome: map[core.Reference]*core.ItemOutcome{}, written: map[core.Reference]bool{}}
	return x.run(ctx)
}

// checkStale re-reads every planned item once (one Lookup), and each
// sprint the plan moves items into (one read per sprint name), and
// refuses the plan when anything changed since the preview: an item, or
// a sprint closed or gone.
func (s *WorkItemService) checkStale(ctx context.Context, pl *importPlan) error {
	refs := make([]core.Reference, len(pl.Entries))
	for i, e := range pl.Entries {
		refs[i] = e.Spec.Reference
	}
	idx, err := s.st.LookupIndex(ctx, pl.Head.Scope, refs)
	if err != nil {
		return err
	}
	at := core.UTCSecond(s.now())
	known := knownKeys(idx)
	for _, e := range pl.Entries {
		if e.Key != "" {
			known[e.Spec.Reference] = e.Key
		}
	}
	now, err := s.p.Lookup(ctx, refs, known)
	if err != nil {
		return err
	}
	var details []core.Detail
	for _, e := range pl.Entries {
		w, exists := now[e.Spec.Reference]
		ref := string(e.Spec.Reference)
		ie, inIdx := idx[e.Spec.Reference]
		switch {
		case e.Action == ActionAdopt: // adopt.go: read by key
			d, err := s.staleAdopt(ctx, e, now)
			if err != nil {
				return err
			}
			if d != nil {
				details = append(details, *d)
			}
		case e.Blocked:
			// The plan does not create it, whatever the tracker shows now.
		case e.Released && !exists && unknownMarker(ie, inIdx) && core.UTCSecond(ie.UpdatedAt).Equal(e.UnknownSince):
			// The unknown create the person released: still not shown.
		case e.Key == "" && !exists && unknownMarker(ie, inIdx) && at.Before(core.UTCSecond(ie.UpdatedAt).Add(s.lagWindow)):
			details = append(details, core.Detail{Item: ref, Message: fmt.Sprintf("a create of %s had an unknown outcome at %s (after this preview) and search does not show it yet; the plan would create it again", ref, core.UTCSecond(ie.UpdatedAt).Format(time.RFC3339))})
		case e.Key == "" && exists:
			details = append(details, core.Detail{Item: ref, Key: w.Key, Message: fmt.Sprintf("%s now exists in the tracker as %s; the plan would create it again", ref, w.Key)})
		case e.Key != "":
			if d := (seen{e.Spec.Reference, e.Key, e.Fingerprint}).changedSince(w, exists); d != nil {
				details = append(details, *d)
			}
		}
	}
	var sprints []sprintOp
	for _, ds := range pl.structures() {
		sprints = append(sprints, ds.Plan.Sprints...)
	}
	sd, err := s.staleSprints(ctx, sprints)
	if err != nil {
		return err
	}
	details = append(details, sd...)
	if len(details) > 0 {
		return refuseStale(fmt.Sprintf("The tracker changed since this preview was made (%s, see details)", core.Plural(len(details), "change", "changes")), "Run the import preview again to get a current plan.", details...)
	}
	return nil
}

// execution carries out one started import run. Its writes run
// concurrently (parallel.go): mu guards everything below it.
type execution struct {
	*commitRun
	mu       sync.Mutex
	pl       *importPlan
	keys     map[core.Reference]string // tracker keys, known and created
	urls     map[core.Reference]string
	outcome  map[core.Reference]*core.ItemOutcome
	done     int
	total    int
	stop     error                               // the failure that stopped the run
	why      string                              // what stopped it, in a few words
	dups     map[core.Reference][]string         // created references another issue holds too (duplicates.go)
	checked  bool                                // the duplicate check ran
	pending  map[core.Reference]bool             // items this commit writes
	written  map[core.Reference]bool             // of those, the ones written (parallel.go)
	children map[core.Reference][]core.Reference // the items this commit writes under each item
}

func (x *execution) run(ctx context.Context) (ImportCommitResult, error) {
	var epics, stories, subtasks, blocked, closes []*planEntry
	var index []core.IndexEntry
	scope := x.pl.Head.Scope
	now := core.UTCSecond(x.s.now())
	for i := range x.pl.Entries {
		e := &x.pl.Entries[i]
		if e.Key != "" {
			x.keys[e.Spec.Reference], x.urls[e.Spec.Reference] = e.Key, e.URL
			if e.Action == core.ActionUnchanged {
				index = append(index, core.IndexEntry{Scope: scope, Reference: e.Spec.Reference, Key: e.Key, Digest: e.Spec.Digest, UpdatedAt: now})
			}
		}
		if e.Action == ActionClose {
			closes = append(closes, e) // removed.go
			x.total++
			continue
		}
		if !e.writes() {
			continue
		}
		if e.Blocked {
			blocked = append(blocked, e)
			continue
		}
		x.total++
		switch e.Spec.Kind {
		case core.KindEpic:
			epics = append(epics, e)
		case core.KindSubtask:
			subtasks = append(subtasks, e) // after their stories
		default:
			stories = append(stories, e)
		}
	}
	if len(index) > 0 {
		if err := x.s.st.UpsertIndex(context.WithoutCancel(ctx), index); err != nil {
			x.o.log.Warn("could not refresh the dedup index", "code", core.ErrorCode(err))
		}
	}
	var held []core.ItemOutcome
	for _, e := range blocked {
		// Reported, never created: the earlier create's outcome is unknown.
		held = append(held, core.ItemOutcome{Reference: e.Spec.Reference, Action: core.ActionCreate, Outcome: core.OutcomeUnknown,
			Message: fmt.Sprintf("not created: an earlier create (%s) had an unknown outcome and search does not show the item yet", e.UnknownSince.Format(time.RFC3339))})
	}
	x.record(ctx, nil, held, false)
	if x.structureUnsupported() {
		return x.result(ctx)
	}
	// Every write as a step with what it waits for (parallel.go): the
	// items kind by kind, the duplicate check once every create has ended,
	// then each document's structure writes.
	x.pending, x.children = map[core.Reference]bool{}, map[core.Reference][]core.Reference{}
	for _, e := range slices.Concat(epics, stories, subtasks) {
		x.pending[e.Spec.Reference] = true
		if e.Parent != "" {
			x.children[e.Parent] = append(x.children[e.Parent], e.Spec.Reference)
		}
	}
	stories, lead := headsFirst(stories, x.rankHeads())
	storySteps := x.itemSteps(stories)
	if lead {
		// The heads' batch goes out first: started together, the batches
		// would be fenced, built and sent in no particular order, and
		// round 1 of the rank waits for this one only. The others follow
		// once its request has left (sendorder.go), not once it is
		// answered: the create endpoint's budget is not left idle.
		for _, s := range storySteps[1:] {
			if s.create {
				s.afterSent = append(s.afterSent, storySteps[0])
			}
		}
	}
	steps := slices.Concat(x.itemSteps(epics), storySteps, x.itemSteps(subtasks))
	creates := slices.DeleteFunc(slices.Clone(steps), func(s *step) bool { return !s.create })
	steps = append(steps, &step{after: creates, write: x.checkDuplicates})
	var finish []func(context.Context)
	for _, ds := range x.pl.structures() {
		ss, fin := x.structureSteps(ds) // structure_commit.go
		steps = append(steps, ss...)
		finish = append(finish, fin)
	}
	x.schedule(ctx, steps)
	for _, fin := range finish {
		fin(ctx)
	}
	x.closePhase(ctx, closes)
	return x.result(ctx)
}

func (x *execution) report() {
	x.done++
	if x.progress != nil {
		x.progress(x.done, x.total)
	}
}

// itemSteps are the writes of one kind's items: creates in batches (each
// waiting for the parents it names that this commit writes), then updates.
func (x *execution) itemSteps(items []*planEntry) []*step {
	var creates, updates []*planEntry
	for _, e := range items {
		if e.Action == core.ActionCreate {
			creates = append(creates, e)
		} else {
			updates = append(updates, e)
		}
	}
	var steps []*step
	for start := 0; start < len(creates); start += core.MaxBatch {
		batch := creates[start:min(start+core.MaxBatch, len(creates))]
		s := &step{create: true, write: func(ctx context.Context) { x.createBatch(ctx, batch) }}
		for _, e := range batch {
			s.writes = append(s.writes, e.Spec.Reference)
			s.needs = x.need(s.needs, e.Parent)
		}
		steps = append(steps, s)
	}
	for _, e := range updates {
		steps = append(steps, &step{write: func(ctx context.Context) { x.update(ctx, e) },
			writes: []core.Reference{e.Spec.Reference}, needs: x.need(nil, e.Parent)})
	}
	return steps
}

// need adds ref to needs when this commit writes it (an item it leaves
// alone, or one outside the plan, is there already).
func (x *execution) need(needs []core.Reference, ref core.Reference) []core.Reference {
	if ref != "" && x.pending[ref] && !slices.Contains(needs, ref) {
		needs = append(needs, ref)
	}
	return needs
}

// headsFirst puts the stories in heads first, keeping the order otherwise,
// and reports whether any story is a head: a long rank run's first round
// waits for its heads only, so it goes out once the first story batch is
// created, not the last (structure_commit.go).
func headsFirst(stories []*planEntry, heads map[core.Reference]bool) ([]*planEntry, bool) {
	out := make([]*planEntry, 0, len(stories))
	for _, e := range stories {
		if heads[e.Spec.Reference] {
			out = append(out, e)
		}
	}
	if len(out) == 0 || len(out) == len(stories) {
		return stories, false
	}
	for _, e := range stories {
		if !heads[e.Spec.Reference] {
			out = append(out, e)
		}
	}
	return out, true
}

func (x *execution) spec(e *planEntry) core.ItemSpec {
	sp := e.Spec
	if k := x.keys[e.Parent]; e.Parent != "" && (k != "" || sp.ParentKey == "") {
		sp.ParentKey = k // (an epic of a document outside the plan keeps the key the preview found)
	}
	return sp
}

func (x *execution) createBatch(ctx context.Context, batch []*planEntry) {
	specs := make([]core.ItemSpec, len(batch))
	x.mu.Lock()
	for i, e := range batch {
		specs[i] = x.spec(e)
	}
	x.mu.Unlock()
	// Write ahead: until the outcomes are known, every item of the batch
	// is an unknown create. If the process dies during the request, a later
	// preview then holds these items back for the search-lag window instead
	// of creating them again while search cannot see them. The markers are
	// recorded by the fence, in the store step that checks this commit
	// still holds the document's lock: a taker-over sees them.
	ahead := make([]core.IndexEntry, len(batch))
	for i, e := range batch {
		ahead[i] = core.IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, Digest: unknownCreate, UpdatedAt: core.UTCSecond(x.s.now())}
	}
	var outs []core.CreateOutcome
	x.write(ctx, "marking the items about to be created in the dedup index", true, writeStep{
		markers: ahead,
		ready: func() bool {
			if x.stopped() {
				// Another write failed while this batch was being fenced:
				// it is not sent (fail-fast), and its markers are cleared.
				x.clearMarkers(ctx, batch)
				return false
			}
			return true
		},
		send: func(ctx context.Context) (err error) {
			outs, err = x.s.p.Create(ctx, specs)
			return err
		},
		outcome: func(callErr error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
			if !sent {
				return nil, nil
			}
			return x.created(batch, specs, outs, callErr)
		},
	})
}

// created is what a create batch leaves: its items' index entries and
// outcomes; the first failure stops the run.
func (x *execution) created(batch []*planEntry, specs []core.ItemSpec, outs []core.CreateOutcome, callErr error) ([]core.IndexEntry, []core.ItemOutcome) {
	byRef := make(map[core.Reference]core.CreateOutcome, len(outs))
	for _, oc := range outs {
		byRef[oc.Reference] = oc
	}
	// Index every created item (recorded first, with the outcomes): it is
	// what keeps a later preview from creating it again, even while
	// tracker search lags.
	now := core.UTCSecond(x.s.now())
	var index []core.IndexEntry
	var recs []core.ItemOutcome
	x.mu.Lock()
	for i, e := range batch {
		oc, ok := byRef[e.Spec.Reference]
		switch {
		case ok && oc.Unknown:
			index = append(index, core.IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, Digest: unknownCreate, UpdatedAt: now})
		case ok && oc.Err == nil && oc.Key != "":
			index = append(index, core.IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, Key: oc.Key, Digest: specs[i].Digest, UpdatedAt: now})
		default:
			// Refused, or not tried: certainly not created. Clear the
			// write-ahead marker (an entry without key or digest means
			// nothing).
			index = append(index, core.IndexEntry{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, UpdatedAt: now})
		}
		if !ok {
			continue // not tried: the call failed before reaching it
		}
		rec := core.ItemOutcome{Reference: e.Spec.Reference, Action: core.ActionCreate}
		switch {
		case oc.Unknown:
			rec.Outcome, rec.Code, rec.Message = core.OutcomeUnknown, core.ErrorCode(oc.Err), unknownMessage(e.Spec.Reference, oc.Err)
		case oc.Err != nil || oc.Key == "":
			ae := core.AsError(oc.Err)
			if oc.Err == nil {
				ae = core.Errorf(core.CodeInternal, "the tracker returned no key")
			}
			rec.Outcome, rec.Code, rec.Message = core.OutcomeFailed, ae.Code, ae.Message
		default:
			rec.Outcome, rec.Key = core.OutcomeCommitted, oc.Key
			x.keys[e.Spec.Reference], x.urls[e.Spec.Reference] = oc.Key, oc.URL
		}
		recs = append(recs, rec)
		if rec.Outcome != core.OutcomeCommitted && x.stop == nil {
			se := core.Errorf(rec.Code, "%s", rec.Message)
			if ae := core.AsError(oc.Err); ae != nil && ae.Code == rec.Code {
				se.Retryable = ae.Retryable // the item's own flag
			}
			x.stop = se
			if rec.Outcome == core.OutcomeUnknown {
				x.why = fmt.Sprintf("the outcome of creating %s is unknown (%s)", e.Spec.Reference, rec.Code)
			} else {
				x.why = fmt.Sprintf("creating %s failed (%s: %s)", e.Spec.Reference, rec.Code, strings.TrimSuffix(rec.Message, "."))
			}
		}
	}
	if callErr != nil && x.stop == nil {
		x.stop = callErr
		x.why = fmt.Sprintf("the create request failed (%s: %s)", core.ErrorCode(callErr), clause(callErr))
	}
	if len(outs) < len(batch) && callErr == nil && x.stop == nil {
		x.stop = core.Errorf(core.CodeInternal, "the tracker returned %d outcomes for %d items", len(outs), len(batch))
		x.why = "the tracker did not report on every item"
	}
	x.mu.Unlock()
	// The batch's index entries and outcomes: one store step.
	return index, recs
}

func (x *execution) update(ctx context.Context, e *planEntry) {
	var sp core.ItemSpec
	x.write(ctx, "checking the commit lock before updating "+string(e.Spec.Reference), true, writeStep{
		send: func(ctx context.Context) error {
			x.mu.Lock()
			sp = x.spec(e)
			x.mu.Unlock()
			return x.s.p.Update(ctx, e.Key, sp)
		},
		outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
			if !sent {
				return nil, nil
			}
			rec := core.ItemOutcome{Reference: e.Spec.Reference, Action: e.Action, Key: e.Key}
			if err != nil {
				ae := core.AsError(err)
				why := ""
				if writeMayHaveApplied(err, true) {
					// The request may have reached the tracker and been applied
					// (e.g. the connection dropped after it was sent): not "failed".
					rec.Outcome, rec.Code = core.OutcomeUnknown, ae.Code
					rec.Message = fmt.Sprintf("The update of %s (%s) may or may not have been applied (%s: %s). It was not sent again: run the import preview again, which shows whether the item now matches the document.",
						e.Spec.Reference, e.Key, ae.Code, strings.TrimSuffix(ae.Message, "."))
					why = fmt.Sprintf("the outcome of updating %s (%s) is unknown (%s: %s)", e.Spec.Reference, e.Key, ae.Code, strings.TrimSuffix(ae.Message, "."))
				} else {
					rec.Outcome, rec.Code, rec.Message = core.OutcomeFailed, ae.Code, ae.Message
					why = fmt.Sprintf("updating %s (%s) failed (%s: %s)", e.Spec.Reference, e.Key, ae.Code, strings.TrimSuffix(ae.Message, "."))
				}
				x.mu.Lock()
				if x.stop == nil { // the first failure is the one reported
					x.stop, x.why = err, why
				}
				x.mu.Unlock()
				return nil, []core.ItemOutcome{rec}
			}
			rec.Outcome = core.OutcomeCommitted
			// Its index entry and outcome: one store step, shared with the
			// edits that end at the same time (record.go).
			return []core.IndexEntry{{Scope: x.pl.Head.Scope, Reference: e.Spec.Reference, Key: e.Key, Digest: sp.Digest, UpdatedAt: core.UTCSecond(x.s.now())}}, []core.ItemOutcome{rec}
		},
	})
}

// write runs one write of the import (writestep.go) and stops the run
// when it must: a cancelled context, a lost lock (COMMIT_INTERRUPTED), or
// a store fault while fencing (fencing says what the fence was doing) or
// recording. The
// write is not sent once the run has stopped; its outcomes are kept for
// the report and, with progress, counted as done.
func (x *execution) write(ctx context.Context, fencing string, progress bool, w writeStep) stepEnd {
	if w.ready == nil {
		w.ready = func() bool { return !x.stopped() }
	}
	var recorded []core.ItemOutcome
	w.record = func(ctx context.Context, index []core.IndexEntry, recs []core.ItemOutcome) error {
		recorded = recs
		return x.recordTrail(ctx, index, recs)
	}
	end := x.commitRun.write(ctx, w)
	switch {
	case end.fence != nil:
		x.fenceFault(end.fence, w.markers, fencing)
	case !end.sent && end.err != nil:
		x.cancelled(ctx)
	}
	x.recorded(end.record, recorded, progress)
	return end
}

// fenceFault stops the run after a fence refused: lost lock
// (COMMIT_INTERRUPTED) or a store fault while doing what.
func (x *execution) fenceFault(err error, markers []core.IndexEntry, what string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if core.ErrorCode(err) == core.CodeCommitInterrupted {
		if x.stop == nil {
			x.stop, x.why = err, core.AsError(err).Message
		}
		return
	}
	x.o.log.Error("the fence before a write failed", "code", core.ErrorCode(err), "items", len(markers))
	x.storeFault(err, what)
}

// storeFault stops the run when the state store cannot keep its trail:
// writing on without a record of what was written is how duplicates and
// lost outcomes happen.
func (x *execution) storeFault(err error, what string) {
	if x.stop == nil {
		x.stop = err
		x.why = fmt.Sprintf("the state store failed while %s, so no further writes were made (%s: %s)", what, core.ErrorCode(err), clause(err))
	}
}

// record records outcomes that are not a write's own (writes record
// through write): see recordTrail and recorded.
func (x *execution) record(ctx context.Context, index []core.IndexEntry, recs []core.ItemOutcome, progress bool) {
	if len(recs) == 0 && len(index) == 0 {
		return
	}
	x.recorded(x.recordTrail(ctx, index, recs), recs, progress)
}

// recordTrail keeps the outcomes for the report and records them (after
// their dedup index entries) durably; call it without x.mu held: writes
// that end together share one store step (record.go).
func (x *execution) recordTrail(ctx context.Context, index []core.IndexEntry, recs []core.ItemOutcome) error {
	x.mu.Lock()
	for i := range recs {
		x.outcome[recs[i].Reference] = &recs[i]
	}
	x.mu.Unlock()
	return x.commitRun.record(ctx, index, recs...)
}

// recorded stops the run when recording recs failed (err), and with
// progress counts them as done.
func (x *execution) recorded(err error, recs []core.ItemOutcome, progress bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		what := fmt.Sprintf("recording the outcomes of %d items", len(recs))
		if len(recs) == 1 {
			what = "recording the outcome of " + string(recs[0].Reference)
		}
		x.storeFault(err, what)
	}
	if progress {
		for range recs {
			x.report()
		}
	}
}

func (x *execution) result(ctx context.Context) (ImportCommitResult, error) {
	x.checkDuplicates(ctx) // duplicates.go (unless it ran once every create had ended)
	x.recordDocument(ctx)  // documents.go
	if x.stop != nil {
		return ImportCommitResult{}, x.partial(ctx)
	}
	if err := x.heldBack(ctx); err != nil {
		return ImportCommitResult{}, err
	}
	if err := x.duplicated(ctx); err != nil {
		return ImportCommitResult{}, err
	}
	r := ImportCommitResult{
		ResultType: ResultCommitted, RunID: x.o.runID, PreviewHandle: x.handle,
		IdempotencyKey: x.key, CommittedAt: core.UTCSecond(x.s.now()), Items: make([]CommittedItem, 0, len(x.pl.Entries)),
	}
	for _, e := range x.pl.Entries {
		ci := CommittedItem{Reference: e.Spec.Reference, Document: e.Spec.Reference.Document(), Kind: e.Spec.Kind, Title: e.Spec.Title, Action: e.Action, Key: x.keys[e.Spec.Reference], URL: x.urls[e.Spec.Reference], Released: e.Released, Parent: e.Parent}
		if outcome, n := committedAs(e, &r.Counts); n != nil {
			ci.Outcome = outcome
			*n++
		}
		r.Items = append(r.Items, ci)
	}
	x.structureCounts(&r.Counts)
	x.finish(ctx, core.RunCommitted, r)
	return r, nil
}

// heldBack ends a commit that wrote everything it could but held back
// creates of unknown outcome (blocked entries): not everything in the plan
// is in the tracker, so it is COMMIT_PARTIAL (run partial; the CLI's exit
// 4), not committed, with every planned item in the details — committed
// ones, and the held-back ones as outcome unknown. nil when nothing was
// held back.
func (x *execution) heldBack(ctx context.Context) error {
	var details []core.Detail
	committed, held := 0, 0
	var retry time.Time
	for _, e := range x.pl.Entries {
		ref := e.Spec.Reference
		switch {
		case e.Blocked:
			held++
			if e.RetryAfter.After(retry) {
				retry = e.RetryAfter
			}
			details = append(details, core.Detail{Item: string(ref), Outcome: core.OutcomeUnknown,
				Message: fmt.Sprintf("held back, not created: an earlier create (%s) had an unknown outcome and the tracker's search does not show it yet; look for reference %s in the tracker (a preview after %s finds it, or plans it as a normal create if it is still missing)",
					e.UnknownSince.Format(time.RFC3339), ref, e.RetryAfter.Format(time.RFC3339))})
		case e.writes():
			committed++
			details = append(details, core.Detail{Item: string(ref), Key: x.keys[ref], Outcome: core.OutcomeCommitted, Message: fmt.Sprintf("%s as %s", pastTense(e.Action), x.keys[ref])})
		}
	}
	if held == 0 {
		return nil
	}
	e := core.Errorf(core.CodeCommitPartial, "Not everything was written: %d item(s) committed, %d held back and not created (see details). A held-back item's earlier create had an unknown outcome and the tracker's search does not show it yet, so creating it again could make a duplicate. Check the tracker for those references; a preview after %s finds them or, if they are still missing, plans them as normal creates.",
		committed, held, retry.Format(time.RFC3339)).WithDetails(details...)
	e.RunID = x.o.runID
	x.noteDuplicates(e)
	x.finish(ctx, core.RunPartial, e)
	x.o.log.Warn("commit held items back", "committed", committed, "held", held)
	return e
}

// partial builds the fail-fast error: every planned write split into
// committed / failed / unknown / untried.
func (x *execution) partial(ctx context.Context) error {
	var items, structure tally
	unknownCreates := 0
	var details []core.Detail
	for _, e := range x.pl.Entries {
		if !e.writes() || e.Blocked {
			continue
		}
		ref := e.Spec.Reference
		d := core.Detail{Item: string(ref), Key: x.keys[ref]}
		if oc, ok := x.outcome[ref]; ok {
			d.Outcome, d.Code, d.Message = oc.Outcome, oc.Code, oc.Message
			if d.Key == "" {
				d.Key = oc.Key
			}
		} else {
			d.Outcome, d.Message = core.OutcomeUntried, "not attempted: the commit stopped before reaching it"
		}
		items.add(d.Outcome)
		switch d.Outcome {
		case core.OutcomeCommitted:
			d.Message = fmt.Sprintf("%s as %s", pastTense(e.Action), d.Key)
		case core.OutcomeUnknown:
			if e.Action == core.ActionCreate {
				unknownCreates++
			}
		}
		details = append(details, d)
	}
	x.structureDetails(&details, &structure) // structure_commit.go
	cause := core.AsError(x.stop)
	e, state := importStop(x.why, cause, items, structure, unknownCreates)
	e.WithDetails(details...)
	e.Err = x.stop
	e.RunID = x.o.runID
	x.noteDuplicates(e)
	x.finish(ctx, state, e)
	x.o.log.Warn("commit stopped", "committed", items.committed, "failed", items.failed, "unknown", items.unknown, "untried", items.untried,
		"structure_committed", structure.committed, "structure_failed", structure.failed, "structure_unknown", structure.unknown, "structure_untried", structure.untried, "cause", cause.Code, "code", e.Code)
	return e
}

// committedAs is how a commit's result shows an entry: its outcome and the
// count of c it adds to (nil: neither).
func committedAs(e planEntry, c *CommitCounts) (outcome string, n *int) {
	if e.Blocked { // a create held back: not made
		return core.OutcomeUnknown, &c.Unknown
	}
	switch e.Action {
	case core.ActionCreate:
		return core.OutcomeCommitted, &c.Created
	case core.ActionUpdate:
		return core.OutcomeCommitted, &c.Updated
	case ActionAdopt:
		return core.OutcomeCommitted, &c.Adopted
	case ActionClose: // a removed item closed (removed.go)
		return core.OutcomeCommitted, &c.Closed
	case core.ActionUnchanged:
		return "skipped", &c.Unchanged
	case core.ActionDrift:
		return "skipped", &c.Drift
	case ActionRemoved: // in the tracker, no longer in the document: left alone
		return "skipped", &c.Removed
	}
	return "", nil
}
