package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// fakeService is a hand-written Service for tests: each method returns
// what its func says (a canned success when nil) and records its calls.
type fakeService struct {
	mu    sync.Mutex
	calls []string

	importPreview   func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error)
	importCommit    func(context.Context, service.CommitInput) (service.ImportCommitResult, error)
	progressPreview func(context.Context, service.ProgressPreviewInput) (service.ProgressPreviewResult, error)
	progressCommit  func(context.Context, service.CommitInput) (service.ProgressCommitResult, error)
	get             func(context.Context, service.GetInput) (service.GetResult, error)
	query           func(context.Context, service.QueryInput) (service.QueryResult, error)
	preview         func(context.Context, string) (service.PreviewInfo, error)
	export          func(context.Context, service.ExportInput) (service.ExportResult, error)
	pullPreview     func(context.Context, service.PullPreviewInput) (service.PullPreviewResult, error)
	pullCommit      func(context.Context, service.CommitInput) (service.PullCommitResult, error)
	storedPull      func(context.Context, string) (service.PreviewInfo, error)
	pullPath        string // the file h-pull's stored plan writes

	lastPull service.PullPreviewInput

	lastExport service.ExportInput
	lastImport service.ImportPreviewInput
	lastCommit service.CommitInput
}

var fixedTime = time.Date(2026, 1, 15, 14, 30, 0, 0, time.UTC)

func (f *fakeService) record(name string) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.mu.Unlock()
}

func (f *fakeService) called(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

func sampleImportPreview() service.ImportPreviewResult {
	return service.ImportPreviewResult{
		ResultType: service.ResultPreview, RunID: "run-ip", PreviewHandle: "h-import", ExpiresAt: fixedTime.Add(30 * time.Minute),
		Document: "checkout-v2", Scope: "https://fake.example/DEMO",
		Counts: service.Counts{Create: 2, Update: 1, Unchanged: 1, Structure: 1},
		Items: []service.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: core.KindEpic, Title: "Guest checkout", Action: core.ActionCreate},
			{Reference: "checkout-v2/s-1", Kind: core.KindStory, Title: "Pay without an account", Action: core.ActionCreate, Parent: "checkout-v2/e-1"},
			{Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address", Action: core.ActionUpdate, Key: "DEMO-7", ChangedFields: []string{"title"}},
			{Reference: "checkout-v2/s-3", Kind: core.KindStory, Title: "Receipts", Action: core.ActionUnchanged, Key: "DEMO-8"},
		},
		Writes: service.NewPlanWrites([]service.PlannedWrite{
			{Action: core.ActionCreate, Item: "e-1", Text: `epic e-1 "Guest checkout"`},
			{Action: core.ActionCreate, Item: "s-1", Text: `story s-1 "Pay without an account" under epic e-1`},
			{Action: core.ActionUpdate, Item: "s-2", Key: "DEMO-7", Text: `story s-2 "Save address" (DEMO-7): title`},
			{Action: service.ActionLink, Item: "s-1", Text: "s-1 depends on s-2 (DEMO-7): s-1 is blocked by s-2"},
		}),
	}
}

func sampleProgressPreview() service.ProgressPreviewResult {
	return service.ProgressPreviewResult{
		ResultType: service.ResultPreview, RunID: "run-pp", PreviewHandle: "h-progress", ExpiresAt: fixedTime.Add(30 * time.Minute),
		Item:          service.ItemRef{Key: "DEMO-7", Reference: "checkout-v2/s-2", Title: "Save address", URL: "https://fake.example/browse/DEMO-7"},
		CurrentStatus: core.StatusTodo, TargetStatus: core.StatusInProgress, Transition: "Start", Comment: "Started work",
	}
}

func sampleView() service.ItemView {
	return service.ItemView{
		Key: "DEMO-7", Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address",
		AcceptanceCriteria: []string{"Address is saved"}, Epic: &service.ItemRef{Key: "DEMO-1", Title: "Guest checkout"},
		Status: core.StatusTodo, StatusName: "To Do", URL: "https://fake.example/browse/DEMO-7", Updated: fixedTime,
	}
}

func (f *fakeService) ImportPreview(ctx context.Context, in service.ImportPreviewInput) (service.ImportPreviewResult, error) {
	keep(f, &f.lastImport, in)
	return fakeAnswer(ctx, f, "ImportPreview", in, f.importPreview, sampleImportPreview)
}

// keep stores in, under the lock, as the last input of its kind.
func keep[I any](f *fakeService, last *I, in I) {
	f.mu.Lock()
	*last = in
	f.mu.Unlock()
}

// fakeAnswer records the call and returns what the test's hook answers
// when it set one, else what def makes.
func fakeAnswer[I, R any](ctx context.Context, f *fakeService, name string, in I, hook func(context.Context, I) (R, error), def func() R) (R, error) {
	f.record(name)
	if hook != nil {
		return hook(ctx, in)
	}
	return def(), nil
}

func (f *fakeService) ImportCommit(ctx context.Context, in service.CommitInput) (service.ImportCommitResult, error) {
	return fakeCommit(ctx, f, "ImportCommit", "run-ic", in, f.importCommit, service.ImportCommitResult{
		ResultType: service.ResultCommitted, RunID: "run-ic", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-1",
		Counts: service.CommitCounts{Created: 2, Updated: 1, Unchanged: 1},
		Items: []service.CommittedItem{
			{Reference: "checkout-v2/e-1", Kind: core.KindEpic, Title: "Guest checkout", Action: core.ActionCreate, Key: "DEMO-1", URL: "https://fake.example/browse/DEMO-1", Outcome: "committed"},
		},
		CommittedAt: fixedTime,
	})
}

// fakeCommit is what both commits of the fake do: record the call and its
// input, run the test's hook when it set one, else refuse without
// confirmed (like the service) or return committed.
func fakeCommit[R any](ctx context.Context, f *fakeService, name, runID string, in service.CommitInput, hook func(context.Context, service.CommitInput) (R, error), committed R) (R, error) {
	f.record(name)
	keep(f, &f.lastCommit, in)
	if hook != nil {
		return hook(ctx, in)
	}
	if !in.Confirmed {
		var zero R
		return zero, core.Errorf(core.CodeConfirmationRequired, "confirmed must be true").WithRunID(runID)
	}
	return committed, nil
}

func (f *fakeService) ProgressPreview(ctx context.Context, in service.ProgressPreviewInput) (service.ProgressPreviewResult, error) {
	return fakeAnswer(ctx, f, "ProgressPreview", in, f.progressPreview, sampleProgressPreview)
}

func (f *fakeService) ProgressCommit(ctx context.Context, in service.CommitInput) (service.ProgressCommitResult, error) {
	return fakeCommit(ctx, f, "ProgressCommit", "run-pc", in, f.progressCommit, service.ProgressCommitResult{
		ResultType: service.ResultCommitted, RunID: "run-pc", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-2",
		Item: sampleProgressPreview().Item, Status: core.StatusInProgress, Transitioned: true, CommentAdded: true, CommittedAt: fixedTime,
	})
}

func (f *fakeService) Get(ctx context.Context, in service.GetInput) (service.GetResult, error) {
	return fakeAnswer(ctx, f, "Get", in, f.get, func() service.GetResult {
		return service.GetResult{ResultType: service.ResultPreview, RunID: "run-g", Item: sampleView()}
	})
}

func (f *fakeService) Query(ctx context.Context, in service.QueryInput) (service.QueryResult, error) {
	return fakeAnswer(ctx, f, "Query", in, f.query, func() service.QueryResult {
		return service.QueryResult{ResultType: service.ResultPreview, RunID: "run-q", Items: []service.ItemView{sampleView()}, Returned: 1}
	})
}

func (f *fakeService) StoredPreview(ctx context.Context, handle string) (service.PreviewInfo, error) {
	f.record("Preview")
	if f.preview != nil {
		return f.preview(ctx, handle)
	}
	switch handle {
	case "h-import":
		p := sampleImportPreview()
		return service.PreviewInfo{Kind: core.PreviewImport, Import: &p}, nil
	case "h-progress":
		p := sampleProgressPreview()
		return service.PreviewInfo{Kind: core.PreviewProgress, Progress: &p}, nil
	}
	return service.PreviewInfo{}, core.Errorf(core.CodePreviewNotFound, "No preview has the handle %q. Run the preview again.", handle).WithRerun("Run the preview again").WithRunID("run-pv")
}

func sampleExport() service.ExportResult {
	return service.ExportResult{ResultType: service.ResultPreview, RunID: "run-ex", Document: "demo-1", Format: "markdown",
		Text: "# Guest checkout\n", Epics: 1, Stories: 2, Adopt: 3}
}

func (f *fakeService) Export(ctx context.Context, in service.ExportInput) (service.ExportResult, error) {
	keep(f, &f.lastExport, in)
	return fakeAnswer(ctx, f, "Export", in, f.export, sampleExport)
}

func samplePullPreview() service.PullPreviewResult {
	return service.PullPreviewResult{
		ResultType: service.ResultPreview, RunID: "run-lp", PreviewHandle: "h-pull", ExpiresAt: fixedTime.Add(30 * time.Minute), PlanDigest: "sha256:pull",
		Document: "checkout-v2", Path: "/ws/plans/checkout.md", Diff: "--- a/checkout.md\n+++ b/checkout.md\n@@ -1 +1 @@\n-## Story s-1: Pay\n+## Story s-1: Pay as a guest\n",
		Items: []service.PullItem{
			{Reference: "checkout-v2/s-1", Kind: core.KindStory, Title: "Pay", Key: "DEMO-7", Action: service.PullActionPull,
				Changes: []service.PullChange{{Field: "title", Document: "Pay", Tracker: "Pay as a guest", Take: service.TakeTracker}}},
			{Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address", Key: "DEMO-8", Action: service.PullActionUnchanged},
		},
		Counts: service.PullCounts{Pull: 1, Unchanged: 1}, Writes: true,
		Planned: service.NewPlanWrites([]service.PlannedWrite{
			{Action: service.WriteFile, Item: "checkout-v2", Text: `/ws/plans/checkout.md (document "checkout-v2") rewritten with what people changed in the tracker`},
			{Action: service.WriteRecord, Item: "s-1", Key: "DEMO-7", Text: `story s-1 "Pay" (DEMO-7): the tracker's title taken into the document, which the item then matches`},
		}),
	}
}

func (f *fakeService) PullPreview(ctx context.Context, in service.PullPreviewInput) (service.PullPreviewResult, error) {
	keep(f, &f.lastPull, in)
	return fakeAnswer(ctx, f, "PullPreview", in, f.pullPreview, samplePullPreview)
}

func (f *fakeService) PullCommit(ctx context.Context, in service.CommitInput) (service.PullCommitResult, error) {
	return fakeCommit(ctx, f, "PullCommit", "run-lc", in, f.pullCommit, service.PullCommitResult{
		ResultType: service.ResultCommitted, RunID: "run-lc", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-3",
		Path: "/ws/plans/checkout.md", FileWritten: true, Settled: []string{"DEMO-7"}, CommittedAt: fixedTime,
	})
}

func (f *fakeService) StoredPull(ctx context.Context, handle string) (service.PreviewInfo, error) {
	f.record("StoredPull")
	if f.storedPull != nil {
		return f.storedPull(ctx, handle)
	}
	if handle == "h-pull" {
		p := samplePullPreview()
		p.Path = f.pullPath
		return service.PreviewInfo{Kind: core.PreviewPull, Pull: &p}, nil
	}
	return service.PreviewInfo{}, core.Errorf(core.CodePreviewNotFound, "No pull preview has the handle %q. Run the pull preview again.", handle).WithRerun("Run the pull preview again").WithRunID("run-pv")
}
