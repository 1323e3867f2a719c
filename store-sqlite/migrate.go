package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order. File names
// are NNNN_name.sql; versions start at 1 and have no gaps.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and '_'", base)
		}
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// migrate applies pending migrations, each in a BEGIN IMMEDIATE
// transaction with PRAGMA user_version, so processes opening the same
// file at once apply each migration exactly once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return s.fault(err, "read the embedded migrations")
	}
	for _, m := range ms {
		err := s.write(ctx, "migrate to schema version "+strconv.Itoa(m.version), func(tx *sql.Tx) error {
			var cur int
			if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&cur); err != nil {
				return err
			}
			if cur > len(ms) {
				return core.Errorf(core.CodeConfigInvalid, "The SQLite state store %s has schema version %d, newer than this dwire understands (%d). Upgrade dwire, or point the store URL (field `store`) at another file.", s.path, cur, len(ms)).
					WithDetails(core.Detail{Field: "store", Message: fmt.Sprintf("schema version %d is newer than %d", cur, len(ms))})
			}
			if cur >= m.version {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
