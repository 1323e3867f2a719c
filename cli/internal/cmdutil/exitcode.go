// Package cmdutil holds what every dwire command shares: the Factory that
// wires dependencies, the Service the commands call, the one table from
// error codes to exit codes, and the rendering of errors on stderr.
package cmdutil

import "github.com/devworkwire/devworkwire/core"

// Exit codes of dwire (the seed's "Exit Codes" table, DESIGN.md §7). This
// is the only place that maps errors to them.
const (
	ExitOK       = 0  // success, or the user declined at the prompt (zero writes)
	ExitRefused  = 1  // nothing written: validation or a gate refusal
	ExitConfig   = 2  // configuration or credentials
	ExitTracker  = 3  // tracker error (auth, permission, rate limit, unavailable)
	ExitPartial  = 4  // partial commit: some items were written
	ExitInternal = 70 // internal error
	// ExitInterrupted: the person interrupted a read or a wait (Ctrl-C,
	// SIGTERM); nothing was written. (Ctrl-C at the confirm prompt is a
	// "no": exit 0.)
	ExitInterrupted = 130
)

// ExitCode maps an error code to the process exit code.
func ExitCode(c core.Code) int {
	switch c {
	case "":
		return ExitOK
	case core.CodeConfigMissing, core.CodeConfigInvalid, core.CodeCredentialsMissing,
		core.CodeReferenceFieldMissing:
		return ExitConfig
	case core.CodeSourceNotFound, core.CodeSourceParseFailed, core.CodeValidationFailed,
		core.CodePreviewNotFound, core.CodePreviewExpired, core.CodePreviewStale,
		core.CodeConfirmationRequired, core.CodeIdempotencyKeyReused,
		core.CodeCommitInterrupted, core.CodeWorkItemNotFound:
		return ExitRefused
	case core.CodeJiraUnauthorized, core.CodeJiraPermissionDenied,
		core.CodeJiraRateLimited, core.CodeJiraUnavailable:
		return ExitTracker
	case core.CodeCommitPartial:
		return ExitPartial
	default:
		return ExitInternal
	}
}

// exitOf is ExitCode for one error, with one refinement: a commit that
// stopped and whose details show items written (COMMIT_INTERRUPTED with
// committed outcomes) is a partial commit, exit 4, since "some of your items
// are now in Jira" must be told apart from "nothing happened".
func exitOf(e *core.Error) int {
	if e.Code == core.CodeCommitInterrupted {
		for _, d := range e.Details {
			if d.Outcome == core.OutcomeCommitted {
				return ExitPartial
			}
		}
	}
	return ExitCode(e.Code)
}
