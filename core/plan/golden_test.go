package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/goldentest"
)

func inputs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".golden") && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no inputs in %s", dir)
	}
	return out
}

// TestParseGolden parses every document under testdata/parse and compares
// the model (as JSON) with its .golden file.
func TestParseGolden(t *testing.T) {
	for _, path := range inputs(t, "testdata/parse") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := goldenOptions.Parse(filepath.Base(path), data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, _ := json.MarshalIndent(doc, "", "  ")
			goldentest.Check(t, path+".golden", append(got, '\n'))
		})
	}
}

// formatError renders an error for a golden file.
func formatError(err error) string {
	var pe *Error
	if !errors.As(err, &pe) {
		return fmt.Sprintf("not a *plan.Error: %v\n", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "code: %s\nline: %d\nmessage: %s\n", pe.Code, pe.Line, pe.Message)
	for _, p := range pe.Problems {
		fmt.Fprintf(&b, "- item=%q field=%q line=%d\n  %s\n", p.Item, p.Field, p.Line, p.Message)
	}
	return b.String()
}

// TestMalformedGolden feeds the parser the malformed documents under
// testdata/malformed; each must fail with the message in its .golden file.
// A case whose name contains "no-file-name" is parsed with no file name.
func TestMalformedGolden(t *testing.T) {
	paths := inputs(t, "testdata/malformed")
	if len(paths) < 12 {
		t.Fatalf("want at least 12 malformed documents, have %d", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(path)
			if strings.Contains(name, "no-file-name") {
				name = filepath.Ext(name)
			}
			doc, err := goldenOptions.Parse(name, data)
			if err == nil {
				t.Fatalf("Parse succeeded, want an error; got %+v", doc)
			}
			if doc != nil {
				t.Errorf("Parse returned a document with an error")
			}
			var pe *Error
			if errors.As(err, &pe) && pe.Code == CodeValidationFailed && len(pe.Problems) == 0 {
				t.Errorf("VALIDATION_FAILED without problems")
			}
			goldentest.Check(t, path+".golden", []byte(formatError(err)))
		})
	}
}

// goldenOptions are the options the golden documents are parsed with: two
// custom fields, as a configuration's `fields:` would declare them
// (documents that set none parse as with the zero Options).
var goldenOptions = Options{CustomFields: []string{"Team", "Cost center"}}
