package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Binaries are the static executables built from this checkout.
type Binaries struct {
	Dir      string // folder holding them
	Dwire    string
	MockJira string
}

// RepoRoot returns the workspace root (the folder holding go.work).
func RepoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("harness: cannot locate source file")
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("harness: no go.work above %s", file)
		}
		dir = parent
	}
}

// Build compiles dwire and mockjira (CGO_ENABLED=0, so the mockjira binary
// can run in a FROM scratch image) into dir.
func Build(dir string) (Binaries, error) {
	root, err := RepoRoot()
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{Dir: dir, Dwire: filepath.Join(dir, "dwire"), MockJira: filepath.Join(dir, "mockjira")}
	version := "0.0.0-e2e"
	for _, t := range []struct{ module, pkg, out, ldflags string }{
		{"cli", "./cmd/dwire", b.Dwire, "-X github.com/devworkwire/devworkwire/cli/internal/build.Version=" + version},
		{"jira", "./cmd/mockjira", b.MockJira, ""},
	} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", t.ldflags, "-o", t.out, t.pkg)
		cmd.Dir = filepath.Join(root, t.module)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return Binaries{}, fmt.Errorf("harness: go build %s: %v\n%s", t.pkg, err, strings.TrimSpace(out.String()))
		}
	}
	return b, nil
}
