package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// The rule that decides whether a failed write may have been applied.
func TestWriteMayHaveApplied(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"JIRA_UNAVAILABLE (5xx, dropped connection, after retries)", Errorf(CodeJiraUnavailable, "Jira did not answer"), true},
		{"JIRA_UNAVAILABLE flagged not retryable", &Error{Code: CodeJiraUnavailable, Message: "gave up"}, true},
		{"JIRA_UNAVAILABLE wrapping a reset", Wrap(reset, CodeJiraUnavailable, "reset"), true},
		{"JIRA_RATE_LIMITED (429: Jira did nothing)", Errorf(CodeJiraRateLimited, "slow down"), false},
		{"JIRA_PERMISSION_DENIED (403)", Errorf(CodeJiraPermissionDenied, "no"), false},
		{"JIRA_UNAUTHORIZED (401)", Errorf(CodeJiraUnauthorized, "no"), false},
		{"VALIDATION_FAILED (400)", Errorf(CodeValidationFailed, "bad field"), false},
		{"WORK_ITEM_NOT_FOUND (404)", Errorf(CodeWorkItemNotFound, "gone"), false},
		{"INTERNAL_ERROR, no cause", Errorf(CodeInternal, "bug"), false},
		{"INTERNAL_ERROR caused by a reset", Wrap(reset, CodeInternal, "oops"), true},
		{"INTERNAL_ERROR caused by a deadline", Wrap(context.DeadlineExceeded, CodeInternal, "late"), true},
		{"raw network error", reset, true},
		{"raw cut-off response", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true},
		{"raw deadline", context.DeadlineExceeded, true},
		{"raw other error", errors.New("something else"), false},
		{"wrapped *Error", fmt.Errorf("update: %w", Errorf(CodeJiraUnavailable, "x")), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := writeMayHaveApplied(c.err); got != c.want {
				t.Errorf("writeMayHaveApplied(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
