package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// ListOptions are the dependencies and flags of `dwire ls`.
type ListOptions struct {
	ServiceOptions

	Ready    bool
	Status   string
	Kind     string
	Epic     string
	Document string
	Text     string
	Limit    int
}

// NewCmdList parses `dwire ls`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	o := &ListOptions{ServiceOptions: serviceOptions(f)}
	c := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List work items (read-only)",
		Long: `List work items of the configured project, filtered, in backlog order.

--ready lists stories and sub-tasks in status todo whose every blocking item
is done: what to work on next (epics are not ready work; add --kind epic to
ask for them). The list is bounded by --limit (1–100); when more match, it
says so.`,
		Example: "  dwire ls --ready\n  dwire ls --epic checkout-v2/e-1 --status todo\n  dwire ls --document checkout-v2 --json",
		Args:    cobra.NoArgs,
		RunE:    runE(o, runF, listRun, func(*cobra.Command, []string) { o.JSON = f.JSON }),
	}
	fl := c.Flags()
	fl.BoolVar(&o.Ready, "ready", false, "only items ready to work on (todo, nothing blocking)")
	fl.StringVar(&o.Status, "status", "", "only items in this status: todo, in_progress or done")
	fl.StringVar(&o.Kind, "kind", "", "only items of this kind: epic, story or subtask (sub-task)")
	fl.StringVar(&o.Epic, "epic", "", "only stories of this epic (key or reference)")
	fl.StringVar(&o.Document, "document", "", "only items imported from this document id")
	fl.StringVar(&o.Text, "text", "", "free text to search in title and description")
	fl.IntVar(&o.Limit, "limit", core.DefaultQueryLimit, fmt.Sprintf("most items to show, 1 to %d", core.MaxQueryLimit))
	_ = c.RegisterFlagCompletionFunc("status", completeStatus)
	_ = c.RegisterFlagCompletionFunc("kind", completeKind)
	for _, name := range []string{"epic", "document", "text", "limit"} {
		_ = c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return c
}

func listRun(ctx context.Context, o *ListOptions) error {
	ios := o.IO
	st, err := parseStatus(o.Status)
	if err != nil {
		return err
	}
	kind := core.Kind(o.Kind)
	if o.Kind == "sub-task" {
		kind = core.KindSubtask // as the KIND column spells it
	}
	if kind != "" && !kind.Valid() {
		hint := ""
		if c := core.Closest(o.Kind, core.KindNames()); c != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", c)
		}
		return invalidFlag("--kind", "--kind %q is not a kind%s. Use epic, story or subtask.", o.Kind, hint)
	}
	if o.Limit < 1 || o.Limit > core.MaxQueryLimit {
		return invalidFlag("--limit", "--limit %d is out of range. Use 1 to %d.", o.Limit, core.MaxQueryLimit)
	}
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	r, err := svc.Query(ctx, service.QueryInput{Status: st, Kind: kind, Epic: o.Epic, Document: o.Document, Text: o.Text, Ready: o.Ready, Limit: o.Limit})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(ios.Out, r)
	}
	titleWarnings(ios, viewTitles(r.Items...))
	render.List(ios.Out, r, viewOpts(ios, false))
	if r.Truncated {
		fmt.Fprintf(ios.ErrOut, "Showing the first %d; more items match. Narrow the filter or raise --limit (up to %d).\n", r.Returned, core.MaxQueryLimit)
	}
	return nil
}
