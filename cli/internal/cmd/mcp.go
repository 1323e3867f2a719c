package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// MCPOptions are the dependencies and flags of `dwire mcp`.
type MCPOptions struct {
	F           *cmdutil.Factory
	Elicitation string
}

// NewCmdMCP parses `dwire mcp`.
func NewCmdMCP(f *cmdutil.Factory, runF func(context.Context, *MCPOptions) error) *cobra.Command {
	o := &MCPOptions{F: f}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Run the MCP server on stdio (for AI agents)",
		Long: `Run the DevWorkWire MCP server over stdin/stdout for an agent harness.
stdout carries only the protocol; logs go to stderr. The tools are the same
service as the CLI, behind the same preview → confirm → commit gate.

Example harness entry:
  {"command": "dwire", "args": ["mcp"], "env": {"JIRA_API_TOKEN": "…"}}`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mcpRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Elicitation, "elicitation", mcpserver.ElicitationWhenAvailable,
		"ask the person directly on commits: off, when-available or required")
	return c
}

func mcpRun(ctx context.Context, o *MCPOptions) error {
	switch o.Elicitation {
	case mcpserver.ElicitationOff, mcpserver.ElicitationWhenAvailable, mcpserver.ElicitationRequired:
	default:
		return invalidFlag("--elicitation", "--elicitation %q is not a mode. Use off, when-available or required.", o.Elicitation)
	}
	svc, cfg, closeFn, err := o.F.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	ios := o.F.IOStreams
	return mcpserver.Serve(ctx, svc, mcpserver.Options{
		Version:     o.F.Version,
		Logger:      o.F.Logger(),
		Workspace:   cfg.Dir,
		Elicitation: o.Elicitation,
	}, ios.In, ios.Out)
}
