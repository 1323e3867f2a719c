package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestSprintsOfATeamManagedProjectAreFound: a team-managed project's board
// is a simple board with sprints on; its sprints are found like a Scrum
// board's.
func TestSprintsOfATeamManagedProjectAreFound(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleTeamManaged}, nil)
	sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 2")
	if err != nil || len(sps) != 1 || sps[0].State != core.SprintFuture || sps[0].Board != "DEMO board" {
		t.Fatalf("Sprints(DEMO Sprint 2) of a team-managed project: %+v, %v", sps, err)
	}
}

// TestSprintsOfAKanbanOnlyProjectAreRefusedByName: Kanban boards have no
// sprints; a project with no other board says so instead of "does not
// exist", and a Kanban board next to a Scrum board is skipped.
func TestSprintsOfAKanbanOnlyProjectAreRefusedByName(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged}, nil)
	if sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 1"); err != nil || len(sps) != 1 {
		t.Fatalf("Sprints next to a Kanban board: %+v, %v", sps, err)
	}
	if _, err := f.srv.SetBoards("DEMO", "kanban"); err != nil {
		t.Fatal(err)
	}
	sps, err := f.p.Sprints(f.ctx, "DEMO Sprint 1")
	if core.ErrorCode(err) != core.CodeValidationFailed || !strings.Contains(err.Error(), "Kanban boards have no sprints") || !strings.Contains(err.Error(), "DEMO board") {
		t.Fatalf("Sprints of a Kanban-only project: %+v, %v; want VALIDATION_FAILED naming the Kanban board", sps, err)
	}
}
