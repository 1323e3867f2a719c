package goldentest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/goldentest"
)

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if !goldentest.Check(r, path, []byte("a\nb\n")) || len(r.errs) != 0 {
		t.Fatalf("equal output: %v", r.errs)
	}
	if goldentest.Check(r, path, []byte("a\nc\n")) || len(r.errs) != 1 || !strings.Contains(r.errs[0], "-want +got") {
		t.Fatalf("different output: %v", r.errs)
	}
}
