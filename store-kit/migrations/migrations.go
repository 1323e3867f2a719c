// Package migrations reads a state store's embedded, numbered SQL
// migration files (NNNN_name.sql). Each store applies them its own way
// (SQLite: PRAGMA user_version; Postgres: a schema_migrations table under
// an advisory lock); the file rules are the same for both.
package migrations

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load returns the *.sql files in dir of fsys in version order. File names
// are NNNN_name.sql; versions start at 1 and have no gaps.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and '_'", base)
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return ms, nil
}

// Set is one store's embedded migrations: the *.sql files in one
// directory of an embedded file system.
type Set struct {
	fsys fs.FS
	dir  string
}

// NewSet returns the migrations in dir of fsys (typically a //go:embed
// migrations/*.sql file system and "migrations").
func NewSet(fsys fs.FS, dir string) Set { return Set{fsys: fsys, dir: dir} }

// Load returns the set's migrations in version order.
func (s Set) Load() ([]Migration, error) { return Load(s.fsys, s.dir) }

// Version is the schema version the set migrates to (0 when it cannot be
// read, which the store's own tests catch).
func (s Set) Version() int {
	ms, _ := s.Load()
	return len(ms)
}
