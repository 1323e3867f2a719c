// Package cmd holds the dwire commands. Each command follows the GitHub CLI
// pattern: an Options struct (dependencies and flags), NewCmdX(f, runF)
// that only parses flags, and xRun(opts) that does the work, so parsing and
// behaviour are tested separately.
package cmd
