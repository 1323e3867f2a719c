package cmd

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/cli/internal/storeurl"
	"github.com/devworkwire/devworkwire/core"
)

// DoctorOptions are the dependencies of `dwire doctor`.
type DoctorOptions struct {
	IO    *iostreams.IOStreams
	JSON  bool
	RunID string
	// Getenv reads the environment (the token).
	Getenv func(string) string
	// Config loads the configuration.
	Config func() (*config.Config, error)
	// Provider opens the tracker of the configuration.
	Provider func(ctx context.Context) (core.WorkItemProvider, *config.Config, error)
	// OpenStore opens the state store of cfg.
	OpenStore func(ctx context.Context, cfg *config.Config) (core.Store, error)
	// FindCloudID asks a Jira Cloud site for its cloud id (the gateway
	// line; nil: the line is left out).
	FindCloudID func(ctx context.Context, site string) (string, error)
}

// Check is one line of the doctor's report (also its --json form).
type Check struct {
	Name    string    `json:"name"`
	OK      bool      `json:"ok"`
	Detail  string    `json:"detail,omitempty"`
	Code    core.Code `json:"code,omitempty"`
	Fix     string    `json:"fix,omitempty"`
	Skipped bool      `json:"skipped,omitempty"`
}

// ResultDoctor is the result_type of `dwire doctor --json`: not a preview
// (nothing can be committed from it) and not a commit.
const ResultDoctor = "doctor"

// DoctorResult is the doctor's report.
type DoctorResult struct {
	ResultType string  `json:"result_type"` // "doctor": a report of its own kind (it writes nothing)
	RunID      string  `json:"run_id"`
	OK         bool    `json:"ok"`
	Checks     []Check `json:"checks"`
}

// NewCmdDoctor parses `dwire doctor`.
func NewCmdDoctor(f *cmdutil.Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	o := &DoctorOptions{IO: f.IOStreams, Getenv: f.Getenv, Config: f.Config, Provider: f.Provider, OpenStore: f.OpenStateStore, FindCloudID: f.FindCloudID}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check config, credentials, Jira project, reference field and store",
		Long: `Check everything dwire needs, in order — configuration file, credentials,
Jira (credentials accepted, project, issue types, reference field) and the
state store — and say for each what is wrong and how to fix it. Writes
nothing anywhere.`,
		Args: cobra.NoArgs,
		RunE: runE(o, runF, doctorRun, func(*cobra.Command, []string) { o.JSON, o.RunID = f.JSON, f.RunID }),
	}
}

func failed(name string, err error) Check {
	e := core.AsError(err)
	return Check{Name: name, Code: e.Code, Detail: e.Message, Fix: fixFor(e.Code)}
}

func fixFor(c core.Code) string {
	switch c {
	case core.CodeConfigMissing:
		return "run `dwire init`"
	case core.CodeConfigInvalid:
		return "edit the field named above (docs/configuration.md)"
	case core.CodeCredentialsMissing:
		return "export the token variable named above"
	case core.CodeReferenceFieldMissing:
		return "create the field as described above (or name an existing short-text field in jira.reference_field), then run `dwire doctor` again"
	case core.CodeJiraUnauthorized:
		return "check jira.email and create a new API token"
	case core.CodeJiraPermissionDenied:
		return "ask a Jira administrator of the project for the permissions named above (Project settings → Permissions)"
	case core.CodeJiraUnavailable, core.CodeJiraRateLimited:
		return "check the site URL and your network, then try again"
	}
	return ""
}

func doctorRun(ctx context.Context, o *DoctorOptions) error {
	ios := o.IO
	res := DoctorResult{ResultType: ResultDoctor, RunID: o.RunID}
	var first core.Code
	add := func(c Check) {
		res.Checks = append(res.Checks, c)
		if !c.OK && !c.Skipped && first == "" {
			first = c.Code
		}
	}
	skip := func(name, why string) { add(Check{Name: name, Skipped: true, Detail: why}) }

	cfg, err := o.Config()
	if err != nil {
		add(failed("config", err))
		skip("credentials", "needs a valid configuration")
		for _, n := range skippedNames {
			skip(n, "needs a valid configuration")
		}
		skip("store", "needs a valid configuration")
	} else {
		add(Check{Name: "config", OK: true, Detail: cfg.Path})
		if _, err := cfg.Token(o.Getenv); err != nil {
			add(failed("credentials", err))
			for _, n := range skippedNames {
				skip(n, "needs credentials")
			}
		} else {
			who := "account " + cfg.Email
			if cfg.Deployment == config.DeploymentDataCenter {
				who = "a personal access token"
			}
			add(Check{Name: "credentials", OK: true, Detail: fmt.Sprintf("%s is set (%s)", cfg.TokenEnv, who)})
			p, _, err := o.Provider(ctx)
			if err == nil {
				err = p.Check(ctx)
			}
			checks := jiraChecks(cfg, err)
			if onlyOtherPermissions(err) {
				// The checks after the permissions need only Browse,
				// Create and Edit: run them too, each on its own line.
				if sc, ok := p.(setupChecker); ok {
					after := jiraChecks(cfg, sc.CheckSetup(ctx))
					for i := range checks {
						if checks[i].Name == "reference field" || checks[i].Name == "issue types" {
							checks[i] = after[i]
						}
					}
				}
			}
			checks = append(checks, subtaskCheck(ctx, cfg, p, checks))
			for _, c := range checks {
				if c.Name == "reference field" && c.OK {
					c.Detail = referenceFieldDetail(cfg, p)
				}
				add(c)
				if c.Name == "site" {
					if g, ok := gatewayCheck(ctx, cfg, o.FindCloudID); ok {
						add(g)
					}
				}
			}
		}
		st, err := o.OpenStore(ctx, cfg)
		if err != nil {
			add(failed("store", err))
		} else {
			_ = st.Close()
			add(Check{Name: "store", OK: true, Detail: storeLabel(cfg)})
		}
	}
	res.OK = first == ""
	if o.JSON {
		if err := printJSON(ios.Out, res); err != nil {
			return err
		}
	} else {
		cs := ios.ColorScheme(false)
		// On a terminal each line is wrapped at its width, continuing under
		// the detail column; piped, each check stays one line.
		wrap := func(s string) string { return s }
		if ios.IsStdoutTTY() {
			wrap = func(s string) string { return render.Wrap(s, ios.Width(), strings.Repeat(" ", 19)) }
		}
		for _, c := range res.Checks {
			switch {
			case c.Skipped:
				fmt.Fprintln(ios.Out, wrap(fmt.Sprintf("- %-16s skipped: %s", c.Name, c.Detail)))
			case c.OK:
				fmt.Fprintf(ios.Out, "%s%s\n", cs.Green("✓"), strings.TrimPrefix(wrap(fmt.Sprintf("✓ %-16s %s", c.Name, c.Detail)), "✓"))
			default:
				fmt.Fprintf(ios.Out, "%s%s\n", cs.Red("✗"), strings.TrimPrefix(wrap(fmt.Sprintf("✗ %-16s %s: %s", c.Name, c.Code, c.Detail)), "✗"))
				if c.Fix != "" {
					fmt.Fprintln(ios.Out, wrap(fmt.Sprintf("  %-16s fix: %s", "", c.Fix)))
				}
			}
		}
	}
	if first != "" {
		if !o.JSON {
			fmt.Fprintf(ios.ErrOut, "Error: %s: doctor found a problem (see above).\n  run_id: %s\n", first, o.RunID)
		}
		return &cmdutil.ErrSilent{Code: first}
	}
	return nil
}

// gatewayPath is a scoped API token's jira.api_url: Atlassian's gateway
// path with a cloud id.
var gatewayPath = regexp.MustCompile(`/ex/jira/([0-9a-fA-F-]{36})$`)

// gatewayCheck is the doctor's line about jira.api_url when it is a scoped
// token's gateway URL (ok false: there is none): its cloud id must be the
// site's, which the site tells without credentials — another id sends
// every request to another site (or to none).
func gatewayCheck(ctx context.Context, cfg *config.Config, find func(context.Context, string) (string, error)) (Check, bool) {
	m := gatewayPath.FindStringSubmatch(cfg.APIURL)
	if m == nil || cfg.APIURL == cfg.Site || find == nil || cfg.Deployment == config.DeploymentDataCenter {
		return Check{}, false
	}
	const name = "gateway"
	id, err := find(ctx, cfg.Site)
	if err != nil {
		c := failed(name, err)
		c.Fix = "check jira.site (the site whose cloud id jira.api_url must carry), or run `dwire init --scoped-token` again"
		return c, true
	}
	if !strings.EqualFold(m[1], id) {
		want := strings.TrimSuffix(cfg.APIURL, m[1]) + id
		return Check{Name: name, Code: core.CodeConfigInvalid,
			Detail: fmt.Sprintf("jira.api_url carries cloud id %s, but %s is cloud id %s: requests would go to another site", m[1], cfg.Site, id),
			Fix:    fmt.Sprintf("set jira.api_url to %s (or run `dwire init --scoped-token` again)", want)}, true
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("jira.api_url is the scoped-token gateway of %s (cloud id %s)", cfg.Site, id)}, true
}

func storeLabel(cfg *config.Config) string {
	if cfg.StoreURL == "" {
		if u, err := storeurl.DefaultURL(); err == nil {
			return u + " (default)"
		}
		return "the default SQLite file in the user state folder"
	}
	if cfg.StoreFromEnv {
		return redactURL(cfg.StoreURL) + " (from " + config.EnvStoreURL + ")"
	}
	return redactURL(cfg.StoreURL)
}

// jiraCheckNames are the doctor's lines about Jira, in the order the
// provider checks them: the site (the deployment jira.deployment names:
// Jira Cloud, or Jira Data Center), the
// account and project, the permissions, the reference field (exists, a
// single-line text field, searchable, on the create and edit screens), the
// issue types (and what their create screens require).
var jiraCheckNames = []string{"site", "jira", "permissions", "reference field", "issue types"}

// skippedNames are the lines skipped with Jira's: its checks and the
// sub-task type's.
var skippedNames = append(append([]string(nil), jiraCheckNames...), "sub-task type")

// jiraChecks splits the provider's one Check into the report's lines: a
// failure is reported on the line it is about, the lines before it pass
// and the lines after it were not checked.
func jiraChecks(cfg *config.Config, err error) []Check {
	site, signedIn := "Jira Cloud", "as "+cfg.Email
	if cfg.Deployment == config.DeploymentDataCenter {
		site, signedIn = "Jira Data Center (REST API v2, wiki markup, Epic Link)", "with the personal access token"
	}
	oks := []Check{
		{Name: "site", OK: true, Detail: fmt.Sprintf("%s is %s", cfg.Site, site)},
		{Name: "jira", OK: true, Detail: fmt.Sprintf("signed in %s, project %s", signedIn, cfg.Project)},
		{Name: "permissions", OK: true, Detail: fmt.Sprintf("browse, create, edit, transition, comment, link and schedule issues in %s", cfg.Project)},
		{Name: "reference field", OK: true, Detail: fmt.Sprintf("%q exists, is searchable and is on the create and edit screens", cfg.ReferenceField)},
		{Name: "issue types", OK: true, Detail: fmt.Sprintf("%s and %s exist in %s, and DevWorkWire can fill what their create screens require", cfg.EpicType, cfg.StoryType, cfg.Project)},
	}
	if err == nil {
		return oks
	}
	e := core.AsError(err)
	field := ""
	for _, d := range e.Details {
		if d.Field != "" {
			field = d.Field
			break
		}
	}
	at := 1 // the line the failure is about (default: the account and project)
	switch {
	case field == "jira.site" || field == "jira.deployment":
		at = 0
	case e.Code == core.CodeJiraPermissionDenied:
		at = 2
	case e.Code == core.CodeReferenceFieldMissing || strings.Contains(field, "reference_field"):
		at = 3
	case e.Code == core.CodeConfigInvalid && strings.Contains(field, "issue_type"):
		at = 4
	}
	out := append([]Check(nil), oks[:at]...)
	if at == 1 && e.Code != core.CodeConfigInvalid {
		// Jira did not answer as a site (credentials, network): whether
		// it is Jira Cloud is not known either.
		out = []Check{{Name: "site", Skipped: true, Detail: "not checked: Jira stopped at the problem below"}}
	}
	c := failed(jiraCheckNames[at], err)
	if e.Code == core.CodeJiraPermissionDenied {
		c.Fix = PermissionFix(e, cfg.Project)
	}
	switch {
	case field == "jira.deployment":
		c.Fix = "set jira.deployment as the message says (dwire init detects it), then run dwire doctor again"
	case at == 0:
		c.Fix = "set jira.site to your Jira site's address"
	case e.Code == core.CodeJiraUnauthorized && cfg.Deployment == config.DeploymentDataCenter:
		c.Fix = "create a new personal access token in Jira (your profile → Personal Access Tokens) and export it in " + cfg.TokenEnv
	}
	out = append(out, c)
	for _, n := range jiraCheckNames[at+1:] {
		out = append(out, Check{Name: n, Skipped: true, Detail: "not checked: Jira stopped at the problem above"})
	}
	return out
}

// setupChecker is a tracker that checks its issue types and reference
// field apart from the account's permissions (the Jira adapter).
type setupChecker interface {
	CheckSetup(ctx context.Context) error
}

// onlyOtherPermissions reports whether err is a permission refusal that
// leaves Browse, Create and Edit granted: the issue types and the
// reference field can then still be checked.
func onlyOtherPermissions(err error) bool {
	e := core.AsError(err)
	if err == nil || e.Code != core.CodeJiraPermissionDenied || len(e.Details) == 0 {
		return false
	}
	for _, d := range e.Details {
		switch d.Field {
		case "BROWSE_PROJECTS", "CREATE_ISSUES", "EDIT_ISSUES", "":
			return false
		}
	}
	return true
}

// subtaskTyper is a tracker that names its sub-task issue type.
type subtaskTyper interface{ SubtaskType() string }

// subtaskCheck is the sub-task type's line: the type exists and
// DevWorkWire can fill what its create screen requires (the tracker's
// CheckSubtasks), checked once the issue types' line could be.
func subtaskCheck(ctx context.Context, cfg *config.Config, p core.WorkItemProvider, checks []Check) Check {
	const name = "sub-task type"
	for _, c := range checks {
		if c.Name == "issue types" && !c.OK {
			return Check{Name: name, Skipped: true, Detail: "not checked: needs the issue types above"}
		}
	}
	sp, ok := p.(core.StructureProvider)
	if !ok {
		return Check{Name: name, Skipped: true, Detail: "not checked: this tracker has no sub-tasks"}
	}
	if err := sp.CheckSubtasks(ctx); err != nil {
		return failed(name, err)
	}
	which := "a sub-task type"
	if st, ok := p.(subtaskTyper); ok && st.SubtaskType() != "" {
		which = st.SubtaskType()
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("%s exists in %s, and DevWorkWire can fill what its create screen requires", which, cfg.Project)}
}

// referenceFielder is a tracker that says which reference field each
// issue type uses (the Jira adapter: one field, or in a team-managed
// project one per issue type).
type referenceFielder interface{ ReferenceFields() string }

// referenceFieldDetail is the passed reference-field line, naming the
// field (or each issue type's) when the tracker says which.
func referenceFieldDetail(cfg *config.Config, p core.WorkItemProvider) string {
	which := ""
	if rf, ok := p.(referenceFielder); ok {
		which = rf.ReferenceFields()
	}
	if which == "" {
		return fmt.Sprintf("%q exists, is searchable and is on the create and edit screens", cfg.ReferenceField)
	}
	return fmt.Sprintf("%q (%s) exists, is searchable and is on the create and edit screens", cfg.ReferenceField, which)
}

// permissionNames are the Jira names of the permission keys the Jira
// adapter reports missing (one error detail per key, in Detail.Field).
var permissionNames = map[string]string{
	"BROWSE_PROJECTS":   "Browse Projects",
	"CREATE_ISSUES":     "Create Issues",
	"EDIT_ISSUES":       "Edit Issues",
	"TRANSITION_ISSUES": "Transition Issues",
	"ADD_COMMENTS":      "Add Comments",
	"LINK_ISSUES":       "Link Issues",
	"SCHEDULE_ISSUES":   "Schedule Issues",
	"USER_PICKER":       "Browse users and groups",
}

// PermissionFix says what to ask for when Jira refused with
// JIRA_PERMISSION_DENIED: the permissions the error's details list as
// missing (by their Jira names) and the project. Without details it falls
// back to the permissions named in the message.
func PermissionFix(e *core.Error, project string) string {
	var names []string
	seen := map[string]bool{}
	for _, d := range e.Details {
		k := strings.TrimSpace(d.Field)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		if n, ok := permissionNames[k]; ok {
			names = append(names, n)
		} else {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("ask a Jira administrator of project %s for the permissions named above (Project settings → Permissions)", project)
	}
	return fmt.Sprintf("ask a Jira administrator of project %s to grant you %s (Project settings → Permissions)", project, joinAnd(names))
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
