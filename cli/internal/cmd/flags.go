package cmd

import (
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

func invalidFlag(flag, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return core.Errorf(core.CodeValidationFailed, "%s", msg).WithDetails(core.Detail{Field: flag, Message: msg})
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
