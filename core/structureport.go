package core

import "context"

// The structure of a plan in the tracker: sub-tasks (a Kind), dependencies
// between items, sprints and the backlog order (rank). The words are the
// domain's; the provider translates (the Jira adapter: the "Blocks" link
// type, the sub-task issue type, the Agile API's sprints and rank).

// KindSubtask is a sub-task: a piece of a story, whose ItemSpec.ParentKey
// is the story's key.
const KindSubtask Kind = "subtask"

// Dependency is one "blocks" relation in the tracker: Blocker blocks
// Blocked (Blocked "is blocked by" Blocker). ID is the tracker's id of the
// relation, which RemoveDependency takes.
type Dependency struct {
	ID      string `json:"id"`
	Blocker string `json:"blocker"`
	Blocked string `json:"blocked"`
}

// Sprint is a sprint of one of the project's boards.
type Sprint struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"` // SprintActive | SprintFuture | SprintClosed
	Board string `json:"board"` // the board's name
}

// The sprint states.
const (
	SprintActive = "active"
	SprintFuture = "future"
	SprintClosed = "closed"
)

// RankOutcome is the outcome of ranking one item: Err is set when the
// tracker refused to move it (the others of the request may have moved).
type RankOutcome struct {
	Key string
	Err error
}

// StructureProvider is the provider capability that writes and reads a
// plan's structure. The Jira adapter and core/fakeprovider have it; a plan
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
	// (compared ignoring case), in every state. Reads only.
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
