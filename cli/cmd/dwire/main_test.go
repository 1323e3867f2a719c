package main

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/devworkwire/devworkwire/cli/internal/dwire"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// testToken is the fake Jira's token in the scripts; a script fails if it
// ever appears in dwire's output (see `no-token`).
const testToken = "test-token-not-secret-5b1e"

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"dwire": func() { os.Exit(dwire.Main()) },
	})
}

type jiraKey struct{}

// TestScripts runs the CLI scenarios in testdata/script: the real dwire
// binary (this test binary re-executed) against an in-process fake Jira
// (jiratest) with a SQLite store in the script's work dir.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			srv := jiratest.New(jiratest.Options{Token: testToken})
			hs := httptest.NewServer(srv)
			env.Defer(func() { hs.Close(); srv.Close() })
			env.Values[jiraKey{}] = srv
			env.Setenv("MOCKJIRA_URL", hs.URL)
			env.Setenv("TEST_TOKEN", testToken)
			env.Setenv("JIRA_API_TOKEN", testToken)
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("NO_COLOR", "")
			cfg := fmt.Sprintf("jira:\n  site: %s\n  project: DEMO\n  email: demo@example.com\nstore: sqlite://./state.db\n", hs.URL)
			nofield := strings.Replace(cfg, "email: demo@example.com\n", "email: demo@example.com\n  reference_field: No Such Field\n", 1)
			if err := os.WriteFile(filepath.Join(env.WorkDir, "nofield.yaml"), []byte(nofield), 0o600); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(env.WorkDir, ".devworkwire.yaml"), []byte(cfg), 0o600)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jira-writes": cmdJiraWrites,
			"jira-issues": cmdJiraIssues,
			"jira-edit":   cmdJiraEdit,
			"jira-fault":  cmdJiraFault,
			"jira-perms":  cmdJiraPerms,
			"no-token":    cmdNoToken,
			"exits":       cmdExits,
			"may":         cmdMay,
			"jira-seed":   cmdJiraSeed,
			"jira-style":  cmdJiraStyle,
			"jira-require": func(ts *testscript.TestScript, neg bool, args []string) {
				// jira-require TYPE NAME: a new short-text custom field NAME
				// that the issue type's create screen requires (no default
				// value; no document field maps to it).
				if neg || len(args) != 2 {
					ts.Fatalf("usage: jira-require TYPE NAME")
				}
				ts.Check(server(ts).ApplyFields(jiratest.FieldSeed{
					CustomFields: []jiratest.CustomField{{Name: args[1], Type: jiratest.FieldText}},
					Required:     []jiratest.ScreenField{{IssueType: args[0], Field: args[1]}},
				}))
			},
			"jira-datacenter": func(ts *testscript.TestScript, neg bool, args []string) {
				// The fake becomes a Jira Data Center site.
				ts.Check(server(ts).SetProfile(jiratest.SiteProfile{Deployment: jiratest.DeploymentDataCenter}))
			},
		},
	})
}

func server(ts *testscript.TestScript) *jiratest.Server {
	return ts.Value(jiraKey{}).(*jiratest.Server)
}

// jira-writes N: the fake Jira received exactly N write requests.
func cmdJiraWrites(ts *testscript.TestScript, neg bool, args []string) {
	checkCount(ts, neg, args, "jira-writes", "write requests", len(server(ts).Writes()))
}

// jira-issues N: the fake Jira holds exactly N issues.
func cmdJiraIssues(ts *testscript.TestScript, neg bool, args []string) {
	checkCount(ts, neg, args, "jira-issues", "issues", len(server(ts).Issues()))
}

// checkCount is `cmd N` (or `! cmd N`): got is (is not) N things.
func checkCount(ts *testscript.TestScript, neg bool, args []string, cmd, things string, got int) {
	if len(args) != 1 {
		ts.Fatalf("usage: %s N", cmd)
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if (got == want) == neg {
		ts.Fatalf("%s: got %d %s, want %s%d", cmd, got, things, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// jira-edit KEY SUMMARY...: a person edits the issue's summary in Jira.
func cmdJiraEdit(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: jira-edit KEY SUMMARY")
	}
	s := strings.Join(args[1:], " ")
	ts.Check(server(ts).EditAsPerson(args[0], jiratest.PersonEdit{Summary: &s}))
}

// jira-fault METHOD PATH CALL KIND: script a fault.
func cmdJiraFault(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: jira-fault METHOD PATH CALL KIND")
	}
	call, err := strconv.Atoi(args[2])
	ts.Check(err)
	ts.Check(server(ts).AddFault(jiratest.Fault{Method: args[0], Path: args[1], Call: call, Kind: args[3]}))
}

// jira-perms PROJECT [browse] [create] [edit] [transition] [comment]: the
// account holds exactly the named permissions in the project.
func cmdJiraPerms(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: jira-perms PROJECT [browse] [create] [edit] [transition] [comment]")
	}
	var p jiratest.Permissions
	for _, a := range args[1:] {
		switch a {
		case "browse":
			p.Browse = true
		case "create":
			p.Create = true
		case "edit":
			p.Edit = true
		case "transition":
			p.Transition = true
		case "comment":
			p.Comment = true
		default:
			ts.Fatalf("jira-perms: unknown permission %q", a)
		}
	}
	if !server(ts).SetPermissions(args[0], p) {
		ts.Fatalf("jira-perms: no project %s", args[0])
	}
}

// jira-style STYLE [WORKFLOW]: the site's projects become team-managed or
// company-managed (and take the workflow, e.g. classic).
func cmdJiraStyle(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: jira-style team-managed|company-managed [classic]")
	}
	prof := jiratest.Profile{Style: args[0]}
	if len(args) == 2 {
		prof.Workflow = args[1]
	}
	ts.Check(server(ts).SetProfile(jiratest.SiteProfile{Profile: prof}))
}

// no-token: neither stdout nor stderr of the last command holds the token.
func cmdNoToken(ts *testscript.TestScript, neg bool, args []string) {
	for _, f := range []string{"stdout", "stderr"} {
		if strings.Contains(ts.ReadFile(f), testToken) {
			ts.Fatalf("the token appeared in %s", f)
		}
	}
}

// exits N PROG ARGS...: run PROG and require exit code N (stdout and
// stderr are then checked with the usual commands).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// may PROG ARGS...: run PROG whatever its exit code (its output is then
// checked with the usual commands).
func cmdMay(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: may PROG [ARGS...]")
	}
	if err := ts.Exec(args[0], args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("may: %v", err)
		}
	}
}

// jira-seed TYPE SUMMARY [DESCRIPTION]: an issue made in Jira by a person.
// An argument in double quotes is a Go string literal ("a\x1b[2J").
func cmdJiraSeed(ts *testscript.TestScript, neg bool, args []string) {
	parent, ref := "", ""
	for len(args) > 0 && (strings.HasPrefix(args[0], "parent=") || strings.HasPrefix(args[0], "ref=")) {
		if v, ok := strings.CutPrefix(args[0], "parent="); ok {
			parent = v
		} else {
			ref = strings.TrimPrefix(args[0], "ref=")
		}
		args = args[1:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: jira-seed [parent=KEY] [ref=DOC/ITEM] TYPE SUMMARY [DESCRIPTION]")
	}
	for i, a := range args {
		if strings.HasPrefix(a, `"`) {
			u, err := strconv.Unquote(a)
			ts.Check(err)
			args[i] = u
		}
	}
	in := jiratest.SeedIssue{IssueType: args[0], Summary: args[1], Parent: parent, Reference: ref}
	if len(args) == 3 {
		in.Description = args[2]
	}
	key, err := server(ts).Seed(in)
	ts.Check(err)
	ts.Logf("seeded %s", key)
}
