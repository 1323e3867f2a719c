package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core/service"
)

// GraphOptions are the dependencies and flags of `dwire graph`.
type GraphOptions struct {
	ServiceOptions
	// WorkDir anchors a relative document path.
	WorkDir string

	Path   string
	Status bool
}

// NewCmdGraph parses `dwire graph <doc|dir> [--status]`.
func NewCmdGraph(f *cmdutil.Factory, runF func(context.Context, *GraphOptions) error) *cobra.Command {
	o := &GraphOptions{ServiceOptions: serviceOptions(f), WorkDir: f.WorkDir}
	c := &cobra.Command{
		Use:   "graph <document|directory>",
		Short: "Print a plan's structure as a Mermaid flowchart (read-only)",
		Long: `Print a planning document's epics, stories, sub-tasks and dependencies as a
Mermaid flowchart, which GitHub, GitLab and Confluence render: paste it into
a pull request or a page inside a ` + "```mermaid" + ` block. A dotted line joins an
item to its parent; an arrow runs from a blocker to what it blocks. A
directory is read as dwire import reads it: every planning document under
it, in one chart, each item named by its reference (shop/s-1).

Without --status the document alone is read (no Jira configuration needed);
with --status each item's key and status are read from Jira (nothing is
written) and the boxes are coloured by status.`,
		Example: "  dwire graph plan.md\n  dwire graph plans/\n  dwire graph plan.md --status > plan.mmd",
		Args:    cobra.ExactArgs(1),
		RunE:    runE(o, runF, graphRun, func(_ *cobra.Command, args []string) { o.Path, o.JSON = args[0], f.JSON }),
	}
	c.Flags().BoolVar(&o.Status, "status", false, "read each item's status from Jira")
	return c
}

func graphRun(ctx context.Context, o *GraphOptions) error {
	path := inWorkDir(o.WorkDir, o.Path)
	in := service.GraphInput{Path: path, Status: o.Status}
	var g service.GraphResult
	var err error
	if o.Status {
		svc, closeFn, serr := o.Service(ctx)
		if serr != nil {
			return serr
		}
		defer closeFn()
		g, err = svc.Graph(ctx, in)
	} else {
		g, err = service.DocumentGraph(in)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO.Out, g)
	}
	render.Mermaid(o.IO.Out, g)
	return nil
}
