package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/devworkwire/devworkwire/e2e/harness"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
)

// Set up once for the whole suite by TestMain.
var (
	bins   harness.Binaries
	mode   harness.Mode
	pgURL  string // "" when no PostgreSQL could be had
	pgWhy  string
	tmpDir string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	tmpDir, err = os.MkdirTemp("", "dwire-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmpDir)
	if bins, err = harness.Build(tmpDir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	ctx := context.Background()
	mode = harness.ChooseMode(ctx)
	fmt.Fprintf(os.Stderr, "e2e: mockjira runs as a %s\n", mode)
	if f := os.Getenv("DWIRE_E2E_MODE_FILE"); f != "" { // .ci/run prints it: go test hides a passing package's output
		_ = os.WriteFile(f, []byte(string(mode)+"\n"), 0o644)
	}
	url, stop, err := pgtest.Find(ctx)
	if err != nil {
		pgWhy = err.Error()
		if os.Getenv("DWIRE_REQUIRE_POSTGRES") == "1" {
			fmt.Fprintln(os.Stderr, "e2e: PostgreSQL is required here (DWIRE_REQUIRE_POSTGRES=1):", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "e2e: no PostgreSQL, team scenarios will be skipped:", err)
	} else {
		pgURL = url
		defer stop()
	}
	return m.Run()
}
