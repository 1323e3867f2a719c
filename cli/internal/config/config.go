// Package config loads, validates and writes .devworkwire.yaml: the Jira
// site and project, the reference field, issue type names, the state store
// the preview TTL and the search lag window. The file never holds the API token: it names the
// environment variable that does. Every problem is a core.Error
// (CONFIG_MISSING, CONFIG_INVALID naming the field and the fix,
// CREDENTIALS_MISSING).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file looked for from the working
// directory upward.
const FileName = ".devworkwire.yaml"

// Environment variables read by dwire.
const (
	EnvConfig   = "DWIRE_CONFIG"    // path of the configuration file
	EnvStoreURL = "DWIRE_STORE_URL" // overrides `store`
	// EnvCommitLockLease shortens (or lengthens) the commit lock's lease,
	// 1s to 10m (default core.DefaultCommitLockLease, 30s). A testing
	// knob, for tests that pause a real commit past its lease; not for
	// normal use (docs/configuration.md).
	EnvCommitLockLease = "DWIRE_COMMIT_LOCK_LEASE"
	// DefaultTokenEnv is the default name of the variable holding the token.
	DefaultTokenEnv = "JIRA_API_TOKEN"
	// Deployments (jira.deployment): Jira Cloud, or Jira Data Center (and
	// Server) that the team hosts.
	DeploymentCloud      = "cloud"
	DeploymentDataCenter = "datacenter"
	// DefaultEmailEnv is read when `jira.email` is not in the file.
	DefaultEmailEnv = "JIRA_EMAIL"
)

// Defaults of optional fields.
const (
	DefaultReferenceField = "DevWorkWire Reference"
	DefaultEpicType       = "Epic"
	DefaultStoryType      = "Story"
	DefaultPreviewTTL     = 30 * time.Minute
	MinPreviewTTL         = time.Minute
	MaxPreviewTTL         = 24 * time.Hour
	// DefaultSearchLagWindow is how long an item whose create had an
	// unknown outcome is held back while Jira search may lag
	// (core.DefaultSearchLagWindow).
	DefaultSearchLagWindow = 10 * time.Minute
	MaxSearchLagWindow     = 24 * time.Hour
	// MaxMaxInFlight is the largest jira.max_in_flight accepted.
	MaxMaxInFlight = 64
	// The range of DWIRE_COMMIT_LOCK_LEASE.
	MinCommitLockLease = time.Second
	MaxCommitLockLease = 10 * time.Minute
	// The range of audit_retention (default core.DefaultRetention.Audit,
	// a year). The floor keeps one member's file on a shared store from
	// pruning the team's trail within days.
	MinAuditRetention = 30 * 24 * time.Hour
	MaxAuditRetention = 3650 * 24 * time.Hour
)

// File is the on-disk shape of .devworkwire.yaml (see
// docs/devworkwire.schema.json).
type File struct {
	Jira       JiraFile `yaml:"jira"`
	Store      string   `yaml:"store,omitempty"`
	PreviewTTL string   `yaml:"preview_ttl,omitempty"`
	// SearchLagWindow is a Go duration, 0s to 24h (default 10m).
	SearchLagWindow string `yaml:"search_lag_window,omitempty"`
	// Fields, Defaults and Users: the planning fields (fields.go).
	Fields   map[string]string `yaml:"fields,omitempty"`
	Defaults yaml.Node         `yaml:"defaults,omitempty"`
	Users    map[string]string `yaml:"users,omitempty"`
	// Rank makes the document's order the backlog order in Jira (on
	// unless false).
	Rank *bool `yaml:"rank,omitempty"`
	// AuditRetention is how long the store keeps audit records: days
	// (365d) or a Go duration (8760h), 30d to 3650d (default 365d).
	AuditRetention string `yaml:"audit_retention,omitempty"`
}

// JiraFile is the `jira` section.
type JiraFile struct {
	Site   string `yaml:"site"`
	APIURL string `yaml:"api_url,omitempty"`
	// Deployment is cloud (default) or datacenter: Jira Data Center or
	// Server that the team hosts (a personal access token, no e-mail).
	Deployment              string     `yaml:"deployment,omitempty"`
	Project                 string     `yaml:"project"`
	Email                   string     `yaml:"email,omitempty"`
	EmailEnv                string     `yaml:"email_env,omitempty"`
	TokenEnv                string     `yaml:"token_env,omitempty"`
	ReferenceField          string     `yaml:"reference_field,omitempty"`
	AcceptanceCriteriaField string     `yaml:"acceptance_criteria_field,omitempty"`
	IssueTypes              IssueTypes `yaml:"issue_types,omitempty"`
	// MaxInFlight caps the requests in flight to Jira at once, 1 to
	// MaxMaxInFlight (default: the adapter's, jira.DefaultMaxInFlight).
	MaxInFlight int `yaml:"max_in_flight,omitempty"`
	// EstimateField is the number field Estimate writes (id or name).
	EstimateField string `yaml:"estimate_field,omitempty"`
	// TransitionFields names the value of a required field of a workflow
	// transition's screen (Resolution: Won't Do), by field name or id.
	TransitionFields map[string]string `yaml:"transition_fields,omitempty"`
}

// IssueTypes names the Jira issue types used for epics, stories and
// sub-tasks.
type IssueTypes struct {
	Epic  string `yaml:"epic,omitempty"`
	Story string `yaml:"story,omitempty"`
	// Subtask is the sub-task type (default: the project's first type
	// marked as a sub-task type).
	Subtask string `yaml:"subtask,omitempty"`
}

// Config is a loaded, validated configuration with defaults and
// environment overrides applied. It never holds the token itself.
type Config struct {
	Path string // the file it was read from
	Dir  string // the folder holding the file (the workspace)

	Site                    string // https://example.atlassian.net
	Deployment              string // DeploymentCloud or DeploymentDataCenter
	APIURL                  string // base URL of the REST API (default Site)
	Project                 string
	Email                   string
	EmailEnv                string
	TokenEnv                string
	ReferenceField          string
	AcceptanceCriteriaField string
	EpicType, StoryType     string
	SubtaskType             string // "" → the project's first sub-task type
	// TransitionFields: a transition screen's required field (name or
	// id) → the value to set (jira.transition_fields).
	TransitionFields map[string]string
	MaxInFlight      int    // 0 → the Jira adapter's default
	StoreURL         string // "" → the default SQLite file
	StoreFromEnv     bool   // StoreURL came from DWIRE_STORE_URL
	PreviewTTL       time.Duration
	// SearchLagWindow is how long an item whose create had an unknown
	// outcome is held back (not created again) while Jira search may not
	// show it yet; 0 holds nothing back.
	SearchLagWindow time.Duration
	// CommitLockLease is the commit lock's lease from
	// DWIRE_COMMIT_LOCK_LEASE (0 → core's default).
	CommitLockLease time.Duration
	// CustomFields maps the custom field names documents use to a Jira
	// field id or name (`fields:`); Defaults are the project's field
	// defaults (`defaults:`, source "config"); Users maps an e-mail or a
	// name to an account id (`users:`); EstimateField is
	// jira.estimate_field.
	CustomFields  map[string]string
	Defaults      service.FieldDefaults
	Users         map[string]string
	EstimateField string
	// Rank is the file's `rank:` (service.ServiceOptions.Rank); true unless
	// `rank: false`.
	Rank bool
	// AuditRetention is `audit_retention:` (core.Retention.Audit): audit
	// records older than this are deleted when a store is opened.
	AuditRetention time.Duration

	raw []byte // the file's bytes, to notice a token pasted anywhere in it
}

// Token returns the API token from the environment, or CREDENTIALS_MISSING
// naming the variable to set.
func (c *Config) Token(getenv func(string) string) (string, error) {
	t := strings.TrimSpace(getenv(c.TokenEnv))
	if len(t) >= 8 && bytes.Contains(c.raw, []byte(t)) {
		return "", core.Errorf(core.CodeConfigInvalid,
			"%s contains the API token held in %s. Remove it from the file (and revoke the token if the file was shared or committed); the token belongs in the environment only.",
			c.Path, c.TokenEnv).WithDetails(core.Detail{Field: "jira", Message: "the token is written in the file"})
	}
	if t == "" && c.Deployment == DeploymentDataCenter {
		return "", core.Errorf(core.CodeCredentialsMissing,
			"The Jira personal access token is not set: export %s=<your token> (create one in Jira: your profile → Personal Access Tokens). The token is read from the environment only, never from %s.",
			c.TokenEnv, FileName).WithDetails(core.Detail{Field: "jira.token_env", Message: "set the environment variable " + c.TokenEnv})
	}
	if t == "" {
		return "", core.Errorf(core.CodeCredentialsMissing,
			"The Jira API token is not set: export %s=<your token> (create one at https://id.atlassian.com/manage-profile/security/api-tokens). The token is read from the environment only, never from %s.",
			c.TokenEnv, FileName).WithDetails(core.Detail{Field: "jira.token_env", Message: "set the environment variable " + c.TokenEnv})
	}
	return t, nil
}

// Find returns the configuration file to use: explicit (from --config),
// else $DWIRE_CONFIG, else the first .devworkwire.yaml from dir upward.
func Find(explicit, dir string, getenv func(string) string) (string, error) {
	if explicit == "" {
		explicit = getenv(EnvConfig)
	}
	if explicit != "" {
		p, err := filepath.Abs(explicit)
		if err != nil {
			p = explicit
		}
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			return "", core.Errorf(core.CodeConfigMissing,
				"No configuration file at %s: check the path given with --config or %s, or run `dwire init` to create one.", explicit, EnvConfig)
		}
		return p, nil
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		d = dir
	}
	for {
		p := filepath.Join(d, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", core.Errorf(core.CodeConfigMissing,
		"No %s found in %s or any folder above it. Run `dwire init` to create one, or point to one with --config or %s.", FileName, dir, EnvConfig)
}

// Load finds, reads and validates the configuration.
func Load(explicit, dir string, getenv func(string) string) (*Config, error) {
	p, err := Find(explicit, dir, getenv)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, core.Errorf(core.CodeConfigInvalid, "Cannot read %s: permission denied. Make the file readable by you.", p)
		}
		return nil, core.Errorf(core.CodeConfigMissing, "Cannot read %s. Run `dwire init` to create it.", p)
	}
	c, err := Parse(p, data, getenv)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// forbidden keys: a token never belongs in the file.
var secretKeys = map[string]bool{
	"token": true, "api_token": true, "apitoken": true, "password": true,
	"secret": true, "jira_token": true, "jira_api_token": true, "pat": true,
}

var (
	// envNameRE is a plausible environment variable name for a secret's
	// variable: upper case letters, digits and _, not starting with a
	// digit, at most 64 characters. Anything else (lower case, '-', '=',
	// '+', very long) is how a pasted token looks: classic 24-character
	// tokens, hex tokens and ATATT… tokens are all refused, never echoed.
	envNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,63}$`)
	projectRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,9}$`)
	emailRE   = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
	fieldIDRE = regexp.MustCompile(`^customfield_[0-9]+$`)
)

// ValidEnvName reports whether s is a plausible name for the variable
// holding a secret (see envNameRE); anything else may be the secret itself
// and must not be printed.
func ValidEnvName(s string) bool { return envNameRE.MatchString(s) }

// InvalidTokenEnv is the CONFIG_INVALID for a token_env that is not a
// plausible variable name; it never holds the value.
func InvalidTokenEnv() *core.Error {
	return invalid("jira.token_env", "must be the NAME of the environment variable that holds the token: upper case letters, digits and _, at most 64 characters (e.g. %s), not the token itself. The value is not shown, since it may be a token: if you pasted one here, remove it and revoke it.", DefaultTokenEnv)
}

func invalid(field, format string, args ...any) *core.Error {
	msg := fmt.Sprintf(format, args...)
	return core.Errorf(core.CodeConfigInvalid, "%s: %s", field, msg).
		WithDetails(core.Detail{Field: field, Message: msg})
}

// Parse validates the file's content. path names it in messages and
// anchors a relative store path.
func Parse(path string, data []byte, getenv func(string) string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, core.Errorf(core.CodeConfigInvalid,
			"%s is not valid YAML (%s). Fix the syntax, or delete it and run `dwire init`.", path, yamlMsg(err))
	}
	if len(root.Content) == 0 {
		return nil, core.Errorf(core.CodeConfigInvalid, "%s is empty. Run `dwire init` to write one.", path).
			WithDetails(core.Detail{Field: "jira", Message: "the jira section is required"})
	}
	if e := refuseSecrets(path, root.Content[0], ""); e != nil {
		return nil, e
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(path, err)
	}
	c, err := fromFile(path, f, getenv)
	if err != nil {
		return nil, err
	}
	c.raw = data
	return c, nil
}

func yamlMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// refuseSecrets walks mapping keys; a key named like a token is refused
// without echoing its value.
func refuseSecrets(path string, n *yaml.Node, prefix string) *core.Error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if secretKeys[strings.ToLower(k)] {
			return core.Errorf(core.CodeConfigInvalid,
				"%s: %s (line %d) holds a secret; a token must never be written into %s. Delete that line and export the token instead (export %s=<token>), naming the variable with jira.token_env if it is not %s.",
				name, path, n.Content[i].Line, FileName, DefaultTokenEnv, DefaultTokenEnv).
				WithDetails(core.Detail{Field: name, Line: n.Content[i].Line, Message: "remove the token from the file; use an environment variable"})
		}
		if e := refuseSecrets(path, n.Content[i+1], name); e != nil {
			return e
		}
	}
	return nil
}

var unknownFieldRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type config\.(\w+)`)

func decodeError(path string, err error) *core.Error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
			field, section, known := m[2], "top-level fields", yamlKeys(File{})
			switch m[3] {
			case "JiraFile":
				field, section, known = "jira."+field, "fields of jira", yamlKeys(JiraFile{})
			case "IssueTypes":
				field, section, known = "jira.issue_types."+field, "fields of jira.issue_types", yamlKeys(IssueTypes{})
			}
			guess := ""
			if c := core.Closest(m[2], known); c != "" {
				guess = fmt.Sprintf(" Did you mean %q?", c)
			}
			e := invalid(field, "unknown field (line %s).%s The known %s are %s (docs/configuration.md).", m[1], guess, section, strings.Join(known, ", "))
			e.Details[0].Line = atoi(m[1])
			return e
		}
		return core.Errorf(core.CodeConfigInvalid, "%s: %s. See docs/configuration.md for the expected shape.", path, yamlMsg(errors.New(msg)))
	}
	if errors.Is(err, io.EOF) {
		return core.Errorf(core.CodeConfigInvalid, "%s is empty. Run `dwire init` to write one.", path)
	}
	return core.Errorf(core.CodeConfigInvalid, "%s: %s. See docs/configuration.md.", path, yamlMsg(err))
}

// yamlKeys are the keys of a section of the file: its struct's yaml names,
// in the order the struct declares them.
func yamlKeys(section any) []string {
	t := reflect.TypeOf(section)
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func fromFile(path string, f File, getenv func(string) string) (*Config, error) {
	c := &Config{Path: path, Dir: filepath.Dir(path)}
	j := f.Jira

	// jira.site
	site := strings.TrimRight(strings.TrimSpace(j.Site), "/")
	if site == "" {
		return nil, invalid("jira.site", "is missing. Set it to your Jira Cloud site, e.g. `site: https://your-team.atlassian.net`.")
	}
	if err := checkURL("jira.site", site); err != nil {
		return nil, err
	}
	c.Site = site
	c.APIURL = c.Site
	if a := strings.TrimRight(strings.TrimSpace(j.APIURL), "/"); a != "" {
		if err := checkURL("jira.api_url", a); err != nil {
			return nil, err
		}
		c.APIURL = a
	}

	// jira.deployment
	switch d := strings.ToLower(strings.TrimSpace(j.Deployment)); d {
	case "", DeploymentCloud:
		c.Deployment = DeploymentCloud
	case DeploymentDataCenter:
		c.Deployment = DeploymentDataCenter
	default:
		return nil, invalid("jira.deployment", "%q is not a Jira deployment. Use cloud (Jira Cloud, *.atlassian.net) or datacenter (Jira Data Center or Server that your team hosts); dwire init detects it.", j.Deployment)
	}
	dc := c.Deployment == DeploymentDataCenter

	// jira.project
	p := strings.TrimSpace(j.Project)
	switch {
	case p == "":
		return nil, invalid("jira.project", "is missing. Set it to the key of the Jira project to import into, e.g. `project: PROJ`.")
	case !projectRE.MatchString(p):
		return nil, invalid("jira.project", "%q is not a Jira project key. Use the key shown in the project's issue keys (PROJ in PROJ-12): capital letters and digits, starting with a letter.", p)
	}
	c.Project = p

	// jira.token_env
	c.TokenEnv = DefaultTokenEnv
	if t := strings.TrimSpace(j.TokenEnv); t != "" {
		if !envNameRE.MatchString(t) {
			// Do not echo the value: it may be the token itself.
			return nil, InvalidTokenEnv()
		}
		c.TokenEnv = t
	}

	// jira.email / jira.email_env
	c.EmailEnv = DefaultEmailEnv
	if e := strings.TrimSpace(j.EmailEnv); e != "" {
		if !envNameRE.MatchString(e) {
			return nil, invalid("jira.email_env", "is not an environment variable name (upper case letters, digits and _, at most 64 characters). Use a name such as %s. The value is not shown, since it may be a secret pasted in the wrong place.", DefaultEmailEnv)
		}
		c.EmailEnv = e
	}
	c.Email = strings.TrimSpace(j.Email)
	if c.Email == "" {
		c.Email = strings.TrimSpace(getenv(c.EmailEnv))
		if c.Email == "" && !dc { // Data Center: the personal access token alone
			return nil, invalid("jira.email", "is missing. Set `email: you@example.com` (the Atlassian account that owns the token), or export %s.", c.EmailEnv)
		}
	}
	if c.Email != "" && !emailRE.MatchString(c.Email) {
		return nil, invalid("jira.email", "%q is not an e-mail address. Use the e-mail of the Atlassian account that owns the token.", c.Email)
	}

	c.ReferenceField = strings.TrimSpace(j.ReferenceField)
	if c.ReferenceField == "" {
		c.ReferenceField = DefaultReferenceField
	}
	if strings.HasPrefix(c.ReferenceField, "customfield") && !fieldIDRE.MatchString(c.ReferenceField) {
		return nil, invalid("jira.reference_field", "%q is not a custom field id. Use an id such as customfield_10050, or the field's name.", c.ReferenceField)
	}
	c.AcceptanceCriteriaField = strings.TrimSpace(j.AcceptanceCriteriaField)
	if a := c.AcceptanceCriteriaField; strings.HasPrefix(a, "customfield") && !fieldIDRE.MatchString(a) {
		return nil, invalid("jira.acceptance_criteria_field", "%q is not a custom field id. Use an id such as customfield_10051, the field's name, or leave it out to keep acceptance criteria in the description.", a)
	}
	c.EpicType = firstNonEmpty(strings.TrimSpace(j.IssueTypes.Epic), DefaultEpicType)
	c.StoryType = firstNonEmpty(strings.TrimSpace(j.IssueTypes.Story), DefaultStoryType)
	c.SubtaskType = strings.TrimSpace(j.IssueTypes.Subtask)
	if n := j.MaxInFlight; n < 0 || n > MaxMaxInFlight {
		return nil, invalid("jira.max_in_flight", "%d is out of range. Use 1 (one request at a time) to %d, or leave it out for the default.", n, MaxMaxInFlight)
	}
	c.MaxInFlight = j.MaxInFlight
	for k, v := range j.TransitionFields {
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" || v == "" {
			return nil, invalid("jira.transition_fields", "has an empty field or value. Write one line per screen field, e.g. `Resolution: Done`.")
		}
		if c.TransitionFields == nil {
			c.TransitionFields = map[string]string{}
		}
		c.TransitionFields[k] = v
	}
	if err := c.readFields(path, f); err != nil {
		return nil, err
	}

	// store
	c.StoreURL = strings.TrimSpace(f.Store)
	if v := strings.TrimSpace(getenv(EnvStoreURL)); v != "" {
		c.StoreURL = v
		c.StoreFromEnv = true
	} else if c.StoreURL != "" {
		c.StoreURL = anchorStore(c.StoreURL, c.Dir)
	}

	// preview_ttl, search_lag_window
	var err *core.Error
	if c.PreviewTTL, err = durationField("preview_ttl", f.PreviewTTL, DefaultPreviewTTL, MinPreviewTTL, MaxPreviewTTL, goDuration, "a Go duration such as 30m or 1h", "1m to 24h (default 30m)"); err != nil {
		return nil, err
	}
	if c.SearchLagWindow, err = durationField("search_lag_window", f.SearchLagWindow, DefaultSearchLagWindow, 0, MaxSearchLagWindow, goDuration, "a Go duration such as 10m or 1h", "0s to 24h (default 10m)"); err != nil {
		return nil, err
	}

	c.Rank = f.Rank == nil || *f.Rank

	// audit_retention
	if c.AuditRetention, err = durationField("audit_retention", f.AuditRetention, core.DefaultRetention.Audit, MinAuditRetention, MaxAuditRetention, parseDays, "days such as 365d, or a Go duration such as 8760h", "30d to 3650d (default 365d)"); err != nil {
		return nil, err
	}

	// DWIRE_COMMIT_LOCK_LEASE (testing knob)
	if s := strings.TrimSpace(getenv(EnvCommitLockLease)); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < MinCommitLockLease || d > MaxCommitLockLease {
			return nil, invalid(EnvCommitLockLease, "is not a duration from 1s to 10m (such as 3s). Unset it: the commit lock's lease is 30s by default, and this variable is meant for tests only.")
		}
		c.CommitLockLease = d
	}
	return c, nil
}

// durationField reads the duration setting field from s as written ("":
// def): read parses it; a value it cannot read is refused saying how to
// write one (how), a value outside lo..hi naming the range (span).
func durationField(field, s string, def, lo, hi time.Duration, read func(string) (time.Duration, bool), how, span string) (time.Duration, *core.Error) {
	if s = strings.TrimSpace(s); s == "" {
		return def, nil
	}
	d, ok := read(s)
	if !ok {
		return 0, invalid(field, "%q is not a duration. Use %s.", s, how)
	}
	if d < lo || d > hi {
		return 0, invalid(field, "%s is out of range. Use a value from %s.", s, span)
	}
	return d, nil
}

// goDuration reads a Go duration ("30m").
func goDuration(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// parseDays reads a whole number of days ("365d") or a Go duration.
func parseDays(s string) (time.Duration, bool) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 100*365 {
			return 0, false
		}
		return time.Duration(days) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

func checkURL(field, raw string) *core.Error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return invalid(field, "%q is not a URL. Use the full address, e.g. https://your-team.atlassian.net.", raw)
	}
	if u.User != nil {
		return invalid(field, "must not contain a user name or password. Put the e-mail in jira.email and export the token in %s.", DefaultTokenEnv)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return invalid(field, "%q uses http. Jira Cloud needs https (http is allowed only for a local fake Jira on 127.0.0.1 or localhost).", raw)
	}
	return nil
}

func isLoopback(h string) bool {
	return h == "127.0.0.1" || h == "::1" || h == "localhost"
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// anchorStore makes a relative SQLite path in the file relative to the
// folder holding the file, so the same file works from any subfolder.
func anchorStore(s, dir string) string {
	switch {
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"), strings.HasPrefix(s, "sqlite:///"):
		return s
	case strings.HasPrefix(s, "sqlite://"):
		rel := strings.TrimPrefix(s, "sqlite://")
		path, query, _ := strings.Cut(rel, "?")
		if filepath.IsAbs(path) {
			return s
		}
		out := "sqlite://" + filepath.ToSlash(filepath.Join(dir, path))
		if query != "" {
			out += "?" + query
		}
		return out
	case strings.Contains(s, "://"):
		return s // storeurl reports the unknown scheme
	default:
		if filepath.IsAbs(s) {
			return s
		}
		return filepath.Join(dir, s)
	}
}

// Marshal renders a File as YAML with a header comment, each line of
// prose within 80 columns; the editor's schema line stays whole (a
// directive whose URL cannot be broken).
func Marshal(f File) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# DevWorkWire configuration — see docs/configuration.md.\n")
	b.WriteString("# The API token is never stored here: export it in the variable\n# named by jira.token_env.\n")
	b.WriteString("# yaml-language-server: $schema=https://raw.githubusercontent.com/devworkwire/devworkwire/main/docs/devworkwire.schema.json\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
