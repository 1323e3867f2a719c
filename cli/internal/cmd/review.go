package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
)

// ReviewOptions are the dependencies and flags of `dwire review`.
type ReviewOptions struct {
	IO      *iostreams.IOStreams
	Service cmdutil.OpenServiceFunc
	JSON    bool

	Handle string
}

// NewCmdReview parses `dwire review <handle>`.
func NewCmdReview(f *cmdutil.Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	o := &ReviewOptions{IO: f.IOStreams, Service: f.OpenService}
	return &cobra.Command{
		Use:   "review <preview-handle>",
		Short: "Review a stored preview (e.g. an agent's), confirm and commit it",
		Long: `Show a preview stored under its handle — for example one an agent made
with import_preview on a shared store — ask for confirmation (the answer
defaults to no) and commit exactly that plan. This is the team's review
flow: the person who confirms sees what will be written.`,
		Example: "  dwire review imp_3f9c…\n  dwire review prg_81d0…",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Handle, o.JSON = strings.TrimSpace(args[0]), f.JSON
			if runF != nil {
				return runF(c.Context(), o)
			}
			return reviewRun(c.Context(), o)
		},
	}
}

func reviewRun(ctx context.Context, o *ReviewOptions) error {
	ios := o.IO
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	info, err := svc.StoredPreview(ctx, o.Handle)
	if err != nil {
		return err
	}
	w, ro := ios.Out, viewOpts(ios, false)
	if o.JSON {
		w, ro = ios.ErrOut, viewOpts(ios, true)
	}
	var runID, question, what string
	var shown any // the preview object itself, for --json
	switch {
	case info.Kind == core.PreviewImport && info.Import != nil:
		p := info.Import
		shown = p
		warn(ios, p.Warnings)
		titleWarnings(ios, planTitles(*p))
		render.ImportPreview(w, *p, ro)
		runID, what = p.RunID, "Writing to Jira"
		if !render.Writes(p.Counts) {
			fmt.Fprintln(ios.ErrOut, "Nothing to write: this preview changes nothing in Jira.")
			if o.JSON {
				return printJSON(ios.Out, shown)
			}
			return nil
		}
		question = fmt.Sprintf("Write %s to Jira (%d to create, %d to update)?", plural(p.Counts.Create+p.Counts.Update, "item"), p.Counts.Create, p.Counts.Update)
	case info.Kind == core.PreviewProgress && info.Progress != nil:
		p := info.Progress
		shown = p
		warn(ios, p.Warnings)
		titleWarnings(ios, map[string]string{p.Item.Key: p.Item.Title})
		render.ProgressPreview(w, *p, ro)
		runID, what = p.RunID, "Reporting progress"
		question = fmt.Sprintf("Write this to %s in Jira?", p.Item.Key)
	default:
		return core.Errorf(core.CodeInternal, "The stored preview %s has an unknown kind %q.", o.Handle, info.Kind)
	}
	if info.ConsumedBy != "" {
		fmt.Fprintf(ios.ErrOut, "Skipped: this preview was already committed (run %s); nothing was written.\n", info.ConsumedBy)
		if o.JSON {
			return printJSON(ios.Out, shown)
		}
		return nil
	}
	if !ios.CanPrompt() {
		return confirmRequired(runID, o.Handle, what)
	}
	ok, err := ask(ctx, ios, question)
	if err != nil {
		return confirmRequired(runID, o.Handle, what)
	}
	if !ok {
		if o.JSON {
			return printJSON(ios.Out, shown)
		}
		return nil
	}
	c := committer{IO: ios, JSON: o.JSON, Svc: svc}
	if info.Kind == core.PreviewImport {
		return c.importCommit(ctx, o.Handle)
	}
	return c.progressCommit(ctx, o.Handle)
}
