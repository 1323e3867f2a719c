package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
	base, err := os.MkdirTemp(dir, "pg-")
	if err != nil {
		return "", nil, err
	}
	data := filepath.Join(base, "data")
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	asPG := func(name string, args ...string) *exec.Cmd {
		if os.Geteuid() == 0 { // initdb and postgres refuse to run as root
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
		return exec.Command(filepath.Join(bin, name), args...)
	}
	if os.Geteuid() == 0 {
		_ = os.Chmod(dir, 0o755)
		_ = exec.Command("chown", "-R", "postgres", base).Run()
	}
	if out, err := asPG("initdb", "-D", data, "-U", "postgres", "-A", "trust").CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("harness: initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-p %d -h 127.0.0.1 -k %s", port, base)
	if out, err := asPG("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(base, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("harness: start throwaway postgres: %v\n%s", err, out)
	}
	stop = func() { _ = asPG("pg_ctl", "-D", data, "-m", "fast", "-w", "-t", "30", "stop").Run() }
	url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	if err := ping(ctx, url); err != nil {
		stop()
		return "", nil, fmt.Errorf("harness: throwaway postgres does not answer: %w", err)
	}
	return url, stop, nil
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
