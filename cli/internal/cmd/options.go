package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
)

// ServiceOptions are what every command that calls the service holds: its
// streams, the service opener and the root --json flag. The commands'
// Options embed it.
type ServiceOptions struct {
	IO      *iostreams.IOStreams
	Service cmdutil.OpenServiceFunc
	JSON    bool
}

func serviceOptions(f *cmdutil.Factory) ServiceOptions {
	return ServiceOptions{IO: f.IOStreams, Service: f.OpenService}
}

// runE is the RunE of a command built by NewCmdX(f, runF): set copies the
// arguments and the root flags (known only once cobra parsed them) into o,
// then runF, when a test gave one, or else run does the work with o.
func runE[O any](o *O, runF, run func(context.Context, *O) error, set func(c *cobra.Command, args []string)) func(*cobra.Command, []string) error {
	if runF != nil {
		run = runF
	}
	return func(c *cobra.Command, args []string) error {
		set(c, args)
		return run(c.Context(), o)
	}
}
