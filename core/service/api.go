package service

import (
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// The inputs and results of WorkItemService. Both front doors expose
// exactly these objects: the MCP tools as their arguments and results, the
// CLI with --json. Field names are snake_case; absent optional fields are
// omitted (never null); times are ISO-8601 UTC without fractions.

// Result types: every result says whether it wrote anything.
const (
	ResultPreview   = "preview"   // wrote nothing (previews and reads)
	ResultCommitted = "committed" // wrote to the tracker
)

// ImportPreviewInput asks for a preview of importing a planning document.
type ImportPreviewInput struct {
	// Path of the Markdown (.md) or YAML (.yaml/.yml) document.
	Path string `json:"path" jsonschema:"path of the planning document (.md, .markdown, .yaml or .yml), or of a directory: every planning document in it, recursively, as one preview"`
	// Data, when set, is the document's content and Path only names it
	// (for the default document id and format). Front doors that read the
	// file themselves pass it here.
	Data []byte `json:"-"`
	// Set, when set, is the documents of a directory as the front door read
	// them (ReadDocuments), and Path names the directory. Without Data and
	// Set, a Path that is a directory is read as a set too: every planning
	// document in it, recursively, planned as one preview.
	Set *DocumentSet `json:"-"`
	// Removed says what to do with the items DevWorkWire created under
	// this document's id that it no longer lists: "close" plans a
	// transition of each to done with a comment (as `removed: close` in
	// the document's front matter does); "" or "leave" shows them as
	// removed and leaves them alone. Nothing is ever deleted.
	Removed string `json:"removed,omitempty" jsonschema:"items the document no longer lists: leave (the default: shown as removed, left alone) or close (plan a transition to done with a comment, confirmed like any write); nothing is ever deleted"`
	// ReleaseHeld releases items the preview would hold back (an earlier
	// create had an unknown outcome and the tracker's search does not show
	// the item yet, within ServiceOptions.SearchLagWindow): the plan
	// creates them as normal creates, marked PlanItem.Released, with a
	// warning naming each. It is for a person who checked the tracker and
	// found the item missing. Each entry is an item id ("s-1") or a
	// reference ("plan/s-1"); the single entry "all" releases every held
	// item. An entry naming an item that is not held back is
	// VALIDATION_FAILED (nothing is stored).
	ReleaseHeld []string `json:"release_held,omitempty" jsonschema:"only after checking the tracker: item ids or references of held-back items (blocked_reason set in a preview) to create anyway, or the single entry all; an id that is not held back is refused"`
	// DryRun says no commit of this preview follows in this process (a
	// front door's --dry-run): the preview does not read ahead the account
	// the commit would record (checkPermissions). Not part of the tools'
	// input.
	DryRun bool `json:"-"`
}

// Counts are item counts by action.
type Counts struct {
	Create    int `json:"create"` // items the commit will create (blocked ones excluded)
	Update    int `json:"update"`
	Unchanged int `json:"unchanged"`
	Drift     int `json:"drift"`
	// Adopt counts existing issues the commit takes over (a Key line):
	// it writes their reference and the document's fields to them.
	Adopt int `json:"adopt,omitempty" jsonschema:"existing issues the commit adopts (a Key line): their reference and the document's content are written to them"`
	// Blocked counts rows with action create that the commit will NOT
	// create: an earlier create of the item had an unknown outcome and
	// search cannot see it yet (see PlanItem.BlockedReason).
	Blocked int `json:"blocked,omitempty"`
	// Released counts the creates (included in Create) of held-back items
	// the caller released (ImportPreviewInput.ReleaseHeld).
	Released int `json:"released,omitempty" jsonschema:"creates (counted in create) of held-back items released by release_held"`
	// Structure counts the structure writes the commit makes after the
	// items: dependencies added or removed, sprint moves, rank moves.
	Structure int `json:"structure,omitempty" jsonschema:"structure writes: dependencies added or removed, items moved into a sprint or in the backlog order"`
	// Removed counts the items in the tracker the document no longer
	// lists, left alone; Close those this plan closes.
	Removed int `json:"removed,omitempty" jsonschema:"items in Jira that the document no longer lists, left alone"`
	Close   int `json:"close,omitempty" jsonschema:"items the document no longer lists that the commit closes (transition to done, with a comment)"`
}

// PlanItem is one row of an import preview.
type PlanItem struct {
	Reference core.Reference `json:"reference"`
	// Document is the id of the item's document (the reference's first
	// part): in a preview of several documents, the group of the row.
	Document string         `json:"document,omitempty" jsonschema:"the id of the item's document (in a preview of a directory, one of documents)"`
	Kind     core.Kind      `json:"kind"`
	Title    string         `json:"title"`
	Action   core.Action    `json:"action"`
	Key      string         `json:"key,omitempty"`    // tracker key when the item exists
	Parent   core.Reference `json:"parent,omitempty"` // the epic's reference, for a story
	// ChangedFields lists what an update changes: title, description,
	// acceptance_criteria, parent.
	ChangedFields []string `json:"changed_fields,omitempty"`
	// Changes says, per field, what an update changes (old → new), and on
	// a drift row where the tracker and the document differ (From is what
	// the tracker holds now, with the person's edits; To what the document
	// wants). A field in conflict (changed in both, not written) is here
	// too, with Conflict set, on drift and on update rows. Unset on
	// creates and unchanged rows.
	Changes []FieldChange `json:"changes,omitempty" jsonschema:"per field: from (the tracker now) and to (the document); on an update what the commit writes, on a drift what differs and is left alone; fields in conflict (not written) have conflict set"`
	// TakeDocument is true when the document deliberately overrides a
	// drifted item (the item is then an update that replaces Jira's edits).
	TakeDocument bool `json:"take_document,omitempty"`
	// BlockedReason is set on a create the commit will not make: an
	// earlier create of this item had an unknown outcome (UnknownSince) and
	// the tracker's search still does not show it, so creating it again
	// could make a duplicate. A preview after RetryAfter takes a
	// still-missing item as absent and plans a normal create.
	BlockedReason string    `json:"blocked_reason,omitempty"`
	UnknownSince  time.Time `json:"unknown_since,omitzero"`
	RetryAfter    time.Time `json:"retry_after,omitzero"`
	// Released is set on a create of an item that would have been held
	// back (UnknownSince says when its earlier create had an unknown
	// outcome) and that the caller released after checking the tracker
	// (ImportPreviewInput.ReleaseHeld): the commit creates it; if it does
	// exist in the tracker, that makes a duplicate. ReleaseNote says so.
	Released    bool   `json:"released,omitempty" jsonschema:"a held-back item released by release_held: created by this plan although an earlier create had an unknown outcome"`
	ReleaseNote string `json:"release_note,omitempty" jsonschema:"what the release means (a duplicate if the item does exist in the tracker)"`
	// Fields are the item's managed fields: the document's value, where
	// it came from and what the commit does with it (PlanField).
	Fields []PlanField `json:"fields,omitempty" jsonschema:"the managed fields: value as the document sets it, its source (item, document, config) and what the commit does (set, unchanged, kept, conflict, take-document)"`
	// Fills are the fields the tracker requires on a new item that the
	// provider fills itself (an epic's Epic Name on sites that require
	// it, from the title): each with the value the commit writes.
	Fills []core.FilledField `json:"fills,omitempty" jsonschema:"create rows: fields the tracker requires that DevWorkWire fills itself (e.g. an epic's Epic Name, from the title, at most 255 characters), each with field, the value written and why"`
	// On a removed or close row (an item the document no longer lists):
	// its status in the tracker; for a close, the name of the transition
	// to done and the comment the commit adds.
	Status     core.Status `json:"status,omitempty" jsonschema:"removed and close rows: the item's status in Jira"`
	Transition string      `json:"transition,omitempty" jsonschema:"close rows: the workflow transition to done the commit uses"`
	Comment    string      `json:"comment,omitempty" jsonschema:"close rows: the comment the commit adds, saying why the item is closed"`
}

// FieldChange is one field of a preview row, old → new. It is general so
// that every field kind fits: a one-line value (title, parent, priority)
// is From → To; a text that spans lines (description, acceptance
// criteria, one criterion a line) also has Diff; a set (labels,
// components) also has Added and Removed. Values are bounded: From and To
// at MaxChangeValue runes (Truncated), Diff at MaxDiffLines lines.
type FieldChange struct {
	// Field is the field's key as changed_fields and the fields rows
	// spell it: title, description, acceptance_criteria, parent, labels,
	// priority, assignee, estimate, components, fix_versions, due, or
	// fields.<name> for a custom field.
	Field string `json:"field" jsonschema:"the field: title, description, acceptance_criteria, parent, labels, priority, assignee, estimate, components, fix_versions, due, or fields.<name>"`
	// From is the tracker's value now ("" when unset); for parent an issue
	// key.
	From string `json:"from" jsonschema:"the tracker's value now (empty when unset), cut at 200 characters"`
	// To is the document's value ("" clears); for parent an issue key, or
	// the reference of an epic this plan creates.
	To string `json:"to" jsonschema:"the document's value (empty clears), cut at 200 characters; for parent a key or the reference of an epic this plan creates"`
	// Diff is a unified diff of From → To (hunks only, no file header,
	// DiffContext lines of context, at most MaxDiffLines lines; a last
	// line "\ N more changed lines not shown" when cut) of the whole
	// texts, for text that spans lines.
	Diff string `json:"diff,omitempty" jsonschema:"for text over several lines: a unified diff (hunks only) of the whole texts, with 2 lines of context, at most 24 lines"`
	// Added and Removed are the values a set-valued field gains and loses.
	Added   []string `json:"added,omitempty" jsonschema:"for a list field: the values the write adds"`
	Removed []string `json:"removed,omitempty" jsonschema:"for a list field: the values the write removes"`
	// Truncated is true when From, To or Base was cut (MaxChangeValue).
	Truncated bool `json:"truncated,omitempty" jsonschema:"true when from, to or base was cut"`
	// Conflict is true on a field changed both in the tracker and in the
	// document, differently: the commit does not write it (on an update
	// row the item's other fields are written).
	Conflict bool `json:"conflict,omitempty" jsonschema:"changed both in Jira and in the document, differently: not written"`
	// Base, Tracker and Document are set on a conflict whose base is
	// known: Base is what DevWorkWire last wrote ("" when it wrote none),
	// Tracker what the person changed it to in the tracker (base →
	// tracker now) and Document what the document changed it to (base →
	// document). Absent when the base is not known (an item written before
	// base values were kept, or a value too long to keep).
	Base     string     `json:"base,omitempty" jsonschema:"on a conflict: the value DevWorkWire last wrote (empty when none), cut at 200 characters"`
	Tracker  *FieldSide `json:"tracker,omitempty" jsonschema:"on a conflict: what the person changed in Jira, from base to Jira's value now"`
	Document *FieldSide `json:"document,omitempty" jsonschema:"on a conflict: what the document changed, from base to the document's value"`
}

// FieldSide is what one side of a conflict changed of the base
// (FieldChange.Base), bounded as FieldChange is: To is the side's value,
// with a text's unified diff from the base, or a list's values added and
// removed.
type FieldSide struct {
	To      string   `json:"to" jsonschema:"this side's value, cut at 200 characters"`
	Diff    string   `json:"diff,omitempty" jsonschema:"for text over several lines: a unified diff (hunks only) from base to this side"`
	Added   []string `json:"added,omitempty" jsonschema:"for a list field: the values this side added to base"`
	Removed []string `json:"removed,omitempty" jsonschema:"for a list field: the values this side removed from base"`
}

// ImportPreviewResult is the stored plan, as shown to the caller.
type ImportPreviewResult struct {
	ResultType    string    `json:"result_type"` // "preview"
	RunID         string    `json:"run_id"`
	PreviewHandle string    `json:"preview_handle"`
	ExpiresAt     time.Time `json:"expires_at"`
	Document      string    `json:"document"` // document id ("" for a preview of several documents: see Documents)
	// Documents lists, for a preview of a directory, each document and
	// its file, in the order of the rows; empty for one document.
	Documents []PlanDocument `json:"documents,omitempty" jsonschema:"for a preview of a directory: each document (id and file), in the order of the rows"`
	Scope     string         `json:"scope"`
	Counts    Counts         `json:"counts"`
	Items     []PlanItem     `json:"items"`
	Warnings  []string       `json:"warnings,omitempty"`
	// Structure lists the planned changes of dependencies, sprints and the
	// backlog order ("s-2 depends on s-1: link to add", "s-3 moves before
	// s-1"); sub-tasks are rows of Items.
	Structure []StructureChange `json:"structure,omitempty"`
	// PlanDigest is the digest of the plan as stored under the handle
	// (what a commit executes). A commit given it refuses a stored plan
	// that no longer has it.
	PlanDigest string `json:"plan_digest"`
	// Writes is every write a commit of this stored plan makes, each one
	// named, with counts by kind: what a front door asks the person to
	// confirm (built from the stored plan, as the commit executes it).
	// Not in the JSON: items, structure and counts say the same to a
	// program.
	Writes PlanWrites `json:"-"`
}

// PlanDocument is one document of a preview of several.
type PlanDocument struct {
	ID   string `json:"id" jsonschema:"the document id"`
	File string `json:"file" jsonschema:"the file it was read from, as the directory's name and the path inside it"`
}

// CommitInput commits a stored preview (import or progress).
type CommitInput struct {
	PreviewHandle string `json:"preview_handle" jsonschema:"the handle returned by the matching preview"`
	// Confirmed must be true: the handle alone is not consent.
	Confirmed bool `json:"confirmed" jsonschema:"must be true: explicit confirmation that the previewed plan should be written"`
	// IdempotencyKey makes retries safe; generated when empty.
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"optional client-chosen key; repeating it with the same handle replays the result without new writes"`
	// PlanDigest, when set, is the plan_digest of the preview that was
	// shown to whoever confirmed: the commit refuses (PREVIEW_STALE,
	// nothing written) if the stored plan no longer has it, so what is
	// written is exactly what was confirmed.
	PlanDigest string `json:"plan_digest,omitempty" jsonschema:"optional: the plan_digest of the preview that was shown; the commit writes nothing and fails with PREVIEW_STALE if the stored plan changed since"`
	// Progress, when set, is called after each item's outcome is recorded
	// (done of total). Front doors use it for a progress bar or MCP
	// progress notifications. Cancelling the context stops the commit
	// between items, reported like a fail-fast stop (COMMIT_PARTIAL).
	Progress func(done, total int) `json:"-"`
	// Waiting, when set, is told when the commit waits for another commit
	// of the same document or item to release its commit lock (and again
	// if the lock passes to yet another commit), so a person or agent
	// learns what the silence is and how long it may last.
	Waiting func(CommitWait) `json:"-"`
	// WriteWithin, when set, confines the file a commit writes (the
	// pull's document) to this folder: the write goes through an os.Root
	// of it (atomicfile.WriteWithin), so a path that leads out of it — a
	// folder or link swapped since any earlier check too — is refused and
	// nothing is written. A front door that writes only inside a
	// workspace sets it; it is in no schema.
	WriteWithin string `json:"-"`
}

// CommitWait says what a commit waits for (CommitInput.Waiting).
type CommitWait struct {
	// What is the locked document or item, for people ("document plan").
	What string
	// Holder names the commit holding the lock (its idempotency key and
	// preview handle).
	Holder string
	// Until is when the holder's lease ends unless it renews it (a live
	// holder renews it while it works); GiveUp is when this commit stops
	// waiting and refuses with PREVIEW_STALE, nothing written.
	Until, GiveUp time.Time
	// Silent is how long the holder has not renewed the lock, when it has
	// been silent for longer than a running commit ever is (its process
	// died or lost the store): the wait then lasts until Until. Zero for
	// a holder that is heard from.
	Silent time.Duration
}

// String says what the commit waits for, for people and agents alike.
func (w CommitWait) String() string {
	if w.Silent > 0 {
		return fmt.Sprintf("Waiting for the commit lock of %s, held by a commit that is not running (%s): it has not renewed the lock for %s, so its process died or lost the state store. The lock lapses at %s and this commit then goes on; it gives up at %s, writing nothing.",
			w.What, w.Holder, core.Ago(w.Silent), w.Until.UTC().Format(time.RFC3339), w.GiveUp.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("Waiting for another commit of %s to finish (%s); its lock lasts until %s unless that commit renews it while it works. This commit gives up at %s, writing nothing.",
		w.What, w.Holder, w.Until.UTC().Format(time.RFC3339), w.GiveUp.UTC().Format(time.RFC3339))
}

// CommittedItem is one item's outcome in a commit result.
type CommittedItem struct {
	Reference core.Reference `json:"reference"`
	Document  string         `json:"document,omitempty" jsonschema:"the id of the item's document"`
	Kind      core.Kind      `json:"kind"`
	Title     string         `json:"title"`
	Action    core.Action    `json:"action"`
	Key       string         `json:"key,omitempty"`
	URL       string         `json:"url,omitempty"`
	Parent    core.Reference `json:"parent,omitempty"` // the epic's reference, for a story (as in the preview)
	Outcome   string         `json:"outcome"`          // committed | skipped (unchanged, drift or removed) | unknown (a blocked create, not made)
	// Released marks the create of a held-back item the preview released
	// (PlanItem.Released).
	Released bool `json:"released,omitempty" jsonschema:"the create of a held-back item released by release_held"`
}

// CommitCounts are the counts of a finished import commit.
type CommitCounts struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Drift     int `json:"drift"` // drifted items left untouched
	Adopted   int `json:"adopted,omitempty" jsonschema:"existing issues adopted: their reference and the document's content written"`
	// Unknown counts blocked creates that were not made (their earlier
	// create's outcome is still unknown).
	Unknown int `json:"unknown,omitempty"`
	// The structure writes committed: dependencies added and removed,
	// items moved into a sprint, items moved in the backlog order.
	Linked   int `json:"linked,omitempty"`
	Unlinked int `json:"unlinked,omitempty"`
	Sprinted int `json:"sprinted,omitempty"`
	Ranked   int `json:"ranked,omitempty"`
	Closed   int `json:"closed,omitempty"`  // removed items closed
	Removed  int `json:"removed,omitempty"` // removed items left alone
}

// ImportCommitResult is the result of a committed import.
type ImportCommitResult struct {
	ResultType     string          `json:"result_type"` // "committed"
	RunID          string          `json:"run_id"`
	PreviewHandle  string          `json:"preview_handle"`
	IdempotencyKey string          `json:"idempotency_key"`
	Replayed       bool            `json:"replayed,omitempty"` // true when this is a stored result replayed
	Counts         CommitCounts    `json:"counts"`
	Items          []CommittedItem `json:"items"`
	CommittedAt    time.Time       `json:"committed_at"`
	// Warnings say what the state store could not record of a commit
	// that did what it was asked (its end, its lock's release), so a
	// repeat of its key is not replayed (none on a replay).
	Warnings []string `json:"warnings,omitempty"`
}

// ProgressPreviewInput asks for a preview of reporting progress on an item.
type ProgressPreviewInput struct {
	// Item is a tracker key (PROJ-12) or a reference (doc/item).
	Item string `json:"item" jsonschema:"the work item: a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1"`
	// Status is the target status: todo, in_progress or done (optional).
	Status core.Status `json:"status,omitempty" jsonschema:"target status: todo, in_progress or done"`
	// Comment is a Markdown comment to add (optional).
	Comment string `json:"comment,omitempty" jsonschema:"a Markdown comment to add"`
	// DryRun says no commit of this preview follows in this process (a
	// front door's --dry-run): the preview does not read ahead the account
	// the commit would record (checkPermissions). Not part of the tools'
	// input.
	DryRun bool `json:"-"`
}

// ItemRef names an item briefly.
type ItemRef struct {
	Key       string         `json:"key"`
	Reference core.Reference `json:"reference,omitempty"`
	Title     string         `json:"title"`
	URL       string         `json:"url,omitempty"`
}

// ProgressPreviewResult is the stored progress plan, as shown to the caller.
type ProgressPreviewResult struct {
	ResultType    string      `json:"result_type"` // "preview"
	RunID         string      `json:"run_id"`
	PreviewHandle string      `json:"preview_handle"`
	ExpiresAt     time.Time   `json:"expires_at"`
	Item          ItemRef     `json:"item"`
	CurrentStatus core.Status `json:"current_status"`
	TargetStatus  core.Status `json:"target_status,omitempty"`
	Transition    string      `json:"transition,omitempty"` // name of the transition that will be used
	// TransitionSets are the values the transition's screen will be
	// given, as "Name: value" (e.g. "Resolution: Done").
	TransitionSets []string `json:"transition_sets,omitempty"`
	Comment        string   `json:"comment,omitempty"`
	Warnings       []string `json:"warnings,omitempty"`
	// PlanDigest is the digest of the plan as stored under the handle (see
	// ImportPreviewResult.PlanDigest).
	PlanDigest string `json:"plan_digest"`
}

// ProgressCommitResult is the result of a committed progress report.
type ProgressCommitResult struct {
	ResultType     string      `json:"result_type"` // "committed"
	RunID          string      `json:"run_id"`
	PreviewHandle  string      `json:"preview_handle"`
	IdempotencyKey string      `json:"idempotency_key"`
	Replayed       bool        `json:"replayed,omitempty"`
	Item           ItemRef     `json:"item"`
	Status         core.Status `json:"status"`
	Transitioned   bool        `json:"transitioned,omitempty"`
	CommentAdded   bool        `json:"comment_added,omitempty"`
	CommittedAt    time.Time   `json:"committed_at"`
	// Warnings: as ImportCommitResult's.
	Warnings []string `json:"warnings,omitempty"`
}

// GetInput names one work item.
type GetInput struct {
	Item string `json:"item" jsonschema:"a Jira key such as PROJ-12 or a reference such as checkout-v2/s-1"`
}

// ItemView is a self-sufficient view of a work item: no follow-up call is
// needed to act on it.
type ItemView struct {
	Key                string         `json:"key"`
	Reference          core.Reference `json:"reference,omitempty"`
	Kind               core.Kind      `json:"kind"`
	Title              string         `json:"title"`
	Description        string         `json:"description,omitempty"`
	AcceptanceCriteria []string       `json:"acceptance_criteria,omitempty"`
	Epic               *ItemRef       `json:"epic,omitempty"`
	Status             core.Status    `json:"status"`
	StatusName         string         `json:"status_name,omitempty"`
	URL                string         `json:"url,omitempty"`
	Updated            time.Time      `json:"updated,omitzero"`
	BlockedBy          []core.Linked  `json:"blocked_by,omitempty"`
	Blocks             []core.Linked  `json:"blocks,omitempty"`   // what this item blocks
	Story              *ItemRef       `json:"story,omitempty"`    // a sub-task's story
	Subtasks           []core.Linked  `json:"subtasks,omitempty"` // a story's sub-tasks
	Sprint             string         `json:"sprint,omitempty"`
	// Fields are the managed fields the item holds in the tracker, by key
	// in key order: what an import writes (labels, priority, estimate, fix
	// versions, custom fields as fields.<name>, …), whether or not a
	// document manages them.
	Fields   []ItemField `json:"fields,omitempty" jsonschema:"the managed fields the item holds in Jira (those an import writes), sorted by field, each with its value; an empty field is left out"`
	Children []ItemRef   `json:"children,omitempty"` // an epic's stories
	// Removed is true for an item its planning document no longer lists
	// (as of the document's last import): not work of the plan.
	Removed bool `json:"removed,omitempty" jsonschema:"true when the planning document no longer lists this item (as of its last import): it is not work of the plan"`
}

// ItemField is one managed field of an item as the tracker holds it: its
// key as the import preview names it (PlanField.Field) and its value.
type ItemField struct {
	Field string `json:"field" jsonschema:"the field: labels, priority, assignee, estimate, components, fix_versions, due, or fields.<name> for a custom field"`
	Value string `json:"value" jsonschema:"the value in Jira (lists joined by comma and space; a person as an account id)"`
	// Shown is the value as a person reads it, where that differs: each
	// person by the display name Jira gave with the item, followed by the
	// account id ("Ana Lima (5b10…)").
	Shown string `json:"shown,omitempty" jsonschema:"the value as a person reads it, where it differs from value: each person by their display name in Jira, followed by the account id in parentheses"`
}

// GetResult is the result of workitem.get.
type GetResult struct {
	ResultType string   `json:"result_type"` // "preview": reads write nothing
	RunID      string   `json:"run_id"`
	Item       ItemView `json:"item"`
}

// QueryInput filters work items. Zero fields do not filter.
type QueryInput struct {
	Status   core.Status `json:"status,omitempty" jsonschema:"todo, in_progress or done"`
	Epic     string      `json:"epic,omitempty" jsonschema:"only stories of this epic (key or reference)"`
	Document string      `json:"document,omitempty" jsonschema:"only items imported from this document id"`
	Text     string      `json:"text,omitempty" jsonschema:"free text to search in title and description"`
	Kind     core.Kind   `json:"kind,omitempty" jsonschema:"epic, story or subtask: only items of this kind"`
	Ready    bool        `json:"ready,omitempty" jsonschema:"only work ready to pick up: stories and sub-tasks in status todo whose every blocking item is done (epics only when kind is epic)"`
	Limit    int         `json:"limit,omitempty" jsonschema:"most items to return, 1 to 100 (default 25)"`
}

// QueryResult is a bounded, honest collection.
type QueryResult struct {
	ResultType string     `json:"result_type"` // "preview"
	RunID      string     `json:"run_id"`
	Items      []ItemView `json:"items"`
	Returned   int        `json:"returned"`
	Truncated  bool       `json:"truncated"`
}

// PreviewInfo is a stored preview shown again by its handle (for a person
// reviewing a plan someone else made). Exactly one of Import, Progress
// and Pull is set, matching Kind.
type PreviewInfo struct {
	Kind     core.PreviewKind       `json:"kind"`
	Import   *ImportPreviewResult   `json:"import,omitempty"`
	Progress *ProgressPreviewResult `json:"progress,omitempty"`
	// Pull is a stored pull plan (StoredPull, ShowPreview).
	Pull       *PullPreviewResult `json:"pull,omitempty"`
	ConsumedBy string             `json:"consumed_by,omitempty"` // idempotency key of the run that committed it
	ConsumedAt time.Time          `json:"consumed_at,omitzero"`  // when that run started
	// MadeBy says who or what made the preview (WithMadeBy: the command
	// and account, or the agent's client "via MCP"); CreatedAt when.
	MadeBy    string    `json:"made_by,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	// Commit says what became of that commit (nil when not consumed, or
	// its run is no longer recorded).
	Commit *CommitSummary `json:"commit,omitempty"`
}

// The methods of WorkItemService, the one service both front doors wrap
// (front doors declare the subset they use as their own interface):
//
//	ImportPreview(ctx, ImportPreviewInput) (ImportPreviewResult, error)
//	ImportCommit(ctx, CommitInput) (ImportCommitResult, error)
//	ProgressPreview(ctx, ProgressPreviewInput) (ProgressPreviewResult, error)
//	ProgressCommit(ctx, CommitInput) (ProgressCommitResult, error)
//	Get(ctx, GetInput) (GetResult, error)
//	Query(ctx, QueryInput) (QueryResult, error)
//	StoredPreview(ctx, handle string) (PreviewInfo, error) // a stored plan shown again, for review
//	StoredPull(ctx, handle string) (PreviewInfo, error)    // a stored pull plan shown again (PreviewInfo.Pull)
//
// Every error is a *Error with a stable code and the operation's run id.
