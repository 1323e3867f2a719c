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
