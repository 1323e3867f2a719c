package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
)

// ReviewOptions are the dependencies and flags of `dwire review`.
type ReviewOptions struct {
	F      *cmdutil.Factory
	Handle string
}

// NewCmdReview parses `dwire review <handle>`.
func NewCmdReview(f *cmdutil.Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	o := &ReviewOptions{F: f}
	return &cobra.Command{
		Use:   "review <preview-handle>",
		Short: "Review a stored preview (made by you, a teammate or an agent), confirm, and commit it",
		Long: `Show a preview stored under its handle — for example one an agent made
with import.preview on a shared store — ask for confirmation (the answer
defaults to no) and commit exactly that plan. This is the team's review
flow: the person who confirms sees what will be written.`,
		Example: "  dwire review pv_3f9c…",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Handle = strings.TrimSpace(args[0])
			if runF != nil {
				return runF(c.Context(), o)
			}
			return reviewRun(c.Context(), o)
		},
	}
}

func reviewRun(ctx context.Context, o *ReviewOptions) error {
	ios := o.F.IOStreams
	svc, _, closeFn, err := o.F.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	info, err := svc.Preview(ctx, o.Handle)
	if err != nil {
		return err
	}
	w, ro := ios.Out, opts(ios, false)
	if o.F.JSON {
		w, ro = ios.ErrOut, opts(ios, true)
	}
	var runID, question, what string
	switch {
	case info.Kind == core.PreviewImport && info.Import != nil:
		p := info.Import
		warn(ios, p.Warnings)
		render.ImportPreview(w, *p, ro)
		runID, what = p.RunID, "Writing to Jira"
		if !render.Writes(p.Counts) {
			fmt.Fprintln(ios.ErrOut, "Nothing to write: this preview changes nothing in Jira.")
			if o.F.JSON {
				return printJSON(ios.Out, info)
			}
			return nil
		}
		question = fmt.Sprintf("Write %s to Jira (%d to create, %d to update)?", plural(p.Counts.Create+p.Counts.Update, "item"), p.Counts.Create, p.Counts.Update)
	case info.Kind == core.PreviewProgress && info.Progress != nil:
		p := info.Progress
		warn(ios, p.Warnings)
		render.ProgressPreview(w, *p, ro)
		runID, what = p.RunID, "Reporting progress"
		question = fmt.Sprintf("Write this to %s in Jira?", p.Item.Key)
	default:
		return core.Errorf(core.CodeInternal, "The stored preview %s has an unknown kind %q.", o.Handle, info.Kind)
	}
	if info.ConsumedBy != "" {
		fmt.Fprintf(ios.ErrOut, "Skipped: this preview was already committed (run %s); nothing was written.\n", info.ConsumedBy)
		if o.F.JSON {
			return printJSON(ios.Out, info)
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
		if o.F.JSON {
			return printJSON(ios.Out, info)
		}
		return nil
	}
	if info.Kind == core.PreviewImport {
		return commitImport(ctx, o.F, svc, o.Handle)
	}
	return commitProgress(ctx, o.F, svc, o.Handle)
}
