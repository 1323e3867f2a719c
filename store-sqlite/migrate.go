package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strconv"

	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// embedded are this store's migrations.
var embedded = migrations.NewSet(migrationFS, "migrations")

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int { return embedded.Version() }

// migrate applies pending migrations, each in a BEGIN IMMEDIATE
// transaction with PRAGMA user_version, so processes opening the same
// file at once apply each migration exactly once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := embedded.Load()
	if err != nil {
		return s.fault(err, "read the embedded migrations")
	}
	for _, m := range ms {
		err := s.write(ctx, "migrate to schema version "+strconv.Itoa(m.Version), func(tx *sql.Tx) error {
			var cur int
			if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&cur); err != nil {
				return err
			}
			if cur > len(ms) {
				return storeerr.SchemaTooNew("The SQLite state store "+s.path, cur, len(ms), "point the store URL (field `store`) at another file")
			}
			if cur >= m.Version {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.Version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
