package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/e2e/harness"
)

const (
	token   = "e2e-token-not-secret-7f3a91"
	email   = "demo@example.com"
	project = "DEMO"
)

// basicAuth is the Authorization value dwire sends; like the token it must
// never appear in any output.
var basicAuth = base64.StdEncoding.EncodeToString([]byte(email + ":" + token))

// env is one workspace (a folder with .devworkwire.yaml) pointed at its own
// fake Jira. Every byte any process printed is kept and checked for the
// token when the test ends.
type env struct {
	t     *testing.T
	jira  *harness.MockJira
	dir   string
	extra []string // more environment variables

	mu      sync.Mutex
	outputs []string
}

type envOptions struct {
	mock     harness.MockJiraOptions
	storeURL string // "" = SQLite file in the workspace
	ttl      string
	jira     string // more lines of the jira section, each "  key: value\n"
}

// repoPath is the path of elem (slash-free parts) in the repository under
// test; it fails t when the repository cannot be found.
func repoPath(t *testing.T, elem ...string) string {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	o.mock.Token = token
	if o.mock.Project == "" {
		o.mock.Project = project
	}
	if o.mock.Email == "" {
		o.mock.Email = email
	}
	j, err := harness.StartMockJira(ctx, bins, mode, o.mock)
	if err != nil {
		t.Fatalf("start mockjira (%s): %v", mode, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := j.Stop(ctx); err != nil {
			t.Errorf("stop mockjira: %v", err)
		}
	})
	e := &env{t: t, jira: j, dir: t.TempDir()}
	store := "sqlite://./state.db"
	if o.storeURL != "" {
		e.extra = append(e.extra, "DWIRE_STORE_URL="+o.storeURL)
	}
	ttl := ""
	if o.ttl != "" {
		ttl = "preview_ttl: " + o.ttl + "\n"
	}
	configured, _, _ := strings.Cut(o.mock.Project, ",") // the fake's first project
	cfg := fmt.Sprintf("jira:\n  site: %s\n  project: %s\n  email: %s\n  token_env: JIRA_API_TOKEN\n%sstore: %s\n%s", j.URL, configured, email, o.jira, store, ttl)
	e.write(".devworkwire.yaml", cfg)
	t.Cleanup(e.checkSecrets)
	return e
}

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) record(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outputs = append(e.outputs, s)
}

// checkSecrets fails the test when the token or the Authorization value
// appears in anything a process printed or mockjira logged.
func (e *env) checkSecrets() {
	e.mu.Lock()
	outs := append([]string(nil), e.outputs...)
	e.mu.Unlock()
	outs = append(outs, e.jira.Logs())
	for _, o := range outs {
		for _, secret := range []string{token, basicAuth} {
			if strings.Contains(o, secret) {
				e.t.Errorf("a secret appeared in output:\n%s", o)
			}
		}
		if strings.Contains(o, "goroutine ") && strings.Contains(o, "panic") {
			e.t.Errorf("a stack trace appeared in output:\n%s", o)
		}
	}
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(bins.Dwire, args...)
	c.Dir = e.dir
	c.Env = append(os.Environ(),
		"JIRA_API_TOKEN="+token,
		"HOME="+e.dir,
		"XDG_STATE_HOME="+filepath.Join(e.dir, ".state"),
		"NO_COLOR=1",
		"DWIRE_CONFIG=",
		"DWIRE_STORE_URL=",
	)
	c.Env = append(c.Env, e.extra...)
	return c
}

type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// dwire runs dwire without a terminal.
func (e *env) dwire(args ...string) result {
	e.t.Helper()
	c := e.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := streamtest.RunWithin(c, 3*time.Minute)
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	r.code = exitCode(e.t, err)
	e.record(r.stdout + r.stderr)
	return r
}

func exitCode(t *testing.T, err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	t.Fatalf("run dwire: %v", err)
	return -1
}

// dwireJSON runs dwire with --json and decodes stdout.
func (e *env) dwireJSON(out any, args ...string) result {
	e.t.Helper()
	r := e.dwire(append(args, "--json")...)
	if r.code == 0 && out != nil {
		if err := json.Unmarshal([]byte(r.stdout), out); err != nil {
			e.t.Fatalf("decode --json output: %v\n%s", err, r)
		}
	}
	return r
}

// errorOf decodes the JSON error payload dwire --json prints on failure.
func errorOf(t *testing.T, r result) map[string]any {
	t.Helper()
	for _, s := range []string{r.stdout, r.stderr} {
		var m map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(s)), &m) == nil && m["code"] != nil {
			return m
		}
		var w struct {
			Error map[string]any `json:"error"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(s)), &w) == nil && w.Error != nil {
			return w.Error
		}
	}
	t.Fatalf("no JSON error payload in output:\n%s", r)
	return nil
}

// dwirePTY runs dwire on a pseudo-terminal, waits for the confirm prompt,
// types answer and returns what the terminal showed.
func (e *env) dwirePTY(answer string, args ...string) result {
	e.t.Helper()
	return e.ptyRun(args, answer, nil)
}

// importConfirmed imports the document name, confirmed at the prompt
// ("y"); the test fails unless the import succeeded.
func (e *env) importConfirmed(name string) {
	e.t.Helper()
	if r := e.dwirePTY("y\r", "import", name); r.code != 0 {
		e.t.Fatalf("import %s: %s", name, r)
	}
}

// ptyRun runs dwire with args on a pseudo-terminal. When the confirm
// prompt shows, it calls beforeAnswer (if not nil) and types answer. It
// reports problems with Errorf, so it may run in a goroutine.
func (e *env) ptyRun(args []string, answer string, beforeAnswer func()) result {
	s := e.ptyStart(args...)
	if s == nil {
		return result{code: -1}
	}
	prompted := s.waitFor(promptMark, 3*time.Minute)
	if prompted {
		if beforeAnswer != nil {
			beforeAnswer()
		}
		s.send(answer)
	}
	r := s.wait(3 * time.Minute)
	if !prompted && answer != "" {
		e.t.Logf("no prompt was shown:\n%s", r.stdout)
	}
	return r
}

// promptMark ends every confirmation question dwire asks.
const promptMark = "[y/N]"

// ptySession is dwire running on a pseudo-terminal: what the terminal
// showed so far, typing, signals, and its end.
type ptySession struct {
	e      *env
	args   []string
	c      *exec.Cmd
	f      *os.File
	start  time.Time
	exited chan struct{}
	werr   error // set before exited is closed

	mu       sync.Mutex
	buf      bytes.Buffer
	readDone chan struct{}
}

// ptyAtPrompt starts dwire with args on a terminal and waits until it
// asks the person (promptMark); the test stops when it cannot start or
// never asks.
func (e *env) ptyAtPrompt(args ...string) *ptySession {
	e.t.Helper()
	s := e.ptyStart(args...)
	if s == nil {
		e.t.FailNow()
	}
	if !s.waitFor(promptMark, 3*time.Minute) {
		e.t.Fatalf("dwire %v never asked:\n%s", args, s.shown())
	}
	return s
}

// ptyStart starts dwire with args on a pseudo-terminal (80 columns, no
// colour). It reports a failure with Errorf and returns nil, so it may run
// in a goroutine.
func (e *env) ptyStart(args ...string) *ptySession {
	c := e.cmd(args...)
	c.Env = append(c.Env, "TERM=dumb", "COLUMNS=80")
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 80})
	if err != nil {
		e.t.Errorf("start dwire %v on a pty: %v", args, err)
		return nil
	}
	s := &ptySession{e: e, args: args, c: c, f: f, start: time.Now(), exited: make(chan struct{}), readDone: make(chan struct{})}
	go func() {
		defer close(s.readDone)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.werr = c.Wait(); close(s.exited) }()
	e.t.Cleanup(func() {
		select {
		case <-s.exited:
		default: // a test that failed half-way: do not leave dwire behind
			_ = c.Process.Signal(syscall.SIGCONT)
			_ = c.Process.Kill()
			<-s.exited
		}
		_ = f.Close()
	})
	return s
}

// shown returns everything the terminal showed so far.
func (s *ptySession) shown() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// done reports whether dwire has exited.
func (s *ptySession) done() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// waitFor polls the terminal until it shows want; false when dwire exited
// first or the deadline passed.
func (s *ptySession) waitFor(want string, d time.Duration) bool {
	deadline := time.After(d)
	for !strings.Contains(s.shown(), want) {
		select {
		case <-s.exited:
			return strings.Contains(s.shown(), want)
		case <-deadline:
			return false
		case <-time.After(10 * time.Millisecond): // poll the terminal
		}
	}
	return true
}

// send types text.
func (s *ptySession) send(text string) {
	if _, err := io.WriteString(s.f, text); err != nil {
		s.e.t.Errorf("type %q into dwire %v: %v", text, s.args, err)
	}
}

// signal sends sig to the dwire process.
func (s *ptySession) signal(sig syscall.Signal) {
	if err := s.c.Process.Signal(sig); err != nil {
		s.e.t.Fatalf("send %v to dwire %v: %v", sig, s.args, err)
	}
}

// wait waits up to d for dwire to exit (killing it after that) and returns
// what the terminal showed and the exit code.
func (s *ptySession) wait(d time.Duration) result {
	select {
	case <-s.exited:
	case <-time.After(d):
		_ = s.c.Process.Signal(syscall.SIGCONT)
		_ = s.c.Process.Kill()
		<-s.exited
		s.e.t.Errorf("dwire %v on a pty did not finish within %s:\n%s", s.args, d, s.shown())
	}
	select {
	case <-s.readDone:
	case <-time.After(5 * time.Second):
	}
	_ = s.f.Close()
	r := result{stdout: s.shown(), elapsed: time.Since(s.start), code: -1}
	var ee *exec.ExitError
	switch {
	case s.werr == nil:
		r.code = 0
	case errors.As(s.werr, &ee):
		r.code = ee.ExitCode()
	default:
		s.e.t.Errorf("dwire %v on a pty: %v", s.args, s.werr)
	}
	s.e.record(r.stdout)
	return r
}

// mcp starts `dwire mcp` in the workspace and connects the SDK client.
func (e *env) mcp() (*mcp.ClientSession, *exec.Cmd) {
	e.t.Helper()
	return e.mcpClient("dwire-e2e", nil)
}

// mcpClient starts `dwire mcp` in the workspace and connects an SDK client
// named name with opts.
func (e *env) mcpClient(name string, opts *mcp.ClientOptions) (*mcp.ClientSession, *exec.Cmd) {
	e.t.Helper()
	c := e.cmd("mcp")
	var stderr harness.SyncBuffer
	c.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		e.t.Fatalf("connect to dwire mcp: %v\n%s", err, stderr.String())
	}
	e.t.Cleanup(func() {
		_ = cs.Close()
		e.record(stderr.String())
	})
	return cs, c
}

// call calls a tool and decodes its structured result into out; on a
// protocol error it returns the error's data.
func (e *env) call(cs *mcp.ClientSession, name string, args any, out any) map[string]any {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			e.t.Fatalf("%s: not a JSON-RPC error: %v", name, err)
		}
		e.record(we.Message + string(we.Data))
		var data map[string]any
		if err := json.Unmarshal(we.Data, &data); err != nil {
			e.t.Fatalf("%s: error data is not JSON: %v (%s)", name, err, we.Data)
		}
		if !strings.HasPrefix(we.Message, fmt.Sprint(data["code"])) {
			e.t.Errorf("%s: error message %q does not start with its code %v", name, we.Message, data["code"])
		}
		return data
	}
	if res.IsError {
		e.t.Fatalf("%s: a failure came back as a success result (isError): %+v", name, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	e.record(string(b))
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s: decode result: %v\n%s", name, err, b)
		}
	}
	return nil
}

func (e *env) issues() []harness.Issue {
	e.t.Helper()
	is, err := e.jira.Issues(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return is
}

func (e *env) writes() int {
	e.t.Helper()
	n, err := e.jira.Writes(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// noDuplicates fails the test if two issues hold one reference.
func (e *env) noDuplicates() {
	e.t.Helper()
	d, err := e.jira.Duplicates(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	if len(d) > 0 {
		e.t.Fatalf("DUPLICATES in the tracker: %v", d)
	}
}

func newKey() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "e2e-" + hex.EncodeToString(b)
}

func kill(c *exec.Cmd) {
	if c.Process != nil {
		_ = c.Process.Signal(syscall.SIGKILL)
	}
}

// issuesByRef indexes the tracker's issues by reference.
func (e *env) issuesByRef() map[string]harness.Issue {
	e.t.Helper()
	m := map[string]harness.Issue{}
	for _, i := range e.issues() {
		if i.Reference != "" {
			m[i.Reference] = i
		}
	}
	return m
}

// matches fails the test unless the tracker holds exactly the document's
// references, each once.
func (e *env) matches(p planSpec) {
	e.t.Helper()
	e.noDuplicates()
	got := e.issuesByRef()
	for _, r := range p.refs() {
		if _, ok := got[r]; !ok {
			e.t.Errorf("reference %s is missing from the tracker", r)
		}
	}
}
