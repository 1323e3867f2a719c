package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
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
		line := "Warning: " + w
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
