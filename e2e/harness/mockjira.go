package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Mode says how mockjira runs.
type Mode string

// The two ways the fake Jira runs; the suite's assertions are the same.
const (
	ModeContainer Mode = "container" // FROM scratch image via testcontainers, host network
	ModeProcess   Mode = "process"   // the same binary as a local process
)

// MockJiraOptions are mockjira's command-line settings.
type MockJiraOptions struct {
	Project   string
	Email     string
	Token     string
	Latency   time.Duration
	SearchLag time.Duration
	RateLimit int      // requests per second, 0 = off
	Extra     []string // more flags
}

func (o MockJiraOptions) args() []string {
	a := []string{"-addr", "127.0.0.1:0"}
	if o.Project != "" {
		a = append(a, "-project", o.Project)
	}
	if o.Email != "" {
		a = append(a, "-email", o.Email)
	}
	if o.Latency > 0 {
		a = append(a, "-latency", o.Latency.String())
	}
	if o.SearchLag > 0 {
		a = append(a, "-search-lag", o.SearchLag.String())
	}
	if o.RateLimit > 0 {
		a = append(a, "-rate-limit", fmt.Sprint(o.RateLimit))
	}
	return append(a, o.Extra...)
}

// MockJira is a running fake Jira.
type MockJira struct {
	URL  string
	Mode Mode
	*Admin

	stop func(context.Context) error
	logs func() string
}

// Stop ends the fake Jira and waits for it.
func (m *MockJira) Stop(ctx context.Context) error { return m.stop(ctx) }

// Logs returns what mockjira wrote to stderr so far.
func (m *MockJira) Logs() string { return m.logs() }

var urlLine = regexp.MustCompile(`MOCKJIRA_URL=(http://\S+)`)

// DockerAvailable reports whether a Docker engine answers. It creates
// nothing.
func DockerAvailable(ctx context.Context) bool {
	if os.Getenv("DOCKER_HOST") == "" {
		if _, err := os.Stat("/var/run/docker.sock"); err != nil {
			return false
		}
	}
	p, err := dockerProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Health(ctx) == nil
}

// dockerProvider returns a provider whose default network is the host's.
// Without this, testcontainers creates a bridge network ("reaper_default",
// a private-range address) when the engine runs with --bridge=none.
func dockerProvider() (*testcontainers.DockerProvider, error) {
	return testcontainers.NewDockerProvider(testcontainers.DefaultNetwork("host"))
}

// ChooseMode picks container mode when a Docker engine is reachable, else
// process mode. DWIRE_E2E_MOCKJIRA=container|process forces one.
func ChooseMode(ctx context.Context) Mode {
	switch Mode(os.Getenv("DWIRE_E2E_MOCKJIRA")) {
	case ModeContainer:
		return ModeContainer
	case ModeProcess:
		return ModeProcess
	}
	if DockerAvailable(ctx) {
		return ModeContainer
	}
	return ModeProcess
}

// StartMockJira starts the fake Jira in the given mode.
func StartMockJira(ctx context.Context, bin Binaries, mode Mode, o MockJiraOptions) (*MockJira, error) {
	if mode == ModeContainer {
		return startContainer(ctx, bin, o)
	}
	return startProcess(ctx, bin, o)
}

// SyncBuffer is a goroutine-safe buffer for a child process's output.
type SyncBuffer = streamtest.Buffer

func startProcess(ctx context.Context, bin Binaries, o MockJiraOptions) (*MockJira, error) {
	cmd := exec.Command(bin.MockJira, o.args()...)
	cmd.Env = append(os.Environ(), "MOCKJIRA_TOKEN="+o.Token)
	stderr := &SyncBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("harness: start mockjira: %w", err)
	}
	done := make(chan error, 1)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	go func() { done <- cmd.Wait() }()
	var url string
	select {
	case url = <-found:
	case err := <-done:
		return nil, fmt.Errorf("harness: mockjira exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("harness: mockjira printed no MOCKJIRA_URL within 30s\n%s", stderr.String())
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		return nil, ctx.Err()
	}
	stop := func(ctx context.Context) error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return fmt.Errorf("harness: mockjira exited with %v", err)
			}
			return err
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return fmt.Errorf("harness: mockjira did not stop on SIGTERM")
		}
	}
	return &MockJira{URL: url, Mode: ModeProcess, Admin: NewAdmin(url), stop: stop, logs: stderr.String}, nil
}

// dockerfile is the FROM scratch image of mockjira: the static binary and
// nothing else. jira/cmd/mockjira/Dockerfile is used when present.
const dockerfile = "FROM scratch\nCOPY mockjira /mockjira\nENTRYPOINT [\"/mockjira\"]\n"

func startContainer(ctx context.Context, bin Binaries, o MockJiraOptions) (*MockJira, error) {
	buildDir, err := os.MkdirTemp("", "dwire-mockjira-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(buildDir)
	if err := copyFile(bin.MockJira, filepath.Join(buildDir, "mockjira"), 0o755); err != nil {
		return nil, err
	}
	df := []byte(dockerfile)
	if root, err := RepoRoot(); err == nil {
		if b, err := os.ReadFile(filepath.Join(root, "jira", "cmd", "mockjira", "Dockerfile")); err == nil {
			df = b
		}
	}
	if err := os.WriteFile(filepath.Join(buildDir, "Dockerfile"), df, 0o644); err != nil {
		return nil, err
	}
	p, err := dockerProvider()
	if err != nil {
		return nil, err
	}
	defer p.Close()
	req := testcontainers.ContainerRequest{
		FromDockerfile: testcontainers.FromDockerfile{Context: buildDir, Repo: "dwire-mockjira", Tag: "e2e", KeepImage: true},
		Cmd:            o.args(),
		Env:            map[string]string{"MOCKJIRA_TOKEN": o.Token},
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
		},
		WaitingFor: wait.ForLog("MOCKJIRA_URL=").WithStartupTimeout(60 * time.Second),
	}
	c, err := p.CreateContainer(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("harness: create mockjira container: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		_ = c.Terminate(context.Background())
		return nil, fmt.Errorf("harness: start mockjira container: %w", err)
	}
	logs := func() string {
		rc, err := c.Logs(context.Background())
		if err != nil {
			return ""
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	m := urlLine.FindStringSubmatch(logs())
	if m == nil {
		_ = c.Terminate(context.Background())
		return nil, fmt.Errorf("harness: no MOCKJIRA_URL in container logs")
	}
	url := strings.TrimSpace(m[1])
	stop := func(ctx context.Context) error { return c.Terminate(ctx) }
	return &MockJira{URL: url, Mode: ModeContainer, Admin: NewAdmin(url), stop: stop, logs: logs}, nil
}

func copyFile(from, to string, mode os.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, mode)
}
