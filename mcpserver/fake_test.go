package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// fakeService is a hand-written Service for tests: each method returns
// what its func says (a canned success when nil) and records its calls.
type fakeService struct {
	mu    sync.Mutex
	calls []string

	importPreview   func(context.Context, core.ImportPreviewInput) (core.ImportPreviewResult, error)
	importCommit    func(context.Context, core.CommitInput) (core.ImportCommitResult, error)
	progressPreview func(context.Context, core.ProgressPreviewInput) (core.ProgressPreviewResult, error)
	progressCommit  func(context.Context, core.CommitInput) (core.ProgressCommitResult, error)
	get             func(context.Context, core.GetInput) (core.GetResult, error)
	query           func(context.Context, core.QueryInput) (core.QueryResult, error)
	preview         func(context.Context, string) (core.PreviewInfo, error)
	export          func(context.Context, core.ExportInput) (core.ExportResult, error)
	pullPreview     func(context.Context, core.PullPreviewInput) (core.PullPreviewResult, error)
	pullCommit      func(context.Context, core.CommitInput) (core.PullCommitResult, error)
	storedPull      func(context.Context, string) (core.PreviewInfo, error)
	pullPath        string // the file h-pull's stored plan writes

	lastPull core.PullPreviewInput

	lastExport core.ExportInput
	lastImport core.ImportPreviewInput
	lastCommit core.CommitInput
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

func sampleImportPreview() core.ImportPreviewResult {
	return core.ImportPreviewResult{
		ResultType: core.ResultPreview, RunID: "run-ip", PreviewHandle: "h-import", ExpiresAt: fixedTime.Add(30 * time.Minute),
		Document: "checkout-v2", Scope: "https://fake.example/DEMO",
		Counts: core.Counts{Create: 2, Update: 1, Unchanged: 1, Structure: 1},
		Items: []core.PlanItem{
			{Reference: "checkout-v2/e-1", Kind: core.KindEpic, Title: "Guest checkout", Action: core.ActionCreate},
			{Reference: "checkout-v2/s-1", Kind: core.KindStory, Title: "Pay without an account", Action: core.ActionCreate, Parent: "checkout-v2/e-1"},
			{Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address", Action: core.ActionUpdate, Key: "DEMO-7", ChangedFields: []string{"title"}},
			{Reference: "checkout-v2/s-3", Kind: core.KindStory, Title: "Receipts", Action: core.ActionUnchanged, Key: "DEMO-8"},
		},
		Writes: core.NewPlanWrites([]core.PlannedWrite{
			{Action: core.ActionCreate, Item: "e-1", Text: `epic e-1 "Guest checkout"`},
			{Action: core.ActionCreate, Item: "s-1", Text: `story s-1 "Pay without an account" under epic e-1`},
			{Action: core.ActionUpdate, Item: "s-2", Key: "DEMO-7", Text: `story s-2 "Save address" (DEMO-7): title`},
			{Action: core.ActionLink, Item: "s-1", Text: "s-1 depends on s-2 (DEMO-7): s-1 is blocked by s-2"},
		}),
	}
}

func sampleProgressPreview() core.ProgressPreviewResult {
	return core.ProgressPreviewResult{
		ResultType: core.ResultPreview, RunID: "run-pp", PreviewHandle: "h-progress", ExpiresAt: fixedTime.Add(30 * time.Minute),
		Item:          core.ItemRef{Key: "DEMO-7", Reference: "checkout-v2/s-2", Title: "Save address", URL: "https://fake.example/browse/DEMO-7"},
		CurrentStatus: core.StatusTodo, TargetStatus: core.StatusInProgress, Transition: "Start", Comment: "Started work",
	}
}

func sampleView() core.ItemView {
	return core.ItemView{
		Key: "DEMO-7", Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address",
		AcceptanceCriteria: []string{"Address is saved"}, Epic: &core.ItemRef{Key: "DEMO-1", Title: "Guest checkout"},
		Status: core.StatusTodo, StatusName: "To Do", URL: "https://fake.example/browse/DEMO-7", Updated: fixedTime,
	}
}

func (f *fakeService) ImportPreview(ctx context.Context, in core.ImportPreviewInput) (core.ImportPreviewResult, error) {
	f.mu.Lock()
	f.lastImport = in
	f.mu.Unlock()
	return fakeAnswer(ctx, f, "ImportPreview", in, f.importPreview, sampleImportPreview)
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

func (f *fakeService) ImportCommit(ctx context.Context, in core.CommitInput) (core.ImportCommitResult, error) {
	return fakeCommit(ctx, f, "ImportCommit", "run-ic", in, f.importCommit, core.ImportCommitResult{
		ResultType: core.ResultCommitted, RunID: "run-ic", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-1",
		Counts: core.CommitCounts{Created: 2, Updated: 1, Unchanged: 1},
		Items: []core.CommittedItem{
			{Reference: "checkout-v2/e-1", Kind: core.KindEpic, Title: "Guest checkout", Action: core.ActionCreate, Key: "DEMO-1", URL: "https://fake.example/browse/DEMO-1", Outcome: "committed"},
		},
		CommittedAt: fixedTime,
	})
}

// fakeCommit is what both commits of the fake do: record the call and its
// input, run the test's hook when it set one, else refuse without
// confirmed (like the service) or return committed.
func fakeCommit[R any](ctx context.Context, f *fakeService, name, runID string, in core.CommitInput, hook func(context.Context, core.CommitInput) (R, error), committed R) (R, error) {
	f.record(name)
	f.mu.Lock()
	f.lastCommit = in
	f.mu.Unlock()
	if hook != nil {
		return hook(ctx, in)
	}
	if !in.Confirmed {
		var zero R
		return zero, core.Errorf(core.CodeConfirmationRequired, "confirmed must be true").WithRunID(runID)
	}
	return committed, nil
}

func (f *fakeService) ProgressPreview(ctx context.Context, in core.ProgressPreviewInput) (core.ProgressPreviewResult, error) {
	return fakeAnswer(ctx, f, "ProgressPreview", in, f.progressPreview, sampleProgressPreview)
}

func (f *fakeService) ProgressCommit(ctx context.Context, in core.CommitInput) (core.ProgressCommitResult, error) {
	return fakeCommit(ctx, f, "ProgressCommit", "run-pc", in, f.progressCommit, core.ProgressCommitResult{
		ResultType: core.ResultCommitted, RunID: "run-pc", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-2",
		Item: sampleProgressPreview().Item, Status: core.StatusInProgress, Transitioned: true, CommentAdded: true, CommittedAt: fixedTime,
	})
}

func (f *fakeService) Get(ctx context.Context, in core.GetInput) (core.GetResult, error) {
	return fakeAnswer(ctx, f, "Get", in, f.get, func() core.GetResult {
		return core.GetResult{ResultType: core.ResultPreview, RunID: "run-g", Item: sampleView()}
	})
}

func (f *fakeService) Query(ctx context.Context, in core.QueryInput) (core.QueryResult, error) {
	return fakeAnswer(ctx, f, "Query", in, f.query, func() core.QueryResult {
		return core.QueryResult{ResultType: core.ResultPreview, RunID: "run-q", Items: []core.ItemView{sampleView()}, Returned: 1}
	})
}

func (f *fakeService) StoredPreview(ctx context.Context, handle string) (core.PreviewInfo, error) {
	f.record("Preview")
	if f.preview != nil {
		return f.preview(ctx, handle)
	}
	switch handle {
	case "h-import":
		p := sampleImportPreview()
		return core.PreviewInfo{Kind: core.PreviewImport, Import: &p}, nil
	case "h-progress":
		p := sampleProgressPreview()
		return core.PreviewInfo{Kind: core.PreviewProgress, Progress: &p}, nil
	}
	return core.PreviewInfo{}, core.Errorf(core.CodePreviewNotFound, "No preview has the handle %q. Run the preview again.", handle).WithRunID("run-pv")
}

func sampleExport() core.ExportResult {
	return core.ExportResult{ResultType: core.ResultPreview, RunID: "run-ex", Document: "demo-1", Format: "markdown",
		Text: "# Guest checkout\n", Epics: 1, Stories: 2, Adopt: 3}
}

func (f *fakeService) Export(ctx context.Context, in core.ExportInput) (core.ExportResult, error) {
	f.mu.Lock()
	f.lastExport = in
	f.mu.Unlock()
	return fakeAnswer(ctx, f, "Export", in, f.export, sampleExport)
}

func samplePullPreview() core.PullPreviewResult {
	return core.PullPreviewResult{
		ResultType: core.ResultPreview, RunID: "run-lp", PreviewHandle: "h-pull", ExpiresAt: fixedTime.Add(30 * time.Minute), PlanDigest: "sha256:pull",
		Document: "checkout-v2", Path: "/ws/plans/checkout.md", Diff: "--- a/checkout.md\n+++ b/checkout.md\n@@ -1 +1 @@\n-## Story s-1: Pay\n+## Story s-1: Pay as a guest\n",
		Items: []core.PullItem{
			{Reference: "checkout-v2/s-1", Kind: core.KindStory, Title: "Pay", Key: "DEMO-7", Action: core.PullActionPull,
				Changes: []core.PullChange{{Field: "title", Document: "Pay", Tracker: "Pay as a guest", Take: core.TakeTracker}}},
			{Reference: "checkout-v2/s-2", Kind: core.KindStory, Title: "Save address", Key: "DEMO-8", Action: core.PullActionUnchanged},
		},
		Counts: core.PullCounts{Pull: 1, Unchanged: 1}, Writes: true,
		Planned: core.NewPlanWrites([]core.PlannedWrite{
			{Action: core.WriteFile, Item: "checkout-v2", Text: `/ws/plans/checkout.md (document "checkout-v2") rewritten with what people changed in the tracker`},
			{Action: core.WriteRecord, Item: "s-1", Key: "DEMO-7", Text: `story s-1 "Pay" (DEMO-7): the tracker's title taken into the document, which the item then matches`},
		}),
	}
}

func (f *fakeService) PullPreview(ctx context.Context, in core.PullPreviewInput) (core.PullPreviewResult, error) {
	f.mu.Lock()
	f.lastPull = in
	f.mu.Unlock()
	return fakeAnswer(ctx, f, "PullPreview", in, f.pullPreview, samplePullPreview)
}

func (f *fakeService) PullCommit(ctx context.Context, in core.CommitInput) (core.PullCommitResult, error) {
	return fakeCommit(ctx, f, "PullCommit", "run-lc", in, f.pullCommit, core.PullCommitResult{
		ResultType: core.ResultCommitted, RunID: "run-lc", PreviewHandle: in.PreviewHandle, IdempotencyKey: "k-3",
		Path: "/ws/plans/checkout.md", FileWritten: true, Settled: []string{"DEMO-7"}, CommittedAt: fixedTime,
	})
}

func (f *fakeService) StoredPull(ctx context.Context, handle string) (core.PreviewInfo, error) {
	f.record("StoredPull")
	if f.storedPull != nil {
		return f.storedPull(ctx, handle)
	}
	if handle == "h-pull" {
		p := samplePullPreview()
		p.Path = f.pullPath
		return core.PreviewInfo{Kind: core.PreviewPull, Pull: &p}, nil
	}
	return core.PreviewInfo{}, core.Errorf(core.CodePreviewNotFound, "No pull preview has the handle %q. Run the pull preview again.", handle).WithRunID("run-pv")
}
