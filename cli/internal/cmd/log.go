package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// LogOptions are the dependencies and flags of `dwire log`.
type LogOptions struct {
	ServiceOptions

	Document, Item, Who, Channel string
	Since, Until                 string
	Limit                        int
	// Now is the clock --since and --until durations count back from.
	Now func() time.Time
}

// NewCmdLog parses `dwire log`.
func NewCmdLog(f *cmdutil.Factory, runF func(context.Context, *LogOptions) error) *cobra.Command {
	o := &LogOptions{ServiceOptions: serviceOptions(f), Now: f.Now}
	c := &cobra.Command{
		Use:   "log",
		Short: "Show who previewed and who confirmed what (read-only)",
		Long: `Show the audit trail of the state store, newest first: every preview (who
made it: a person at a terminal, or an agent through dwire mcp with its
client's name and version), every commit attempt (its start, recorded before
the first write, and its end: who confirmed it, through which channel, the
Jira account the writes went out as, the outcome and the keys written), every
commit the gate policy refused, and every change of the policy.

Channels: prompt (the confirmation prompt of dwire import, progress or pull),
review (dwire review), elicitation (the agent's host asked the person, who
accepted), agent (the agent's own confirmed: true). It writes nothing.`,
		Example: "  dwire log\n  dwire log --document checkout --since 168h\n  dwire log --who claude-code --channel agent --json",
		Args:    cobra.NoArgs,
		RunE:    runE(o, runF, logRun, func(*cobra.Command, []string) { o.JSON = f.JSON }),
	}
	fl := c.Flags()
	fl.StringVar(&o.Document, "document", "", "only records of this document id")
	fl.StringVar(&o.Item, "item", "", "only records of this work item key (a progress update, or a key a commit wrote)")
	fl.StringVar(&o.Who, "who", "", "only records of this person (operating-system user) or agent (client name), or of person or agent")
	fl.StringVar(&o.Channel, "channel", "", "only commits confirmed through this channel: prompt, review, elicitation or agent")
	fl.StringVar(&o.Since, "since", "", "only records at or after this time (RFC 3339, e.g. 2026-03-01T00:00:00Z) or this long ago (e.g. 24h)")
	fl.StringVar(&o.Until, "until", "", "only records before this time (RFC 3339) or this long ago")
	fl.IntVar(&o.Limit, "limit", service.DefaultAuditLimit, "most records to show")
	_ = c.RegisterFlagCompletionFunc("channel", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, ch := range core.Channels {
			out = append(out, string(ch))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// logTime reads --since or --until: an RFC 3339 time, or a duration back
// from now.
func logTime(flag, s string, now func() time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		if now == nil {
			now = time.Now
		}
		return now().Add(-d), nil
	}
	return time.Time{}, invalidFlag(flag, "%s %q is neither a time (RFC 3339, e.g. 2026-03-01T00:00:00Z) nor a duration back from now (e.g. 24h).", flag, s)
}

func logRun(ctx context.Context, o *LogOptions) error {
	f := core.AuditFilter{Document: strings.TrimSpace(o.Document), Item: strings.TrimSpace(o.Item), Who: strings.TrimSpace(o.Who), Channel: core.Channel(strings.TrimSpace(o.Channel))}
	if f.Channel != "" && !slices.Contains(core.Channels, f.Channel) {
		return invalidFlag("--channel", "--channel %q is not a channel. Use prompt, review, elicitation or agent.", o.Channel)
	}
	if o.Limit < 1 {
		return invalidFlag("--limit", "--limit %d is out of range. Use 1 or more.", o.Limit)
	}
	var err error
	if f.Since, err = logTime("--since", o.Since, o.Now); err != nil {
		return err
	}
	if f.Until, err = logTime("--until", o.Until, o.Now); err != nil {
		return err
	}
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := svc.AuditLog(ctx, service.AuditQuery{Filter: f, Limit: o.Limit})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO.Out, render.Clean(res))
	}
	render.AuditLog(o.IO.Out, res, viewOpts(o.IO, false))
	return nil
}

// PolicyOptions are the dependencies and arguments of `dwire policy`.
type PolicyOptions struct {
	ServiceOptions

	// Set is the new value for agents ("" shows the policy).
	Set string
}

// NewCmdPolicy parses `dwire policy` and `dwire policy set agents <value>`.
func NewCmdPolicy(f *cmdutil.Factory, runF func(context.Context, *PolicyOptions) error) *cobra.Command {
	o := &PolicyOptions{ServiceOptions: serviceOptions(f)}
	c := &cobra.Command{
		Use:   "policy",
		Short: "Show the team's gate policy for agents' commits",
		Long: `Show the gate policy stored with the team's state (the state store): what an
agent may commit. It binds every member and every agent using the store; a
local setting (dwire mcp --elicitation) may tighten it, never loosen it, and
a looser setting is recorded in the audit trail (dwire log).

  agents: confirm       ` + core.PolicyConfirm.Meaning() + ` (the default)
  agents: ask-person    ` + core.PolicyAskPerson.Meaning() + `
  agents: preview-only  ` + core.PolicyPreviewOnly.Meaning(),
		Example: "  dwire policy\n  dwire policy set agents ask-person",
		Args:    cobra.NoArgs,
		RunE:    runE(o, runF, policyRun, func(*cobra.Command, []string) { o.JSON = f.JSON }),
	}
	set := &cobra.Command{
		Use:       "set agents <confirm|ask-person|preview-only>",
		Short:     "Set the gate policy for agents' commits (asks to confirm)",
		Example:   "  dwire policy set agents ask-person\n  dwire policy set agents preview-only",
		ValidArgs: []string{"agents"},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "agents" {
				return invalidFlag("agents", "Use: dwire policy set agents confirm|ask-person|preview-only.")
			}
			return nil
		},
		RunE: runE(o, runF, policyRun, func(_ *cobra.Command, args []string) { o.JSON, o.Set = f.JSON, strings.TrimSpace(args[1]) }),
	}
	c.AddCommand(set)
	return c
}

func policyRun(ctx context.Context, o *PolicyOptions) error {
	ios := o.IO
	if o.Set != "" {
		if err := core.CheckPolicy(core.GatePolicy{Agents: core.AgentPolicy(o.Set)}); err != nil {
			return invalidFlag("agents", "%s", core.AsError(err).Message) // one line: its detail only repeated it
		}
	}
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	p, err := svc.GatePolicy(ctx)
	if err != nil {
		return err
	}
	if o.Set != "" {
		want := core.AgentPolicy(o.Set)
		if !ios.CanPrompt() {
			return core.Errorf(core.CodeConfirmationRequired, "Setting the gate policy needs a person to confirm it at a terminal; nothing was changed. Run dwire policy set agents %s in a terminal.", want)
		}
		fmt.Fprintf(ios.ErrOut, "The gate policy for agents is %s: %s.\nIt becomes %s: %s.\nThis binds every member and agent sharing this state store.\n", p.Agents, p.Agents.Meaning(), want, want.Meaning())
		ok, err := ask(ctx, ios, fmt.Sprintf("Set agents: %s?", want))
		if err != nil {
			return core.Errorf(core.CodeConfirmationRequired, "Setting the gate policy needs a person to confirm it at a terminal; nothing was changed.")
		}
		if !ok {
			fmt.Fprintln(ios.ErrOut, "Nothing was changed.")
			return nil
		}
		if p, err = svc.SetGatePolicy(ctx, want); err != nil {
			return err
		}
	}
	if o.JSON {
		return printJSON(ios.Out, render.Clean(p))
	}
	fmt.Fprintf(ios.Out, "agents: %s\n  %s\n", p.Agents, p.Agents.Meaning())
	if p.SetBy != nil {
		fmt.Fprintf(ios.Out, "  set by %s, %s\n", render.CleanText(p.SetBy.String()), render.FormatTime(p.SetAt))
	} else {
		fmt.Fprintln(ios.Out, "  (the default: nobody set a policy for this store)")
	}
	return nil
}
