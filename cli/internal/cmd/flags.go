package cmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/core"
)

// invalidFlag is a usage error about one flag's value: VALIDATION_FAILED
// naming the flag, before any operation ran (so without a run id).
func invalidFlag(flag, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &cmdutil.UsageError{Err: core.Errorf(core.CodeValidationFailed, "%s", msg).WithDetails(core.Detail{Field: flag, Message: msg})}
}

// parseStatus accepts the three statuses (and in-progress for convenience).
func parseStatus(s string) (core.Status, error) {
	switch v := core.Status(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")); {
	case s == "":
		return "", nil
	case v.Valid():
		return v, nil
	}
	return "", invalidFlag("--status", "--status %q is not a status. Use todo, in_progress or done.", s)
}

// completeStatus completes a --status value.
func completeStatus(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"todo\tnot started", "in_progress\tbeing worked on", "done\tfinished"}, cobra.ShellCompDirectiveNoFileComp
}

// completeKind completes `dwire ls --kind`.
func completeKind(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"epic	epics only", "story	stories only", "subtask	sub-tasks only"}, cobra.ShellCompDirectiveNoFileComp
}

// completeElicitation completes `dwire mcp --elicitation`.
func completeElicitation(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"off\tnever ask the person directly", "when-available\task when the client supports it", "required\trefuse commits the client cannot ask about"}, cobra.ShellCompDirectiveNoFileComp
}

// completeItem completes a work item argument with the keys and references
// the state store's dedup index knows (no request to Jira).
func completeItem(open cmdutil.OpenServiceFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || c.Context() == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		svc, closeFn, err := open(c.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer closeFn()
		es, err := svc.KnownItems(c.Context(), 1000)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, e := range es {
			if strings.HasPrefix(string(e.Reference), toComplete) {
				out = append(out, string(e.Reference)+"\t"+e.Key)
			}
			if strings.HasPrefix(e.Key, toComplete) {
				out = append(out, e.Key+"\t"+string(e.Reference))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// inWorkDir is a path a person gave as the command opens it: a relative
// one joined to dir (the directory the command runs in), an absolute or
// empty one as it is. Every command reading or writing a file uses it.
func inWorkDir(dir, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
