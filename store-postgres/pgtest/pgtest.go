// Package pgtest finds a PostgreSQL server for tests: the one named by
// DWIRE_TEST_POSTGRES_URL (CI), or else a throwaway cluster started with
// initdb/postgres in a temporary directory (on a Unix socket only), or
// else none (tests skip with the reason). With DWIRE_REQUIRE_POSTGRES=1 a
// missing or unreachable server fails the tests instead. Find gives code
// without a testing.TB (the e2e suite's TestMain) the same server.
//
// Each test gets its own randomly named schema, dropped afterwards, so
// packages running in parallel against one database do not collide.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables.
const (
	EnvURL     = "DWIRE_TEST_POSTGRES_URL"
	EnvRequire = "DWIRE_REQUIRE_POSTGRES"
)

var (
	mainRan    bool
	findOnce   sync.Once
	baseURL    string
	unavailErr error
	cleanup    func()
)

// Main wraps a test package's TestMain: it runs m and then stops the
// throwaway server if a test started one. Use it as
// os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	mainRan = true
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	return code
}

// URL returns the server's base URL, finding or starting the server on
// first use, or skips (fails, when DWIRE_REQUIRE_POSTGRES=1) when there is
// none. The package's TestMain must call Main.
func URL(t testing.TB) string {
	t.Helper()
	findOnce.Do(func() {
		if !mainRan {
			unavailErr = errors.New("pgtest.Main was not called from TestMain")
			return
		}
		baseURL, cleanup, unavailErr = find(t.Context())
	})
	if unavailErr != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("PostgreSQL is required (%s=1) but not available: %v", EnvRequire, unavailErr)
		}
		t.Skipf("SKIPPED: no PostgreSQL for this test: %v (set %s to a server URL to run it)", unavailErr, EnvURL)
	}
	return baseURL
}

// Schema returns a new random schema name for t and drops the schema (if
// anything created it) when t ends.
func Schema(t testing.TB) string {
	t.Helper()
	url := URL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "dwtest_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		if err := DropSchema(context.Background(), url, name); err != nil {
			t.Errorf("drop test schema %s: %v", name, err)
		}
	})
	return name
}

// DropSchema drops a schema and everything in it.
func DropSchema(ctx context.Context, url, name string) error {
	return withConn(ctx, url, 30*time.Second, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{name}.Sanitize()+` CASCADE`)
		return err
	})
}

// find is Find under the package's rules: with DWIRE_REQUIRE_POSTGRES=1
// only the server DWIRE_TEST_POSTGRES_URL names will do.
func find(ctx context.Context) (url string, stop func(), err error) {
	if os.Getenv(EnvURL) == "" && os.Getenv(EnvRequire) == "1" {
		return "", nil, fmt.Errorf("%s is not set", EnvURL)
	}
	return Find(ctx)
}

// LimitedDatabase creates a database of its own for t that admits at most
// limit connections (CREATE DATABASE … CONNECTION LIMIT: beyond it the
// server refuses with "too many connections", SQLSTATE 53300, as it does
// past max_connections or a role's limit), drops it when t ends, and
// returns base with that database in place of base's. base's user needs
// CREATEDB. The limit does not bind superusers: for a superuser's base
// (the throwaway cluster) the URL names a new role, the database's owner,
// that is not one.
func LimitedDatabase(t testing.TB, base string, limit int) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "dwtest_limited_" + hex.EncodeToString(b)
	var role string
	err := withConn(t.Context(), base, 30*time.Second, func(ctx context.Context, conn *pgx.Conn) error {
		var super bool
		if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
			return err
		}
		owner := ""
		if super {
			role = name
			if _, err := conn.Exec(ctx, `CREATE ROLE `+pgx.Identifier{role}.Sanitize()+` LOGIN`); err != nil {
				return err
			}
			owner = " OWNER " + pgx.Identifier{role}.Sanitize()
		}
		_, err := conn.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s%s CONNECTION LIMIT %d`, pgx.Identifier{name}.Sanitize(), owner, limit))
		return err
	})
	if err != nil {
		t.Fatalf("create a database limited to %d connections: %v", limit, err)
	}
	t.Cleanup(func() {
		err := withConn(context.Background(), base, 30*time.Second, func(ctx context.Context, conn *pgx.Conn) error {
			if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil || role == "" {
				return err
			}
			_, err := conn.Exec(ctx, `DROP ROLE IF EXISTS `+pgx.Identifier{role}.Sanitize())
			return err
		})
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("the test server's URL: %v", err)
	}
	u.Path = "/" + name
	if role != "" {
		u.User = url.User(role)
	}
	return u.String()
}
