package service

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The stored plan: what a preview stores under its handle and what the
// commit executes (nothing is recomputed from the document). It is encoded
// and decoded here only, with a version per kind. Its types are its own:
// they embed none of the API's result types, so a result gaining a field
// does not change what is stored; the results shown to callers are built
// from a stored plan (importPlan.result, progressPlan.result), so a preview
// shows exactly what a commit would execute.
//
// Version 1 is the format since the first release; its JSON names are kept
// (records written by earlier builds, which also held display-only fields
// under "result", still decode).

// Stored plan versions, one per kind. A stored plan of another version is
// refused (INTERNAL_ERROR, nothing written): run the preview again.
const (
	importPlanVersion   = 1
	progressPlanVersion = 1
)

// importPlan is a stored import plan.
type importPlan struct {
	Version int         `json:"version"`
	Head    importHead  `json:"result"`
	Entries []planEntry `json:"entries"`
	// Structure is what the commit writes after the items: links, sprint
	// moves, rank moves (structure.go); nil when the document has none.
	Structure *structurePlan `json:"structure,omitempty"`
	// Structures are, for a plan of several documents, each document's
	// structure (those that have one, in document order); Structure is nil
	// then.
	Structures []docStructure `json:"structures,omitempty"`
}

// docStructure is one document's structure in a plan of several.
type docStructure struct {
	Document string         `json:"document"`
	Plan     *structurePlan `json:"plan"`
}

// structures are the plan's structures, each with its document.
func (pl *importPlan) structures() []docStructure {
	if pl.Structure != nil {
		return []docStructure{{Document: pl.Head.Document, Plan: pl.Structure}}
	}
	return pl.Structures
}

// storedDocument is one document of a plan of several: its id, the file
// it was read from and how messages name that file.
type storedDocument struct {
	ID   string `json:"id"`
	Path string `json:"path,omitempty"`
	File string `json:"file,omitempty"`
}

// importHead is what an import plan says about the whole document.
type importHead struct {
	RunID    string   `json:"run_id"` // the preview's run
	Document string   `json:"document"`
	Scope    string   `json:"scope"`
	Warnings []string `json:"warnings,omitempty"`
	MadeBy   string   `json:"made_by,omitempty"` // who or what made the preview (WithMadeBy)
	// Path is the file the document was read from (recorded with the
	// document at commit, documents.go), or the directory of a plan of
	// several documents.
	Path string `json:"path,omitempty"`
	// Documents are the documents of a plan of several (a directory), in
	// the order of the entries, sorted by file; nil for one document
	// (Document and Path), and Document is "" then.
	Documents []storedDocument `json:"documents,omitempty"`
}

// docs are the plan's documents: Documents, or the one document.
func (h importHead) docs() []storedDocument {
	if len(h.Documents) > 0 {
		return h.Documents
	}
	return []storedDocument{{ID: h.Document, Path: h.Path}}
}

// planEntry is one item of a stored import plan.
type planEntry struct {
	Spec   core.ItemSpec  `json:"spec"`             // what will be written (ParentKey filled when the epic existed)
	Parent core.Reference `json:"parent,omitempty"` // the epic's reference, for a story
	Action core.Action    `json:"action"`
	Key    string         `json:"key,omitempty"` // the tracker key, when the item exists
	URL    string         `json:"url,omitempty"`
	// Fingerprint is what the preview saw of the existing item; commit
	// refuses the plan when the item changed since.
	Fingerprint   string   `json:"fingerprint,omitempty"`
	TakeDocument  bool     `json:"take_document,omitempty"`
	ChangedFields []string `json:"changed_fields,omitempty"`
	// Changes are the fields of an update (or the differences of a
	// drift) with the tracker's and the document's values (diff.go).
	Changes []storedChange `json:"changes,omitempty"`
	// Blocked marks a create the commit must not make: an earlier create
	// had an unknown outcome at UnknownSince, within the search-lag window.
	Blocked      bool      `json:"blocked,omitempty"`
	UnknownSince time.Time `json:"unknown_since,omitzero"`
	RetryAfter   time.Time `json:"retry_after,omitzero"`
	// Released marks a create of an item that would have been Blocked
	// (its earlier create's unknown outcome at UnknownSince) and that the
	// person released after checking the tracker: created as normal.
	Released bool `json:"released,omitempty"`
	// Fields are the managed fields as the preview shows them (fields.go).
	Fields []PlanField `json:"fields,omitempty"`
	// Fills are the fields the provider fills itself on this create
	// (core.CreateFiller: fills.go).
	Fills []core.FilledField `json:"fills,omitempty"`
	// Gone is set on a removed or close entry (removed.go).
	Gone *storedGone `json:"gone,omitempty"`
	// ContentBases is set, in the stored plan only, on an entry whose
	// content bases (the title, description and criteria keys of
	// Spec.FieldBases and Spec.BaseValues) are what contentBases derives
	// from its spec, as they are for every create: they are left out of
	// the stored plan and derived again when it is read, so that a plan
	// does not hold each item's content twice. Plans stored without it
	// hold the bases in full and are read as they are.
	ContentBases bool `json:"content_bases,omitempty"`
	// docContent is the document's title, description and criteria of an
	// item merged part by part (contentmerge.go), whose Spec holds the
	// tracker's kept and conflicting parts; nil otherwise. docFields are
	// the document's managed fields (canonical, FieldRequest order), and
	// writtenFields the same as the document writes them (fields.go).
	// Only the preview's describeChanges reads them (not stored).
	docContent    *core.ItemSpec
	docFields     map[string]core.FieldValue
	writtenFields map[string]core.FieldValue
	// derived is what classify derived the content bases from (not
	// stored): leaving them out of the stored plan need not take their
	// digests again.
	derived *derivedBases
}

// storedGone is what a removed or close entry holds of its item: its
// status in the tracker; for a close, the transition to done and the
// comment.
type storedGone struct {
	Status         core.Status `json:"status"`
	TransitionID   string      `json:"transition_id,omitempty"`
	TransitionName string      `json:"transition_name,omitempty"`
	Comment        string      `json:"comment,omitempty"`
}

// storedChange is a FieldChange as stored, compactly: its from and to
// values as a pair, a set's added and removed values as a pair (absent
// for other fields).
type storedChange struct {
	Field  string     `json:"field"`
	Values [2]string  `json:"values"` // from, to
	Diff   string     `json:"diff,omitempty"`
	Sets   [][]string `json:"sets,omitempty"` // added, removed
	Cut    bool       `json:"cut,omitempty"`  // Truncated
	// Conflict; Sides are a conflict's two sides from the base (the
	// tracker's, the document's), absent when the base is not known.
	Conflict bool           `json:"conflict,omitempty"`
	Sides    []storedChange `json:"sides,omitempty"`
}

func (c storedChange) api() FieldChange {
	f := FieldChange{Field: c.Field, From: c.Values[0], To: c.Values[1], Diff: c.Diff, Truncated: c.Cut, Conflict: c.Conflict}
	if len(c.Sets) == 2 {
		f.Added, f.Removed = c.Sets[0], c.Sets[1]
	}
	if len(c.Sides) == 2 {
		f.Base, f.Tracker, f.Document = c.Sides[0].Values[0], c.Sides[0].side(), c.Sides[1].side()
		f.Truncated = f.Truncated || c.Sides[0].Cut || c.Sides[1].Cut
	}
	return f
}

// side is a conflict's side from the base (its from).
func (c storedChange) side() *FieldSide {
	f := c.api()
	return &FieldSide{To: f.To, Diff: f.Diff, Added: f.Added, Removed: f.Removed}
}

// progressPlan is a stored progress plan.
type progressPlan struct {
	Version        int            `json:"version"`
	Head           progressHead   `json:"result"`
	Key            string         `json:"key"`
	Reference      core.Reference `json:"reference,omitempty"`
	Fingerprint    string         `json:"fingerprint"`
	Current        core.Status    `json:"current"`
	Target         core.Status    `json:"target,omitempty"` // set when a transition is planned
	TransitionID   string         `json:"transition_id,omitempty"`
	TransitionName string         `json:"transition_name,omitempty"`
	// TransitionSets are the transition screen's values (Transition.Sets).
	TransitionSets []string `json:"transition_sets,omitempty"`
	Comment        string   `json:"comment,omitempty"`
}

// progressHead is what a progress plan shows besides its steps.
type progressHead struct {
	RunID string        `json:"run_id"` // the preview's run
	Item  storedItemRef `json:"item"`
	// Requested is the status asked for; it differs from Target when the
	// item already had it (no transition is planned then).
	Requested core.Status `json:"target_status,omitempty"`
	Warnings  []string    `json:"warnings,omitempty"`
	MadeBy    string      `json:"made_by,omitempty"` // who or what made the preview (WithMadeBy)
}

// storedItemRef names the item of a progress plan.
type storedItemRef struct {
	Key       string         `json:"key"`
	Reference core.Reference `json:"reference,omitempty"`
	Title     string         `json:"title"`
	URL       string         `json:"url,omitempty"`
}

func (r storedItemRef) api() ItemRef {
	return ItemRef{Key: r.Key, Reference: r.Reference, Title: r.Title, URL: r.URL}
}

// encodePlan encodes a stored plan. '<', '>' and '&' are written as they
// are, not escaped for HTML (six bytes each: a description of block
// quotes stored six times its size); either way decodes the same. A plan
// whose JSON is longer than compressAbove is stored gzip-compressed
// (decodePlan reads both).
func encodePlan(pl any) ([]byte, error) {
	if ip, ok := pl.(importPlan); ok {
		pl = &ip // its entries are shared, and left as they were
	}
	if ip, ok := pl.(*importPlan); ok {
		defer ip.leaveOutContentBases()()
	}
	var w planWriter
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(pl); err != nil {
		return nil, core.Wrap(err, core.CodeInternal, "The plan could not be stored.")
	}
	if w.err != nil {
		return nil, core.Wrap(w.err, core.CodeInternal, "The plan could not be stored.")
	}
	return w.out, nil
}

// compressAbove is the length of plan JSON above which the plan is stored
// gzip-compressed. A large plan repeats its field names and references
// item after item and shrinks about sevenfold at gzip's fastest level,
// which costs far less than the store's writing (and the digests'
// reading) of the bytes saved: the 10,000-item plan's 4 MB of JSON is
// stored in about 0.6 MB. Smaller plans stay JSON as they are, readable
// with the database's own tools.
const compressAbove = 64 << 10

// gzipMagic starts every gzip stream; JSON never starts with it.
var gzipMagic = []byte{0x1f, 0x8b}

// planWriter takes the encoder's output (one write: the JSON and a
// newline) and keeps the JSON, compressed when it is long, without
// copying it first.
type planWriter struct {
	out   []byte
	err   error
	wrote bool
}

func (w *planWriter) Write(b []byte) (int, error) {
	n := len(b)
	if w.wrote { // the JSON must be whole to be compressed in one piece
		w.err = errors.New("the plan's JSON came in more than one write")
		return 0, w.err
	}
	w.wrote = true
	js := bytes.TrimSuffix(b, []byte("\n"))
	if len(js) <= compressAbove {
		w.out = bytes.Clone(js)
		return n, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(js) / 4)
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err == nil {
		_, err = zw.Write(js)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		w.err = err
		return n, err
	}
	w.out = buf.Bytes()
	return n, nil
}

// planJSON is the JSON of a stored plan: as stored, or decompressed.
func planJSON(stored []byte) ([]byte, error) {
	if !bytes.HasPrefix(stored, gzipMagic) {
		return stored, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(stored))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if n := len(stored); n >= 4 { // the trailer's length of the JSON (mod 2³²), as a hint
		buf.Grow(int(min(binary.LittleEndian.Uint32(stored[n-4:]), 64<<20)) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, err
	}
	return buf.Bytes(), zr.Close()
}

// decodeImportPlan decodes the import plan stored in p, checking its kind
// and version.
func decodeImportPlan(p core.Preview) (*importPlan, error) {
	var pl importPlan
	if err := decodePlan(p, core.PreviewImport, &pl, func() int { return pl.Version }, importPlanVersion); err != nil {
		return nil, err
	}
	for i := range pl.Entries {
		if e := &pl.Entries[i]; e.ContentBases {
			contentBases(&e.Spec)
			e.ContentBases = false
		}
	}
	return &pl, nil
}

// leaveOutContentBases takes the content bases out of every entry whose
// bases contentBases derives from its spec (marking it ContentBases), for
// encoding, and returns what puts them back.
func (pl *importPlan) leaveOutContentBases() (restore func()) {
	type held struct {
		e     *planEntry
		bases map[string]string
		vals  map[string][]string
	}
	var hs []held
	for i := range pl.Entries {
		e := &pl.Entries[i]
		if !hasDerivedBases(&e.Spec, e.derived) {
			continue
		}
		hs = append(hs, held{e, e.Spec.FieldBases, e.Spec.BaseValues})
		e.Spec.FieldBases, e.Spec.BaseValues = withoutContentKeys(e.Spec.FieldBases), withoutContentKeys(e.Spec.BaseValues)
		e.ContentBases = true
	}
	return func() {
		for _, h := range hs {
			h.e.Spec.FieldBases, h.e.Spec.BaseValues, h.e.ContentBases = h.bases, h.vals, false
		}
	}
}

// withoutContentKeys is m without the content keys (nil when nothing
// else is left); m itself is not changed.
func withoutContentKeys[V any](m map[string]V) map[string]V {
	n := 0
	for _, k := range contentKeys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	if n == len(m) {
		return nil
	}
	out := make(map[string]V, len(m)-n)
	for k, v := range m {
		if !isContentKey(k) {
			out[k] = v
		}
	}
	return out
}

// decodeProgressPlan decodes the progress plan stored in p, checking its
// kind and version.
func decodeProgressPlan(p core.Preview) (*progressPlan, error) {
	var pl progressPlan
	if err := decodePlan(p, core.PreviewProgress, &pl, func() int { return pl.Version }, progressPlanVersion); err != nil {
		return nil, err
	}
	return &pl, nil
}

// decodePullPlan decodes the pull plan stored in p, checking its kind and
// version.
func decodePullPlan(p core.Preview) (*pullPlan, error) {
	var pl pullPlan
	if err := decodePlan(p, core.PreviewPull, &pl, func() int { return pl.Version }, pullPlanVersion); err != nil {
		return nil, err
	}
	return &pl, nil
}

// decodePlan is the codec of every kind: the stored kind is the plan's
// (a handle of another kind is refused as the commit's gate refuses it),
// its JSON, its format version.
func decodePlan(p core.Preview, kind core.PreviewKind, into any, version func() int, want int) error {
	if p.Kind != kind {
		return refuseKind(p.Handle, p.Kind, kind)
	}
	js, err := planJSON(p.Plan)
	if err == nil {
		err = json.Unmarshal(js, into)
	}
	if err != nil {
		return core.Wrap(err, core.CodeInternal, "The stored plan of preview %q cannot be read. Nothing was written; run the %s again.", p.Handle, core.PreviewName(kind))
	}
	if v := version(); v != want {
		return core.Errorf(core.CodeInternal, "The stored plan of preview %q has format version %d, which this version of DevWorkWire does not read (it reads version %d). Nothing was written; run the %s again.", p.Handle, v, want, core.PreviewName(kind))
	}
	return nil
}

// shownPlan is a stored plan of any kind as StoredPreview shows it: show
// puts its result for p into info and returns the writes its commit
// makes.
type shownPlan interface {
	show(p core.Preview, info *PreviewInfo) (writes int)
}

func (pl *pullPlan) show(p core.Preview, info *PreviewInfo) int {
	r := pl.result(p)
	info.Pull, info.MadeBy = &r, pl.Pull.MadeBy
	return len(pl.Entries)
}

func (pl *importPlan) show(p core.Preview, info *PreviewInfo) int {
	r := pl.result(p)
	info.Import, info.MadeBy = &r, pl.Head.MadeBy
	return r.Counts.Create + r.Counts.Update + r.Counts.Adopt + r.Counts.Structure
}

func (pl *progressPlan) show(p core.Preview, info *PreviewInfo) int {
	r := pl.result(p)
	info.Progress, info.MadeBy = &r, pl.Head.MadeBy
	return progressWrites(pl)
}

// result is the stored import plan p as shown to callers.
func (pl *importPlan) result(p core.Preview) ImportPreviewResult {
	r := ImportPreviewResult{
		ResultType: ResultPreview, RunID: pl.Head.RunID, PreviewHandle: p.Handle, ExpiresAt: core.UTCSecond(p.ExpiresAt),
		Document: pl.Head.Document, Scope: pl.Head.Scope, Warnings: pl.Head.Warnings,
		Items: make([]PlanItem, len(pl.Entries)), PlanDigest: p.Digest,
	}
	for i := range pl.Entries {
		r.Items[i] = pl.Entries[i].row()
		r.Counts.add(r.Items[i])
	}
	for _, d := range pl.Head.Documents {
		r.Documents = append(r.Documents, PlanDocument{ID: d.ID, File: d.File})
	}
	for _, ds := range pl.structures() {
		for _, c := range ds.Plan.Changes {
			if len(pl.Head.Documents) > 0 {
				c.Document = ds.Document
			}
			r.Structure = append(r.Structure, c)
		}
		r.Counts.Structure += ds.Plan.writes()
	}
	r.Writes = pl.writes()
	return r
}

// add counts one preview row.
func (c *Counts) add(it PlanItem) {
	switch {
	case it.BlockedReason != "":
		c.Blocked++
	case it.Action == core.ActionCreate:
		c.Create++
		if it.Released {
			c.Released++
		}
	case it.Action == core.ActionUpdate:
		c.Update++
	case it.Action == ActionAdopt:
		c.Adopt++
	case it.Action == core.ActionUnchanged:
		c.Unchanged++
	case it.Action == core.ActionDrift:
		c.Drift++
	case it.Action == ActionRemoved:
		c.Removed++
	case it.Action == ActionClose:
		c.Close++
	}
}

// row is the entry as a preview row.
func (e *planEntry) row() PlanItem {
	r := PlanItem{Reference: e.Spec.Reference, Document: e.Spec.Reference.Document(), Kind: e.Spec.Kind, Title: e.Spec.Title, Action: e.Action, Key: e.Key,
		Parent: e.Parent, ChangedFields: e.ChangedFields, TakeDocument: e.TakeDocument, Fields: e.Fields, Fills: e.Fills}
	for _, c := range e.Changes {
		r.Changes = append(r.Changes, c.api())
	}
	if g := e.Gone; g != nil {
		r.Status, r.Transition, r.Comment = g.Status, g.TransitionName, g.Comment
	}
	if e.Blocked {
		r.UnknownSince, r.RetryAfter = e.UnknownSince, e.RetryAfter
		r.BlockedReason = fmt.Sprintf("not created by this plan: an earlier create (%s) had an unknown outcome and the tracker's search does not show the item yet; creating it again could make a duplicate. Look for reference %s in the tracker; a preview after %s finds it or, if it is still missing, plans it as a normal create.",
			e.UnknownSince.Format(time.RFC3339), e.Spec.Reference, e.RetryAfter.Format(time.RFC3339))
	}
	if e.Released {
		r.UnknownSince, r.Released = e.UnknownSince, true
		r.ReleaseNote = fmt.Sprintf("released: the person checked the tracker and found reference %s missing, so this plan creates it although an earlier create (%s) had an unknown outcome; if that create went through, this makes a duplicate.",
			e.Spec.Reference, e.UnknownSince.Format(time.RFC3339))
	}
	return r
}

// result is the stored progress plan p as shown to callers.
func (pl *progressPlan) result(p core.Preview) ProgressPreviewResult {
	return ProgressPreviewResult{
		ResultType: ResultPreview, RunID: pl.Head.RunID, PreviewHandle: p.Handle, ExpiresAt: core.UTCSecond(p.ExpiresAt),
		Item: pl.Head.Item.api(), CurrentStatus: pl.Current, TargetStatus: pl.Head.Requested,
		Transition: pl.TransitionName, TransitionSets: pl.TransitionSets, Comment: pl.Comment, Warnings: pl.Head.Warnings,
		PlanDigest: p.Digest,
	}
}
