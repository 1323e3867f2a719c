package core

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"
)

// Kind is the kind of a work item.
type Kind string

// The item kinds a planning document may hold.
const (
	KindEpic  Kind = "epic"
	KindStory Kind = "story"
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindEpic || k == KindStory || k == KindSubtask }

// KindNames are the kinds as a filter names them: epic, story, subtask.
func KindNames() []string { return []string{string(KindEpic), string(KindStory), string(KindSubtask)} }

// Label is the kind as a heading or a sentence names it, spelled as the
// plan format spells it: Epic, Story, Sub-task ("Item" for no kind).
func (k Kind) Label() string {
	switch k {
	case KindEpic:
		return "Epic"
	case KindStory:
		return "Story"
	case KindSubtask:
		return "Sub-task"
	case "":
		return "Item"
	}
	return string(k)
}

// Status is the domain state of a work item, mapped from Jira's status
// categories (new → todo, indeterminate → in_progress, done → done).
type Status string

// The three domain statuses.
const (
	StatusTodo       Status = "todo"
	StatusInProgress Status = "in_progress"
	StatusDone       Status = "done"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	return s == StatusTodo || s == StatusInProgress || s == StatusDone
}

// Reference identifies an item of a planning document across imports:
// "<document id>/<item id>", e.g. "checkout-v2/s-3". It is what makes a
// re-import update an item instead of duplicating it.
type Reference string

// NewReference joins a document id and an item id.
func NewReference(doc, item string) Reference { return Reference(doc + "/" + item) }

// Split returns the document id and item id of r (item is "" when r has
// no slash).
func (r Reference) Split() (doc, item string) {
	d, i, _ := strings.Cut(string(r), "/")
	return d, i
}

// Document returns the document id of r.
func (r Reference) Document() string { d, _ := r.Split(); return d }

// Action is what a plan does to one item.
type Action string

// The per-item actions of an import plan.
const (
	ActionCreate    Action = "create"
	ActionUpdate    Action = "update"
	ActionUnchanged Action = "unchanged"
	ActionDrift     Action = "drift" // edited in Jira since DevWorkWire last wrote it: never overwritten silently
)

// Linked is another work item next to this one: one that blocks it, one
// it blocks, or one of its sub-tasks. Its title is read with the item
// (the tracker embeds it in the link), "" when the tracker did not say.
type Linked struct {
	Key    string `json:"key"`
	Title  string `json:"title,omitempty"`
	Status Status `json:"status"`
}

// WorkItem is a work item as the tracker holds it. It carries no Jira
// vocabulary: the provider translates.
type WorkItem struct {
	Key                string    `json:"key"`
	Reference          Reference `json:"reference,omitempty"`
	Kind               Kind      `json:"kind"`
	Title              string    `json:"title"`
	Description        string    `json:"description,omitempty"` // Markdown
	AcceptanceCriteria []string  `json:"acceptance_criteria,omitempty"`
	ParentKey          string    `json:"parent_key,omitempty"`
	Status             Status    `json:"status"`
	StatusName         string    `json:"status_name,omitempty"`
	URL                string    `json:"url,omitempty"`
	Updated            time.Time `json:"updated,omitzero"`
	BlockedBy          []Linked  `json:"blocked_by,omitempty"`
	Blocks             []Linked  `json:"blocks,omitempty"`   // items this one blocks (structureport.go)
	Subtasks           []Linked  `json:"subtasks,omitempty"` // a story's sub-tasks
	Sprint             string    `json:"sprint,omitempty"`   // the name of the sprint it is in
	// Rank is an opaque value that sorts items in backlog order ("" when
	// the tracker has none); only the relative order of two items means
	// anything.
	Rank string `json:"-"`
	// Fields are the item's managed-field values the provider knows of
	// (key → canonical values; fields.go), whether or not a document
	// manages them. A field absent here is empty.
	Fields map[string][]string `json:"fields,omitempty"`
	// People are the display names the tracker gave, in the answer that
	// held the item, for the account ids its person fields (assignee,
	// user pickers) name: account id → name. No read of its own; a
	// provider that has none leaves it nil (the ids are shown).
	People map[string]string `json:"-"`
	// FieldBases are the per-field digests (FieldDigest) DevWorkWire
	// stored when it last wrote the item: the base of the three-way
	// comparison. Nil for an item written before per-field bases.
	FieldBases map[string]string `json:"-"`
	// BaseValues are the values behind FieldBases (key → values: a
	// managed field's canonical values, a content part's text or
	// criteria), where the provider kept them (ItemSpec.BaseValues): with
	// them a conflict shows what each side changed. A key absent here is
	// not known (written before base values were kept, or too long).
	BaseValues map[string][]string `json:"-"`

	// LastWritten is the content digest (ContentDigest) DevWorkWire stored
	// with the item when it last wrote it; "" if it never did.
	LastWritten string `json:"-"`
	// EditedOutside is true when the item's content in the tracker differs
	// from what DevWorkWire last wrote (or DevWorkWire never wrote it).
	EditedOutside bool `json:"-"`
	// ContentChanged says, per content key (ContentTitle,
	// ContentDescription, ContentCriteria), whether that part differs in
	// the tracker from what DevWorkWire last wrote; nil when the provider
	// cannot tell (an item written before per-part digests): then only
	// EditedOutside is known, for the whole item.
	ContentChanged map[string]bool `json:"-"`
	// Unrepresentable are the content keys whose value in the tracker
	// holds something the document's text cannot carry (key → what, e.g.
	// "a layout (columns)"): writing the document's text there would lose
	// it, so the service leaves such a part as the tracker has it.
	Unrepresentable map[string]string `json:"-"`
	// Fingerprint is an opaque provider value that changes whenever the
	// item changes in the tracker (content, status, parent). Commit compares
	// it with what the preview saw to refuse stale plans.
	Fingerprint string `json:"-"`
	// Duplicates lists the keys of other items that hold the same
	// reference (Lookup only): two issues carry one reference (one made by
	// a person, or copied). Lookup returns one of them — the one the dedup
	// index knows, else the oldest — and names the others here.
	Duplicates []string `json:"-"`
}

// ItemSpec is the content DevWorkWire writes for one item.
type ItemSpec struct {
	Reference          Reference `json:"reference"`
	Kind               Kind      `json:"kind"`
	Title              string    `json:"title"`
	Description        string    `json:"description,omitempty"` // Markdown
	AcceptanceCriteria []string  `json:"acceptance_criteria,omitempty"`
	// ParentKey is the tracker key of the parent epic ("" for none). For a
	// story whose epic is created in the same run, the service fills it in
	// after the epic's create succeeded.
	ParentKey string `json:"parent_key,omitempty"`
	// Digest is ContentDigest of this spec; the provider stores it with the
	// item in the same create/edit request.
	Digest string `json:"digest"`
	// Fields are the managed fields to write, in canonical form (key →
	// value; an empty value clears the field). A field not here is left as
	// it is in the tracker.
	Fields map[string]FieldValue `json:"fields,omitempty"`
	// FieldBases are the per-field digests to store with the item in the
	// same request (WorkItem.FieldBases on the next read): every field the
	// document manages, written or not.
	FieldBases map[string]string `json:"field_bases,omitempty"`
	// BaseValues are the values behind FieldBases where they are at most
	// MaxBaseValue bytes (WorkItem.BaseValues on the next read), stored in
	// the same request; the provider stores them as given, except that it
	// may put a content part it writes in the form it reads it back.
	BaseValues map[string][]string `json:"base_values,omitempty"`
	// HeldContent are the content keys (ContentTitle, …) whose value in
	// this spec is the tracker's, not DevWorkWire's (a person's change kept,
	// or in conflict): the provider records them as not written by
	// DevWorkWire, so the next read still reports them ContentChanged.
	HeldContent []string `json:"held_content,omitempty"`
	// Unsent are the content keys (ContentTitle, …) whose value in this
	// spec the tracker already holds, as read: an update does not send
	// them, so what a person formatted there (mentions, colours, …) stays
	// as it is. A create sends everything.
	Unsent []string `json:"unsent,omitempty"`
}

// ContentDigest is the digest of an item's document content: kind, title,
// description, acceptance criteria and parent reference. Equal digests mean
// the document did not change the item.
func ContentDigest(kind Kind, title, description string, ac []string, parent Reference) string {
	// {"k":…,"t":…,"d":…,"a":…,"p":…}, as json.Marshal writes it
	// (digestjson.go).
	n := 32 + len(kind) + len(title) + len(description) + len(parent)
	for _, a := range ac {
		n += len(a) + 3
	}
	b := make([]byte, 0, n)
	b = appendJSONString(append(b, `{"k":`...), string(kind))
	b = appendJSONString(append(b, `,"t":`...), title)
	b = appendJSONString(append(b, `,"d":`...), description)
	b = appendJSONStrings(append(b, `,"a":`...), ac)
	b = appendJSONString(append(b, `,"p":`...), string(parent))
	return digestOf(append(b, '}'), sha256.Size)
}

// CreateOutcome is the result of creating one item.
type CreateOutcome struct {
	Reference Reference
	Key       string // set when the item exists in the tracker
	URL       string
	// Err is set when the item was not created (a *Error with an
	// item-level code). With Unknown, it says why the outcome is unknown.
	Err error
	// Unknown is true when the create may or may not have happened (the
	// connection dropped after sending) and a search for its reference
	// found nothing. The item must not be created again blindly.
	Unknown bool
}

// Transition is a workflow transition available on an item.
type Transition struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	To     Status `json:"to"`
	ToName string `json:"to_name"`
	// Sets are the values the transition's screen will be given, as
	// "Name: value" (e.g. "Resolution: Done"): the provider fills each
	// required screen field the same way when it moves the item.
	Sets []string `json:"sets,omitempty"`
	// Blocked says why the provider cannot take the transition (a
	// required screen field it cannot fill); "" when it can.
	Blocked string `json:"blocked,omitempty"`
}

// Filter selects work items in Query. Zero fields do not filter.
type Filter struct {
	Status   Status // todo | in_progress | done
	EpicKey  string // items whose parent is this epic
	Document string // items whose reference belongs to this document id
	Text     string // free text in title or description
	// Kind selects items of one kind ("" = every kind).
	Kind Kind
	// Ready selects work a person can pick up: items in status todo whose
	// every "is blocked by" item is done, and, unless Kind names one,
	// stories and sub-tasks only (no epics).
	Ready bool
	// Limit is the most items to return (1..100).
	Limit int
}

// PreviewKind is the workflow a preview handle belongs to.
type PreviewKind string

// The previewable workflows: each stores its plans under its own kind,
// read by its own codec.
const (
	PreviewImport   PreviewKind = "import"
	PreviewProgress PreviewKind = "progress"
	PreviewPull     PreviewKind = "pull"
)

// Preview is a stored plan under its handle.
type Preview struct {
	Handle string
	Kind   PreviewKind
	Scope  string // the tracker scope it was made for (site + project)
	Plan   []byte // the plan, stored and returned byte-for-byte
	// Digest is the stored plan's digest (PlanDigest of Plan), computed by
	// SavePreview and returned by LoadPreview. A confirmer who was shown
	// this plan commits with StartRunRequest.PlanDigest set to it. On
	// SavePreview it may be empty; if set it must equal PlanDigest(Plan).
	Digest    string
	CreatedAt time.Time
	ExpiresAt time.Time
	// ConsumedAt is set (non-zero) once a run started on this handle;
	// ConsumedBy is that run's idempotency key.
	ConsumedAt time.Time
	ConsumedBy string
}

// RunState is the state of a commit run: in_progress → committed | partial | failed.
type RunState string

// The run states.
const (
	RunInProgress RunState = "in_progress"
	RunCommitted  RunState = "committed"
	RunPartial    RunState = "partial"
	RunFailed     RunState = "failed"
)

// ItemOutcome is one item's recorded outcome in a run.
type ItemOutcome struct {
	Reference Reference `json:"reference"`
	Action    Action    `json:"action"`
	Key       string    `json:"key,omitempty"`
	Outcome   string    `json:"outcome"` // committed | failed | unknown
	Code      Code      `json:"code,omitempty"`
	Message   string    `json:"message,omitempty"`
}

// Run is one commit of a preview under an idempotency key.
type Run struct {
	ID         string // run id
	Key        string // idempotency key
	Handle     string
	State      RunState
	StartedAt  time.Time
	FinishedAt time.Time
	Outcomes   []ItemOutcome // in the order they were recorded
	Result     []byte        // the final result, replayed on a repeat
}

// StartRunRequest asks the store to consume a handle and start a run.
type StartRunRequest struct {
	Key    string // idempotency key
	Handle string
	RunID  string
	Now    time.Time
	// PlanDigest, when set, is the digest of the plan the confirmer was
	// shown (Preview.Digest as loaded then). StartRun refuses, in the same
	// atomic step that would consume the handle, when the stored plan's
	// digest differs: PREVIEW_STALE whose cause is a *PlanChangedError,
	// and the handle stays unconsumed. Empty skips the check.
	PlanDigest string
}

// Lock is a named lock held through Store.AcquireLock.
type Lock struct {
	Name  string
	Owner string
	// Generation is the lock's fencing token: it increases every time the
	// lock passes to an owner that did not hold it (a fresh acquisition,
	// or a takeover after the holder's lease ran out) and stays the same
	// when the holder renews, even after its lease lapsed as long as
	// nobody took the lock meanwhile. Store.Fence checks it.
	Generation int64
	// Expires is when the lease ends unless renewed (on the store's clock).
	Expires time.Time
	// Release gives the lock up if Owner still holds it at Generation;
	// otherwise it changes nothing and returns an INTERNAL_ERROR whose
	// cause is a *LockLostError.
	Release func(context.Context) error
}

// IndexEntry is one row of the dedup index: a reference within a scope and
// the tracker key it was created as, with the digest last written.
type IndexEntry struct {
	Scope     string
	Reference Reference
	Key       string
	Digest    string
	UpdatedAt time.Time
}
