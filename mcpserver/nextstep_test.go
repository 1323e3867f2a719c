package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// TestCommitRefusalsNameTheToolToCall: core's gate errors name no tool
// ("run the import preview again"); the server says the tool to call
// instead (once: in place of that advice), on both commit tools, and
// leaves other errors and tools alone.
func TestCommitRefusalsNameTheToolToCall(t *testing.T) {
	const rerun = "Run the import preview again to get a current plan"
	const msg = "The tracker changed. Nothing was written. " + rerun + "."
	for _, c := range []struct {
		code core.Code
		want bool
	}{
		{core.CodePreviewStale, true}, {core.CodePreviewExpired, true}, {core.CodePreviewNotFound, true},
		{core.CodeCommitInterrupted, true}, {core.CodeCommitPartial, true},
		{core.CodeIdempotencyKeyReused, false}, {core.CodeJiraUnavailable, false},
	} {
		svc := &fakeService{
			importCommit: func(context.Context, service.CommitInput) (service.ImportCommitResult, error) {
				return service.ImportCommitResult{}, core.Errorf(c.code, msg).WithRerun(rerun).WithRunID("r1")
			},
			progressCommit: func(context.Context, service.CommitInput) (service.ProgressCommitResult, error) {
				return service.ProgressCommitResult{}, core.Errorf(c.code, msg).WithRerun(rerun).WithRunID("r2")
			},
			get: func(context.Context, service.GetInput) (service.GetResult, error) {
				return service.GetResult{}, core.Errorf(c.code, msg).WithRerun(rerun).WithRunID("r3")
			},
		}
		cn := connect(t, svc, Options{Elicitation: ElicitationOff}, nil, "")
		for tool, next := range map[string]string{ToolImportCommit: "import_preview", ToolProgressCommit: "progress_preview", ToolWorkItemGet: ""} {
			args := map[string]any{"preview_handle": "h", "confirmed": true}
			if tool == ToolWorkItemGet {
				args = map[string]any{"item": "DEMO-1"}
			}
			_, err := cn.call(t, tool, args)
			data := wantCode(t, err, c.code)
			got, _ := data["message"].(string)
			want := msg
			if c.want && next != "" {
				want = "The tracker changed. Nothing was written. Next: call " + next + " again, show the new plan to the person, and commit its preview_handle once they agree."
			}
			if got != want {
				t.Errorf("%s %s: message %q; want %q", tool, c.code, got, want)
			}
			if strings.Count(got, "Next:") > 1 {
				t.Errorf("%s %s: next step added twice: %q", tool, c.code, got)
			}
		}
	}
}
