package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/core"
)

// NewCmdRoot builds the dwire command tree over f.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "dwire",
		Short: "Put a planning document into Jira exactly once, behind preview → confirm → commit",
		Long: `dwire puts planned work (epics → stories → acceptance criteria, in
Markdown or YAML) into Jira Cloud exactly once, however often the plan is
re-imported, and lets you see what is ready and report progress.

Every write goes through one gate: a preview that writes nothing, your
explicit confirmation (the answer defaults to no), then a commit of exactly
the plan you saw. There is no flag that skips the confirmation.

Exit codes: 0 success or declined, 1 nothing written (validation or the
gate refused), 2 configuration or credentials, 3 Jira error, 4 partial
commit (some items were written), 70 internal error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       f.Version,
	}
	root.SetVersionTemplate("dwire version {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&f.ConfigPath, "config", "", "configuration file (default: .devworkwire.yaml from here upward, or $DWIRE_CONFIG)")
	pf.BoolVar(&f.JSON, "json", false, "print the result as JSON (the same objects the MCP tools return)")
	pf.BoolVarP(&f.Verbose, "verbose", "v", false, "log details to stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return UsageError(c, err) })

	root.AddCommand(
		NewCmdInit(f, nil),
		NewCmdImport(f, nil),
		NewCmdProgress(f, nil),
		NewCmdList(f, nil),
		NewCmdShow(f, nil),
		NewCmdReview(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdMCP(f, nil),
		NewCmdVersion(f),
	)
	for _, c := range root.Commands() {
		if c.Args != nil {
			args := c.Args
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return UsageError(cmd, err)
				}
				return nil
			}
		}
	}
	return root
}

// UsageError turns a flag or argument error into VALIDATION_FAILED (exit
// 1) with a pointer to --help.
func UsageError(c *cobra.Command, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "--yes") || strings.Contains(msg, "-y") && strings.Contains(msg, "shorthand") {
		msg += ". There is no --yes: dwire always asks before it writes to Jira"
	}
	return core.Errorf(core.CodeValidationFailed, "%s. See `%s --help`.", msg, c.CommandPath()).
		WithDetails(core.Detail{Field: "arguments", Message: msg})
}
