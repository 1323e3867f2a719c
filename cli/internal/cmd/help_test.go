package cmd

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestHelpFitsEightyColumns: `dwire --help` and every `dwire <cmd> --help`
// (and the sub-commands of completion) fit 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	root := NewCmdRoot(testFactory())
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if len(all) < 10 {
		t.Fatalf("only %d commands found", len(all))
	}
	for _, c := range all {
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "dwire")), "--help")
		r := NewCmdRoot(testFactory())
		var out bytes.Buffer
		r.SetOut(&out)
		r.SetErr(&out)
		r.SetArgs(args)
		if err := r.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if out.Len() == 0 {
			t.Fatalf("%v printed nothing", args)
		}
		for i, l := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("dwire %s line %d is %d columns:\n%s", strings.Join(args, " "), i+1, n, l)
			}
		}
	}
}
