package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"strings"
)

// Code is a stable, machine-readable error code. Agents branch on it;
// changing what a code means is a major-version change.
type Code string

// The canonical error codes of the interface contract, plus PREVIEW_STALE.
const (
	CodeConfigMissing         Code = "CONFIG_MISSING"
	CodeConfigInvalid         Code = "CONFIG_INVALID"
	CodeCredentialsMissing    Code = "CREDENTIALS_MISSING"
	CodeReferenceFieldMissing Code = "REFERENCE_FIELD_MISSING"
	CodeSourceNotFound        Code = "SOURCE_NOT_FOUND"
	CodeSourceParseFailed     Code = "SOURCE_PARSE_FAILED"
	CodeValidationFailed      Code = "VALIDATION_FAILED"
	CodePreviewNotFound       Code = "PREVIEW_NOT_FOUND"
	CodePreviewExpired        Code = "PREVIEW_EXPIRED"
	CodePreviewStale          Code = "PREVIEW_STALE"
	CodeConfirmationRequired  Code = "CONFIRMATION_REQUIRED"
	CodeIdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"
	CodeCommitInterrupted     Code = "COMMIT_INTERRUPTED"
	CodeCommitPartial         Code = "COMMIT_PARTIAL"
	CodeWorkItemNotFound      Code = "WORK_ITEM_NOT_FOUND"
	CodeJiraUnauthorized      Code = "JIRA_UNAUTHORIZED"
	CodeJiraPermissionDenied  Code = "JIRA_PERMISSION_DENIED"
	CodeJiraRateLimited       Code = "JIRA_RATE_LIMITED"
	CodeJiraUnavailable       Code = "JIRA_UNAVAILABLE"
	CodeInternal              Code = "INTERNAL_ERROR"
)

// retryable records, per code, whether re-attempting the identical call
// could succeed (the seed's "Canonical Error Codes" table).
var retryable = map[Code]bool{
	CodeConfigMissing:         false,
	CodeConfigInvalid:         false,
	CodeCredentialsMissing:    false,
	CodeReferenceFieldMissing: false,
	CodeSourceNotFound:        false,
	CodeSourceParseFailed:     false,
	CodeValidationFailed:      false,
	CodePreviewNotFound:       false,
	CodePreviewExpired:        false,
	CodePreviewStale:          false,
	CodeConfirmationRequired:  false,
	CodeIdempotencyKeyReused:  false,
	CodeCommitInterrupted:     false,
	CodeCommitPartial:         true,
	CodeWorkItemNotFound:      false,
	CodeJiraUnauthorized:      false,
	CodeJiraPermissionDenied:  false,
	CodeJiraRateLimited:       true,
	CodeJiraUnavailable:       true,
	CodeInternal:              false,
}

// Codes returns every stable error code, in the order of the contract table.
func Codes() []Code {
	return []Code{
		CodeConfigMissing, CodeConfigInvalid, CodeCredentialsMissing,
		CodeReferenceFieldMissing, CodeSourceNotFound, CodeSourceParseFailed,
		CodeValidationFailed, CodePreviewNotFound, CodePreviewExpired,
		CodePreviewStale, CodeConfirmationRequired, CodeIdempotencyKeyReused,
		CodeCommitInterrupted, CodeCommitPartial, CodeWorkItemNotFound,
		CodeJiraUnauthorized, CodeJiraPermissionDenied, CodeJiraRateLimited,
		CodeJiraUnavailable, CodeInternal,
	}
}

// Retryable reports whether the identical call could succeed if repeated.
func (c Code) Retryable() bool { return retryable[c] }

// Known reports whether c is one of the stable codes.
func (c Code) Known() bool { _, ok := retryable[c]; return ok }

// Outcome of one item in a commit, used in COMMIT_PARTIAL details.
const (
	OutcomeCommitted = "committed"
	OutcomeFailed    = "failed"
	OutcomeUntried   = "untried"
	OutcomeUnknown   = "unknown" // a create whose result could not be established
)

// Detail is one structured entry of an error's details: one validation
// problem, or one item's outcome in a partial commit. Absent fields are
// omitted from JSON.
type Detail struct {
	Item    string `json:"item,omitempty"`    // item id or reference
	File    string `json:"file,omitempty"`    // the planning document's file, when several were read (a directory)
	Field   string `json:"field,omitempty"`   // document or config field
	Line    int    `json:"line,omitempty"`    // 1-based source line
	Key     string `json:"key,omitempty"`     // Jira key when known
	Outcome string `json:"outcome,omitempty"` // committed | failed | untried | unknown
	Code    Code   `json:"code,omitempty"`    // the code of an item-level failure
	Message string `json:"message,omitempty"` // human-readable, actionable
}

// Error is the one error type every layer returns. Its JSON form is the
// contract's error payload: {code, message, details, retryable, run_id}.
type Error struct {
	Code      Code
	Message   string
	Details   []Detail
	Retryable bool
	RunID     string
	// Rerun is the part of Message that asks for a new preview in no
	// front door's words ("Run the import preview again to get a current
	// plan"), or "" when Message gives no such advice. A front door says
	// its own next step in its place (WithNextStep), so that the advice is
	// given once. It is kept with a stored run's result (MarshalStored)
	// and is not part of the contract's payload.
	Rerun string
	// Err is an underlying cause, kept for errors.Is/As and logs. It is
	// never serialised and must never carry secrets.
	Err error
}

// Errorf returns an *Error with the code's default retryable flag.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: code.Retryable()}
}

// Wrap returns an *Error with code and message that keeps cause for
// errors.Is/As. The cause's text is not part of the message.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Err = cause
	return e
}

// Error implements error: "CODE: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// WithDetails returns e with details appended.
func (e *Error) WithDetails(d ...Detail) *Error { e.Details = append(e.Details, d...); return e }

// WithRerun returns e with words, the part of its message that asks for
// a new preview in no front door's words, marked as Rerun. Words the
// message does not hold are not marked.
func (e *Error) WithRerun(words string) *Error {
	if words != "" && strings.Contains(e.Message, words) {
		e.Rerun = words
	}
	return e
}

// WithNextStep returns a copy of e whose message says a front door's own
// next step (a sentence beginning "Next:" that names the door's command
// or tool) once: in place of its Rerun advice, which the step would only
// repeat, keeping what follows that advice (": items already written are
// found …"); appended when the message gives no such advice. Inside a
// sentence (the advice begins in lower case) the step is said without its
// "Next:".
func (e *Error) WithNextStep(step string) *Error {
	c := *e
	c.Rerun = ""
	msg := strings.TrimSpace(e.Message)
	i := -1
	if e.Rerun != "" {
		i = strings.Index(msg, e.Rerun)
	}
	if i < 0 {
		c.Message = msg + " " + step
		return &c
	}
	words := strings.TrimSuffix(step, ".")
	if r := e.Rerun[0]; r >= 'a' && r <= 'z' {
		words = strings.TrimPrefix(words, "Next: ")
	}
	c.Message = msg[:i] + words + msg[i+len(e.Rerun):]
	return &c
}

// WithRunID returns e with its run id set.
func (e *Error) WithRunID(id string) *Error { e.RunID = id; return e }

type errorJSON struct {
	Code      Code     `json:"code"`
	Message   string   `json:"message"`
	Details   []Detail `json:"details"`
	Retryable bool     `json:"retryable"`
	RunID     string   `json:"run_id,omitempty"`
	Rerun     string   `json:"rerun,omitempty"` // only in a stored run's result
}

// MarshalJSON renders the contract's error payload; details is always an
// array (never null).
func (e *Error) MarshalJSON() ([]byte, error) {
	d := e.Details
	if d == nil {
		d = []Detail{}
	}
	return json.Marshal(errorJSON{Code: e.Code, Message: e.Message, Details: d, Retryable: e.Retryable, RunID: e.RunID})
}

// MarshalStored renders e as a stored run's result: the contract's
// payload and its Rerun, so that a replay of the run is given the front
// door's next step as the first answer was.
func (e *Error) MarshalStored() ([]byte, error) {
	d := e.Details
	if d == nil {
		d = []Detail{}
	}
	return json.Marshal(errorJSON{Code: e.Code, Message: e.Message, Details: d, Retryable: e.Retryable, RunID: e.RunID, Rerun: e.Rerun})
}

// UnmarshalJSON reads the contract's error payload.
func (e *Error) UnmarshalJSON(b []byte) error {
	var j errorJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Error{Code: j.Code, Message: j.Message, Details: j.Details, Retryable: j.Retryable, RunID: j.RunID, Rerun: j.Rerun}
	return nil
}

// ErrorCode returns the code of err, or INTERNAL_ERROR when err carries
// none. It returns "" for a nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code.Known() {
		return e.Code
	}
	return CodeInternal
}

// AsError returns err as an *Error. An error without a code becomes
// INTERNAL_ERROR with a generic message (the cause is kept in Err for logs
// but not shown, since it may hold raw data from a dependency).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e.Code.Known() {
		return e
	}
	return Wrap(err, CodeInternal, "An unexpected internal error occurred. Re-run with the run id at hand and report it if it persists.")
}

// outcomeUnknown marks the error of a tracker write whose request was sent
// but whose answer never arrived (a dropped connection, a timeout, a 5xx):
// the write may have been applied. Providers say so explicitly; core does
// not guess it from the error's shape.
type outcomeUnknown struct{ err error }

func (u *outcomeUnknown) Error() string { return u.err.Error() }
func (u *outcomeUnknown) Unwrap() error { return u.err }

// MarkOutcomeUnknown marks err as the error of a write that was sent and may
// or may not have been applied. Providers return it from Update,
// Transition and AddComment (creates report Unknown in their outcomes).
// A nil err stays nil.
func MarkOutcomeUnknown(err error) error {
	if err == nil || IsOutcomeUnknown(err) {
		return err
	}
	return &outcomeUnknown{err: err}
}

// IsOutcomeUnknown reports whether err was marked by MarkOutcomeUnknown: the
// write may have taken effect, so its outcome is unknown, not failed.
func IsOutcomeUnknown(err error) bool {
	var u *outcomeUnknown
	return errors.As(err, &u)
}

// SizeProblem returns the Detail an ItemChecker reports for the text field
// of ref (a domain name: "description", "acceptance_criteria") that is
// size characters long as the tracker counts them, when at most limit are
// allowed; every provider words it the same.
func SizeProblem(ref Reference, field string, size, limit int) Detail {
	return Detail{Item: string(ref), Field: field, Message: fmt.Sprintf("the %s of %s is %d characters as the tracker counts them; at most %d are allowed",
		strings.ReplaceAll(field, "_", " "), ref, size, limit)}
}

// SizeOverProblem is SizeProblem for a field the checker stopped counting
// as soon as it was past limit: its exact size is not known, only that it
// is over, and the detail says what to do.
func SizeOverProblem(ref Reference, field string, limit int) Detail {
	return Detail{Item: string(ref), Field: field, Message: fmt.Sprintf("the %s of %s is more than %d characters as the tracker counts them, the most it allows: shorten it or split the item",
		strings.ReplaceAll(field, "_", " "), ref, limit)}
}

// FSReason is the operating system's reason for a file error ("permission
// denied"), without the path: the message around it names the file as its
// reader knows it.
func FSReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
