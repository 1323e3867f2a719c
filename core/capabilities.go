// The capabilities: optional interfaces a WorkItemProvider or a Store may
// also implement, each found by a type assertion where it is used. The
// ports themselves (WorkItemProvider, Store) are in ports.go. A provider
// or store without a capability gets the behaviour its doc comment names.

package core

import (
	"context"
	"time"
)

// DocumentRecord is what the state store remembers of a planning document
// at its last commit: the file it was imported from and the ids of the
// items it held then. The preview uses it to warn when
// another file reuses the document id; queries use it to mark the items
// a document no longer lists.
type DocumentRecord struct {
	Scope    string
	Document string // document id
	// Path is the file the document was last imported from, as the front
	// door gave it (absolute for both doors); "" when only its bytes were
	// given.
	Path      string
	Items     []string // item ids, in document order
	UpdatedAt time.Time
}

// DocumentStore is the Store capability behind removed items and
// document-id collisions. Every store in this repository has it (checked
// by core/storetest, "Documents"); without it a preview shows no removed
// items and no collision.
type DocumentStore interface {
	// RecordDocument stores r, replacing the record of r.Scope and
	// r.Document. Errors: INTERNAL_ERROR (store fault).
	RecordDocument(ctx context.Context, r DocumentRecord) error
	// LoadDocuments returns the records of the given document ids of scope
	// (ids without a record are absent from the map).
	LoadDocuments(ctx context.Context, scope string, documents []string) (map[string]DocumentRecord, error)
	// ListDocumentIndex returns the dedup index entries of scope that hold
	// a tracker key and whose reference belongs to document
	// ("<document>/…"), in no particular order.
	ListDocumentIndex(ctx context.Context, scope, document string) ([]IndexEntry, error)
}

// DuplicateChecker is an optional capability of a WorkItemProvider: right
// after a commit's creates, it reads what the tracker holds now — not its
// search index, which lags behind writes — and tells which of the
// references the commit created another item holds too.
//
// It closes what the commit's stale check cannot: two imports of one
// document from separate state stores whose commits start within the same
// moment both pass their stale checks (neither has written yet) and both
// create. The one whose creates land second then sees the other's items
// and reports them (COMMIT_PARTIAL, not retryable, details naming every
// reference and its issues). One shared state store makes the second
// commit wait for the first instead (the document's commit lock).
type DuplicateChecker interface {
	// Duplicates returns, for each reference of created (reference → the
	// key this commit created for it) that another item holds as well,
	// the keys of every item holding it, oldest first (the created one
	// included). References held once are absent. It reads only, and a
	// bounded number of requests: when nobody else wrote meanwhile, one.
	Duplicates(ctx context.Context, created map[Reference]string) (map[Reference][]string, error)
}

// IssueReader is the provider capability export needs: the items a
// selection names, complete (paging stays inside), with their content,
// fields, links, sub-tasks, sprint and rank as a read returns them.
// Reads only. Errors: VALIDATION_FAILED for a query the tracker refuses,
// WORK_ITEM_NOT_FOUND for an epic it does not have.
type IssueReader interface {
	ReadIssues(ctx context.Context, sel IssueSelection) ([]WorkItem, error)
}

// PeopleReader is the provider capability an export names people with:
// every person the items' fields name (by canonical value: an account
// id), whichever field names them, with the e-mail the tracker shows for
// them ("" when it shows none: hidden by their privacy settings, or not
// known). Reads only; at most one request per person, never one per item.
// Without it, people are written as the configuration names them, else as
// account ids.
type PeopleReader interface {
	People(ctx context.Context, items []WorkItem) (map[string]string, error)
}

// IssueSelection names the issues to export; exactly one part is set.
// Every selection also takes the sub-tasks of the stories it holds.
type IssueSelection struct {
	Epic  string // an epic's key: the epic and its children
	Query string // a query in the tracker's own language, within the project
	// Project is the key of the project to export whole; it must be the
	// one the provider works with (else VALIDATION_FAILED).
	Project string
}

// FieldResolver is the provider capability that checks a plan's fields
// against the tracker before anything is written. The Jira adapter and
// core/providertest/fakeprovider have it; a document that sets fields cannot be
// imported through a provider without it.
type FieldResolver interface {
	// ResolveFields returns, per request and in order, its fields in
	// canonical form (see FieldValue). It refuses with one
	// VALIDATION_FAILED holding every problem at once (a Detail per
	// problem: Item = the reference, Field = the field key, Message naming
	// the value and what is allowed): a required field of a create that
	// no request field sets, a value the tracker does not allow (unknown
	// priority, component, version or option; a person who cannot be
	// resolved to exactly one assignable account), a value of the wrong
	// type or over the tracker's limits, a field the item's type cannot
	// hold (for an update: a field the tracker would not let it change).
	// Reads only, with a bounded number of requests (never one per item).
	ResolveFields(ctx context.Context, reqs []FieldRequest) ([]map[string]FieldValue, error)
}

// ItemChecker is an optional capability of a WorkItemProvider: it tells,
// without writing anything, which items the tracker would refuse at Create
// or Update for reasons only the provider can know — above all a text
// field's size as the tracker counts it (the document the provider will
// send, acceptance criteria included, not the Markdown). The import
// preview calls it for every item it plans to write, so it refuses what
// the commit would be refused, every problem at once, before any write.
// A provider without it is trusted to accept what core/plan validated.
type ItemChecker interface {
	// CheckItems returns one Detail per problem, each naming the item
	// (Detail.Item: its reference), the field, and what is wrong (the size
	// as the tracker counts it and the limit); nil when the tracker would
	// accept every spec. A non-nil error means the check itself could not
	// run (e.g. the tracker is unavailable). Reads only.
	CheckItems(ctx context.Context, specs []ItemSpec) ([]Detail, error)
}

// CreateFiller is an optional capability of a WorkItemProvider: the fields
// a tracker requires on a new item that the provider fills itself from
// the item (not from the document's fields) — so the import preview can
// name every value the commit writes. A provider without it fills none.
type CreateFiller interface {
	// CreateFills returns, for each spec (a planned create) that gets
	// such fields, the fields and values Create will write. Reads only.
	CreateFills(ctx context.Context, specs []ItemSpec) (map[Reference][]FilledField, error)
}

// FilledField is one field a provider fills itself on create.
type FilledField struct {
	Field string `json:"field"` // the field's name in the tracker
	Value string `json:"value"` // the value written
	Why   string `json:"why"`   // why it is written and where the value comes from
}

// Permission names a tracker permission a planned write needs. The values
// are Jira's permission keys, which the provider reports as the Field of
// each detail of a JIRA_PERMISSION_DENIED.
type Permission string

// The permissions the planned writes need.
const (
	PermissionCreate     Permission = "CREATE_ISSUES"
	PermissionEdit       Permission = "EDIT_ISSUES"
	PermissionTransition Permission = "TRANSITION_ISSUES"
	PermissionComment    Permission = "ADD_COMMENTS"
	// PermissionLink is Jira's "Link issues": dependency links.
	PermissionLink Permission = "LINK_ISSUES"
	// PermissionSchedule is Jira's "Schedule issues": sprint and rank.
	PermissionSchedule Permission = "SCHEDULE_ISSUES"
)

// PermissionChecker is the provider capability a preview uses to refuse,
// before anyone is asked to confirm, a plan the account could not write.
// The Jira adapter and core/providertest/fakeprovider have it; a provider without it is
// not checked (its commit reports the refusal).
type PermissionChecker interface {
	// CheckPermissions returns nil when the account holds every one of
	// perms in the project, else JIRA_PERMISSION_DENIED naming each missing
	// permission (one detail per permission, Field = its key). Reads only.
	CheckPermissions(ctx context.Context, perms []Permission) error
}

// BaseRecorder is the provider capability a pull needs: it moves an
// item's bases forward without changing the item.
type BaseRecorder interface {
	// RecordBase stores, as what DevWorkWire last wrote to the item key,
	// spec.Digest, spec.FieldBases, and the item's content as the tracker
	// holds it now except the content keys in spec.HeldContent: the next
	// read reports no other content part as changed (ContentChanged false,
	// EditedOutside false when nothing is held) and FieldBases =
	// spec.FieldBases. No field or content of the item changes. When the
	// item's Fingerprint is no longer fingerprint (it changed since the
	// caller read it), nothing is recorded and the error is PREVIEW_STALE.
	// An unanswered request is marked with MarkOutcomeUnknown (see
	// WorkItemProvider.Update).
	RecordBase(ctx context.Context, key, fingerprint string, spec ItemSpec) error
}

// PreviewLister is the Store capability behind "which previews are waiting
// for a person?" (`dwire review` without a handle). Every store in this
// repository has it (core/storetest/memstore, SQLite, Postgres; checked by
// core/storetest); it is kept apart from Store so that the port's core
// methods stay the gate's.
type PreviewLister interface {
	// PendingPreviews returns up to limit previews of scope that are
	// neither consumed nor expired at now, newest first, and whether more
	// matched. Each is returned as LoadPreview would (digest checked; a
	// tampered one is skipped rather than failing the list).
	PendingPreviews(ctx context.Context, scope string, now time.Time, limit int) (previews []Preview, truncated bool, err error)
}

// IndexLister is the Store capability behind completing keys and
// references offline (`dwire show <TAB>`): the dedup index of a scope.
// Every store in this repository has it (checked by core/storetest).
type IndexLister interface {
	// ListIndex returns up to limit entries of scope that hold a tracker
	// key (write-ahead markers left out), in no particular order.
	ListIndex(ctx context.Context, scope string, limit int) ([]IndexEntry, error)
}

// StructureProvider is the provider capability that writes and reads a
// plan's structure. The Jira adapter and core/providertest/fakeprovider have it; a plan
// with dependencies, sub-tasks, a sprint or an order is refused at the
// preview by a provider without it. Every write that was sent but not
// answered is marked with MarkOutcomeUnknown (see WorkItemProvider.Update);
// the service reads back (Dependencies, Get) instead of sending it again.
type StructureProvider interface {
	// CheckSubtasks verifies that the project can hold sub-tasks.
	// Errors: CONFIG_INVALID naming what is missing. Reads only.
	CheckSubtasks(ctx context.Context) error

	// Dependencies returns every "blocks" relation that touches one of
	// keys (either end), each once, read fresh from the tracker (not
	// subject to search lag). Reads only.
	Dependencies(ctx context.Context, keys []string) ([]Dependency, error)

	// AddDependency records that blocked is blocked by blocker. The
	// tracker may not say which relation it made: the caller reads it
	// back with Dependencies. Errors: WORK_ITEM_NOT_FOUND.
	AddDependency(ctx context.Context, blocked, blocker string) error

	// RemoveDependency removes the relation with this id.
	// Errors: WORK_ITEM_NOT_FOUND when it no longer exists.
	RemoveDependency(ctx context.Context, id string) error

	// Sprints returns the sprints of the project's boards named name
	// (compared ignoring case), in every state; name "" returns every
	// sprint of the boards (to say which exist). Reads only.
	Sprints(ctx context.Context, name string) ([]Sprint, error)

	// MoveToSprint puts the items (at most MaxBatch) into the sprint.
	// Errors: VALIDATION_FAILED (closed sprint, unknown item).
	MoveToSprint(ctx context.Context, sprintID string, keys []string) error

	// Rank places the items (at most MaxBatch), in this order, right
	// before anchor (before true) or right after it, and returns one
	// outcome per key: the tracker may move some and refuse others. A
	// non-nil error means the request as a whole failed (marked unknown
	// when it may have applied).
	Rank(ctx context.Context, keys []string, anchor string, before bool) ([]RankOutcome, error)
}

// AccountReader is the optional provider capability that names the
// account the provider's credentials belong to.
type AccountReader interface {
	// Account returns the account of the provider's credentials (a read;
	// the provider may remember it). Errors: as any tracker read.
	Account(ctx context.Context) (Account, error)
}

// AccountSeer is the optional provider capability that names the account
// of the provider's credentials as far as its answers so far showed it,
// without a request: the whole account once the provider read it, the id
// alone when only the tracker's answers named it (a header), or the zero
// Account when nothing did yet. The service names the account of a
// commit from it, and from the name its audit trail recorded for that id,
// before it asks AccountReader (a request).
type AccountSeer interface {
	SeenAccount() Account
}

// AuditStore is the Store capability behind the audit trail and the gate
// policy. Every store in this repository has it (checked by
// core/storetest, "Audit"); without it nothing is recorded and the policy
// is DefaultGatePolicy.
type AuditStore interface {
	// AppendAudit appends r durably and returns its sequence number.
	// Records are never changed afterwards (Prune deletes them once older
	// than Retention.Audit).
	AppendAudit(ctx context.Context, r AuditRecord) (int64, error)
	// ListAudit returns, newest first (by sequence number), up to limit
	// records passing f (all of them when limit <= 0), and whether more
	// did.
	ListAudit(ctx context.Context, f AuditFilter, limit int) (records []AuditRecord, truncated bool, err error)
	// LoadPolicy returns the stored gate policy, DefaultGatePolicy when
	// none was set.
	LoadPolicy(ctx context.Context) (GatePolicy, error)
	// SavePolicy stores p as the gate policy. Errors: VALIDATION_FAILED
	// for an unknown agents value.
	SavePolicy(ctx context.Context, p GatePolicy) error
}

// PaceStore is the Store capability behind shared pacing. Every store in
// this repository has it (checked by core/storetest, "Pace"); without it
// each process paces alone.
type PaceStore interface {
	// TakePace applies r to the pacing state of key (a new key starts as
	// the zero PaceState), atomically with respect to every other caller
	// of this store in any process, using the store's own clock, and
	// returns the grant. Errors: INTERNAL_ERROR (store fault): the caller
	// paces alone.
	TakePace(ctx context.Context, key string, r PaceRequest) (PaceGrant, error)
}

// PaceSharer is the optional provider capability that takes a PaceStore
// to pace its requests with every other process sharing it. The service
// hands it its store when the store is a PaceStore.
type PaceSharer interface {
	SharePacing(ps PaceStore)
}
