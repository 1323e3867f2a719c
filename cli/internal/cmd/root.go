package cmd

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/build"
	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
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
commit (some items were written), 70 internal error, 130 interrupted
(nothing written).`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       f.Version,
	}
	// The same line as `dwire version`: the Go version says which
	// toolchain's fixes a binary has.
	root.SetVersionTemplate("dwire version {{.Version}} (" + build.GoVersion() + ")\n")
	pf := root.PersistentFlags()
	pf.StringVar(&f.ConfigPath, "config", "", "configuration file (default: $DWIRE_CONFIG, or .devworkwire.yaml from here upward)")
	pf.BoolVar(&f.JSON, "json", false, "print the result as JSON (the same objects the MCP tools return)")
	pf.BoolVarP(&f.Verbose, "verbose", "v", false, "log details to stderr")
	root.SetUsageTemplate(wrappedFlags(root.UsageTemplate()))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return UsageError(c, err) })

	root.AddCommand(
		NewCmdInit(f, nil),
		NewCmdImport(f, nil),
		NewCmdPull(f, nil),
		NewCmdProgress(f, nil),
		NewCmdList(f, nil),
		NewCmdShow(f, nil),
		NewCmdGraph(f, nil),
		NewCmdExport(f, nil),
		NewCmdReview(f, nil),
		NewCmdLog(f, nil),
		NewCmdPolicy(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdProbe(f, nil),
		NewCmdMCP(f, nil),
		NewCmdVersion(f),
	)
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		// A shell cobra does not complete is refused (it printed the help
		// and exited 0); without a shell, the help.
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return UsageError(c, fmt.Errorf("%q is not a shell dwire completes: use bash, zsh, fish or powershell", args[0]))
		}
	}
	fitHelp(root)
	if m, _, err := root.Find([]string{"mcp"}); err == nil && m.Flags().Lookup("elicitation") != nil {
		_ = m.RegisterFlagCompletionFunc("elicitation", completeElicitation)
	}
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

// helpWidth is the width help text is laid out for (help
// fits 80 columns whatever the terminal).
const helpWidth = 80

// wrappedFlags makes a cobra usage template lay out flag descriptions
// within helpWidth columns.
func wrappedFlags(tmpl string) string {
	w := fmt.Sprintf("(.LocalFlags.FlagUsagesWrapped %d)", helpWidth)
	tmpl = strings.ReplaceAll(tmpl, ".LocalFlags.FlagUsages", w)
	return strings.ReplaceAll(tmpl, ".InheritedFlags.FlagUsages", fmt.Sprintf("(.InheritedFlags.FlagUsagesWrapped %d)", helpWidth))
}

// fitHelp re-wraps the long descriptions of c and its sub-commands (cobra's
// own completion commands among them) at helpWidth columns.
func fitHelp(c *cobra.Command) {
	if strings.Contains(c.Long, "\n") || len(c.Long) > helpWidth {
		var lines []string
		for _, l := range strings.Split(c.Long, "\n") {
			if len([]rune(l)) > helpWidth {
				l = wrapHelpLine(l)
			}
			lines = append(lines, l)
		}
		c.Long = strings.Join(lines, "\n")
	}
	for _, s := range c.Commands() {
		fitHelp(s)
	}
}

func wrapHelpLine(l string) string {
	return render.Wrap(l, helpWidth, "")
}

// UsageError turns a flag, argument or command error into a
// cmdutil.UsageError: VALIDATION_FAILED (exit 1), said once, with a
// pointer to --help and no run id.
func UsageError(c *cobra.Command, err error) error {
	msg := strings.TrimSuffix(strings.TrimSpace(err.Error()), ".")
	help := fmt.Sprintf(" See `%s --help`.", c.CommandPath())
	switch m := unknownCommandRE.FindStringSubmatch(msg); {
	case m != nil:
		msg = fmt.Sprintf("unknown command %q", m[1])
		if s := c.Root().SuggestionsFor(m[1]); len(s) > 0 {
			msg += fmt.Sprintf(". Did you mean %q?", s[0])
			help = ""
		}
	case strings.Contains(msg, "--yes") || strings.Contains(msg, "-y") && strings.Contains(msg, "shorthand"):
		msg += ". There is no --yes: dwire always asks before it writes to Jira"
	case invalidValueRE.MatchString(msg):
		m := invalidValueRE.FindStringSubmatch(msg)
		msg = fmt.Sprintf("%s %q %s", m[2], m[1], notA(m[3]))
	default:
		if m := argCountRE.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("`%s` takes %s, got %s (usage: %s)", c.CommandPath(), args(m[1]), m[2], c.UseLine())
		}
	}
	if help != "" {
		msg += "."
	}
	e := core.Errorf(core.CodeValidationFailed, "%s%s", msg, help).
		WithDetails(core.Detail{Field: "arguments", Message: msg})
	return &cmdutil.UsageError{Err: e}
}

var (
	// cobra: unknown command "imprt" for "dwire"\n\nDid you mean this?\n\timport
	unknownCommandRE = regexp.MustCompile(`^unknown command "([^"]*)" for`)
	// cobra: accepts 1 arg(s), received 0
	argCountRE = regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)$`)
	// pflag: invalid argument "abc" for "-n, --limit" flag: strconv.ParseInt: parsing "abc": invalid syntax
	invalidValueRE = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (.*)$`)
)

// notA says what a flag's value is not, from pflag's parse error (which
// names Go's parser, not what the person should type).
func notA(cause string) string {
	switch {
	case strings.Contains(cause, "value out of range"):
		return "is out of range"
	case strings.Contains(cause, "ParseBool"):
		return "is not true or false"
	case strings.Contains(cause, "ParseInt"), strings.Contains(cause, "ParseUint"):
		return "is not a whole number"
	case strings.Contains(cause, "ParseFloat"):
		return "is not a number"
	case strings.Contains(cause, "duration"):
		return "is not a duration (e.g. 30s, 5m)"
	}
	return "is not a value this flag takes"
}

func args(n string) string {
	if n == "1" {
		return "1 argument"
	}
	return n + " arguments"
}
