package core

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
