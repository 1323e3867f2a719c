package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

const envRacePath = "DWIRE_SQLITE_RACE_PATH"

func TestMain(m *testing.M) {
	storetest.RunChildIfRequested(context.Background(), func(ctx context.Context) (core.Store, error) {
		return sqlitestore.Open(ctx, sqlitestore.Options{Path: os.Getenv(envRacePath)})
	})
	os.Exit(m.Run())
}

// harness is a ProcessHarness: processes share the file.
type harness struct{ path string }

func (h *harness) ChildEnv() []string { return []string{envRacePath + "=" + h.path} }

func (h *harness) Open(ctx context.Context, now func() time.Time) (core.Store, error) {
	return sqlitestore.Open(ctx, sqlitestore.Options{Path: h.path, Now: now})
}

func (h *harness) TamperPlan(ctx context.Context, handle string) error {
	s, err := sqlitestore.Open(ctx, sqlitestore.Options{Path: h.path, Now: func() time.Time { return time.Time{} }})
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.DB().ExecContext(ctx, `UPDATE previews SET plan = CAST('{"tampered":true}' AS BLOB) WHERE handle = ?`, handle)
	return err
}

// Close checks the file's integrity after every contract subtest
// (including the 32 goroutines × 200 handles race and the process races
// and crash).
func (h *harness) Close() error {
	s, err := sqlitestore.Open(context.Background(), sqlitestore.Options{Path: h.path})
	if err != nil {
		return err
	}
	defer s.Close()
	got, err := s.IntegrityCheck(context.Background())
	if err != nil {
		return err
	}
	if got != "ok" {
		return fmt.Errorf("PRAGMA integrity_check on %s = %q, want ok", h.path, got)
	}
	return nil
}

func newHarness(_ context.Context, t testing.TB) (storetest.Harness, error) {
	return &harness{path: filepath.Join(t.TempDir(), "state.db")}, nil
}

func TestContract(t *testing.T) { storetest.Run(t, newHarness, storetest.Options{ModelChecks: 30}) }

// BenchmarkStore: the store suite's benchmarks on one file (save+load+
// consume and lock cycles per second, 1 and 16 concurrent clients).
func BenchmarkStore(b *testing.B) { storetest.RunBenchmarks(b, newHarness) }
