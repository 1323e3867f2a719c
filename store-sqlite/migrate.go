package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strconv"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/migrations"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// loadMigrations returns the embedded migrations in version order.
func loadMigrations() ([]migrations.Migration, error) {
	return migrations.Load(migrationFS, "migrations")
}

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int {
	ms, _ := loadMigrations()
	return len(ms)
}

// migrate applies pending migrations, each in a BEGIN IMMEDIATE
// transaction with PRAGMA user_version, so processes opening the same
// file at once apply each migration exactly once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
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
				return core.Errorf(core.CodeConfigInvalid, "The SQLite state store %s has schema version %d, newer than this dwire understands (%d). Upgrade dwire, or point the store URL (field `store`) at another file.", s.path, cur, len(ms)).
					WithDetails(core.Detail{Field: "store", Message: fmt.Sprintf("schema version %d is newer than %d", cur, len(ms))})
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
