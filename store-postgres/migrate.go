package pgstore

import (
	"context"
	"embed"
	"hash/fnv"
	"strings"

	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// embedded are this store's migrations.
var embedded = migrations.NewSet(migrationFS, "migrations")

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int { return embedded.Version() }

// lockKey is the advisory lock key of a schema's migrations.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("devworkwire/migrate/" + schema))
	return int64(h.Sum64())
}

// migrate creates the schema and applies pending migrations, holding a
// session advisory lock for the schema so concurrent openers wait for one
// another instead of racing.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := embedded.Load()
	if err != nil {
		return s.fault(err, "read the embedded migrations")
	}
	conn, err := s.acquire(ctx)
	if err != nil {
		return s.fault(err, "connect for migrations")
	}
	defer conn.Release()
	key := lockKey(s.name)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return s.fault(err, "take the migration lock")
	}
	defer func() {
		// Unlock on a fresh context: ctx may be done. If this fails the
		// lock goes with the connection.
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, s.name).Scan(&exists); err != nil {
		return s.fault(err, "look up schema "+s.name)
	}
	if !exists {
		if _, err := conn.Exec(ctx, `CREATE SCHEMA `+s.schema); err != nil {
			return s.fault(err, "create schema "+s.name)
		}
	}
	if _, err := conn.Exec(ctx, s.q(`CREATE TABLE IF NOT EXISTS {schema}.schema_migrations (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`)); err != nil {
		return s.fault(err, "create the migrations table in schema "+s.name)
	}
	var cur int
	if err := conn.QueryRow(ctx, s.q(`SELECT coalesce(max(version), 0) FROM {schema}.schema_migrations`)).Scan(&cur); err != nil {
		return s.fault(err, "read the schema version")
	}
	if cur > len(ms) {
		return storeerr.SchemaTooNew("The Postgres state store schema "+s.name, cur, len(ms), "use another schema (?schema=NAME)")
	}
	for _, m := range ms[cur:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, strings.ReplaceAll(m.SQL, "{schema}", s.schema)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, s.q(`INSERT INTO {schema}.schema_migrations (version, name) VALUES ($1, $2)`), m.Version, m.Name)
			return err
		})
		if err != nil {
			return s.fault(err, "apply migration "+m.Name)
		}
	}
	return nil
}
