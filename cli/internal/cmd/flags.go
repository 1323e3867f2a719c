package cmd

import (
	"fmt"
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

// completeElicitation completes `dwire mcp --elicitation`.
func completeElicitation(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"off\tnever ask the person directly", "when-available\task when the client supports it", "required\trefuse commits the client cannot ask about"}, cobra.ShellCompDirectiveNoFileComp
}
