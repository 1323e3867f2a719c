package cmdutil

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

func TestExitCodeCoversEveryCode(t *testing.T) {
	want := map[core.Code]int{
		core.CodeConfigMissing: 2, core.CodeConfigInvalid: 2, core.CodeCredentialsMissing: 2,
		core.CodeReferenceFieldMissing: 2, core.CodeSourceNotFound: 1, core.CodeSourceParseFailed: 1,
		core.CodeValidationFailed: 1, core.CodePreviewNotFound: 1, core.CodePreviewExpired: 1,
		core.CodePreviewStale: 1, core.CodeConfirmationRequired: 1, core.CodeIdempotencyKeyReused: 1,
		core.CodeCommitInterrupted: 1, core.CodeCommitPartial: 4, core.CodeWorkItemNotFound: 1,
		core.CodeJiraUnauthorized: 3, core.CodeJiraPermissionDenied: 3, core.CodeJiraRateLimited: 3,
		core.CodeJiraUnavailable: 3, core.CodeInternal: 70,
	}
	for _, c := range core.Codes() {
		w, ok := want[c]
		if !ok {
			t.Errorf("code %s has no expected exit code in this test: add it to the table", c)
			continue
		}
		if got := ExitCode(c); got != w {
			t.Errorf("ExitCode(%s) = %d, want %d", c, got, w)
		}
	}
	if ExitCode("") != 0 || ExitCode("SOMETHING_NEW") != 70 {
		t.Error("empty code must be 0 and unknown codes 70")
	}
}

// A commit that stopped with items written is exit 4 whatever its code
// (COMMIT_INTERRUPTED with committed outcomes); without writes it stays 1.
func TestExitOfStoppedCommitWithWrites(t *testing.T) {
	e := core.Errorf(core.CodeCommitInterrupted, "stopped").WithDetails(core.Detail{Item: "d/e-1", Outcome: core.OutcomeCommitted})
	if _, code := ErrorOf(e, "run_x"); code != ExitPartial {
		t.Errorf("interrupted with writes: exit %d, want %d", code, ExitPartial)
	}
	e = core.Errorf(core.CodeCommitInterrupted, "stopped").WithDetails(core.Detail{Item: "d/e-1", Outcome: core.OutcomeUntried})
	if _, code := ErrorOf(e, "run_x"); code != ExitRefused {
		t.Errorf("interrupted without writes: exit %d, want %d", code, ExitRefused)
	}
	if ExitInterrupted != 130 {
		t.Errorf("ExitInterrupted = %d", ExitInterrupted)
	}
}
