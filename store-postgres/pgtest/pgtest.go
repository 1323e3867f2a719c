// Package pgtest finds a PostgreSQL server for tests: the one named by
// DWIRE_TEST_POSTGRES_URL (CI), or else a throwaway cluster started with
// initdb/postgres in a temporary directory (on a Unix socket only), or
// else none (tests skip with the reason). With DWIRE_REQUIRE_POSTGRES=1 a
// missing or unreachable server fails the tests instead.
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
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
		baseURL, unavailErr = find()
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
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{name}.Sanitize()+` CASCADE`)
	return err
}

func ping(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

func find() (string, error) {
	if url := os.Getenv(EnvURL); url != "" {
		if err := ping(url); err != nil {
			return "", fmt.Errorf("%s is set but the server does not answer: %v", EnvURL, redact(err))
		}
		return url, nil
	}
	if os.Getenv(EnvRequire) == "1" {
		return "", fmt.Errorf("%s is not set", EnvURL)
	}
	return startThrowaway()
}

// redact keeps passwords out of errors that might quote a URL.
func redact(err error) string {
	s := err.Error()
	if i := strings.Index(s, "password="); i >= 0 {
		s = s[:i] + "password=<redacted>"
	}
	return s
}

// startThrowaway runs initdb and postgres in a temporary directory,
// listening on a Unix socket there only (no TCP port).
func startThrowaway() (string, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		return "", errors.New("no initdb found to start a throwaway cluster")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "dwire-pg-")
	if err != nil {
		return "", err
	}
	var asUser []string // prefix to run a command as the postgres user when root
	dbUser := "postgres"
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", errors.New("running as root and there is no postgres user to run a throwaway cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		asUser = []string{"runuser", "-u", "postgres", "--"}
	} else if u, err := user.Current(); err == nil {
		dbUser = u.Username
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) *exec.Cmd {
		argv := append(append([]string{}, asUser...), append([]string{filepath.Join(bin, name)}, args...)...)
		return exec.Command(argv[0], argv[1:]...)
	}
	if out, err := run("initdb", "-D", data, "-A", "trust", "-U", dbUser, "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}
	srv := run("postgres", "-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200")
	logf, _ := os.Create(filepath.Join(dir, "postgres.log"))
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("start postgres: %v", err)
	}
	stop := func() {
		// SIGINT is postgres's fast shutdown. Signal the whole process
		// group: runuser does not pass SIGINT on to its child.
		pgid := srv.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
		os.RemoveAll(dir)
	}
	url := fmt.Sprintf("postgres://%s@/postgres?host=%s&sslmode=disable", dbUser, dir)
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ping(url)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("throwaway postgres did not come up: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling a child's readiness, bounded by the deadline
	}
	cleanup = stop
	return url, nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
