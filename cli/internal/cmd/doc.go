// Package cmd holds the dwire commands, one file per command (import.go,
// progress.go, ls.go, show.go, review.go, init.go, doctor.go, mcp.go,
// version.go, root.go). Each follows the GitHub CLI pattern: an Options
// struct holding only what that command uses (its streams, the service
// opener, its flags), NewCmdX(f, runF) that only parses flags, and
// xRun(opts) that does the work, so parsing and behaviour are tested
// separately. What several commands share is in commit.go (committing a
// confirmed preview), confirm.go (the prompt and the refusal without a
// terminal), flags.go and output.go.
package cmd
