package cmd

import (
	"context"
	"fmt"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/prompt"
	"github.com/devworkwire/devworkwire/core"
)

// confirmRequired is the refusal when nobody can be asked. Its details
// carry the handle (field preview_handle), so a script that got only the
// error (with --json, on stderr) can still hand the preview to a person.
func confirmRequired(runID, handle, what string) error {
	return core.Errorf(core.CodeConfirmationRequired,
		"%s needs your confirmation, but this is not an interactive terminal, so nobody can be asked. Nothing was written. Run the command in a terminal, or review the preview there with `dwire review %s` before it expires. There is no flag that skips this.",
		what, handle).WithRunID(runID).WithDetails(core.Detail{Field: "preview_handle", Message: handle})
}

// ask runs the confirm prompt. It returns true only for y/yes; it prints
// the "Skipped:" line itself for every other answer.
func ask(ctx context.Context, ios *iostreams.IOStreams, question string) (bool, error) {
	in, closeIn, ok := ios.PromptIn()
	if !ok {
		return false, errNoPrompt
	}
	defer closeIn()
	switch prompt.Confirm(ctx, in, ios.ErrOut, question) {
	case prompt.Yes:
		return true, nil
	case prompt.Interrupted:
		fmt.Fprintln(ios.ErrOut, "Skipped: interrupted at the prompt; nothing was written.")
	default:
		fmt.Fprintln(ios.ErrOut, "Skipped: not confirmed; nothing was written.")
	}
	return false, nil
}

var errNoPrompt = fmt.Errorf("no terminal to prompt on")

// setAside records that nobody waits on the stored preview of handle any
// more (why: core.AsideDeclined after a no at the prompt, core.AsideDryRun
// for --dry-run), so `dwire review` no longer lists it; the handle still
// shows and commits. Best effort: the answer stands if the store cannot
// record it.
func setAside(ctx context.Context, svc cmdutil.Service, handle, why string) {
	if handle != "" {
		_ = svc.SetPreviewAside(context.WithoutCancel(ctx), handle, why)
	}
}

// confirmed asks question and reports whether to commit. A prompt that
// cannot be asked is confirmRequired(runID, handle, what) (the preview
// still waits for a person); any answer but yes (a nil error) commits
// nothing and, with --json (asJSON), prints shown, the
// preview, as the command's result.
func confirmed(ctx context.Context, ios *iostreams.IOStreams, asJSON bool, question, what, runID, handle string, shown any) (bool, error) {
	ok, err := ask(ctx, ios, question)
	if err != nil {
		return false, confirmRequired(runID, handle, what)
	}
	if !ok && asJSON {
		return false, printJSON(ios.Out, shown)
	}
	return ok, nil
}
