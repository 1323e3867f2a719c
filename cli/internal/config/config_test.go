package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const good = `jira:
  site: https://example.atlassian.net
  project: PROJ
  email: dev@example.com
`

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseDefaults(t *testing.T) {
	c, err := Parse("/w/.devworkwire.yaml", []byte(good), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Site != "https://example.atlassian.net" || c.APIURL != c.Site || c.Project != "PROJ" ||
		c.TokenEnv != "JIRA_API_TOKEN" || c.ReferenceField != "DevWorkWire Reference" ||
		c.EpicType != "Epic" || c.StoryType != "Story" || c.PreviewTTL != 30*time.Minute ||
		c.StoreURL != "" || c.Dir != "/w" || c.SearchLagWindow != 10*time.Minute ||
		c.AuditRetention != 365*24*time.Hour {
		t.Fatalf("defaults not applied: %+v", c)
	}
}

// jira.deployment: cloud by default; datacenter needs no e-mail (a
// personal access token alone) and names that token when it is missing;
// anything else is refused naming the two.
func TestParseDeployment(t *testing.T) {
	c, err := Parse("/w/.devworkwire.yaml", []byte(good), env(nil))
	if err != nil || c.Deployment != DeploymentCloud {
		t.Fatalf("default deployment: %+v, %v", c, err)
	}
	dc := "jira:\n  site: https://jira.example.com\n  project: PROJ\n  deployment: datacenter\n"
	c, err = Parse("/w/.devworkwire.yaml", []byte(dc), env(nil))
	if err != nil || c.Deployment != DeploymentDataCenter || c.Email != "" {
		t.Fatalf("datacenter without e-mail: %+v, %v", c, err)
	}
	if _, err := c.Token(env(nil)); core.ErrorCode(err) != core.CodeCredentialsMissing || !strings.Contains(err.Error(), "personal access token") {
		t.Errorf("no token on Data Center: %v", err)
	}
	_, err = Parse("/w/.devworkwire.yaml", []byte(good+"  deployment: server\n"), env(nil))
	if e := core.AsError(err); e == nil || e.Details[0].Field != "jira.deployment" || !strings.Contains(e.Message, "datacenter") {
		t.Errorf("deployment server: %v", err)
	}
}

func TestParseAuditRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "730d": 730 * 24 * time.Hour, "8760h": 8760 * time.Hour, "3650d": 3650 * 24 * time.Hour} {
		c, err := Parse("/w/.devworkwire.yaml", []byte(good+"audit_retention: "+in+"\n"), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if c.AuditRetention != want {
			t.Errorf("audit_retention %s → %v, want %v", in, c.AuditRetention, want)
		}
	}
	for in, want := range map[string]string{"29d": "30d to 3650d", "3651d": "30d to 3650d", "1h": "30d to 3650d", "a year": "not a duration", "-5d": "not a duration", "1.5d": "not a duration"} {
		_, err := Parse("/w/.devworkwire.yaml", []byte(good+"audit_retention: "+in+"\n"), env(nil))
		e := core.AsError(err)
		if e == nil || e.Code != core.CodeConfigInvalid || len(e.Details) != 1 || e.Details[0].Field != "audit_retention" ||
			!strings.Contains(e.Message, want) {
			t.Errorf("audit_retention %s: got %v, want CONFIG_INVALID naming audit_retention and %q", in, err, want)
		}
	}
}

func TestParseSearchLagWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"0s": 0, "0": 0, "90s": 90 * time.Second, "24h": 24 * time.Hour} {
		c, err := Parse("/w/.devworkwire.yaml", []byte(good+"search_lag_window: "+in+"\n"), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if c.SearchLagWindow != want {
			t.Errorf("search_lag_window %s → %v, want %v", in, c.SearchLagWindow, want)
		}
	}
	_, err := Parse("/w/.devworkwire.yaml", []byte(good+"search_lag_window: 25h\n"), env(nil))
	e := core.AsError(err)
	if e == nil || e.Code != core.CodeConfigInvalid || len(e.Details) != 1 || e.Details[0].Field != "search_lag_window" ||
		!strings.Contains(e.Message, "0s to 24h") {
		t.Fatalf("25h: got %v, want CONFIG_INVALID naming search_lag_window and the range", err)
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name, yaml string
		env        map[string]string
		code       core.Code
		field      string // must appear in the message
		notInMsg   string
	}{
		{"empty", "", nil, core.CodeConfigInvalid, "empty", ""},
		{"bad yaml", "jira: [", nil, core.CodeConfigInvalid, "not valid YAML", ""},
		{"no site", "jira:\n  project: PROJ\n  email: a@b.c\n", nil, core.CodeConfigInvalid, "jira.site", ""},
		{"http site", "jira:\n  site: http://example.atlassian.net\n  project: PROJ\n  email: a@b.c\n", nil, core.CodeConfigInvalid, "jira.site", ""},
		{"site with password", "jira:\n  site: https://u:p@example.atlassian.net\n  project: PROJ\n  email: a@b.c\n", nil, core.CodeConfigInvalid, "jira.site", ""},
		{"no project", "jira:\n  site: https://x.atlassian.net\n  email: a@b.c\n", nil, core.CodeConfigInvalid, "jira.project", ""},
		{"bad project", "jira:\n  site: https://x.atlassian.net\n  project: my proj\n  email: a@b.c\n", nil, core.CodeConfigInvalid, "jira.project", ""},
		{"no email", "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n", nil, core.CodeConfigInvalid, "jira.email", ""},
		{"bad email", "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: nobody\n", nil, core.CodeConfigInvalid, "jira.email", ""},
		{"token in file", good + "  token: ATATT-secret-value-xyz\n", nil, core.CodeConfigInvalid, "jira.token", "ATATT-secret-value-xyz"},
		{"api_token top level", good + "api_token: ATATT-secret-value-xyz\n", nil, core.CodeConfigInvalid, "api_token", "ATATT-secret-value-xyz"},
		{"token pasted as env name", good + "  token_env: ATATT3xFfGF0-secret+value=\n", nil, core.CodeConfigInvalid, "jira.token_env", "ATATT3xFfGF0"},
		{"unknown field", good + "  projekt: X\n", nil, core.CodeConfigInvalid, "jira.projekt", ""},
		{"unknown issue type field", good + "  issue_types:\n    bug: Bug\n", nil, core.CodeConfigInvalid, "jira.issue_types.bug", ""},
		{"bad ttl", good + "preview_ttl: soon\n", nil, core.CodeConfigInvalid, "preview_ttl", ""},
		{"ttl too long", good + "preview_ttl: 48h\n", nil, core.CodeConfigInvalid, "preview_ttl", ""},
		{"bad lag window", good + "search_lag_window: later\n", nil, core.CodeConfigInvalid, "search_lag_window", ""},
		{"lag window too long", good + "search_lag_window: 25h\n", nil, core.CodeConfigInvalid, "search_lag_window", ""},
		{"negative lag window", good + "search_lag_window: -1m\n", nil, core.CodeConfigInvalid, "search_lag_window", ""},
		{"bad field id", good + "  reference_field: customfield_abc\n", nil, core.CodeConfigInvalid, "jira.reference_field", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/w/.devworkwire.yaml", []byte(tt.yaml), env(tt.env))
			if core.ErrorCode(err) != tt.code {
				t.Fatalf("code = %v (%v), want %v", core.ErrorCode(err), err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("message %q does not name %q", err, tt.field)
			}
			if tt.notInMsg != "" {
				b, _ := json.Marshal(err)
				if strings.Contains(err.Error(), tt.notInMsg) || strings.Contains(string(b), tt.notInMsg) {
					t.Errorf("message echoes the secret: %s", err)
				}
			}
		})
	}
}

func TestEnvOverrides(t *testing.T) {
	y := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email_env: MY_MAIL\n  token_env: MY_TOKEN\nstore: sqlite://./state.db\n"
	c, err := Parse("/w/.devworkwire.yaml", []byte(y), env(map[string]string{"MY_MAIL": "me@example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Email != "me@example.com" {
		t.Errorf("email = %q", c.Email)
	}
	if c.StoreURL != "sqlite:///w/state.db" {
		t.Errorf("relative store not anchored at the file: %q", c.StoreURL)
	}
	if _, err := c.Token(env(nil)); core.ErrorCode(err) != core.CodeCredentialsMissing || !strings.Contains(err.Error(), "MY_TOKEN") {
		t.Errorf("Token() without env = %v", err)
	}
	tok, err := c.Token(env(map[string]string{"MY_TOKEN": "test-token-not-secret"}))
	if err != nil || tok != "test-token-not-secret" {
		t.Errorf("Token() = %q, %v", tok, err)
	}
	c, err = Parse("/w/.devworkwire.yaml", []byte(y), env(map[string]string{"MY_MAIL": "me@example.com", EnvStoreURL: "postgres://db/x"}))
	if err != nil || c.StoreURL != "postgres://db/x" || !c.StoreFromEnv {
		t.Errorf("DWIRE_STORE_URL not applied: %+v %v", c, err)
	}
}

func TestFindUpwardAndExplicit(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("", sub, env(nil)); core.ErrorCode(err) != core.CodeConfigMissing {
		t.Fatalf("want CONFIG_MISSING, got %v", err)
	}
	p := filepath.Join(root, FileName)
	if err := os.WriteFile(p, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Find("", sub, env(nil))
	if err != nil || got != p {
		t.Fatalf("Find upward = %q, %v", got, err)
	}
	other := filepath.Join(root, "other.yaml")
	if _, err := Find("", sub, env(map[string]string{EnvConfig: other})); core.ErrorCode(err) != core.CodeConfigMissing {
		t.Fatalf("DWIRE_CONFIG to a missing file: %v", err)
	}
	if err := os.WriteFile(other, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := Find("", sub, env(map[string]string{EnvConfig: other})); got != other {
		t.Fatalf("DWIRE_CONFIG ignored: %q", got)
	}
	if got, _ := Find(p, sub, env(map[string]string{EnvConfig: other})); got != p {
		t.Fatalf("--config must win over DWIRE_CONFIG: %q", got)
	}
	c, err := Load("", sub, env(nil))
	if err != nil || c.Path != p {
		t.Fatalf("Load = %+v, %v", c, err)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	f := File{Jira: JiraFile{Site: "https://x.atlassian.net", Project: "PROJ", Email: "a@example.com", ReferenceField: "customfield_10050"}}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("/w/"+FileName, b, env(nil))
	if err != nil {
		t.Fatalf("marshalled file does not parse: %v\n%s", err, b)
	}
	if c.ReferenceField != "customfield_10050" {
		t.Fatalf("round trip lost a field: %+v", c)
	}
}

func TestSchemaCopyMatchesDocs(t *testing.T) {
	docs, err := os.ReadFile("../../../docs/devworkwire.schema.json")
	if err != nil {
		t.Fatalf("docs/devworkwire.schema.json: %v", err)
	}
	if !bytes.Equal(docs, Schema) {
		t.Fatal("docs/devworkwire.schema.json and cli/internal/config/schema.json differ: copy one over the other")
	}
}

// TestSchemaAgreesWithParse checks that the editor schema and Parse accept
// and refuse the same files (for the rules a schema can express).
func TestSchemaAgreesWithParse(t *testing.T) {
	var doc any
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		yaml string
		ok   bool
	}{
		{good, true},
		{good + "  token_env: MY_TOKEN\n  issue_types:\n    epic: Initiative\nstore: sqlite://./s.db\npreview_ttl: 1h30m\n", true},
		{good + "  issue_types:\n    subtask: Sub-task\n", true},
		{good + "  issue_types:\n    sub_task: Sub-task\n", false},
		{"jira:\n  site: http://127.0.0.1:8080\n  project: DEMO\n  email: demo@example.com\n", true},
		{good + "  token: x\n", false},
		{good + "  projekt: X\n", false},
		{"jira:\n  site: https://x.atlassian.net\n  email: a@b.c\n", false},
		{"jira:\n  site: http://x.example.com\n  project: PROJ\n  email: a@b.c\n", false},
		{good + "  token_env: has space\n", false},
		{good + "preview_ttl: soon\n", false},
		{good + "search_lag_window: 0s\n", true},
		{good + "search_lag_window: 24h\n", true},
		{good + "search_lag_window: 15m\n", true},
		{good + "search_lag_window: later\n", false},
		{good + "search_lag_window: -1m\n", false},
		{good + "  deployment: datacenter\n", true},
		{"jira:\n  site: https://jira.example.com\n  project: PROJ\n  deployment: datacenter\n", true},
		{good + "  deployment: server\n", false},

		{good + "audit_retention: 365d\n", true},
		{good + "audit_retention: 8760h\n", true},
		{good + "audit_retention: a year\n", false},
		{good + "audit_retention: -5d\n", false},
	}
	for _, tc := range cases {
		var v any
		if err := yaml.Unmarshal([]byte(tc.yaml), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		schemaErr := sch.Validate(inst)
		_, parseErr := Parse("/w/"+FileName, []byte(tc.yaml), env(nil))
		if (schemaErr == nil) != tc.ok || (parseErr == nil) != tc.ok {
			t.Errorf("%q: schema err %v, Parse err %v, want ok=%v", tc.yaml, schemaErr, parseErr, tc.ok)
		}
	}
}

func TestTokenPastedAnywhereIsRefused(t *testing.T) {
	tok := "test-token-not-secret-abcdef"
	y := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\n  reference_field: " + tok + "\n"
	c, err := Parse("/w/"+FileName, []byte(y), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Token(env(map[string]string{"JIRA_API_TOKEN": tok}))
	if core.ErrorCode(err) != core.CodeConfigInvalid || strings.Contains(err.Error(), tok) {
		t.Fatalf("Token() = %v", err)
	}
}

// A token_env or email_env that is not a plausible variable name is refused
// without echoing it; plausible names are taken.
func TestEnvNamesThatMayBeTokensAreRefusedUnechoed(t *testing.T) {
	base := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\n"
	for _, v := range []string{
		"aB3dE6fG9hJ2kL5mN8pQ1rS4",         // classic 24-character token
		"0f3a9c7e5b1d2f4a6c8e0b2d4f6a8c0e", // hex token
		"ATATT3xFfGF0abcdEFGH1234ijkl5678", // ATATT… without '='
		"jira_token",                       // lower case
		"1TOKEN",                           // starts with a digit
		strings.Repeat("A", 65),            // too long
	} {
		for _, key := range []string{"token_env", "email_env"} {
			_, err := Parse("/w/"+FileName, []byte(base+"  "+key+": "+v+"\n"), func(string) string { return "" })
			e := core.AsError(err)
			if e == nil || e.Code != core.CodeConfigInvalid || !strings.Contains(e.Message, "jira."+key) {
				t.Errorf("%s %q: %v, want CONFIG_INVALID naming jira.%s", key, v, err, key)
				continue
			}
			b, _ := json.Marshal(e)
			if strings.Contains(string(b), v) {
				t.Errorf("%s %q echoed: %s", key, v, b)
			}
		}
	}
	for _, v := range []string{"JIRA_API_TOKEN", "MY_TOKEN", "_T", "T2", strings.Repeat("A", 64)} {
		c, err := Parse("/w/"+FileName, []byte(base+"  token_env: "+v+"\n"), func(string) string { return "" })
		if err != nil || c.TokenEnv != v {
			t.Errorf("token_env %q: %v", v, err)
		}
	}
}

// TestRankSetting: ranking is on when `rank:` is absent or true;
// `rank: false` turns it off.
func TestRankSetting(t *testing.T) {
	for in, want := range map[string]bool{"": true, "rank: false\n": false, "rank: true\n": true} {
		c, err := Parse("/w/.devworkwire.yaml", []byte(good+in), env(nil))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if c.Rank != want {
			t.Errorf("%q: Rank = %v, want %v", in, c.Rank, want)
		}
	}
	if _, err := Parse("/w/.devworkwire.yaml", []byte(good+"rank: sometimes\n"), env(nil)); err == nil {
		t.Error("rank: sometimes was accepted")
	}
}
