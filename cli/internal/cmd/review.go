package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// ReviewOptions are the dependencies and flags of `dwire review`.
type ReviewOptions struct {
	ServiceOptions

	Handle string
	// Full shows every row of a large import preview (--full).
	Full bool
}

// NewCmdReview parses `dwire review <handle>`.
func NewCmdReview(f *cmdutil.Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	o := &ReviewOptions{ServiceOptions: serviceOptions(f)}
	c := &cobra.Command{
		Use:   "review [preview-handle]",
		Short: "Review a stored preview (e.g. an agent's), confirm and commit it",
		Long: `Show a preview stored under its handle — for example one an agent made
with import_preview on a shared store — ask for confirmation (the answer
defaults to no) and commit exactly that plan. This is the team's review
flow: the person who confirms sees what will be written.

A pull's handle (dwire pull, or an agent's pull_preview) is shown with
the file's diff and, once confirmed, writes the document as dwire pull
does; it is refused if the file changed since the preview.

Without a handle it lists the previews of this project a person is
waiting on, newest first: imports, progress updates and pulls that are
not committed, not expired, not declined at a prompt, not dry runs, not
found stale, not superseded by a newer preview of the same document or
item, and that write something. Before asking, the plan is checked
against Jira: a stale one is refused (PREVIEW_STALE) without asking, and
leaves the list.`,
		Example: "  dwire review\n  dwire review imp_3f9c…\n  dwire review prg_81d0…",
		Args:    cobra.MaximumNArgs(1),
		RunE: runE(o, runF, reviewRun, func(_ *cobra.Command, args []string) {
			o.JSON = f.JSON
			if len(args) == 1 {
				o.Handle = strings.TrimSpace(args[0])
			}
		}),
	}
	c.Flags().BoolVar(&o.Full, "full", false, "show every item of a large import preview (without it, beyond 50 items only those that change or need attention)")
	// Completes the handles of the pending previews, from the state store
	// (no request to Jira).
	c.ValidArgsFunction = func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return pendingHandles(c.Context(), o.Service), cobra.ShellCompDirectiveNoFileComp
	}
	return c
}

// pendingHandles lists the handles of the pending previews with what each
// is, for completion; nothing when the store cannot be read.
func pendingHandles(ctx context.Context, open cmdutil.OpenServiceFunc) []string {
	if ctx == nil {
		return nil
	}
	svc, closeFn, err := open(ctx)
	if err != nil {
		return nil
	}
	defer closeFn()
	r, err := svc.PendingPreviews(ctx, core.MaxQueryLimit)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(r.Previews))
	for _, p := range r.Previews {
		what := string(p.Kind)
		switch {
		case p.Document != "":
			what = "import of " + p.Document
		case p.Item != nil:
			what = "progress of " + p.Item.Key
		}
		if p.Kind == core.PreviewPull {
			what = "pull into " + p.Document
		}
		out = append(out, p.PreviewHandle+"\t"+render.CleanText(what))
	}
	return out
}

func reviewRun(ctx context.Context, o *ReviewOptions) error {
	ios := o.IO
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	if o.Handle == "" {
		return listPending(ctx, o, svc)
	}
	// Any kind, read by its kind's codec; a pull's is shown, confirmed
	// and committed here as dwire pull's.
	info, err := svc.ShowPreview(ctx, o.Handle)
	if err != nil {
		return err
	}
	ctx = core.WithChannel(ctx, core.ChannelReview) // for the audit trail
	if info.ConsumedBy != "" {
		// Committed before: what that commit did, never the old plan
		// as if it still waited.
		return consumed(ctx, o, svc, info)
	}
	// A person about to be asked is never shown a plan the tracker no
	// longer matches: PREVIEW_STALE now, before the question (recorded,
	// so the list no longer offers it).
	if ios.CanPrompt() {
		if err := svc.CheckPreview(ctx, o.Handle); err != nil {
			return err
		}
	}
	// The preview on stdout (stderr under --json), under who made it and
	// when; one that is about to be confirmed while stdout is redirected
	// also on the terminal.
	made := madeLine(o.Handle, info)
	show := func(asks bool, view func(io.Writer, render.Options)) {
		w, ro := ios.Out, viewOpts(ios, false)
		if o.JSON {
			w, ro = ios.ErrOut, viewOpts(ios, true)
		}
		ro.Full = o.Full
		fmt.Fprintln(w, render.Wrap(made, ro.Width, "  "))
		view(w, ro)
		if asks && !o.JSON && redirected(ios) {
			ro = viewOpts(ios, true)
			ro.Full = o.Full
			fmt.Fprintln(ios.ErrOut, render.Wrap(made, ro.Width, "  "))
			view(ios.ErrOut, ro)
		}
	}
	pending := true
	var runID, question, what string
	var shown any // the preview object itself, for --json
	switch {
	case info.Kind == core.PreviewImport && info.Import != nil:
		p := info.Import
		shown = mcpserver.WholePreview(*p)
		warn(ios, p.Warnings)
		titleWarnings(ios, planTitles(*p))
		show(pending && render.Writes(p.Counts), func(w io.Writer, ro render.Options) { render.ImportPreview(w, *p, ro) })
		runID, what = p.RunID, "Writing to Jira"
		if !render.Writes(p.Counts) {
			fmt.Fprintln(ios.ErrOut, "Nothing to write: this preview changes nothing in Jira.")
			if o.JSON {
				return printJSON(ios.Out, shown)
			}
			return nil
		}
		question = importQuestion(p.Writes, ios.Width())
	case info.Kind == core.PreviewProgress && info.Progress != nil:
		p := info.Progress
		shown = p
		warn(ios, p.Warnings)
		titleWarnings(ios, map[string]string{p.Item.Key: p.Item.Title})
		show(pending, func(w io.Writer, ro render.Options) { render.ProgressPreview(w, *p, ro) })
		runID, what = p.RunID, "Reporting progress"
		question = fmt.Sprintf("Write this to %s in Jira?", p.Item.Key)
	case info.Kind == core.PreviewPull && info.Pull != nil:
		p := info.Pull
		shown = mcpserver.WholePull(*p)
		warn(ios, p.Warnings)
		show(pending && p.Writes, render.PullPreviewView(*p))
		runID, what = p.RunID, "Pulling into "+p.Path
		if !p.Writes {
			nothingToPull(ios, p.Counts)
			if o.JSON {
				return printJSON(ios.Out, shown)
			}
			return nil
		}
		question = pullQuestion(*p, ios.Width())
	default:
		return core.Errorf(core.CodeInternal, "The stored preview %s has an unknown kind %q.", o.Handle, info.Kind)
	}
	if !ios.CanPrompt() {
		return confirmRequired(runID, o.Handle, what)
	}
	if ok, err := confirmed(ctx, ios, o.JSON, question, what, runID, o.Handle, shown); !ok {
		if err == nil { // answered no: nobody waits on it any more
			setAside(ctx, svc, o.Handle, service.AsideDeclined)
		}
		return err
	}
	c := committer{IO: ios, JSON: o.JSON, Svc: svc}
	if info.Kind == core.PreviewPull {
		return c.pullCommit(ctx, o.Handle, info.Pull.PlanDigest, info.Pull.Path)
	}
	if info.Kind == core.PreviewImport {
		return c.importCommit(ctx, o.Handle, info.Import.PlanDigest)
	}
	return c.progressCommit(ctx, o.Handle, info.Progress.PlanDigest)
}

// madeLine says which preview is shown, who made it (an agent names its
// MCP client) and when.
func madeLine(handle string, info service.PreviewInfo) string {
	by := info.MadeBy
	if by == "" {
		by = "an unknown maker"
	}
	return fmt.Sprintf("Preview %s, made by %s on %s.", handle, render.CleanText(by), render.FormatTime(info.CreatedAt))
}

// consumed reports what became of the commit of an already committed
// preview, without showing the old plan again: a commit that finished is
// replayed under its own idempotency key (the gate writes nothing on a
// replay), so the result is that commit's (result_type committed, exit
// 0), as an agent repeating the key gets; one that stopped part-way or
// is still recorded as running is an error saying how far it got and what
// to run next (exit 4 when something was written). A commit whose run is
// no longer recorded is refused as the gate refuses a used handle.
func consumed(ctx context.Context, o *ReviewOptions, svc cmdutil.Service, info service.PreviewInfo) error {
	ios := o.IO
	c := info.Commit
	if c == nil {
		return core.RefuseConsumedPreview(o.Handle, info.Kind, info.ConsumedAt, "the commit with idempotency key "+info.ConsumedBy)
	}
	if c.State == core.RunCommitted {
		at := c.FinishedAt
		if at.IsZero() {
			at = c.StartedAt
		}
		fmt.Fprintln(ios.ErrOut, render.Wrap(fmt.Sprintf("Skipped: preview %s was already committed on %s (run %s); nothing more was written. What that commit did:",
			o.Handle, render.FormatTime(at), c.RunID), ios.Width(), ""))
		cm := committer{IO: ios, JSON: o.JSON, Svc: svc, Key: info.ConsumedBy}
		switch {
		case info.Pull != nil:
			return cm.pullCommit(ctx, o.Handle, "", info.Pull.Path)
		case info.Import != nil:
			return cm.importCommit(ctx, o.Handle, "")
		}
		return cm.progressCommit(ctx, o.Handle, "")
	}
	next := "make a new preview (`dwire progress` of the item again) and review that"
	if info.Import != nil {
		next = fmt.Sprintf("run `dwire import` of document %s again for a new preview: what was written is found and not written twice", info.Import.Document)
	}
	if info.Pull != nil {
		next = fmt.Sprintf("run `dwire pull %s` again for a new preview: it compares the file with Jira afresh", info.Pull.Path)
	}
	var e *core.Error
	switch c.State {
	case core.RunInProgress:
		e = core.Errorf(core.CodeCommitInterrupted,
			"This preview's commit (run %s, started %s) did not finish: it is still running, or its process stopped or died. It had written %d of %d items when last recorded. Next: %s.",
			c.RunID, render.FormatTime(c.StartedAt), c.Written, c.Total, next)
	default:
		e = core.Errorf(core.CodeCommitPartial,
			"This preview's commit (run %s) stopped after %d of %d items (%s). Next: %s.",
			c.RunID, c.Written, c.Total, stopCounts(c), next)
	}
	for _, oc := range c.Outcomes {
		e.Details = append(e.Details, core.Detail{Item: string(oc.Reference), Key: oc.Key, Outcome: oc.Outcome, Code: oc.Code, Message: oc.Message})
	}
	return e.WithRunID(c.RunID)
}

func stopCounts(c *service.CommitSummary) string {
	parts := []string{fmt.Sprintf("%d written", c.Written)}
	if c.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", c.Failed))
	}
	if c.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d of unknown outcome", c.Unknown))
	}
	if n := c.Total - c.Written - c.Failed - c.Unknown; n > 0 {
		parts = append(parts, fmt.Sprintf("%d not tried", n))
	}
	return strings.Join(parts, ", ")
}

// listPending lists the previews waiting for a person.
func listPending(ctx context.Context, o *ReviewOptions, svc cmdutil.Service) error {
	ios := o.IO
	r, err := svc.PendingPreviews(ctx, core.MaxQueryLimit)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(ios.Out, r)
	}
	render.Pending(ios.Out, r, viewOpts(ios, false))
	if len(r.Previews) > 0 {
		fmt.Fprintln(ios.ErrOut, "Review one with: dwire review <handle>")
	}
	return nil
}
