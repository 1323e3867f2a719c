package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core/service"
)

// printJSON writes v as indented JSON on w.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// warn prints each warning on stderr with the Warning: prefix.
func warn(ios *iostreams.IOStreams, warnings []string) {
	cs := ios.ColorScheme(true)
	for _, w := range warnings {
		line := "Warning: " + render.CleanText(w)
		if ios.IsStderrTTY() {
			line = render.Wrap(line, ios.Width(), "  ")
		}
		fmt.Fprintf(ios.ErrOut, "%s%s\n", cs.Yellow("Warning:"), strings.TrimPrefix(line, "Warning:"))
	}
}

// viewOpts shapes a view for stdout (stderr=false) or stderr.
func viewOpts(ios *iostreams.IOStreams, stderr bool) render.Options {
	return render.Options{Width: ios.Width(), CS: ios.ColorScheme(stderr)}
}

// showPreview shows a preview to a person: on stdout, or on stderr under
// --json (asJSON), where stdout carries the JSON result. When the command
// ends here (final) under --json, result is printed as JSON instead, and
// done is true. A preview that is about to be confirmed (not final) while
// stdout is redirected goes to the terminal too (stderr): the person must
// see what they confirm.
func showPreview(ios *iostreams.IOStreams, asJSON, final bool, result any, view func(io.Writer, render.Options)) (done bool, err error) {
	switch {
	case asJSON && final:
		return true, printJSON(ios.Out, result)
	case asJSON:
		view(ios.ErrOut, viewOpts(ios, true))
	default:
		view(ios.Out, viewOpts(ios, false))
		if !final && redirected(ios) {
			view(ios.ErrOut, viewOpts(ios, true))
		}
	}
	return false, nil
}

// redirected reports whether stdout is not a terminal while a person can
// be asked on it: a preview shown for confirmation on stdout alone would
// then be invisible at the prompt (`dwire import plan.md > out.txt`).
func redirected(ios *iostreams.IOStreams) bool { return !ios.IsStdoutTTY() && ios.CanPrompt() }

// importQuestion asks for the writes of an import preview: how many of
// each kind (the preview above names each one), wrapped at width.
func importQuestion(w service.PlanWrites, width int) string {
	return render.Wrap(fmt.Sprintf("Write to Jira (%s)?", w.Summary()), width-6, "") // room for " [y/N] "
}

// titleWarnings warns about titles holding invisible or direction-changing
// characters (bidi overrides, zero-width characters): what a person reads
// may not be what is written. name says which item each title belongs to.
func titleWarnings(ios *iostreams.IOStreams, titles map[string]string) {
	names := make([]string, 0, len(titles))
	for n := range titles {
		names = append(names, n)
	}
	sort.Strings(names)
	var ws []string
	for _, n := range names {
		if s := render.Suspicious(titles[n]); len(s) > 0 {
			ws = append(ws, fmt.Sprintf("the title of %s holds invisible or direction-changing characters (%s): what you read may not be what is written. They are shown as <U+…>.", n, strings.Join(s, ", ")))
		}
	}
	warn(ios, ws)
}

// planTitles names every title of an import preview by key or reference.
func planTitles(p service.ImportPreviewResult) map[string]string {
	m := map[string]string{}
	for _, it := range p.Items {
		n := string(it.Reference)
		if it.Key != "" {
			n = it.Key
		}
		m[n] = it.Title
	}
	return m
}

// viewTitles names the titles of items read from Jira by key.
func viewTitles(items ...service.ItemView) map[string]string {
	m := map[string]string{}
	for _, it := range items {
		m[it.Key] = it.Title
		if it.Epic != nil {
			m[it.Epic.Key] = it.Epic.Title
		}
		for _, c := range it.Children {
			m[c.Key] = c.Title
		}
	}
	return m
}
