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

// ImportOptions are the dependencies and flags of `dwire import`.
type ImportOptions struct {
	ServiceOptions
	// WorkDir anchors a relative document path.
	WorkDir string

	Path   string
	DryRun bool
	// Full shows every row of a large preview (--full).
	Full bool
	// Removed is what to do with items the document no longer lists
	// (--removed close|leave; "" is the document's own `removed:`).
	Removed string
	// ReleaseHeld are the held-back items to create anyway (--release-held).
	ReleaseHeld []string
}

// NewCmdImport parses `dwire import <doc> [--dry-run]`.
func NewCmdImport(f *cmdutil.Factory, runF func(context.Context, *ImportOptions) error) *cobra.Command {
	o := &ImportOptions{ServiceOptions: serviceOptions(f), WorkDir: f.WorkDir}
	c := &cobra.Command{
		Use:   "import <document>",
		Short: "Preview a document's import into Jira, confirm, and commit it",
		Long: `Validate a planning document (Markdown or YAML), show what importing it
would do in Jira (create / update / unchanged / drift for every epic and
story), ask for confirmation — the answer defaults to no — and then write
exactly the plan shown. Importing the same document again never creates
duplicates: unchanged items stay untouched.

Given a directory, it imports every planning document in it (.md,
.markdown, .yaml, .yml; recursively) as one preview and one commit, with
each document's rows under its name; epics are created before stories
across the documents, so a story may name an epic of another document
("Epic: infra-q1/e-1"). Hidden files and directories, other files,
symbolic links and files without epics, stories or a document id (a
README) are skipped, and the preview says which.

With --dry-run the command stops after the preview. Without a terminal to
ask on, it refuses with CONFIRMATION_REQUIRED and writes nothing.

An item whose earlier create had an unknown outcome is held back ("held")
while Jira search may not show it yet. After checking Jira that it is not
there, --release-held s-1,s-2 (or --release-held all) plans those items as
normal creates, marked "released" in the preview you confirm.`,
		Example: "  dwire import plan.md\n  dwire import plans/\n  dwire import plan.md --dry-run --json\n  dwire import plan.md --release-held s-1",
		Args:    cobra.ExactArgs(1),
		RunE:    runE(o, runF, importRun, func(_ *cobra.Command, args []string) { o.Path, o.JSON = args[0], f.JSON }),
	}
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "stop after the preview; write nothing")
	c.Flags().BoolVar(&o.Full, "full", false, "show every item of a large preview (without it, beyond 50 items only those that change or need attention)")
	c.Flags().StringVar(&o.Removed, "removed", "", "items the document no longer lists: close (transition to done, with a comment) or leave (shown, left alone); default: the document's removed: setting, else leave")
	_ = c.RegisterFlagCompletionFunc("removed", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"close\tclose them, with a comment", "leave\tshow them, leave them alone"}, cobra.ShellCompDirectiveNoFileComp
	})
	c.Flags().StringSliceVar(&o.ReleaseHeld, "release-held", nil, "after checking Jira: create these held-back items anyway (item ids or references, or all)")
	_ = c.RegisterFlagCompletionFunc("release-held", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"all\tevery held-back item"}, cobra.ShellCompDirectiveNoFileComp
	})
	c.ValidArgsFunction = documentArgs // pull.go
	return c
}

func importRun(ctx context.Context, o *ImportOptions) error {
	ios := o.IO
	switch strings.ToLower(strings.TrimSpace(o.Removed)) {
	case "", "close", "leave":
	default:
		return invalidFlag("--removed", "--removed %q is not a choice. Use close or leave.", o.Removed)
	}
	path := inWorkDir(o.WorkDir, o.Path)
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()

	p, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: path, ReleaseHeld: o.ReleaseHeld, Removed: o.Removed, DryRun: o.DryRun})
	if err != nil {
		return err
	}
	warn(ios, p.Warnings)
	titleWarnings(ios, planTitles(p))
	writes := render.Writes(p.Counts)
	interactive := !o.DryRun && writes
	if o.DryRun {
		setAside(ctx, svc, p.PreviewHandle, service.AsideDryRun)
	}

	// The preview: on stdout, unless stdout is reserved for the JSON result.
	shown := p
	if !writes {
		shown.PreviewHandle = "" // nothing to commit: the handle is noise
	}
	if done, err := showPreview(ios, o.JSON, !interactive, mcpserver.WholePreview(p), func(w io.Writer, ro render.Options) { ro.Full = o.Full; render.ImportPreview(w, shown, ro) }); done {
		return err
	}
	if o.DryRun {
		fmt.Fprintln(ios.ErrOut, "Dry run: nothing was written.")
		return nil
	}
	if !writes {
		if p.Counts.Drift > 0 {
			fmt.Fprintf(ios.ErrOut, "Nothing to write: %s edited in Jira %s left alone. To replace Jira's version, add \"Drift: take-document\" to the item and import again.\n",
				core.Plural(p.Counts.Drift, "item", "items"), map[bool]string{true: "is", false: "are"}[p.Counts.Drift == 1])
		} else {
			fmt.Fprintln(ios.ErrOut, "Nothing to write: Jira already matches the document.")
		}
		if n := p.Counts.Removed; n > 0 {
			fmt.Fprintf(ios.ErrOut, "%s no longer in the document %s left alone in Jira; to close %s, import with --removed close.\n",
				core.Plural(n, "item", "items"), map[bool]string{true: "is", false: "are"}[n == 1], map[bool]string{true: "it", false: "them"}[n == 1])
		}
		return nil
	}
	if !ios.CanPrompt() {
		return confirmRequired(p.RunID, p.PreviewHandle, "Writing to Jira")
	}
	q := importQuestion(p.Writes, ios.Width())
	if ok, err := confirmed(ctx, ios, o.JSON, q, "Writing to Jira", p.RunID, p.PreviewHandle, mcpserver.WholePreview(p)); !ok {
		if err == nil { // answered no (not: nobody could be asked)
			setAside(ctx, svc, p.PreviewHandle, service.AsideDeclined)
		}
		return err
	}
	return committer{IO: ios, JSON: o.JSON, Svc: svc}.importCommit(ctx, p.PreviewHandle, p.PlanDigest)
}
