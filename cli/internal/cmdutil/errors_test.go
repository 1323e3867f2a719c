package cmdutil

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
)

func TestPrintErrorHuman(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	e := core.Errorf(core.CodeValidationFailed, "The document has 2 problems.").WithDetails(
		core.Detail{Item: "s-3", Field: "epic", Line: 12, Message: "Story s-3 references epic e-9, which is not defined in this document"},
		core.Detail{Outcome: "failed", Key: "DEMO-4", Item: "doc/s-4", Code: core.CodeJiraUnavailable, Message: "Jira did not answer"},
	)
	got, code := ErrorOf(e, "run_test")
	if code != 1 || got.RunID != "run_test" {
		t.Fatalf("ErrorOf = %v, %d", got, code)
	}
	PrintError(ios, errOut, got, false)
	want := "Error: VALIDATION_FAILED: The document has 2 problems.\n" +
		"  - s-3 (epic) line 12: Story s-3 references epic e-9, which is not defined in this document\n" +
		"  - failed DEMO-4 doc/s-4: JIRA_UNAVAILABLE: Jira did not answer\n" +
		"  run_id: run_test\n"
	if errOut.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", errOut, want)
	}
}

func TestPrintErrorJSONAndUncoded(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	got, code := ErrorOf(errors.New("raw driver text with secret-ish detail"), "run_x")
	if code != 70 || got.Code != core.CodeInternal {
		t.Fatalf("uncoded error → %v %d", got, code)
	}
	PrintError(ios, errOut, got, true)
	if strings.Contains(errOut.String(), "raw driver text") {
		t.Fatal("cause leaked into output")
	}
	var m map[string]any
	if err := json.Unmarshal(errOut.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["code"] != "INTERNAL_ERROR" || m["run_id"] != "run_x" || m["details"] == nil {
		t.Fatalf("payload = %v", m)
	}
}

// A detail that only repeats the message is not printed again;
// JSON keeps it; a usage error has no run id.
func TestPrintErrorSaysEachThingOnce(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	msg := "--limit 500 is out of range. Use 1 to 100."
	e := core.Errorf(core.CodeValidationFailed, "%s", msg).WithDetails(core.Detail{Field: "--limit", Message: msg})
	got, code := ErrorOf(&UsageError{Err: e}, "run_x")
	if code != ExitRefused || got.RunID != "" {
		t.Fatalf("usage error → %+v exit %d", got, code)
	}
	PrintError(ios, errOut, got, false)
	if want := "Error: VALIDATION_FAILED: " + msg + "\n"; errOut.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", errOut.String(), want)
	}
	errOut.Reset()
	PrintError(ios, errOut, got, true)
	if !strings.Contains(errOut.String(), `"field":"--limit"`) {
		t.Fatalf("JSON lost the detail: %s", errOut)
	}
}

// TestWithNextStep: core's gate errors name no command; the CLI says the
// dwire command that makes a new preview in place of core's advice (once),
// and leaves other errors alone.
func TestWithNextStep(t *testing.T) {
	stale := core.Errorf(core.CodePreviewStale, "The tracker changed. Nothing was written. Run the import preview again to get a current plan.").
		WithRerun("Run the import preview again to get a current plan")
	for _, c := range []struct {
		cmd  string
		args []string
		code core.Code
		want string // "" = unchanged
	}{
		{"import", []string{"plan.md"}, core.CodePreviewStale, "Next: run `dwire import plan.md` again for a new preview."},
		{"import", nil, core.CodeCommitPartial, "Next: run `dwire import <document>` again for a new preview."},
		{"progress", []string{"DEMO-1"}, core.CodePreviewExpired, "Next: run the same `dwire progress` command again for a new preview."},
		{"review", []string{"imp_x"}, core.CodePreviewNotFound, "Next: get a new preview (`dwire import <document>`, `dwire progress <key|reference>`"},
		{"review", []string{"imp_x"}, core.CodeCommitInterrupted, "Next: get a new preview"},
		{"import", []string{"plan.md"}, core.CodeValidationFailed, ""},
		{"ls", nil, core.CodePreviewStale, ""},
	} {
		in := *stale
		in.Code = c.code
		got := WithNextStep(&in, c.cmd, c.args)
		if c.want == "" {
			if got.Message != in.Message {
				t.Errorf("%s %s: message changed to %q", c.cmd, c.code, got.Message)
			}
			continue
		}
		if !strings.HasPrefix(got.Message, "The tracker changed. Nothing was written. "+c.want) || strings.Contains(got.Message, "Run the import preview again") {
			t.Errorf("%s %s: message %q; want core's message with %q in place of its advice", c.cmd, c.code, got.Message, c.want)
		}
		if in.Message != stale.Message {
			t.Errorf("%s %s: the input error was changed", c.cmd, c.code)
		}
	}
}

// A detail of a directory import names its file before the line; a
// message that does not name the file does not swallow the detail.
func TestDetailLineNamesTheFile(t *testing.T) {
	d := core.Detail{File: "plans/team/app.md", Item: "app/s-2", Field: "epic", Line: 11, Message: "Story s-2 references epic nowhere/e-7"}
	if got, want := DetailLine(d), "app/s-2 (epic) plans/team/app.md line 11: Story s-2 references epic nowhere/e-7"; got != want {
		t.Errorf("DetailLine = %q; want %q", got, want)
	}
	if saidIn("Story s-2 references epic nowhere/e-7 (app/s-2, line 11)", d) {
		t.Error("a message that does not name the file says the detail")
	}
}
