package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
)

// Flag parsing is tested apart from behaviour: runF captures the options.

func testFactory() *cmdutil.Factory {
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }}
}

func TestNewCmdImportParses(t *testing.T) {
	var got *ImportOptions
	c := NewCmdImport(testFactory(), func(_ context.Context, o *ImportOptions) error { got = o; return nil })
	c.SetArgs([]string{"plan.md", "--dry-run"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Path != "plan.md" || !got.DryRun {
		t.Fatalf("options = %+v", got)
	}
	if c.Flags().Lookup("yes") != nil || c.Flags().ShorthandLookup("y") != nil {
		t.Fatal("import must never have a --yes flag")
	}
}

func TestNewCmdProgressParses(t *testing.T) {
	var got *ProgressOptions
	c := NewCmdProgress(testFactory(), func(_ context.Context, o *ProgressOptions) error { got = o; return nil })
	c.SetArgs([]string{"PROJ-1", "--status", "done", "--comment", "-"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Item != "PROJ-1" || got.Status != "done" || got.Comment != "-" || !got.CommentSet {
		t.Fatalf("options = %+v", got)
	}
	c = NewCmdProgress(testFactory(), func(_ context.Context, o *ProgressOptions) error { got = o; return nil })
	c.SetArgs([]string{"PROJ-1", "--status", "todo"})
	if err := c.Execute(); err != nil || got.CommentSet {
		t.Fatalf("CommentSet without --comment: %+v %v", got, err)
	}
}

func TestNewCmdListDefaults(t *testing.T) {
	var got *ListOptions
	c := NewCmdList(testFactory(), func(_ context.Context, o *ListOptions) error { got = o; return nil })
	c.SetArgs([]string{"--ready", "--epic", "checkout-v2/e-1"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.Ready || got.Epic != "checkout-v2/e-1" || got.Limit != core.DefaultQueryLimit {
		t.Fatalf("options = %+v", got)
	}
}

func TestParseStatus(t *testing.T) {
	for in, want := range map[string]core.Status{"": "", "todo": "todo", "in-progress": "in_progress", "IN_PROGRESS": "in_progress", "done": "done"} {
		if got, err := parseStatus(in); err != nil || got != want {
			t.Errorf("parseStatus(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := parseStatus("closed"); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("parseStatus(closed) = %v", err)
	}
}

func TestNoCommandHasAYesFlag(t *testing.T) {
	root := NewCmdRoot(testFactory())
	for _, c := range append(root.Commands(), root) {
		for _, name := range []string{"yes", "force-commit", "no-confirm", "assume-yes"} {
			if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
				t.Errorf("%s has --%s", c.Name(), name)
			}
		}
	}
}

func TestRedactURL(t *testing.T) {
	if got := redactURL("postgres://u:secret@db/x"); got != "postgres://u:xxxxx@db/x" {
		t.Fatalf("redactURL = %q", got)
	}
}

// TestJiraChecksPlaceEachFailure: a failure is reported on the line it is
// about; a permission detail naming an issue *type* permission is not an
// issue-type problem.
func TestJiraChecksPlaceEachFailure(t *testing.T) {
	cfg := &config.Config{Site: "https://x.atlassian.net", Email: "a@b.c", Project: "DEMO", ReferenceField: "Ref", EpicType: "Epic", StoryType: "Story"}
	for _, c := range []struct {
		name   string
		err    error
		failed string
	}{
		{"missing type", core.Errorf(core.CodeConfigInvalid, "no type").WithDetails(core.Detail{Field: "jira.issue_types.epic"}), "issue types"},
		{"missing field", core.Errorf(core.CodeReferenceFieldMissing, "no field").WithDetails(core.Detail{Field: "jira.reference_field"}), "reference field"},
		{"Jira error about a type field", core.Errorf(core.CodeJiraUnavailable, "down").WithDetails(core.Detail{Field: "issuetype"}), "jira"},
		{"unavailable", core.Errorf(core.CodeJiraUnavailable, "down"), "jira"},
	} {
		var got []string
		for _, ch := range jiraChecks(cfg, c.err) {
			if !ch.OK && !ch.Skipped {
				got = append(got, ch.Name)
			}
		}
		if len(got) != 1 || got[0] != c.failed {
			t.Errorf("%s: failed lines %v, want [%s]", c.name, got, c.failed)
		}
	}
}

func TestNewCmdImportReleaseHeld(t *testing.T) {
	var got *ImportOptions
	c := NewCmdImport(testFactory(), func(_ context.Context, o *ImportOptions) error { got = o; return nil })
	c.SetArgs([]string{"plan.md", "--release-held", "s-1,doc/s-2", "--release-held", "e-1"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.ReleaseHeld, " ") != "s-1 doc/s-2 e-1" {
		t.Fatalf("ReleaseHeld = %q", got.ReleaseHeld)
	}
}
