package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/build"
	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
)

// VersionResult is `dwire version --json`.
type VersionResult struct {
	Version string `json:"version"`
	Go      string `json:"go,omitempty"`
}

// NewCmdVersion parses `dwire version`.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the dwire version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			r := VersionResult{Version: f.Version, Go: build.GoVersion()}
			if f.JSON {
				return printJSON(f.IOStreams.Out, r)
			}
			fmt.Fprintf(f.IOStreams.Out, "dwire version %s (%s)\n", r.Version, r.Go)
			return nil
		},
	}
}
