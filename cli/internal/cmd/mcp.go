package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// MCPOptions are the dependencies and flags of `dwire mcp`.
type MCPOptions struct {
	F           *cmdutil.Factory
	Elicitation string
	// ElicitationSet: --elicitation was given (not its default), so a mode
	// looser than the team's gate policy is recorded in the audit trail.
	ElicitationSet bool
	// ServerJSON prints the official MCP registry entry (server.json) of
	// this build instead of serving.
	ServerJSON bool
}

// NewCmdMCP parses `dwire mcp`.
func NewCmdMCP(f *cmdutil.Factory, runF func(context.Context, *MCPOptions) error) *cobra.Command {
	o := &MCPOptions{F: f}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Run the MCP server on stdio (for AI agents)",
		Long: `Run the DevWorkWire MCP server over stdin/stdout for an agent harness.
stdout carries only the protocol; logs go to stderr (one line per tool
call). The tools are the same service as the CLI, behind the same
preview → confirm → commit gate.

The server starts even without a configuration or a token: each tool call
that needs Jira then fails with CONFIG_MISSING, CONFIG_INVALID or
CREDENTIALS_MISSING saying how to fix it in the host, and the
configuration is read again on the next call.

Hosts pass a server only a few environment variables, so give the token
and the configuration in the host's entry for the server:
  {"command": "/usr/local/bin/dwire", "args": ["mcp"],
   "env": {"JIRA_API_TOKEN": "…",
           "DWIRE_CONFIG": "/path/to/.devworkwire.yaml"}}
docs/mcp.md has the entries for Claude Desktop, Claude Code, VS Code and
Cursor.`,
		Args: cobra.NoArgs,
		RunE: runE(o, runF, mcpRun, func(c *cobra.Command, _ []string) { o.ElicitationSet = c.Flags().Changed("elicitation") }),
	}
	c.Flags().StringVar(&o.Elicitation, "elicitation", mcpserver.ElicitationWhenAvailable,
		"ask the person directly on commits: off, when-available or required (the team's gate policy, dwire policy, may be stricter; a looser mode does not take effect and is recorded)")
	c.Flags().BoolVar(&o.ServerJSON, "server-json", false,
		"print this build's entry for the official MCP registry (server.json) and exit")
	return c
}

// mcpRun refuses only a bad command line; everything else (no
// configuration, an invalid one, no token, a store that does not open) is
// reported per tool call, so the host shows the agent why instead of
// "server failed".
func mcpRun(ctx context.Context, o *MCPOptions) error {
	switch o.Elicitation {
	case mcpserver.ElicitationOff, mcpserver.ElicitationWhenAvailable, mcpserver.ElicitationRequired:
	default:
		return invalidFlag("--elicitation", "--elicitation %q is not a mode. Use off, when-available or required.", o.Elicitation)
	}
	ios := o.F.IOStreams
	if o.ServerJSON {
		doc, err := mcpserver.ServerJSON(o.F.Version)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(ios.Out, "%s\n", doc)
		return err
	}
	b := &mcpBackend{f: o.F}
	defer b.close()
	mode := o.Elicitation
	if !o.ElicitationSet {
		mode = "" // the default: not a local choice to record against the policy
	}
	return mcpserver.Serve(ctx, nil, mcpserver.Options{
		Version:     o.F.Version,
		Logger:      mcpLogger(o.F),
		Open:        b.open,
		Policy:      b.policy,
		Elicitation: mode,
	}, ios.In, ios.Out)
}

// mcpLogger logs the server's one line per tool call at the default
// verbosity (the service's own lines only with --verbose).
func mcpLogger(f *cmdutil.Factory) *slog.Logger {
	level := slog.LevelInfo
	if f.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(f.IOStreams.ErrOut, &slog.HandlerOptions{Level: level}))
}

// mcpBackend opens the service on the first tool call that needs it and
// keeps it. Until that succeeds every call tries again from the start:
// fixing .devworkwire.yaml (or creating it) needs no host restart.
type mcpBackend struct {
	f *cmdutil.Factory

	mu  sync.Mutex
	svc cmdutil.Service
	ws  string
	// st is the store opened for the policy or the service (kept for the
	// service when the configuration still names it), stURL its URL.
	st    core.Store
	stURL string
}

// store opens the store cfg names, or returns the one already open for
// the same URL. Call with mu held.
func (b *mcpBackend) store(ctx context.Context, cfg *config.Config) (core.Store, error) {
	if b.st != nil && b.stURL == cfg.StoreURL {
		return b.st, nil
	}
	if b.f.OpenStore == nil {
		return nil, errors.New("cmd: dwire mcp has no store wired")
	}
	st, err := b.f.OpenStore(ctx, cfg, b.f.Logger())
	if err != nil {
		return nil, err
	}
	if b.st != nil {
		_ = b.st.Close()
	}
	b.st, b.stURL = st, cfg.StoreURL
	return st, nil
}

// policy reads the team's gate policy from the state store before the
// server answers initialize, so tools/list names it: it needs the
// configuration but neither Jira nor the token. A store that keeps no
// policy is under the default.
func (b *mcpBackend) policy(ctx context.Context) (core.GatePolicy, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cfg, err := config.Load(b.f.ConfigPath, b.f.WorkDir, b.f.Getenv)
	if err != nil {
		return core.GatePolicy{}, err
	}
	st, err := b.store(ctx, cfg)
	if err != nil {
		return core.GatePolicy{}, err
	}
	if a, ok := st.(core.AuditStore); ok {
		return a.LoadPolicy(ctx)
	}
	return core.DefaultGatePolicy, nil
}

func (b *mcpBackend) open(ctx context.Context) (mcpserver.Service, string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.svc != nil {
		return b.svc, b.ws, nil
	}
	f := b.f
	cfg, err := config.Load(f.ConfigPath, f.WorkDir, f.Getenv)
	if err != nil {
		return nil, "", inHost(err, f, nil)
	}
	tok, err := cfg.Token(f.Getenv)
	if err != nil {
		return nil, "", inHost(err, f, cfg)
	}
	if f.OpenProvider == nil || f.OpenStore == nil || f.NewService == nil {
		return nil, "", errors.New("cmd: dwire mcp has no tracker, store or service wired")
	}
	log := f.Logger()
	p, err := f.OpenProvider(ctx, cfg, tok, log)
	if err != nil {
		return nil, "", err
	}
	st, err := b.store(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	b.svc, b.ws = f.NewService(p, st, cfg, log), cfg.Dir
	return b.svc, b.ws, nil
}

func (b *mcpBackend) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.st != nil {
		_ = b.st.Close()
	}
}

// plainEnvName is a variable name that is safe to repeat in a message (a
// token pasted into jira.token_env is not).
var plainEnvName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{1,63}$`)

// inHost rewrites the configuration and credential errors for a person
// who starts dwire from an MCP host's configuration, not from a shell:
// the fix is in the server's entry there (env, DWIRE_CONFIG).
func inHost(err error, f *cmdutil.Factory, cfg *config.Config) error {
	var e *core.Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	const again = " The server reads the configuration again on the next tool call: no host restart needed."
	switch e.Code {
	case core.CodeConfigMissing:
		where := "in its working directory " + f.WorkDir + " or any folder above it"
		if explicit := firstNonEmpty(f.ConfigPath, f.Getenv(config.EnvConfig)); explicit != "" {
			where = "at " + explicit + " (named by " + config.EnvConfig + ")"
		}
		out.Message = "dwire mcp found no " + config.FileName + " " + where + ". " +
			"Set " + config.EnvConfig + " to the absolute path of your project's " + config.FileName +
			" in the \"env\" of this server in your MCP host's configuration (hosts often start servers in another folder), " +
			"or create the file with `dwire init` in the project folder." + again
	case core.CodeConfigInvalid:
		out.Message = e.Message + again
	case core.CodeCredentialsMissing:
		name := config.DefaultTokenEnv
		if cfg != nil && plainEnvName.MatchString(cfg.TokenEnv) {
			name = cfg.TokenEnv
		}
		out.Message = "The Jira API token is not in this MCP server's environment. MCP hosts pass a server only a few variables (HOME, PATH, …), not your shell's exports: " +
			"add " + name + " to the \"env\" of this server in your MCP host's configuration, or set " + config.EnvConfig +
			" there to a configuration whose jira.token_env names a variable the host passes; then restart the server from the host. " +
			"Create a token at https://id.atlassian.com/manage-profile/security/api-tokens; it never belongs in " + config.FileName + "."
	default:
		return err
	}
	return &out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
