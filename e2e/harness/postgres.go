package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresURL returns the URL of a PostgreSQL server for the suite:
// DWIRE_TEST_POSTGRES_URL when set (CI sets it), else a throwaway cluster
// started in dir with the machine's PostgreSQL 15 binaries. stop ends a
// cluster this call started (a no-op otherwise).
func PostgresURL(ctx context.Context, dir string) (url string, stop func(), err error) {
	if u := os.Getenv("DWIRE_TEST_POSTGRES_URL"); u != "" {
		return u, func() {}, ping(ctx, u)
	}
	bin := "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		return "", nil, fmt.Errorf("harness: no DWIRE_TEST_POSTGRES_URL and no PostgreSQL 15 binaries at %s", bin)
	}
	data := filepath.Join(dir, "pgdata")
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	asPG := func(name string, args ...string) *exec.Cmd {
		if os.Geteuid() == 0 { // initdb refuses to run as root
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
		return exec.Command(filepath.Join(bin, name), args...)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return "", nil, err
	}
	if os.Geteuid() == 0 {
		_ = exec.Command("chown", "-R", "postgres", dir).Run()
	}
	if out, err := asPG("initdb", "-D", data, "-U", "postgres", "-A", "trust").CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("harness: initdb: %v\n%s", err, out)
	}
	srv := asPG("postgres", "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", dir)
	if err := srv.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }
	url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err = ping(ctx, url); err == nil {
			return url, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("harness: throwaway postgres did not start: %w", err)
		}
		time.Sleep(100 * time.Millisecond) // polling a server that is starting, with a deadline
	}
}

func ping(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.Ping(ctx)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
