// Command gendocs writes the man pages (cobra/doc, section 1) and the shell
// completions (bash, zsh, fish, PowerShell) of the dwire command tree, for
// release archives (.goreleaser.yaml runs it as a before hook):
//
//	go run ./cli/internal/gendocs -out dist-extra -version 0.2.0 -date 1764547200
//
// It writes OUT/man/dwire*.1 and OUT/completions/{dwire.bash,_dwire,
// dwire.fish,dwire.ps1}. It lives in cli/internal so that it can build the
// real command tree and is not installed with the cli module.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/devworkwire/devworkwire/cli/internal/cmd"
	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gendocs", flag.ContinueOnError)
	out := fs.String("out", "", "directory to write man/ and completions/ into (required)")
	version := fs.String("version", "", "the dwire version shown in the man pages (required)")
	date := fs.String("date", os.Getenv("SOURCE_DATE_EPOCH"), "the man pages' date as Unix seconds (default: $SOURCE_DATE_EPOCH, else today)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *version == "" || fs.NArg() > 0 {
		return errors.New("usage: gendocs -out DIR -version VERSION [-date UNIX_SECONDS]")
	}
	when := time.Now().UTC()
	if *date != "" {
		sec, err := strconv.ParseInt(*date, 10, 64)
		if err != nil {
			return fmt.Errorf("-date %q is not Unix seconds: %w", *date, err)
		}
		when = time.Unix(sec, 0).UTC()
	}
	return generate(*out, *version, when)
}

// generate writes the man pages and completions of the command tree.
func generate(out, version string, when time.Time) error {
	ios, _, _, _ := iostreams.Test()
	root := cmd.NewCmdRoot(&cmdutil.Factory{IOStreams: ios, Version: version})
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true

	manDir := filepath.Join(out, "man")
	compDir := filepath.Join(out, "completions")
	for _, d := range []string{manDir, compDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	header := &doc.GenManHeader{Title: "DWIRE", Section: "1", Source: "dwire " + version, Manual: "DevWorkWire Manual", Date: &when}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	for name, gen := range map[string]func(*cobra.Command, string) error{
		"dwire.bash": func(c *cobra.Command, p string) error { return c.GenBashCompletionFileV2(p, true) },
		"_dwire":     func(c *cobra.Command, p string) error { return c.GenZshCompletionFile(p) },
		"dwire.fish": func(c *cobra.Command, p string) error { return c.GenFishCompletionFile(p, true) },
		"dwire.ps1":  func(c *cobra.Command, p string) error { return c.GenPowerShellCompletionFileWithDesc(p) },
	} {
		if err := gen(root, filepath.Join(compDir, name)); err != nil {
			return fmt.Errorf("completion %s: %w", name, err)
		}
	}
	return nil
}
