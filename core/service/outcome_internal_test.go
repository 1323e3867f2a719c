package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// The rule that decides whether a failed write may have been applied goes
// by the provider's explicit mark (MarkOutcomeUnknown) only: an error that
// merely looks like a network failure or an outage, unmarked, is a failure
// with nothing written (the provider knows whether it sent the request; a
// JIRA_UNAVAILABLE before sending, say, wrote nothing). The rule fails this
// test if it goes back to guessing from the error's shape.
func TestWriteMayHaveApplied(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cases := []struct {
		name string
		err  error
		sent bool
		want bool
	}{
		{"no error", nil, true, false},
		// Marked by the provider: unknown, whatever the code.
		{"marked JIRA_UNAVAILABLE (5xx, dropped connection)", core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "Jira did not answer")), true, true},
		{"marked INTERNAL_ERROR", core.MarkOutcomeUnknown(core.Errorf(core.CodeInternal, "cut off")), true, true},
		{"marked, wrapped again", fmt.Errorf("update: %w", core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "x"))), true, true},
		{"marked raw error", core.MarkOutcomeUnknown(reset), true, true},
		// Marked but never sent (cancelled before the request): not unknown.
		{"marked, not sent", core.MarkOutcomeUnknown(core.Errorf(core.CodeJiraUnavailable, "x")), false, false},
		// Unmarked: no guessing from the code or the cause.
		{"unmarked JIRA_UNAVAILABLE", core.Errorf(core.CodeJiraUnavailable, "Jira did not answer"), true, false},
		{"unmarked JIRA_UNAVAILABLE wrapping a reset", core.Wrap(reset, core.CodeJiraUnavailable, "reset"), true, false},
		{"unmarked INTERNAL_ERROR caused by a reset", core.Wrap(reset, core.CodeInternal, "oops"), true, false},
		{"unmarked INTERNAL_ERROR caused by a deadline", core.Wrap(context.DeadlineExceeded, core.CodeInternal, "late"), true, false},
		{"unmarked raw network error", reset, true, false},
		{"unmarked raw cut-off response", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true, false},
		{"unmarked raw deadline", context.DeadlineExceeded, true, false},
		{"JIRA_RATE_LIMITED (429: Jira did nothing)", core.Errorf(core.CodeJiraRateLimited, "slow down"), true, false},
		{"JIRA_PERMISSION_DENIED (403)", core.Errorf(core.CodeJiraPermissionDenied, "no"), true, false},
		{"VALIDATION_FAILED (400)", core.Errorf(core.CodeValidationFailed, "bad field"), true, false},
		{"WORK_ITEM_NOT_FOUND (404)", core.Errorf(core.CodeWorkItemNotFound, "gone"), true, false},
		{"raw other error", errors.New("something else"), true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := writeMayHaveApplied(c.err, c.sent); got != c.want {
				t.Errorf("writeMayHaveApplied(%v, sent=%v) = %v, want %v", c.err, c.sent, got, c.want)
			}
		})
	}
}
