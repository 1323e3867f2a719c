package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// NewRunID returns a fresh run id for an invocation whose error did not
// come from the service (configuration, usage, a panic); core mints it.
func NewRunID() string { return service.NewRunID() }

// WithNextStep returns e with the CLI's own next step added to its message,
// for the errors of the gate that ask for a new preview: core words them
// for any front door ("run the import preview again"), and this says which
// dwire command does that. command is the dwire command that ran (import,
// progress, review) and args its positional arguments. Other errors are
// returned as they are.
func WithNextStep(e *core.Error, command string, args []string) *core.Error {
	if strings.Contains(e.Message, " Next: ") {
		return e // the command already said what to run next
	}
	if !core.AsksForNewPreview(e.Code) {
		return e
	}
	var step string
	switch command {
	case "import":
		doc := "<document>"
		if len(args) == 1 {
			doc = args[0]
		}
		step = fmt.Sprintf("Next: run `dwire import %s` again for a new preview.", doc)
	case "progress":
		step = "Next: run the same `dwire progress` command again for a new preview."
	case "review":
		step = "Next: get a new preview (`dwire import <document>`, `dwire progress <key|reference>`, or ask whoever made this one) and review or commit that."
	default:
		return e
	}
	return e.WithNextStep(step)
}

// ErrSilent is returned by a command that has already said everything
// (e.g. doctor's report); it maps to the exit code of Code.
type ErrSilent struct{ Code core.Code }

func (e *ErrSilent) Error() string { return "silent: " + string(e.Code) }

// UsageError is a command line dwire could not take (an unknown command
// or flag, a missing argument): VALIDATION_FAILED, exit 1, and no run id,
// since no operation ran.
type UsageError struct{ Err *core.Error }

func (u *UsageError) Error() string { return u.Err.Error() }

// Unwrap returns the *core.Error.
func (u *UsageError) Unwrap() error { return u.Err }

// ErrorOf returns err as a *core.Error with a run id (none for a usage
// error), and the exit code.
func ErrorOf(err error, runID string) (*core.Error, int) {
	var s *ErrSilent
	if errors.As(err, &s) {
		return nil, ExitCode(s.Code)
	}
	var u *UsageError
	if errors.As(err, &u) {
		return u.Err, ExitRefused
	}
	e := core.AsError(err)
	if e.RunID == "" {
		e.RunID = runID
	}
	return e, exitOf(e)
}

// PrintError writes the error on w: `Error: CODE: message`, one line per
// detail, and the run id; with asJSON, the contract's error payload as one
// JSON line instead. It never writes a stack trace or the wrapped cause.
func PrintError(io_ *iostreams.IOStreams, w io.Writer, e *core.Error, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	e = render.Clean(e) // messages quote titles and text from Jira
	cs := io_.ColorScheme(true)
	wrap := stderrWrap(io_)
	head := wrap(fmt.Sprintf("Error: %s: %s", e.Code, e.Message), "  ")
	fmt.Fprintf(w, "%s%s\n", cs.Red("Error:"), strings.TrimPrefix(head, "Error:"))
	for _, d := range e.Details {
		if saidIn(e.Message, d) {
			continue
		}
		fmt.Fprintf(w, "%s\n", wrap("  - "+DetailLine(d), "  ")) // continued under the text, the prefix counted
	}
	if e.Retryable {
		fmt.Fprintf(w, "  This can succeed if tried again%s.\n", retryHint(e))
	}
	if e.RunID != "" {
		fmt.Fprintf(w, "  run_id: %s\n", e.RunID)
	}
}

// PrintUsageError writes a command line dwire could not take as people
// read it: `Error: message` on one line (no code: nothing ran, and the
// message says what to type instead), then any detail the message does not
// already say. With --json, PrintError's payload is written instead.
func PrintUsageError(io_ *iostreams.IOStreams, w io.Writer, e *core.Error) {
	e = render.Clean(e)
	cs := io_.ColorScheme(true)
	wrap := stderrWrap(io_)
	line := wrap("Error: "+e.Message, "  ")
	fmt.Fprintf(w, "%s%s\n", cs.Red("Error:"), strings.TrimPrefix(line, "Error:"))
	for _, d := range e.Details {
		if !saidIn(e.Message, d) {
			fmt.Fprintf(w, "%s\n", wrap("  - "+DetailLine(d), "  "))
		}
	}
}

// stderrWrap wraps a line for stderr: on a terminal at its width between
// words (the terminal would cut it anywhere), continued with indent;
// piped, each stays one line.
func stderrWrap(io_ *iostreams.IOStreams) func(s, indent string) string {
	if !io_.IsStderrTTY() {
		return func(s, _ string) string { return s }
	}
	return func(s, indent string) string { return render.Wrap(s, io_.Width(), indent) }
}

// saidIn reports whether the message already says everything detail d
// says (its text, and its line when it has one), so that printing it again
// as a detail line would only repeat it. In --json the details stay whole.
func saidIn(msg string, d core.Detail) bool {
	if d.Message == "" || d.Key != "" || d.Outcome != "" || d.Code != "" {
		return false
	}
	if !strings.Contains(msg, strings.TrimRight(d.Message, ". ")) {
		return false
	}
	if d.Item != "" && !strings.Contains(msg, d.Item) || d.File != "" && !strings.Contains(msg, d.File) {
		return false
	}
	return d.Line == 0 || strings.Contains(msg, fmt.Sprintf("line %d", d.Line))
}

// retryHint says when a retryable error can succeed; a partial commit's
// "after a new preview", without saying again how (its message's "Next:"
// does).
func retryHint(e *core.Error) string {
	if e.Code != core.CodeCommitPartial {
		return " later"
	}
	if strings.Contains(e.Message, "Next: ") {
		return " after a new preview"
	}
	return " after a new preview (run the same command again)"
}

// DetailLine renders one detail: outcome, key, item, field, file, line,
// message.
func DetailLine(d core.Detail) string {
	var parts []string
	if d.Outcome != "" {
		parts = append(parts, d.Outcome)
	}
	if d.Key != "" {
		parts = append(parts, d.Key)
	}
	if d.Item != "" {
		parts = append(parts, d.Item)
	}
	loc := strings.Join(parts, " ")
	if d.Field != "" {
		if loc != "" {
			loc += " "
		}
		loc += "(" + d.Field + ")"
	}
	if d.File != "" { // a directory's document
		if loc != "" {
			loc += " "
		}
		loc += d.File
	}
	if d.Line > 0 {
		if loc != "" {
			loc += " "
		}
		loc += fmt.Sprintf("line %d", d.Line)
	}
	msg := d.Message
	if d.Code != "" {
		msg = string(d.Code) + ": " + msg
	}
	switch {
	case loc == "":
		return msg
	case msg == "":
		return loc
	default:
		return loc + ": " + msg
	}
}
