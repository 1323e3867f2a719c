package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// committer commits a confirmed preview and prints the result: what
// `dwire import`, `dwire progress` and `dwire review` share after the
// person said yes.
type committer struct {
	IO   *iostreams.IOStreams
	JSON bool
	Svc  cmdutil.Service
	// Key is the idempotency key to commit under: empty for a new one
	// (a confirmed commit); a finished commit's own to replay its result.
	Key string
}

// key returns the idempotency key of the commit: a new one for each
// confirmed commit (the CLI uses the same idempotency mechanism as
// agents), or Key.
func (c committer) key() string {
	if c.Key != "" {
		return c.Key
	}
	return service.NewIdempotencyKey()
}

// importCommit commits the import preview handle, bound to digest: the
// plan_digest of the preview that was shown to the person who said yes.
// If the stored plan no longer has it (someone rewrote it while the
// prompt waited), the commit refuses with PREVIEW_STALE and writes nothing.
func (c committer) importCommit(ctx context.Context, handle, digest string) error {
	ios := c.IO
	bar, done := progressFn(ios, "Committing")
	cctx, progress, release := betweenItems(ctx, ios, bar)
	defer release()
	r, err := c.Svc.ImportCommit(cctx, service.CommitInput{
		PreviewHandle:  handle,
		Confirmed:      true,
		IdempotencyKey: c.key(),
		PlanDigest:     digest,
		Progress:       progress,
		Waiting:        waitNotice(ios),
	})
	if err != nil {
		done(committedIn(err))
		return err
	}
	done(-1)
	warn(ios, r.Warnings) // what the store could not record of it
	if c.JSON {
		return printJSON(ios.Out, mcpserver.WholeCommit(r)) // import_commit's shape
	}
	render.ImportCommit(ios.Out, r, viewOpts(ios, false))
	return nil
}

// pullCommit commits the pull preview handle, bound to digest (see
// importCommit); path is the document as the person is shown it.
func (c committer) pullCommit(ctx context.Context, handle, digest, path string) error {
	r, err := c.Svc.PullCommit(ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: c.key(), PlanDigest: digest, Waiting: waitNotice(c.IO)})
	if err != nil {
		return err
	}
	r.Path = path
	warn(c.IO, r.Warnings)
	if c.JSON {
		return printJSON(c.IO.Out, r)
	}
	render.PullCommit(c.IO.Out, r, viewOpts(c.IO, false))
	return nil
}

// progressCommit commits the progress preview handle, bound to digest (see
// importCommit).
func (c committer) progressCommit(ctx context.Context, handle, digest string) error {
	ios := c.IO
	cctx, progress, release := betweenItems(ctx, ios, nil)
	defer release()
	r, err := c.Svc.ProgressCommit(cctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: c.key(), PlanDigest: digest, Progress: progress, Waiting: waitNotice(ios)})
	if err != nil {
		return err
	}
	warn(ios, r.Warnings)
	if c.JSON {
		return printJSON(ios.Out, r)
	}
	render.ProgressCommit(ios.Out, r, viewOpts(ios, false))
	return nil
}

// waitNotice tells the person on stderr what a commit waits for, so a
// wait for another commit of the same document is not silence.
func waitNotice(ios *iostreams.IOStreams) func(service.CommitWait) {
	return func(w service.CommitWait) {
		fmt.Fprintln(ios.ErrOut, render.Wrap(w.String(), ios.Width(), ""))
	}
}

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
// when it is a terminal (nil otherwise) and a function ending the bar:
// end(-1) after a commit that finished, end(n) after one that stopped with
// n items written (the bar is redrawn there: the items of a failed request
// were counted as they were reported). While the bar is drawn, log lines
// (-v) clear its line first.
func progressFn(ios *iostreams.IOStreams, label string) (update func(done, total int), end func(stoppedAt int)) {
	if !ios.IsStderrTTY() {
		return nil, func(int) {}
	}
	bar := render.NewBar(ios.ErrOut, ios.Width(), label)
	unset := ios.SetStatusLine(bar.Around)
	return bar.Update, func(stoppedAt int) {
		unset()
		if stoppedAt >= 0 {
			bar.Stop(stoppedAt)
			return
		}
		bar.Done()
	}
}

// committedIn counts the items an error's details report as written.
func committedIn(err error) int {
	n := 0
	for _, d := range core.AsError(err).Details {
		if d.Outcome == core.OutcomeCommitted {
			n++
		}
	}
	return n
}
