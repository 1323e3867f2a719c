package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// BenchmarkCold measures whole-process wall time of the real, stripped
// dwire binary (built once into a temp dir, as `make build` does), the way
// a person feels it: `dwire version`, and `dwire import --dry-run
// examples/plan.md` against an in-process fake Jira with a SQLite store.
// It reports the median as ms/median besides Go's mean ns/op.
//
//	go test -run '^$' -bench Cold -benchtime 50x ./cmd/dwire
func BenchmarkCold(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "dwire")
	if err := streamtest.GoBuild(bin, ".", "-trimpath", "-ldflags", "-s -w"); err != nil {
		b.Fatal(err)
	}
	srv := jiratest.New(jiratest.Options{Token: testToken})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := b.TempDir()
	cfg := fmt.Sprintf("jira:\n  site: %s\n  project: DEMO\n  email: demo@example.com\nstore: sqlite://./state.db\n", hs.URL)
	if err := os.WriteFile(filepath.Join(dir, ".devworkwire.yaml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	plan, err := os.ReadFile("../../../examples/plan.md")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.md"), plan, 0o600); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "JIRA_API_TOKEN=" + testToken}

	for _, bc := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"import-dry-run", []string{"import", "plan.md", "--dry-run"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, bc.args...)
				cmd.Dir, cmd.Env = dir, env
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", bc.args, err, out)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/median")
		})
	}
}
