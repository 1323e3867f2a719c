package cmd

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/prompt"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira"
)

// InitOptions are the dependencies and flags of `dwire init`.
type InitOptions struct {
	IO *iostreams.IOStreams
	// Getenv reads the environment (the token, JIRA_EMAIL).
	Getenv func(string) string
	// WorkDir is where the file is written unless ConfigPath says otherwise.
	WorkDir    string
	ConfigPath string // --config
	JSON       bool
	// OpenProvider opens the tracker for cfg with the token, to check it.
	OpenProvider func(ctx context.Context, cfg *config.Config, token string) (core.WorkItemProvider, error)

	// Detect asks the site which Jira it is (nil: not asked, Cloud).
	Detect func(ctx context.Context, site string) (deployment, version string, err error)
	// FindCloudID asks a Jira Cloud site for its cloud id (--scoped-token).
	FindCloudID func(ctx context.Context, site string) (string, error)
	// ScopedToken builds jira.api_url from the site's cloud id.
	ScopedToken bool

	Site           string
	Deployment     string
	APIURL         string
	Project        string
	Email          string
	ReferenceField string
	TokenEnv       string
	Store          string
	Force          bool

	detected bool // the site was asked which Jira it is
}

// InitResult is `dwire init --json`.
type InitResult struct {
	Path    string `json:"path"`
	Site    string `json:"site"`
	Project string `json:"project"`
	Checked bool   `json:"checked"`
}

// NewCmdInit parses `dwire init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	o := &InitOptions{IO: f.IOStreams, Getenv: f.Getenv, WorkDir: f.WorkDir, OpenProvider: f.OpenTracker, Detect: f.DetectSite, FindCloudID: f.FindCloudID}
	c := &cobra.Command{
		Use:   "init",
		Short: "Create .devworkwire.yaml, checked against Jira",
		Long: `Write .devworkwire.yaml in the current folder (or at --config). In a
terminal it asks for anything not given as a flag. Before writing, it
checks the credentials, the project, the issue types and the reference
field against Jira, and says exactly how to create the field if it is
missing. It asks the site whether it is Jira Cloud or Jira Data Center
(GET /rest/api/2/serverInfo) and writes jira.deployment; on Data Center
the token is a personal access token and no e-mail is asked. The API
token is read from the environment (JIRA_API_TOKEN, or the variable named
with --token-env) and is never written to the file.`,
		Example: "  export JIRA_API_TOKEN=…\n  dwire init\n  dwire init --site https://acme.atlassian.net --project PROJ \\\n      --email me@acme.com\n  # Jira Data Center: a personal access token in JIRA_API_TOKEN\n  dwire init --site https://jira.example.com --project PROJ",
		Args:    cobra.NoArgs,
		RunE:    runE(o, runF, initRun, func(*cobra.Command, []string) { o.ConfigPath, o.JSON = f.ConfigPath, f.JSON }),
	}
	fl := c.Flags()
	fl.StringVar(&o.Site, "site", "", "Jira site, e.g. https://your-team.atlassian.net or https://jira.example.com")
	fl.StringVar(&o.Deployment, "deployment", "", "cloud or datacenter (default: what the site says it is)")
	fl.StringVar(&o.APIURL, "api-url", "", "REST base URL when it differs from the site (scoped tokens)")
	fl.StringVar(&o.Project, "project", "", "Jira project key, e.g. PROJ")
	fl.StringVar(&o.Email, "email", "", "e-mail of the Atlassian account owning the token")
	fl.StringVar(&o.ReferenceField, "reference-field", "", "reference custom field id or name (default \"DevWorkWire Reference\")")
	fl.StringVar(&o.TokenEnv, "token-env", "", "environment variable holding the token (default JIRA_API_TOKEN)")
	fl.StringVar(&o.Store, "store", "", "state store URL (default: SQLite in the user state folder)")
	fl.BoolVar(&o.ScopedToken, "scoped-token", false, "the token is an API token with scopes: find the site's cloud id and use Atlassian's gateway")
	fl.BoolVar(&o.Force, "force", false, "replace an existing configuration file")
	return c
}

func initRun(ctx context.Context, o *InitOptions) error {
	ios := o.IO
	path := inWorkDir(o.WorkDir, cmp.Or(o.ConfigPath, config.FileName))
	interactive := ios.CanPrompt()
	var rd *bufio.Reader
	if interactive {
		rd = bufio.NewReader(ios.In)
	}

	if _, err := os.Stat(path); err == nil && !o.Force {
		if !interactive {
			return core.Errorf(core.CodeConfigInvalid, "%s already exists. Edit it, or pass --force to replace it.", path)
		}
		v, err := prompt.Input(ctx, rd, ios.ErrOut, path+" exists. Replace it? [y/N]", "")
		if err != nil || !isYes(v) {
			fmt.Fprintln(ios.ErrOut, "Skipped: the existing configuration was kept.")
			return nil
		}
	}

	// The token first: without it nothing can be checked, so find that out
	// before any question. In a terminal it may be pasted
	// (hidden) for this check; it is never written to the file.
	tokenEnv := strings.TrimSpace(o.TokenEnv)
	if tokenEnv == "" {
		tokenEnv = config.DefaultTokenEnv
	}
	if !config.ValidEnvName(tokenEnv) {
		return config.InvalidTokenEnv()
	}
	token := strings.TrimSpace(o.Getenv(tokenEnv))
	pasted := false
	if token == "" {
		// A site given on the command line is asked which Jira it is
		// first (serverInfo needs no token), so the token is named in its
		// words: an API token on Cloud, a personal access token on Data
		// Center.
		o.detectDeployment(ctx)
		tw := tokenWordsFor(o.Deployment, o.detected)
		if !interactive {
			return core.Errorf(core.CodeCredentialsMissing,
				"The Jira %s is not set: export %s=<your token> (%s), then run dwire init again. Nothing was asked and nothing was written.", tw.name, tokenEnv, tw.create).
				WithDetails(core.Detail{Field: "jira.token_env", Message: "set the environment variable " + tokenEnv})
		}
		fmt.Fprintf(ios.ErrOut, "%s is not set. Paste your Jira %s to check the configuration now (input hidden;\nit is used for this check only and never written to the file), or press Ctrl-C and\nexport %s=<your token> first (%s).\n", tokenEnv, tw.name, tokenEnv, tw.create)
		t, err := ios.ReadSecret(ctx, tw.prompt+": ", rd)
		if err != nil || t == "" {
			fmt.Fprintln(ios.ErrOut, "Skipped: no token given; no configuration was written.")
			return nil
		}
		token, pasted = t, true
	}

	ask := func(val *string, flag, question, def string, required bool) error {
		if *val != "" {
			return nil
		}
		if !interactive {
			if required {
				return core.Errorf(core.CodeConfigInvalid, "%s is required: this is not a terminal, so dwire init cannot ask for it.", flag).
					WithDetails(core.Detail{Field: flag, Message: "pass " + flag})
			}
			return nil
		}
		v, err := prompt.Input(ctx, rd, ios.ErrOut, question, def)
		if err != nil {
			return err
		}
		if v != def {
			*val = v
		}
		return nil
	}
	steps := []struct {
		val                 *string
		flag, question, def string
		required            bool
	}{
		{&o.Site, "--site", "Jira site (e.g. https://your-team.atlassian.net)", "", true},
		{&o.Project, "--project", "Project key (PROJ in PROJ-12)", "", true},
		{&o.Email, "--email", "Your Atlassian account e-mail", o.Getenv(config.DefaultEmailEnv), false},
		{&o.ReferenceField, "--reference-field", "Reference field (id or name)", config.DefaultReferenceField, false},
	}
	if !interactive {
		if err := o.missingFlags(ctx); err != nil {
			return err
		}
	}
	for i, s := range steps {
		if i == 2 { // the site is known: which Jira is it?
			o.detectDeployment(ctx)
			if o.Deployment == config.DeploymentDataCenter {
				continue // a personal access token needs no e-mail
			}
		}
		if err := ask(s.val, s.flag, s.question, s.def, s.required); err != nil {
			if errors.Is(err, prompt.ErrInterrupted) {
				fmt.Fprintln(ios.ErrOut, "Skipped: interrupted; no configuration was written.")
				return nil
			}
			return err
		}
	}

	if err := o.gateway(ctx); err != nil {
		return err
	}
	file := config.File{
		Jira: config.JiraFile{
			Site: strings.TrimSpace(o.Site), APIURL: strings.TrimSpace(o.APIURL), Deployment: o.Deployment,
			Project: strings.ToUpper(strings.TrimSpace(o.Project)), Email: strings.TrimSpace(o.Email),
			ReferenceField: strings.TrimSpace(o.ReferenceField), TokenEnv: strings.TrimSpace(o.TokenEnv),
		},
		Store: strings.TrimSpace(o.Store),
	}
	data, err := config.Marshal(file)
	if err != nil {
		return err
	}
	getenv := o.Getenv
	if pasted {
		getenv = func(k string) string {
			if k == tokenEnv {
				return token
			}
			return o.Getenv(k)
		}
	}
	cfg, err := config.Parse(path, data, getenv)
	if err != nil {
		return keepAnswers(ctx, ios, rd, interactive, path, data, err)
	}
	tok, err := cfg.Token(getenv)
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "Checking %s (project %s) …\n", cfg.Site, cfg.Project)
	p, err := o.OpenProvider(ctx, cfg, tok)
	if err == nil {
		err = p.Check(ctx)
	}
	if err != nil {
		e := core.AsError(err)
		if e.Code == core.CodeReferenceFieldMissing {
			// The tracker's message already says how to create the field
			// (with the configured name); add only the next step.
			e.Message = strings.TrimRight(e.Message, ". ") + ". Then run dwire init again."
		}
		if e.Code == core.CodeJiraPermissionDenied {
			e.Message = strings.TrimRight(e.Message, ". ") + ". Fix: " + PermissionFix(e, cfg.Project) + ", then run dwire init again."
		}
		return keepAnswers(ctx, ios, rd, interactive, path, data, e)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return core.Wrap(err, core.CodeConfigInvalid, "Could not write %s: check that the folder exists and is writable.", path)
	}
	if o.JSON {
		return printJSON(ios.Out, InitResult{Path: path, Site: cfg.Site, Project: cfg.Project, Checked: true})
	}
	fmt.Fprintf(ios.Out, "Wrote %s (checked against %s, project %s).\n", path, cfg.Site, cfg.Project)
	if pasted {
		fmt.Fprintf(ios.Out, "The token you pasted was not saved: export %s=<your token> (e.g. in your shell profile) before running dwire.\n", tokenEnv)
	}
	if u := strings.ToLower(file.Store); strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		sharedStoreNote(ios.Out)
	}
	fmt.Fprintf(ios.Out, "Next: dwire doctor, then dwire import <plan.md> --dry-run\n")
	return nil
}

// missingFlags is, without a terminal, every flag dwire init needs and was
// not given, in one error (CONFIG_INVALID naming each flag): --site,
// --project, and --email on Jira Cloud unless JIRA_EMAIL is set (a site
// that says it is Data Center needs none). Nil when none is missing.
func (o *InitOptions) missingFlags(ctx context.Context) error {
	var missing []string
	for _, f := range []struct{ val, flag string }{{o.Site, "--site"}, {o.Project, "--project"}} {
		if strings.TrimSpace(f.val) == "" {
			missing = append(missing, f.flag)
		}
	}
	email := "--email"
	if strings.TrimSpace(o.Email) == "" && o.Getenv(config.DefaultEmailEnv) == "" {
		if strings.TrimSpace(o.Site) != "" {
			o.detectDeployment(ctx)
		} else {
			email = "--email (unless the site is Jira Data Center)"
		}
		if o.Deployment != config.DeploymentDataCenter {
			missing = append(missing, email)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var details []core.Detail // one per flag, for --json (the message names them all)
	for _, m := range missing {
		flag, _, _ := strings.Cut(m, " ")
		details = append(details, core.Detail{Field: flag, Message: m})
	}
	return core.Errorf(core.CodeConfigInvalid, "dwire init needs %s: this is not a terminal, so it cannot ask for %s. Nothing was written.",
		joinAnd(missing), map[bool]string{true: "it", false: "them"}[len(missing) == 1]).WithDetails(details...)
}

// detectDeployment sets the deployment from the site's serverInfo unless
// --deployment gave it; a site that does not answer is left to the check
// (which names the problem) as Cloud, the default. The site is asked once.
func (o *InitOptions) detectDeployment(ctx context.Context) {
	o.Deployment = strings.ToLower(strings.TrimSpace(o.Deployment))
	if o.Deployment != "" || o.detected || o.Detect == nil || strings.TrimSpace(o.Site) == "" {
		return
	}
	d, version, err := o.Detect(ctx, strings.TrimSpace(o.Site))
	o.detected = err == nil
	if err != nil || d == config.DeploymentCloud {
		return
	}
	o.Deployment = d
	fmt.Fprintf(o.IO.ErrOut, "%s is Jira Data Center %s: the token is a personal access token (your Jira profile → Personal Access Tokens); no e-mail is needed.\n", strings.TrimSpace(o.Site), version)
}

// tokenWords names the token dwire init asks for.
type tokenWords struct{ name, create, prompt string }

// tokenWordsFor is the token of a deployment ("" is Cloud once the site
// said so, else not known yet: both are named).
func tokenWordsFor(deployment string, detected bool) tokenWords {
	const cloud = "create one at https://id.atlassian.com/manage-profile/security/api-tokens"
	const dc = "create one in Jira: your profile → Personal Access Tokens"
	switch {
	case deployment == config.DeploymentDataCenter:
		return tokenWords{"personal access token", dc, "Personal access token"}
	case deployment == config.DeploymentCloud || detected:
		return tokenWords{"API token", cloud, "API token"}
	}
	return tokenWords{"API token (Jira Cloud) or personal access token (Jira Data Center)",
		"Cloud: " + cloud + "; Data Center: " + dc, "Token"}
}

// sharedStoreNote tells whoever configures a shared (Postgres) store that
// the team's gate policy lives in it, and what each choice means.
func sharedStoreNote(w io.Writer) {
	fmt.Fprint(w, render.Wrap("This state store is shared: the team's gate policy for agents' commits is kept in it and binds every member and agent using it. A person sets it with dwire policy set agents <value> (dwire policy shows it; a local dwire mcp --elicitation may tighten it, never loosen it):", 80, "")+"\n")
	for _, p := range core.AgentPolicies {
		line := fmt.Sprintf("  %-13s %s", p, p.Meaning())
		if p == core.DefaultGatePolicy.Agents {
			line += " (the default)"
		}
		fmt.Fprint(w, render.Wrap(line, 78, "              ")+"\n")
	}
}

// keepAnswers is init's answer to a failed check: the answers given so far
// are not lost. In a terminal it shows the problem and offers to write the
// file anyway (to fix and check with dwire doctor), else prints it; without
// a terminal (every answer was a flag) nothing is written.
func keepAnswers(ctx context.Context, ios *iostreams.IOStreams, rd *bufio.Reader, interactive bool, path string, data []byte, cause error) error {
	if !interactive {
		fmt.Fprintf(ios.ErrOut, "Nothing was written to %s.\n", path)
		return cause
	}
	e := core.AsError(cause)
	cmdutil.PrintError(ios, ios.ErrOut, e, false)
	v, err := prompt.Input(ctx, rd, ios.ErrOut, fmt.Sprintf("Write %s anyway, to fix it and check it with dwire doctor? [y/N]", path), "")
	if err == nil && isYes(v) {
		if werr := os.WriteFile(path, data, 0o644); werr != nil {
			return core.Wrap(werr, core.CodeConfigInvalid, "Could not write %s: check that the folder exists and is writable.", path)
		}
		fmt.Fprintf(ios.ErrOut, "Wrote %s (not checked: fix the problem above, then run dwire doctor).\n", path)
	} else {
		fmt.Fprintf(ios.ErrOut, "Nothing was written to %s. Your answers, to save by hand:\n\n", path)
		fmt.Fprint(ios.Out, string(data))
	}
	return &cmdutil.ErrSilent{Code: e.Code}
}

func isYes(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "y" || s == "yes"
}

// redactURL hides a password in a store URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// GatewayEnv overrides Atlassian's gateway host for --scoped-token (a test
// or a proxy; default https://api.atlassian.com).
const GatewayEnv = "DWIRE_ATLASSIAN_GATEWAY"

// gateway sets jira.api_url for an API token with scopes: Atlassian's
// gateway with the site's cloud id, which it asks the site for (GET
// /_edge/tenant_info, no credentials) — a URL nobody should have to build.
func (o *InitOptions) gateway(ctx context.Context) error {
	if !o.ScopedToken || strings.TrimSpace(o.APIURL) != "" {
		return nil
	}
	if o.Deployment == config.DeploymentDataCenter {
		return core.Errorf(core.CodeConfigInvalid, "--scoped-token is for Jira Cloud; %s is Jira Data Center, whose personal access token needs no gateway. Leave --scoped-token out.", strings.TrimSpace(o.Site)).
			WithDetails(core.Detail{Field: "--scoped-token", Message: "Jira Cloud only"})
	}
	if o.FindCloudID == nil {
		return nil
	}
	id, err := o.FindCloudID(ctx, strings.TrimSpace(o.Site))
	if err != nil {
		return err
	}
	host := jira.GatewayHost
	if h := strings.TrimRight(strings.TrimSpace(o.Getenv(GatewayEnv)), "/"); h != "" {
		host = h
	}
	o.APIURL = host + "/ex/jira/" + id
	fmt.Fprintf(o.IO.ErrOut, "Cloud id %s: requests go through %s (jira.api_url), as API tokens with scopes need.\n", id, o.APIURL)
	return nil
}
