package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// Flag parsing is tested apart from behaviour: runF captures the options.

func testFactory() *cmdutil.Factory {
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{IOStreams: ios, Getenv: func(string) string { return "" }}
}

// parse runs the command newCmd builds on args, with a runF that captures
// the options, and returns them with the command.
func parse[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, *cobra.Command) {
	t.Helper()
	var got *O
	c := newCmd(testFactory(), func(_ context.Context, o *O) error { got = o; return nil })
	c.SetArgs(args)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	return got, c
}

func TestNewCmdImportParses(t *testing.T) {
	got, c := parse(t, NewCmdImport, "plan.md", "--dry-run")
	if got.Path != "plan.md" || !got.DryRun {
		t.Fatalf("options = %+v", got)
	}
	if c.Flags().Lookup("yes") != nil || c.Flags().ShorthandLookup("y") != nil {
		t.Fatal("import must never have a --yes flag")
	}
}

func TestNewCmdProgressParses(t *testing.T) {
	got, _ := parse(t, NewCmdProgress, "PROJ-1", "--status", "done", "--comment", "-")
	if got.Item != "PROJ-1" || got.Status != "done" || got.Comment != "-" || !got.CommentSet {
		t.Fatalf("options = %+v", got)
	}
	if got, _ = parse(t, NewCmdProgress, "PROJ-1", "--status", "todo"); got.CommentSet {
		t.Fatalf("CommentSet without --comment: %+v", got)
	}
}

func TestNewCmdListDefaults(t *testing.T) {
	got, _ := parse(t, NewCmdList, "--ready", "--epic", "checkout-v2/e-1")
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
		{"permission", core.Errorf(core.CodeJiraPermissionDenied, "no link").WithDetails(core.Detail{Field: "LINK_ISSUES"}), "permissions"},
		{"Data Center", core.Errorf(core.CodeConfigInvalid, "not Cloud").WithDetails(core.Detail{Field: "jira.site"}), "site"},
		{"unsearchable field", core.Errorf(core.CodeReferenceFieldMissing, "not searchable").WithDetails(core.Detail{Field: "jira.reference_field"}), "reference field"},
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
		if n := len(jiraChecks(cfg, c.err)); n != len(jiraCheckNames) {
			t.Errorf("%s: %d lines, want one per check (%d)", c.name, n, len(jiraCheckNames))
		}
	}
}

func TestNewCmdImportReleaseHeld(t *testing.T) {
	got, _ := parse(t, NewCmdImport, "plan.md", "--release-held", "s-1,doc/s-2", "--release-held", "e-1")
	if strings.Join(got.ReleaseHeld, " ") != "s-1 doc/s-2 e-1" {
		t.Fatalf("ReleaseHeld = %q", got.ReleaseHeld)
	}
}

func TestNewCmdPullParses(t *testing.T) {
	got, c := parse(t, NewCmdPull, "plan.md", "--take-jira", "s-1,s-2", "--take-document", "all", "--dry-run")
	if got.Path != "plan.md" || !got.DryRun || len(got.TakeJira) != 2 || got.TakeJira[1] != "s-2" || len(got.TakeDocument) != 1 || got.TakeDocument[0] != "all" {
		t.Fatalf("options = %+v", got)
	}
	if c.Flags().Lookup("yes") != nil || c.Flags().ShorthandLookup("y") != nil {
		t.Fatal("pull must never have a --yes flag")
	}
}

func TestNewCmdExportParses(t *testing.T) {
	got, _ := parse(t, NewCmdExport, "PROJ-12", "-o", "plan.yaml", "--force", "--id", "shop")
	if got.Epic != "PROJ-12" || got.Output != "plan.yaml" || !got.Force || got.Document != "shop" {
		t.Fatalf("options = %+v", got)
	}
	if got, _ = parse(t, NewCmdExport, "--jql", "labels = q3", "--format", "yaml"); got.JQL != "labels = q3" || got.Format != "yaml" || got.Epic != "" {
		t.Fatalf("options = %+v", got)
	}
}

// exportOptions is `dwire export` over a fake tracker holding an epic
// with a story, in dir.
func exportOptions(t *testing.T, dir string) (*ExportOptions, *int) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	p := fakeprovider.New(fakeprovider.Options{})
	epic := p.AddAsPerson(core.WorkItem{Kind: core.KindEpic, Title: "Checkout"})
	p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay", ParentKey: epic})
	opened := 0
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: memstore.New(memstore.Options{})})
	o := &ExportOptions{ServiceOptions: ServiceOptions{IO: ios, Service: func(context.Context) (cmdutil.Service, func(), error) {
		opened++
		return svc, func() {}, nil
	}}, WorkDir: dir, Epic: epic}
	return o, &opened
}

// `dwire export` prints the document on stdout (the summary on stderr),
// writes -o only when the file is new or --force is given, and takes the
// format from the file name.
func TestExportWritesNewFilesOnly(t *testing.T) {
	dir := t.TempDir()
	o, opened := exportOptions(t, dir)
	ios := o.IO
	if err := exportRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	out := ios.Out.(interface{ String() string }).String()
	if !strings.Contains(out, "## Epic demo-1: Checkout\nKey: DEMO-1\n") || !strings.Contains(out, "### Story demo-2: Pay\nKey: DEMO-2\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if e := ios.ErrOut.(interface{ String() string }).String(); !strings.Contains(e, "Exported document demo-1 to stdout: 1 epic, 1 story, 0 sub-tasks; its first import adopts 2 issues") {
		t.Errorf("stderr: %s", e)
	}

	o.Output = "plan.yaml"
	if err := exportRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "plan.yaml"))
	if err != nil || !strings.Contains(string(b), "key: DEMO-1") {
		t.Fatalf("plan.yaml: %v\n%s", err, b)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := *opened
	err = exportRun(context.Background(), o)
	if core.ErrorCode(err) != core.CodeValidationFailed || !strings.Contains(err.Error(), "plan.yaml exists") || *opened != before {
		t.Errorf("existing file: %v (service opened %d more times)", err, *opened-before)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.yaml")); string(b) != "mine" {
		t.Errorf("the existing file was changed: %q", b)
	}
	o.Force = true
	if err := exportRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.yaml")); !strings.Contains(string(b), "key: DEMO-2") {
		t.Errorf("--force did not overwrite: %q", b)
	}
	for _, bad := range []ExportOptions{{Output: "plan.txt"}, {Output: "plan.md", Format: "yaml"}, {Format: "toml"}} {
		if _, err := exportFormat(bad.Format, bad.Output); core.ErrorCode(err) != core.CodeValidationFailed {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// `dwire export --force` replaces the -o file in place: an existing file
// keeps its mode, a symbolic link stays and its target gets the document,
// a file that does not exist yet is created; a failure writes nothing and
// leaves no temporary file (core/atomicfile has the sync and rename
// failures).
func TestExportForceReplacesInPlace(t *testing.T) {
	dir := t.TempDir()
	o, _ := exportOptions(t, dir)
	o.Force = true
	// export exports to out (over a file holding "mine" with mode 0600
	// first, when there is one) and checks that file holds the document.
	export := func(out, file string) {
		t.Helper()
		if file != "" {
			if err := os.WriteFile(filepath.Join(dir, file), []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
		} else {
			file = out
		}
		o.Output = out
		if err := exportRun(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, file)); err != nil || !strings.Contains(string(b), "Key: DEMO-2") {
			t.Errorf("%s after exporting to %s: %v\n%s", file, out, err, b)
		}
	}
	// An existing file, mode 0600: replaced, mode kept.
	export("own.md", "own.md")
	if fi, _ := os.Stat(filepath.Join(dir, "own.md")); fi.Mode().Perm() != 0o600 {
		t.Errorf("own.md mode %v after --force; want 0600 kept", fi.Mode().Perm())
	}
	// A symbolic link: its target is written, the link stays.
	if err := os.Symlink("own.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	export("link.md", "own.md")
	if fi, err := os.Lstat(filepath.Join(dir, "link.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.md is no longer a symbolic link (%v, %v): --force replaced the link instead of its target", fi.Mode(), err)
	}
	// A file that does not exist yet.
	export("new.md", "")
	// A failure (the folder does not exist): nothing written anywhere.
	o.Output = "missing/plan.md"
	err := exportRun(context.Background(), o)
	if core.ErrorCode(err) != core.CodeValidationFailed || !strings.Contains(err.Error(), "missing/plan.md could not be written (no such file or directory); nothing was exported") {
		t.Errorf("export into a missing folder: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("the failed export made something: %v", err)
	}
}

// `dwire export --id " shop " --format " YML "` is the document shop in
// YAML: the id is trimmed by the service, as document_export's is, and
// the format's names are plan.FormatName's.
func TestExportTrimsTheID(t *testing.T) {
	o, _ := exportOptions(t, t.TempDir())
	o.Document, o.Format = " shop ", " YML "
	if err := exportRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if out := o.IO.Out.(interface{ String() string }).String(); !strings.Contains(out, "\nid: shop\n") {
		t.Errorf("stdout:\n%s", out)
	}
}

// inWorkDir: a relative path is the working directory's, an absolute or
// empty one stays as it is (no -o means stdout, not the directory).
func TestInWorkDir(t *testing.T) {
	for _, c := range []struct{ dir, path, want string }{
		{"/w", "plan.md", "/w/plan.md"},
		{"/w", "sub/../plan.md", "/w/plan.md"},
		{"/w", "/abs/plan.md", "/abs/plan.md"},
		{"/w", "", ""},
		{"", "plan.md", "plan.md"},
	} {
		if got := inWorkDir(c.dir, c.path); got != c.want {
			t.Errorf("inWorkDir(%q, %q) = %q; want %q", c.dir, c.path, got, c.want)
		}
	}
}

func TestSharedStoreNoteFitsEightyColumns(t *testing.T) {
	var b strings.Builder
	sharedStoreNote(&b)
	for _, want := range []string{"policy set agents <value>", "confirm", "ask-person", "preview-only", "(the default)", "never loosen"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the note lacks %q:\n%s", want, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	t.Log("\n" + b.String())
}
