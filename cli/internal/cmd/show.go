package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// ShowOptions are the dependencies and flags of `dwire show`.
type ShowOptions struct {
	ServiceOptions

	Item string
}

// NewCmdShow parses `dwire show <key|ref>`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	o := &ShowOptions{ServiceOptions: serviceOptions(f)}
	return &cobra.Command{
		ValidArgsFunction: completeItem(f.OpenService),
		Use:               "show <key|reference>",
		Short:             "Show one work item in full (read-only)",
		Long: `Show one work item in full: its key, reference, kind, status and title,
its description and acceptance criteria, the fields the import manages
(priority, labels, estimate, …), the items it blocks and is blocked by and
its sub-tasks (each with its title and status), and an epic's stories in
backlog order. Name the item by its Jira key (PROJ-12) or its reference
(document/id). Nothing is written.`,
		Example: "  dwire show PROJ-12\n  dwire show checkout-v2/s-1 --json",
		Args:    cobra.ExactArgs(1),
		RunE:    runE(o, runF, showRun, func(_ *cobra.Command, args []string) { o.Item, o.JSON = args[0], f.JSON }),
	}
}

func showRun(ctx context.Context, o *ShowOptions) error {
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	r, err := svc.Get(ctx, service.GetInput{Item: o.Item})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO.Out, mcpserver.WholeGet(r)) // workitem_get's shape
	}
	titleWarnings(o.IO, viewTitles(r.Item))
	render.Item(o.IO.Out, r.Item, viewOpts(o.IO, false))
	return nil
}
