package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/atomicfile"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// ExportOptions are the dependencies and flags of `dwire export`.
type ExportOptions struct {
	ServiceOptions
	Epic, JQL, Project       string // the selection: the argument, --jql, --project
	Format, Output, Document string // --format, -o, --id
	Force                    bool   // --force
	Full                     bool   // --full: every issue named in the warnings
	WorkDir                  string // anchors a relative output path
}

// NewCmdExport parses `dwire export [EPIC-KEY] [--jql Q] [--project P]`.
func NewCmdExport(f *cmdutil.Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	o := &ExportOptions{ServiceOptions: serviceOptions(f), WorkDir: f.WorkDir}
	c := &cobra.Command{
		Use:     "export [EPIC-KEY]",
		Short:   "Write a planning document from existing Jira issues (read-only)",
		Args:    cobra.MaximumNArgs(1),
		Example: "  dwire export PROJ-12 -o checkout.md\n  dwire export --jql 'labels = q3' --format yaml\n  dwire export --project PROJ -o backlog.md",
		Long: `Write a planning document from issues that already exist in Jira: an epic
with its stories and their sub-tasks (dwire export PROJ-12), the issues a
JQL query finds (--jql, within the configured project), or a whole project
(--project PROJ). Parents outside the selection are added, so no story
loses its epic.

Each item gets an id derived from its key (PROJ-12 → proj-12) and a
"Key: PROJ-12" line, so the first import of the document adopts the issues
(it writes their references) instead of creating new ones: its preview
shows only adopts. Titles, descriptions (Markdown), acceptance criteria,
fields, dependencies, sub-tasks and active or future sprints are exported.

The document goes to stdout, or to a file with -o (never overwritten
without --force). Markdown by default; --format yaml, or an -o file ending
in .yaml, writes YAML. Nothing is written to Jira.

Warnings (issues other documents hold, parents added, sub-tasks without
a story, closed sprints, items that would not read back as exported) are
one line per kind, each naming at most 5 issues and counting the rest;
--full names every one.`,
		RunE: runE(o, runF, exportRun, func(_ *cobra.Command, args []string) {
			if len(args) == 1 {
				o.Epic = args[0]
			}
			o.JSON = f.JSON
		}),
	}
	fl := c.Flags()
	fl.StringVar(&o.JQL, "jql", "", "export the issues this JQL query finds (within the configured project)")
	fl.StringVar(&o.Project, "project", "", "export every issue of this project (the configured one)")
	fl.StringVar(&o.Format, "format", "", "markdown (default) or yaml")
	fl.StringVarP(&o.Output, "output", "o", "", "write the document to this file instead of stdout")
	fl.BoolVar(&o.Force, "force", false, "overwrite the -o file if it exists")
	fl.BoolVar(&o.Full, "full", false, "name every issue in the warnings (each names at most 5 without it)")
	fl.StringVar(&o.Document, "id", "", "the document id (default: the id the issues' references share, else from the epic or project key)")
	return c
}

func exportRun(ctx context.Context, o *ExportOptions) error {
	n := 0
	for _, v := range []string{o.Epic, o.JQL, o.Project} {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	if n != 1 {
		return invalidFlag("selection", "Say which issues to export: an epic's key, --jql or --project (exactly one of them; %d given).", n)
	}
	if id := strings.TrimSpace(o.Document); id != "" && !service.ValidDocumentID(id) {
		return invalidFlag("--id", "--id %q is not a document id. Use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.", o.Document)
	}
	format, err := exportFormat(o.Format, o.Output)
	if err != nil {
		return err
	}
	path := inWorkDir(o.WorkDir, o.Output)
	if path != "" && !o.Force {
		if _, err := os.Lstat(path); err == nil {
			return core.Errorf(core.CodeValidationFailed, "%s exists; nothing was exported. Choose another file, or pass --force to overwrite it.", o.Output).
				WithDetails(core.Detail{Field: "output", Message: "exists"})
		}
	}
	svc, closeFn, err := o.Service(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := svc.Export(ctx, service.ExportInput{ // the service trims the selection and the id
		IssueSelection: core.IssueSelection{Epic: o.Epic, Query: o.JQL, Project: o.Project},
		Format:         format, Document: o.Document, AllWarnings: o.Full,
	})
	if err != nil {
		return err
	}
	if res.WarningsTruncated {
		res.Warnings = append(res.Warnings, fmt.Sprintf("Each warning names at most %d issues (its count is of all of them); add --full to name every one.", service.MaxWarningKeys))
	}
	if path != "" {
		if err := writeExport(path, o.Output, []byte(res.Text), o.Force); err != nil {
			return err
		}
	}
	switch {
	case o.JSON:
		return printJSON(o.IO.Out, mcpserver.WholeExport(res)) // document_export's shape
	case path == "":
		fmt.Fprint(o.IO.Out, res.Text)
	}
	warn(o.IO, res.Warnings)
	where := "stdout"
	if path != "" {
		where = o.Output
	}
	stories := fmt.Sprintf("%d stories", res.Stories)
	if res.Stories == 1 {
		stories = "1 story"
	}
	fmt.Fprintf(o.IO.ErrOut, "Exported document %s to %s: %s, %s, %s; its first import adopts %s (no creates). Nothing was written to Jira.\n",
		res.Document, where, core.Plural(res.Epics, "epic", "epics"), stories, core.Plural(res.Subtasks, "sub-task", "sub-tasks"), core.Plural(res.Adopt, "issue", "issues"))
	return nil
}

// exportFormat is the format asked for, or the one the output file's
// extension names; a file whose extension no import reads is refused.
func exportFormat(asked, output string) (string, error) {
	ext := service.FormatOf(output)
	if output != "" && ext == "" {
		return "", invalidFlag("--output", "-o %s has no planning document extension. Name it .md (Markdown) or .yaml (YAML) so that dwire import can read it.", output)
	}
	asked = service.FormatName(asked)
	if asked == "" {
		if ext == "" {
			return service.FormatMarkdown, nil
		}
		return ext, nil
	}
	if asked != service.FormatMarkdown && asked != service.FormatYAML {
		return "", invalidFlag("--format", "--format %q is not a document format. Use markdown or yaml.", asked)
	}
	if ext != "" && ext != asked {
		return "", invalidFlag("--format", "--format %s does not match -o %s, a %s file name. Make them agree.", asked, output, ext)
	}
	return asked, nil
}

// writeExport writes the document to path: a new file only (O_EXCL,
// synced; removed again when the write fails), or with force through
// atomicfile.Write (a temporary file synced and renamed over it, so a
// reader never sees half a document and a failure leaves the old one; the
// file's mode kept, a symbolic link's target written, a new file created
// 0644 under the umask).
func writeExport(path, shown string, data []byte, force bool) error {
	fail := func(err error) error {
		why := core.FSReason(err) // the reason, without the path the message names
		return core.Wrap(err, core.CodeValidationFailed, "%s could not be written (%s); nothing was exported. Check the directory and its permissions.", shown, why).
			WithDetails(core.Detail{Field: "output", Message: why})
	}
	if force {
		if err := atomicfile.Write(path, data); err != nil {
			return fail(err)
		}
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, atomicfile.NewFileMode)
	if errors.Is(err, os.ErrExist) {
		return core.Errorf(core.CodeValidationFailed, "%s exists; nothing was exported. Choose another file, or pass --force to overwrite it.", shown).
			WithDetails(core.Detail{Field: "output", Message: "exists"})
	}
	if err != nil {
		return fail(err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // the new file, half written
		return fail(err)
	}
	return nil
}
