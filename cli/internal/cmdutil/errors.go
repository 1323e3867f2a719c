package cmdutil

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
)

// NewRunID returns a fresh run id for an invocation whose error did not
// come from the service (configuration, usage, a panic).
func NewRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "run_" + hex.EncodeToString(b[:])
}

// ErrSilent is returned by a command that has already said everything
// (e.g. doctor's report); it maps to the exit code of Code.
type ErrSilent struct{ Code core.Code }

func (e *ErrSilent) Error() string { return "silent: " + string(e.Code) }

// ErrorOf returns err as a *core.Error with a run id, and the exit code.
func ErrorOf(err error, runID string) (*core.Error, int) {
	var s *ErrSilent
	if errors.As(err, &s) {
		return nil, ExitCode(s.Code)
	}
	e := core.AsError(err)
	if e.RunID == "" {
		e.RunID = runID
	}
	return e, ExitCode(e.Code)
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
	cs := io_.ColorScheme(true)
	fmt.Fprintf(w, "%s %s: %s\n", cs.Red("Error:"), e.Code, e.Message)
	for _, d := range e.Details {
		fmt.Fprintf(w, "  - %s\n", DetailLine(d))
	}
	if e.Retryable {
		fmt.Fprintf(w, "  This can succeed if tried again%s.\n", retryHint(e.Code))
	}
	if e.RunID != "" {
		fmt.Fprintf(w, "  run_id: %s\n", e.RunID)
	}
}

func retryHint(c core.Code) string {
	if c == core.CodeCommitPartial {
		return " after a new preview (run the same command again)"
	}
	return " later"
}

// DetailLine renders one detail: outcome, key, item, field, line, message.
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
