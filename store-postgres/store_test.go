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
	storetest.RunChildIfRequested(func(ctx context.Context) (core.Store, error) {
		return pgstore.Open(ctx, pgstore.Options{URL: os.Getenv(envRaceURL), Schema: os.Getenv(envRaceSchema), MaxConns: 4})
	})
	os.Exit(pgtest.Main(m))
}

type harness struct{ url, schema string }

func (h *harness) Open(ctx context.Context, now func() time.Time) (core.Store, error) {
	// 32 connections: the suite's 32 racing goroutines each get their own.
	// The suite's clock also measures lock leases (in production the
	// server's now() does).
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

func TestContract(t *testing.T) {
	url := pgtest.URL(t)
	storetest.Run(t, func(_ context.Context, t *testing.T) (storetest.Harness, error) {
		return &harness{url: url, schema: pgtest.Schema(t)}, nil
	}, storetest.Options{ModelChecks: 30})
}
