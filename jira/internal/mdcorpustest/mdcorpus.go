// Package mdcorpustest gives the converters' tests (jira/adf, jira/wiki) the
// corpus they share — the 321 CommonMark spec examples with the ADF of
// Atlassian's own transformer, jira/adf/testdata/commonmark-adf-examples.json
// — and the no-text-lost check they both make.
package mdcorpustest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Example is one CommonMark spec example and the ADF Atlassian's
// transformer makes of it.
type Example struct {
	Example  int             `json:"example"`
	Section  string          `json:"section"`
	Markdown string          `json:"markdown"`
	ADF      json.RawMessage `json:"adf"`
}

// Size is the number of examples in the corpus.
const Size = 321

// Load reads the corpus, failing t when it cannot or when it does not
// hold Size examples.
func Load(t testing.TB) []Example {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "adf", "testdata", "commonmark-adf-examples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex []Example
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex) != Size {
		t.Fatalf("corpus has %d examples, want %d", len(ex), Size)
	}
	return ex
}

// IsSubsequence reports whether every rune of want appears in got in
// order; it returns the position in want of the first missing rune.
func IsSubsequence(want, got string) (bool, int) {
	g := []rune(got)
	j := 0
	for i, r := range []rune(want) {
		for j < len(g) && g[j] != r {
			j++
		}
		if j == len(g) {
			return false, i
		}
		j++
	}
	return true, -1
}
