package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Find returns a PostgreSQL server for code that has no testing.TB (a
// TestMain, a suite's harness): the one DWIRE_TEST_POSTGRES_URL names,
// which must answer, or else a throwaway cluster this call starts (see
// the package comment). stop ends that cluster and removes its directory;
// for the named server it does nothing. Tests use URL or Schema instead.
func Find(ctx context.Context) (url string, stop func(), err error) {
	if url := os.Getenv(EnvURL); url != "" {
		if err := ping(ctx, url); err != nil {
			return "", nil, fmt.Errorf("%s is set but the server does not answer: %v", EnvURL, redact(err))
		}
		return url, func() {}, nil
	}
	return startThrowaway(ctx)
}

// ping connects to url and hangs up again.
func ping(ctx context.Context, url string) error {
	return withConn(ctx, url, 5*time.Second, func(context.Context, *pgx.Conn) error { return nil })
}

// withConn runs fn on a new connection to url, connecting and all within
// timeout, and closes the connection.
func withConn(ctx context.Context, url string, timeout time.Duration, fn func(context.Context, *pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	if err := fn(ctx, conn); err != nil {
		_ = conn.Close(ctx)
		return err
	}
	return conn.Close(ctx)
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
// listening on a Unix socket there only (no TCP port); stop ends it.
func startThrowaway(ctx context.Context) (url string, stop func(), err error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		return "", nil, errors.New("no initdb found to start a throwaway cluster")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "dwire-pg-")
	if err != nil {
		return "", nil, err
	}
	var asUser []string // prefix to run a command as the postgres user when root
	dbUser := "postgres"
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, errors.New("running as root and there is no postgres user to run a throwaway cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", nil, err
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
		return "", nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}
	srv := run("postgres", "-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200")
	logf, _ := os.Create(filepath.Join(dir, "postgres.log"))
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("start postgres: %v", err)
	}
	stop = func() {
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
	url = fmt.Sprintf("postgres://%s@/postgres?host=%s&sslmode=disable", dbUser, dir)
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ping(ctx, url)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("throwaway postgres did not come up: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling a child's readiness, bounded by the deadline
	}
	return url, stop, nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
