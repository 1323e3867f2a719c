package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// A preview of a directory: one header, each document's rows under its id
// and file, a story under an epic of another document noted as such, the
// structure changes named by document, one set of counts and one handle.
func TestDirectoryPreviewGolden80(t *testing.T) {
	p := service.ImportPreviewResult{
		ResultType: "preview", RunID: "run_d", PreviewHandle: "pv_d", ExpiresAt: expires, Scope: "https://example.atlassian.net/DEMO",
		Documents: []service.PlanDocument{{ID: "infra", File: "plans/infra.md"}, {ID: "app", File: "plans/team/app.md"}},
		Counts:    service.Counts{Create: 4, Unchanged: 1, Structure: 1},
		Items: []service.PlanItem{
			{Reference: "infra/e-1", Document: "infra", Kind: "epic", Title: "Platform", Action: "unchanged", Key: "DEMO-1"},
			{Reference: "infra/s-1", Document: "infra", Kind: "story", Title: "Provision", Action: "create", Parent: "infra/e-1"},
			{Reference: "app/s-1", Document: "app", Kind: "story", Title: "Use the platform", Action: "create", Parent: "infra/e-1"},
			{Reference: "app/e-2", Document: "app", Kind: "epic", Title: "App", Action: "create"},
			{Reference: "app/s-2", Document: "app", Kind: "story", Title: "Screens", Action: "create", Parent: "app/e-2"},
		},
		Structure: []service.StructureChange{{Action: "link", Item: "s-2", Document: "app", Message: "s-2 depends on s-1: link to add (s-2 is blocked by s-1)"}},
		Writes: service.NewPlanWrites([]service.PlannedWrite{
			{Action: "create", Document: "infra", Item: "s-1", Text: `story s-1 "Provision" under epic e-1`},
			{Action: "create", Document: "app", Item: "s-1", Text: `story s-1 "Use the platform" under epic infra/e-1`},
			{Action: "create", Document: "app", Item: "e-2", Text: `epic e-2 "App"`},
			{Action: "create", Document: "app", Item: "s-2", Text: `story s-2 "Screens" under epic e-2`},
			{Action: "link", Document: "app", Item: "s-2", Text: "s-2 depends on s-1: s-2 is blocked by s-1"},
		}),
		Warnings: []string{"1 entry of the directory was not read as planning documents: plans/README.md (no epics, stories or document id: not a planning document)."},
	}
	previewGolden80(t, p, "import_directory_80",
		"Import preview of plans/ (2 documents)",
		"  infra  plans/infra.md", "  app  plans/team/app.md", "epic infra/e-1 (another document)", "app: s-2 depends on s-1", "4 to create")
	var b bytes.Buffer
	ImportPreview(&b, p, Options{Width: 80})
	out := b.String()
	if strings.Index(out, "Story s-1: Use the platform") < strings.Index(out, "plans/team/app.md") {
		t.Error("app's story is not in app's group")
	}
}

// A commit of several documents names its items by reference: the same
// item id is in more than one document.
func TestDirectoryCommitGolden80(t *testing.T) {
	r := service.ImportCommitResult{RunID: "run_c", Counts: service.CommitCounts{Created: 3}, Items: []service.CommittedItem{
		{Reference: "infra/e-1", Document: "infra", Kind: "epic", Title: "Platform", Action: "create", Key: "DEMO-1", Outcome: core.OutcomeCommitted},
		{Reference: "infra/s-1", Document: "infra", Kind: "story", Title: "Provision", Action: "create", Key: "DEMO-2", Parent: "infra/e-1", Outcome: core.OutcomeCommitted},
		{Reference: "app/s-1", Document: "app", Kind: "story", Title: "Use the platform", Action: "create", Key: "DEMO-3", Parent: "infra/e-1", Outcome: core.OutcomeCommitted},
	}}
	var b bytes.Buffer
	ImportCommit(&b, r, Options{Width: 80})
	maxWidth(t, b.String(), 80)
	golden(t, "import_directory_commit_80", b.Bytes())
	for _, want := range []string{"Epic infra/e-1: Platform", "├─ Story infra/s-1: Provision", "└─ Story app/s-1: Use the platform"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("commit lacks %q:\n%s", want, b.String())
		}
	}
}

// The pending list names a directory preview's documents.
func TestPendingDirectoryPreview(t *testing.T) {
	var b bytes.Buffer
	Pending(&b, service.PendingResult{Returned: 1, Previews: []service.PendingPreview{{PreviewHandle: "imp_d", Kind: core.PreviewImport, Documents: []string{"infra", "app"}, Counts: &service.Counts{Create: 2}, CreatedAt: expires, ExpiresAt: expires}}}, Options{Width: 80})
	if !strings.Contains(b.String(), "import of 2 documents (infra, app)") {
		t.Errorf("pending list:\n%s", b.String())
	}
}
