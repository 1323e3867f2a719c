package pgstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

const (
	envRaceURL    = "DWIRE_PG_RACE_URL"
	envRaceSchema = "DWIRE_PG_RACE_SCHEMA"
)

func TestMain(m *testing.M) {
	storetest.RunChildIfRequested(context.Background(), func(ctx context.Context) (core.Store, error) {
		return pgstore.Open(ctx, pgstore.Options{URL: os.Getenv(envRaceURL), Schema: os.Getenv(envRaceSchema), MaxConns: 4})
	})
	os.Exit(pgtest.Main(m))
}

// harness is a ProcessHarness: processes (each with its own pool) share
// the schema.
type harness struct{ url, schema string }

func (h *harness) ChildEnv() []string {
	return []string{envRaceURL + "=" + h.url, envRaceSchema + "=" + h.schema}
}

func (h *harness) Open(ctx context.Context, now func() time.Time) (core.Store, error) {
	// 32 connections: the suite's 32 racing goroutines each get their own.
	// The suite's clock also measures lock leases (nil: the server's
	// now(), as in production).
	return pgstore.Open(ctx, pgstore.Options{URL: h.url, Schema: h.schema, Now: now, LeaseClock: now, MaxConns: 32})
}

func (h *harness) TamperPlan(ctx context.Context, handle string) error {
	conn, err := pgx.Connect(ctx, h.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `UPDATE `+pgx.Identifier{h.schema, "previews"}.Sanitize()+` SET plan = '\x7b7d' WHERE handle = $1`, handle)
	return err
}

func (h *harness) Close() error { return nil }

func newHarness(_ context.Context, t testing.TB) (storetest.Harness, error) {
	return &harness{url: pgtest.URL(t), schema: pgtest.Schema(t)}, nil
}

func TestContract(t *testing.T) { storetest.Run(t, newHarness, storetest.Options{ModelChecks: 30}) }

// BenchmarkStore: the store suite's benchmarks on one schema (save+load+
// consume and lock cycles per second, 1 and 16 concurrent clients).
func BenchmarkStore(b *testing.B) { storetest.RunBenchmarks(b, newHarness) }
