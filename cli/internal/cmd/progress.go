package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core/service"
)

// MaxComment is the most bytes a comment may have.
const MaxComment = 32 << 10

// ProgressOptions are the dependencies and flags of `dwire progress`.
type ProgressOptions struct {
	ServiceOptions

	Item    string
	Status  string
	Comment string
	// CommentSet is true when --comment was given (even empty).
	CommentSet bool
	// DryRun stops after the preview.
	DryRun bool
}

// NewCmdProgress parses `dwire progress <key|ref> [--status S] [--comment TEXT|-]`.
func NewCmdProgress(f *cmdutil.Factory, runF func(context.Context, *ProgressOptions) error) *cobra.Command {
	o := &ProgressOptions{ServiceOptions: serviceOptions(f)}
	c := &cobra.Command{
		Use:   "progress <key|reference>",
		Short: "Report progress on a work item: move its status, add a comment",
		Long: `Preview a status change and/or a comment on one work item (a Jira key
such as PROJ-12, or a reference such as checkout-v2/s-1), ask for
confirmation — the answer defaults to no — and then write it.

--comment - reads the comment from stdin; the confirmation is then asked
on the terminal. With --dry-run the command stops after the preview (with
--json it prints the preview object, whose preview_handle a person can
commit with dwire review).`,
		Example: "  dwire progress PROJ-12 --status in_progress\n  dwire progress checkout-v2/s-1 --status done --comment \"Shipped in #42\"\n  git log -1 --format=%B | dwire progress PROJ-12 --comment -",
		Args:    cobra.ExactArgs(1),
		RunE: runE(o, runF, progressRun, func(c *cobra.Command, args []string) {
			o.Item, o.JSON = args[0], f.JSON
			o.CommentSet = c.Flags().Changed("comment")
		}),
	}
	c.Flags().StringVar(&o.Status, "status", "", "target status: todo, in_progress or done")
	c.Flags().StringVar(&o.Comment, "comment", "", "Markdown comment to add (- reads it from stdin)")
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "stop after the preview; write nothing")
	c.ValidArgsFunction = completeItem(f.OpenService)
	_ = c.RegisterFlagCompletionFunc("status", completeStatus)
	return c
}

func progressRun(ctx context.Context, o *ProgressOptions) error {
	ios := o.IO
	st, err := parseStatus(o.Status)
	if err != nil {
		return err
	}
	comment := o.Comment
	if o.CommentSet && comment == "-" {
		b, err := io.ReadAll(io.LimitReader(ios.In, MaxComment+1))
		if err != nil {
			return invalidFlag("--comment", "Could not read the comment from stdin.")
		}
		if len(b) > MaxComment {
			return invalidFlag("--comment", "The comment on stdin is longer than %d KiB. Shorten it.", MaxComment>>10)
		}
		comment = string(b)
	}
	comment = strings.TrimSpace(comment)
	if o.CommentSet && comment == "" {
		return invalidFlag("--comment", "The comment is empty. Give some text, or leave out --comment.")
	}
	if st == "" && comment == "" {
		return invalidFlag("--status", "Nothing to report: give --status todo|in_progress|done, --comment TEXT, or both.")
	}

	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	p, err := svc.ProgressPreview(ctx, service.ProgressPreviewInput{Item: o.Item, Status: st, Comment: comment, DryRun: o.DryRun})
	if err != nil {
		return err
	}
	warn(ios, p.Warnings)
	titleWarnings(ios, map[string]string{p.Item.Key: p.Item.Title})
	if o.DryRun {
		setAside(ctx, svc, p.PreviewHandle, service.AsideDryRun)
	}
	if done, err := showPreview(ios, o.JSON, o.DryRun, p, func(w io.Writer, ro render.Options) { render.ProgressPreview(w, p, ro) }); done {
		return err
	}
	if o.DryRun {
		fmt.Fprintln(ios.ErrOut, "Dry run: nothing was written.")
		return nil
	}
	if ok, err := confirmed(ctx, ios, o.JSON, fmt.Sprintf("Write this to %s in Jira?", p.Item.Key), "Reporting progress", p.RunID, p.PreviewHandle, p); !ok {
		if err == nil { // answered no (not: nobody could be asked)
			setAside(ctx, svc, p.PreviewHandle, service.AsideDeclined)
		}
		return err
	}
	return committer{IO: ios, JSON: o.JSON, Svc: svc}.progressCommit(ctx, p.PreviewHandle, p.PlanDigest)
}
