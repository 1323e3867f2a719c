// Package dwire is the composition root of the dwire command: it builds
// the production Factory (Jira adapter, state store, WorkItemService),
// runs the command tree, and turns every outcome — including a panic — into
// one exit code and, on failure, one `Error: CODE: message` block with a
// run id on stderr.
package dwire

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/build"
	"github.com/devworkwire/devworkwire/cli/internal/cmd"
	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// Main runs dwire with the process's arguments and streams and returns the
// exit code: main is os.Exit(dwire.Main()).
func Main() int {
	collectLessOften(os.Getenv)
	ios := iostreams.System(os.Getenv)
	f := NewFactory(ios, os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, f, os.Args[1:])
}

// Garbage collection for a process that reads a document, asks Jira and
// ends: the collector runs when the heap has grown by gcPercent of what is
// live (Go's default is 100), but never lets the heap pass gcMemoryLimit
// unless what is live needs more. A 4.8 MB document of hostile Markdown
// spends 10-19 % of its preview collecting at the default; with these it
// previews in about a quarter less CPU and at most about 210 MB (the bench
// row "hostile Markdown", docs/benchmarks.md). GOGC and GOMEMLIMIT in the
// environment win, as for any Go program.
const (
	gcPercent     = 400
	gcMemoryLimit = 200 << 20
)

// collectLessOften sets gcPercent and gcMemoryLimit where the environment
// (getenv) sets neither GOGC nor GOMEMLIMIT respectively.
func collectLessOften(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcMemoryLimit)
	}
}

// Run executes the command line args with f and returns the exit code. A
// panic anywhere in the command becomes INTERNAL_ERROR (exit 70) with a
// run id, never a stack trace.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) (code int) {
	if f.RunID == "" {
		f.RunID = cmdutil.NewRunID()
	}
	if f.Version == "" {
		f.Version = build.String()
	}
	ios := f.IOStreams
	defer func() {
		if r := recover(); r != nil {
			// The panic value is not printed: it could hold data from a
			// dependency. The run id ties the report to the logs.
			e := core.Errorf(core.CodeInternal, "dwire stopped on an internal fault. Nothing more will be written by this run; if a commit was under way, run the same command again to see what is in Jira. Please report this with the run id.").WithRunID(f.RunID)
			cmdutil.PrintError(ios, ios.ErrOut, e, f.JSON)
			code = cmdutil.ExitInternal
		}
	}()

	root := cmd.NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	started := false
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		started = true
		// Where the previews of this run come from, for a person listing
		// them (dwire review): the command and the account running it.
		c.SetContext(core.WithActor(service.WithMadeBy(c.Context(), madeBy(c.Name(), f.Getenv)), core.Actor{Kind: core.ActorPerson, User: osUser(f.Getenv)}))
	}

	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var ce *core.Error
	if !started && !errors.As(err, &ce) {
		// cobra's own errors (unknown command) happen before any command ran.
		if c == nil {
			c = root
		}
		err = cmd.UsageError(c, errors.New(strings.TrimSuffix(err.Error(), ".")))
		// Flags were not parsed, but the payload is still wanted as JSON.
		f.JSON = f.JSON || slices.Contains(args, "--json")
	}
	e, exit := cmdutil.ErrorOf(err, f.RunID)
	if ctx.Err() != nil && exit != cmdutil.ExitPartial {
		// Interrupted (Ctrl-C, SIGTERM) during a read or a wait: nothing
		// was written, and what broke off is no fault to report. A commit
		// is not cut off this way: it stops between items and reports
		// what was written (exit 4).
		fmt.Fprintln(ios.ErrOut, "Interrupted; nothing was written.")
		return cmdutil.ExitInterrupted
	}
	if e != nil {
		if c != nil {
			e = cmdutil.WithNextStep(e, c.Name(), c.Flags().Args())
		}
		var usage *cmdutil.UsageError
		if errors.As(err, &usage) && !f.JSON {
			cmdutil.PrintUsageError(ios, ios.ErrOut, e)
		} else {
			cmdutil.PrintError(ios, ios.ErrOut, e, f.JSON)
		}
		if f.Verbose && e.Err != nil && e.Code == core.CodeInternal {
			// The cause of an internal error, for whoever debugs it; causes
			// are errors made by this program and its adapters, which never
			// carry the token.
			fmt.Fprintf(ios.ErrOut, "  cause: %v\n", e.Err)
		}
	}
	return exit
}

// madeBy says who or what makes a preview with this command.
func madeBy(command string, getenv func(string) string) string {
	who := osUser(getenv)
	what := "dwire " + command
	if command == "mcp" {
		what = "an agent via dwire mcp"
	}
	if who == "" {
		return what
	}
	return what + ", as " + who
}

// osUser is the operating-system user running dwire ($USER, or
// $USERNAME on Windows); "" when neither is set.
func osUser(getenv func(string) string) string {
	if who := getenv("USER"); who != "" {
		return who
	}
	return getenv("USERNAME")
}
