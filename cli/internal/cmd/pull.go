package cmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// NewCmdPull parses `dwire pull <doc>`.
func NewCmdPull(f *cmdutil.Factory, runF func(context.Context, *PullOptions) error) *cobra.Command {
	o := &PullOptions{ServiceOptions: serviceOptions(f), WorkDir: f.WorkDir}
	c := &cobra.Command{
		Use:   "pull <document>",
		Short: "Take what people changed in Jira back into a document, confirmed",
		Long: `Compare a planning document with its items in Jira and take what people
changed there — titles, descriptions, acceptance criteria (ticked boxes
too) and the fields the document sets — back into the document. Only the
changed values are rewritten; everything else in the file stays byte for
byte.

The command shows the document's diff, asks for confirmation — the answer
defaults to no — and then writes the file and records in Jira what the
document now holds (no issue is edited), so the next import of the
document is unchanged.

An item changed both in the document and in Jira is a conflict: both
values are shown and neither is taken until you choose per item:
--take-jira s-1,s-2 writes Jira's values into the document;
--take-document s-3 keeps the document's, and the next import writes them.

--item s-1 (repeatable, or s-1,s-2) narrows the pull to the named items:
the others are neither compared nor written. An item whose values cannot
be written into the document is left as it is, with a warning saying why,
and the rest is pulled.

With --dry-run the command stops after the preview. Without a terminal to
ask on, it refuses with CONFIRMATION_REQUIRED and writes nothing.`,
		Example: "  dwire pull plan.md\n  dwire pull plan.md --dry-run\n  dwire pull plan.md --take-jira s-1\n  dwire pull plan.md --item s-1 --item s-2",
		Args:    cobra.ExactArgs(1),
		RunE:    runE(o, runF, pullRun, func(_ *cobra.Command, args []string) { o.Path, o.JSON = args[0], f.JSON }),
	}
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "stop after the preview; write nothing")
	c.Flags().StringSliceVar(&o.TakeJira, "take-jira", nil, "items in conflict to take Jira's values for (item ids or references, or all)")
	c.Flags().StringSliceVar(&o.TakeDocument, "take-document", nil, "items in conflict to keep the document's values for; the next import writes them (item ids or references, or all)")
	c.Flags().StringSliceVar(&o.Items, "item", nil, "pull only these items (item ids or references; repeatable)")
	c.ValidArgsFunction = documentArgs
	return c
}

// PullOptions are the dependencies and flags of `dwire pull`.
type PullOptions struct {
	ServiceOptions
	// WorkDir anchors a relative document path.
	WorkDir string

	Path   string
	DryRun bool
	// TakeJira and TakeDocument resolve conflicts per item (--take-jira,
	// --take-document: item ids, references, or all).
	TakeJira     []string
	TakeDocument []string
	// Items narrows the pull to the named items (--item).
	Items []string
}

// documentArgs completes a command's one document argument: planning
// documents and the folders that may hold them.
func documentArgs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"md", "markdown", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

func pullRun(ctx context.Context, o *PullOptions) error {
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	ios, path := o.IO, inWorkDir(o.WorkDir, o.Path)
	p, err := svc.PullPreview(ctx, service.PullPreviewInput{Path: path, TakeTracker: o.TakeJira, TakeDocument: o.TakeDocument, Items: o.Items, DryRun: o.DryRun})
	if err != nil {
		return pullFlags(err)
	}
	p.Path = o.Path // as the person wrote it
	warn(ios, p.Warnings)
	interactive := !o.DryRun && p.Writes
	if o.DryRun {
		setAside(ctx, svc, p.PreviewHandle, service.AsideDryRun)
	}
	if done, err := showPreview(ios, o.JSON, !interactive, mcpserver.WholePull(p), render.PullPreviewView(p)); done {
		return err
	}
	if o.DryRun {
		fmt.Fprintln(ios.ErrOut, "Dry run: nothing was written.")
		return nil
	}
	if !p.Writes {
		nothingToPull(ios, p.Counts)
		return nil
	}
	if !ios.CanPrompt() {
		return core.Errorf(core.CodeConfirmationRequired,
			"Pulling into %s needs your confirmation, but this is not an interactive terminal, so nobody can be asked. Nothing was written. Run `dwire pull %s` in a terminal (with --dry-run to see the diff only). There is no flag that skips this.",
			o.Path, o.Path).WithRunID(p.RunID).WithDetails(core.Detail{Field: "preview_handle", Message: p.PreviewHandle})
	}
	q := pullQuestion(p, ios.Width())
	if ok, err := ask(ctx, ios, q); err != nil || !ok {
		if err == nil {
			setAside(ctx, svc, p.PreviewHandle, service.AsideDeclined)
		}
		if !ok && err == nil && o.JSON {
			return printJSON(ios.Out, mcpserver.WholePull(p))
		}
		return err
	}
	return committer{IO: ios, JSON: o.JSON, Svc: svc}.pullCommit(ctx, p.PreviewHandle, p.PlanDigest, o.Path)
}

// pullInputFlags are the flags of the pull input's fields, as a refusal
// names them.
var pullInputFlags = map[string]string{"take_tracker": "--take-jira", "take_document": "--take-document", "items": "--item"}

// pullFlags is err with the pull input's fields it names (a detail's
// field) named as the flags the person gave.
func pullFlags(err error) error {
	e := core.AsError(err)
	if !slices.ContainsFunc(e.Details, func(d core.Detail) bool { return pullInputFlags[d.Field] != "" }) {
		return err
	}
	c := *e
	c.Details = slices.Clone(e.Details)
	for i, d := range c.Details {
		if f := pullInputFlags[d.Field]; f != "" {
			c.Details[i].Field = f
		}
	}
	return &c
}

// nothingToPull says why a pull writes nothing.
func nothingToPull(ios *iostreams.IOStreams, c service.PullCounts) {
	if c.Conflict == 0 {
		fmt.Fprintln(ios.ErrOut, "Nothing to pull: the document already holds what Jira has.")
		return
	}
	one := c.Conflict == 1
	fmt.Fprintf(ios.ErrOut, "Nothing to write: %s in conflict %s left as %s. Choose per item with --take-jira or --take-document and pull again.\n",
		core.Plural(c.Conflict, "item", "items"), map[bool]string{true: "is", false: "are"}[one], map[bool]string{true: "it is", false: "they are"}[one])
}

// pullQuestion asks for what the commit writes: the file, and the items
// Jira is to record as matching it (no issue is edited), wrapped at width.
func pullQuestion(p service.PullPreviewResult, width int) string {
	return render.Wrap(fmt.Sprintf("Pull (%s; no issue is edited)?", p.Planned.Summary()), width-6, "")
}
