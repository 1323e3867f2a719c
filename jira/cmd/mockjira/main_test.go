package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestProcess builds mockjira, runs it as a plain process, reads the URL
// line, calls the API and stops it with SIGTERM.
func TestProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mockjira")
	if err := streamtest.GoBuild(bin, "."); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seed, []byte(`{"issues":[{"issuetype":"Epic","summary":"Seeded epic","reference":"doc/e-1"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-project", "PROC", "-seed", seed)
	cmd.Env = append(os.Environ(), "MOCKJIRA_TOKEN=env-token-not-secret")
	pp := streamtest.StartWaited(t, cmd) // killed if still running when the test ends
	stdout, stderr := pp.Stdout, pp.Stderr
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no URL line; stderr:\n%s", stderr.String())
	}
	url, ok := strings.CutPrefix(first, "MOCKJIRA_URL=")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("first stdout line %q", first)
	}
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", url+path, nil)
		req.SetBasicAuth(jiratest.DefaultEmail, token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/rest/api/3/myself", "env-token-not-secret"); code != 200 || !strings.Contains(body, jiratest.DefaultEmail) {
		t.Fatalf("myself: %d %s", code, body)
	}
	if code, _ := get("/rest/api/3/myself", jiratest.DefaultToken); code != 401 {
		t.Errorf("default token accepted although MOCKJIRA_TOKEN is set: %d", code)
	}
	if code, body := get("/rest/api/3/issue/PROC-1?fields=summary", "env-token-not-secret"); code != 200 || !strings.Contains(body, "Seeded epic") {
		t.Errorf("seeded issue: %d %s", code, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := pp.WaitExit(t, 10*time.Second, "after SIGTERM"); err != nil {
		t.Fatalf("exit after SIGTERM: %v\nstderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "env-token-not-secret") {
		t.Error("token in logs")
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("stderr lacks shutdown log:\n%s", stderr.String())
	}
}

func TestRunFlags(t *testing.T) {
	env := func(string) string { return "" }
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-nope"}, env, &out, &errb); code != 2 {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code := run(context.Background(), []string{"extra"}, env, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
	if code := run(context.Background(), []string{"-seed", "/nonexistent/seed.json"}, env, &out, &errb); code != 2 || !strings.Contains(errb.String(), "seed file") {
		t.Errorf("missing seed file: exit %d: %s", code, errb.String())
	}
	if code := run(context.Background(), []string{"-addr", "256.0.0.1:99999"}, env, &out, &errb); code != 1 {
		t.Errorf("bad address: exit %d", code)
	}
	// In-process: runs until the context ends, exit 0.
	url, _, stop := startRun(t, "-addr", "127.0.0.1:0", "-latency", "1ms", "-rate-limit", "1000")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q", url)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after cancel", code)
	}
}

func TestRunAllInterfacesPrintsLoopback(t *testing.T) {
	url, _, stop := startRun(t, "-addr", "0.0.0.0:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q; want loopback", url)
	}
	req, _ := http.NewRequest("GET", url+"/rest/api/3/myself", nil)
	req.SetBasicAuth(jiratest.DefaultEmail, jiratest.DefaultToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// self links follow the Host header, not the listen address.
	if !strings.Contains(string(b), `"self":"`+url+`/rest/api/3/user`) {
		t.Errorf("self link does not use the request host: %s", b)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// startRun runs mockjira in process with args and returns its URL (from
// the first stdout line), its stderr, and stop, which ends it (cancels its
// context) and returns the exit code; t fails when run does not return
// within 10 s of the cancel.
func startRun(t *testing.T, args ...string) (string, *bytes.Buffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	errb := &bytes.Buffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, func(string) string { return "" }, pw, errb) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "MOCKJIRA_URL=http://") {
		t.Fatalf("first line %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "MOCKJIRA_URL=")), errb, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after cancel")
			return 0
		}
	}
}

// TestRunSeveralProjects: -project DEMO,OTHER serves both projects, the
// first as the default.
func TestRunSeveralProjects(t *testing.T) {
	base, errb, stop := startRun(t, "-addr", "127.0.0.1:0", "-project", "DEMO,OTHER")
	ctx := context.Background()
	for _, k := range []string{"DEMO", "OTHER"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/rest/api/3/project/"+k, nil)
		req.SetBasicAuth(jiratest.DefaultEmail, jiratest.DefaultToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET project %s: %d; want 200", k, resp.StatusCode)
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "projects=DEMO,OTHER") || !strings.Contains(errb.String(), "project=DEMO ") {
		t.Errorf("startup log does not name the projects: %s", errb.String())
	}
}
