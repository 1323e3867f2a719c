package cmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/prompt"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
)

// printJSON writes v as indented JSON on w.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// newIdempotencyKey returns the key of one confirmed commit: the CLI uses
// the same idempotency mechanism as agents.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "idk_cli_" + hex.EncodeToString(b[:])
}

// confirmRequired is the refusal when nobody can be asked.
func confirmRequired(runID, handle, what string) error {
	return core.Errorf(core.CodeConfirmationRequired,
		"%s needs your confirmation, but this is not an interactive terminal, so nobody can be asked. Nothing was written. Run the command in a terminal, or review the preview there with `dwire review %s` before it expires. There is no flag that skips this.",
		what, handle).WithRunID(runID)
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

// betweenItems makes an interrupt (Ctrl-C) during a commit stop it between
// items instead of cutting a request to Jira in half, which would leave
// that item's outcome unknown. It returns the context for the commit, the
// progress callback to pass (wrapping bar, which may be nil) and a release
// function. After the first interrupt a second one ends the process at
// once (the run is then reported as COMMIT_INTERRUPTED on a retry).
func betweenItems(ctx context.Context, ios *iostreams.IOStreams, bar func(done, total int)) (context.Context, func(done, total int), func()) {
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var stopping atomic.Bool
	go func() {
		select {
		case <-ctx.Done():
			stopping.Store(true)
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			fmt.Fprintln(ios.ErrOut, "\nStopping after the write in flight (press Ctrl-C again to quit at once)…")
		case <-cctx.Done():
		}
	}()
	progress := func(done, total int) {
		if bar != nil {
			bar(done, total)
		}
		if stopping.Load() && done < total {
			cancel()
		}
	}
	return cctx, progress, cancel
}

// progressFn returns a commit progress callback drawing a bar on stderr
// when it is a terminal (nil otherwise) and a function ending the bar.
func progressFn(ios *iostreams.IOStreams, label string) (func(done, total int), func()) {
	if !ios.IsStderrTTY() {
		return nil, func() {}
	}
	bar := render.NewBar(ios.ErrOut, ios.Width(), label)
	return bar.Update, bar.Done
}

func warn(ios *iostreams.IOStreams, warnings []string) {
	cs := ios.ColorScheme(true)
	for _, w := range warnings {
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Yellow("Warning:"), w)
	}
}

func opts(ios *iostreams.IOStreams, stderr bool) render.Options {
	return render.Options{Width: ios.Width(), CS: ios.ColorScheme(stderr)}
}
