// Package goldentest compares test output with golden files under
// testdata/. A test binary that imports it has the -update flag, which
// rewrites the golden files with what the tests produced.
package goldentest

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files with the output of the tests")

// Check compares got with the golden file at path and reports a difference
// as a test error with a (-want +got) diff. With -update it first writes
// got to path. It reports whether got matched.
func Check(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from the golden file (-want +got); if intended, run go test -update:\n%s", path, d)
		return false
	}
	return true
}
