package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// ptySession is dwire running on a real pseudo-terminal (stdin, stdout
// and stderr all on it, the terminal its controlling tty), as a person
// would run it.
type ptySession struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File
	buf  streamtest.Buffer
	done chan struct{}
}

// ptyFixture is a fake Jira and a work dir with a config, a plan and a
// SQLite store.
type ptyFixture struct {
	srv *jiratest.Server
	url string
	dir string
	env []string
}

func newPTYFixture(t *testing.T) *ptyFixture {
	t.Helper()
	if _, err := exec.LookPath("dwire"); err != nil {
		t.Fatalf("dwire not on PATH (TestMain sets it up): %v", err)
	}
	srv := jiratest.New(jiratest.Options{Token: testToken})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	dir := t.TempDir()
	cfg := fmt.Sprintf("jira:\n  site: %s\n  project: DEMO\n  email: demo@example.com\nstore: sqlite://./state.db\n", hs.URL)
	must(t, os.WriteFile(filepath.Join(dir, ".devworkwire.yaml"), []byte(cfg), 0o600))
	plan, err := os.ReadFile("../../internal/dwire/testdata/plan.md")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "plan.md"), plan, 0o600))
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_STATE_HOME=" + filepath.Join(dir, ".state"),
		"TERM=xterm",
		"JIRA_API_TOKEN=" + testToken,
	}
	return &ptyFixture{srv: srv, url: hs.URL, dir: dir, env: env}
}

// importedPTYFixture is newPTYFixture with plan.md imported (confirmed
// on a terminal).
func importedPTYFixture(t *testing.T) *ptyFixture {
	t.Helper()
	f := newPTYFixture(t)
	s := f.start(t, nil, "import", "plan.md")
	s.answer(promptText, "y")
	s.wantExit(0)
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f *ptyFixture) start(t *testing.T, extraEnv []string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command("dwire", args...)
	cmd.Dir = f.dir
	cmd.Env = append(append([]string{}, f.env...), extraEnv...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 80})
	must(t, err)
	s := &ptySession{t: t, cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go s.pump()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		ptmx.Close()
	})
	return s
}

func (s *ptySession) pump() {
	b := make([]byte, 4096)
	for {
		n, err := s.ptmx.Read(b)
		_, _ = s.buf.Write(b[:n])
		if err != nil {
			close(s.done)
			return
		}
	}
}

// output is what the terminal showed, without colour escapes.
func (s *ptySession) output() string {
	return iostreams.StripANSI(s.raw())
}

func (s *ptySession) raw() string { return s.buf.String() }

// waitFor polls the terminal's output for text, up to a deadline.
func (s *ptySession) waitFor(text string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(s.output(), text) {
			return
		}
		select {
		case <-s.done:
			if strings.Contains(s.output(), text) {
				return
			}
			s.t.Fatalf("dwire ended without printing %q:\n%s", text, s.output())
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.t.Fatalf("timed out waiting for %q:\n%s", text, s.output())
}

func (s *ptySession) send(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.ptmx, keys); err != nil {
		s.t.Fatal(err)
	}
}

// answer waits for each prompt in turn and types its reply and Enter:
// answer("Project key", "DEMO", "e-mail", "demo@example.com").
func (s *ptySession) answer(promptsAndReplies ...string) {
	s.t.Helper()
	for i := 0; i+1 < len(promptsAndReplies); i += 2 {
		s.waitFor(promptsAndReplies[i])
		s.send(promptsAndReplies[i+1] + "\r")
	}
}

// wantExit waits for dwire and fails the test unless it exited with want.
func (s *ptySession) wantExit(want int) {
	s.t.Helper()
	if code := s.wait(); code != want {
		s.t.Fatalf("exit %d, want %d\n%s", code, want, s.output())
	}
}

// wait returns the exit code.
func (s *ptySession) wait() int {
	s.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- s.cmd.Wait() }()
	select {
	case err := <-errc:
		<-s.done
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		must(s.t, err)
		return 0
	case <-time.After(30 * time.Second):
		s.t.Fatalf("dwire did not exit:\n%s", s.output())
		return -1
	}
}

const promptText = "[y/N] "

func TestPTYEnterAloneWritesNothing(t *testing.T) {
	f := newPTYFixture(t)
	s := f.start(t, nil, "import", "plan.md")
	s.answer(promptText, "")
	s.wantExit(0) // declined
	if n := len(f.srv.Writes()); n != 0 {
		t.Fatalf("Enter alone made %d write requests", n)
	}
	out := s.output()
	for _, want := range []string{"Import preview of checkout-v2", "5 to create", "Skipped: not confirmed; nothing was written."} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
}

func TestPTYYesCommits(t *testing.T) {
	f := newPTYFixture(t)
	s := f.start(t, nil, "import", "plan.md")
	s.answer(promptText, "y")
	s.wantExit(0)
	if n := len(f.srv.Issues()); n != 5 {
		t.Fatalf("%d issues in Jira after y, want 5\n%s", n, s.output())
	}
	out := s.output()
	for _, want := range []string{"Committed: 5 created", "/browse/DEMO-1", "Committing ["} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(s.raw(), "\x1b[") {
		t.Error("no colour on a terminal")
	}
	if strings.Contains(out, testToken) {
		t.Fatal("token on the terminal")
	}

	// A second import finds everything unchanged and asks nothing.
	before := len(f.srv.Writes())
	s = f.start(t, nil, "import", "plan.md")
	s.wantExit(0)
	if strings.Contains(s.output(), promptText) || len(f.srv.Writes()) != before {
		t.Fatalf("second import asked or wrote:\n%s", s.output())
	}
	if !strings.Contains(s.output(), "5 unchanged") {
		t.Fatalf("second import not unchanged:\n%s", s.output())
	}

	// A person edits an epic's title in Jira and the document changes it
	// too, differently: the next preview shows drift and leaves it alone
	// (a person's edit the document did not change is kept instead).
	title := "Guest checkout (edited in Jira)"
	must(t, f.srv.EditAsPerson("DEMO-1", jiratest.PersonEdit{Summary: &title}))
	plan, err := os.ReadFile(filepath.Join(f.dir, "plan.md"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(f.dir, "plan.md"), []byte(strings.Replace(string(plan), "## Epic e-1: Guest checkout\n", "## Epic e-1: Guest checkout, renamed in the document\n", 1)), 0o600))
	s = f.start(t, nil, "import", "plan.md", "--dry-run")
	s.wantExit(0)
	for _, want := range []string{"drift      DEMO-1  Epic e-1: Guest checkout", "edited in Jira since the last import; left alone", "1 drift (left alone)"} {
		if !strings.Contains(s.output(), want) {
			t.Errorf("drift preview lacks %q:\n%s", want, s.output())
		}
	}
}

// A comment piped on stdin, with the confirmation asked on the terminal.
func TestPTYProgressCommentFromStdin(t *testing.T) {
	f := importedPTYFixture(t)
	before := len(f.srv.Writes())

	ps := f.startWith(t, strings.NewReader("Shipped in #42.\n"), nil, "progress", "checkout-v2/s-1", "--status", "done", "--comment", "-")
	ps.answer(promptText, "y")
	ps.wantExit(0)
	ps.shows("todo → done", "comment    Shipped in #42.", "Committed: DEMO-", "moved to done, comment added")
	if len(f.srv.Writes()) <= before {
		t.Fatal("progress wrote nothing")
	}
}

func TestPTYCtrlCAtPromptWritesNothing(t *testing.T) {
	f := newPTYFixture(t)
	s := f.start(t, nil, "import", "plan.md")
	s.waitFor(promptText)
	s.send("\x03") // the terminal turns it into SIGINT for dwire
	code := s.wait()
	if n := len(f.srv.Writes()); n != 0 {
		t.Fatalf("Ctrl-C at the prompt made %d write requests", n)
	}
	if code != 0 || !strings.Contains(s.output(), "Skipped: interrupted at the prompt; nothing was written.") {
		t.Fatalf("exit %d:\n%s", code, s.output())
	}
}

func TestPTYNoColorAndEOF(t *testing.T) {
	f := newPTYFixture(t)
	s := f.start(t, []string{"NO_COLOR=1"}, "import", "plan.md")
	s.waitFor(promptText)
	s.send("\x04") // Ctrl-D: end of input
	s.wantExit(0)
	if strings.Contains(s.raw(), "\x1b[") {
		t.Fatalf("colour despite NO_COLOR:\n%q", s.raw())
	}
	if n := len(f.srv.Writes()); n != 0 {
		t.Fatalf("EOF made %d writes", n)
	}
}

func TestPTYPartialCommitExit4(t *testing.T) {
	f := newPTYFixture(t)
	// Epics go first in one bulk request; the stories' request fails.
	must(t, f.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: 2, Kind: "500"}))
	s := f.start(t, nil, "import", "plan.md")
	s.answer(promptText, "y")
	s.wantExit(4)
	if !strings.Contains(s.output(), "Error: COMMIT_PARTIAL:") || !strings.Contains(s.output(), "run_id: run_") {
		t.Fatalf("no partial report:\n%s", s.output())
	}
	// What to do next is said once, in dwire's words, not also in the
	// service's and again in the retry hint.
	said := strings.Join(strings.Fields(s.output()), " ")
	if !strings.Contains(said, "Next: run `dwire import plan.md` again for a new preview: committed items then show as unchanged") ||
		strings.Contains(said, "Run the import preview again") || strings.Contains(said, "(run the same command again)") {
		t.Errorf("the partial commit's advice is not said once:\n%s", s.output())
	}
}

// Ctrl-C while the commit runs stops it between items, never in the
// middle of a request: what was written is reported (COMMIT_PARTIAL, exit
// 4), the rest is untried, and nothing is of unknown outcome.
func TestPTYCtrlCDuringCommitStopsBetweenItems(t *testing.T) {
	f := newPTYFixture(t)
	// One epic and 55 stories: three create requests (1, 50, 5 items).
	var b strings.Builder
	b.WriteString("---\nid: big\n---\n# Big\n\n## Epic e-1: Everything\n")
	for i := 1; i <= 55; i++ {
		fmt.Fprintf(&b, "\n### Story s-%d: Story number %d\n", i, i)
	}
	must(t, os.WriteFile(filepath.Join(f.dir, "big.md"), []byte(b.String()), 0o600))
	// One write at a time, so that there is a next write not to send (with
	// writes in flight together both story requests would already be out;
	// core's TestCancelStopsNewWrites covers that case).
	cfgPath := filepath.Join(f.dir, ".devworkwire.yaml")
	cfg, err := os.ReadFile(cfgPath)
	must(t, err)
	must(t, os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), "jira:\n", "jira:\n  max_in_flight: 1\n", 1)), 0o600))
	s := f.start(t, nil, "import", "big.md")
	s.waitFor(promptText)
	f.srv.SetLatency(800 * time.Millisecond)
	s.send("y\r")
	s.waitFor("Committing [") // the epic is in: the first story request is in flight
	s.send("\x03")
	code := s.wait()
	out := s.output()
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, out)
	}
	for _, want := range []string{"Stopping after the write in flight", "Error: COMMIT_PARTIAL:", "untried"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "- unknown ") {
		t.Errorf("an interrupt left an item of unknown outcome:\n%s", out)
	}
	if n := len(f.srv.Issues()); n == 0 || n >= 56 {
		t.Fatalf("%d issues after an interrupted commit of 56", n)
	}
}

// dwire init in a terminal asks for what it needs, checks it against
// Jira, and writes the file.
func TestPTYInitAsks(t *testing.T) {
	f := newPTYFixture(t)
	must(t, os.Remove(filepath.Join(f.dir, ".devworkwire.yaml")))
	site := f.url
	s := f.start(t, nil, "init")
	s.answer("Jira site", site, "Project key", "DEMO", "e-mail", "demo@example.com", "Reference field", "") // the default field
	s.wantExit(0)
	b, err := os.ReadFile(filepath.Join(f.dir, ".devworkwire.yaml"))
	must(t, err)
	for _, want := range []string{"site: " + site, "project: DEMO", "email: demo@example.com"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), testToken) {
		t.Fatal("token written to the config file")
	}
}

// dwire init over an existing configuration asks as every other command
// asks, "[y/N]", and Enter alone keeps the file.
func TestPTYInitAsksBeforeReplacing(t *testing.T) {
	f := newPTYFixture(t)
	before, err := os.ReadFile(filepath.Join(f.dir, ".devworkwire.yaml"))
	must(t, err)
	s := f.start(t, nil, "init")
	s.waitFor("exists. Replace it? [y/N]")
	s.send("\r")
	s.wantExit(0)
	after, err := os.ReadFile(filepath.Join(f.dir, ".devworkwire.yaml"))
	must(t, err)
	if string(after) != string(before) {
		t.Fatalf("the configuration changed:\n%s", after)
	}
}

// Ctrl-C during a read (`dwire ls` while Jira hangs) is the person
// stopping it: exit 130, one quiet line, no INTERNAL_ERROR.
func TestPTYCtrlCDuringReadExits130(t *testing.T) {
	f := newPTYFixture(t)
	f.srv.SetLatency(time.Hour) // Jira hangs
	s := f.start(t, nil, "ls")
	deadline := time.Now().Add(20 * time.Second)
	for f.srv.Pending() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("dwire ls never reached Jira:\n%s", s.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.send("\x03")
	code := s.wait()
	out := s.output()
	if code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, out)
	}
	if strings.Contains(out, "INTERNAL_ERROR") || strings.Contains(out, "Error:") {
		t.Fatalf("an interrupted read was reported as an error:\n%s", out)
	}
	if !strings.Contains(out, "Interrupted; nothing was written.") {
		t.Fatalf("no word about the interruption:\n%s", out)
	}
}

// On an 80-column terminal, Error: blocks and doctor's report are wrapped
// between words at 80 columns (the terminal would cut them mid-word); issue
// 19 #9.
func TestPTYMessagesWrapAtTheTerminalWidth(t *testing.T) {
	f := newPTYFixture(t)
	f.srv.SetPermissions("DEMO", jiratest.Permissions{Browse: true})
	// Detail lines ("  - …") are wrapped too, their prefix counted.
	must(t, os.WriteFile(filepath.Join(f.dir, "bad.md"), []byte("---\nid: bad\n---\n## Story s-3: T\nDepends on: s-9\n\n## Story s-4: U\nDepends on: s-8\n"), 0o600))
	for _, args := range [][]string{
		{"doctor"},
		{"review", "imp_00000000000000000000000000000000"},
		{"import", "missing-document-with-a-long-name.md"},
		{"import", "bad.md"},
	} {
		s := f.start(t, nil, args...)
		code := s.wait()
		out := strings.ReplaceAll(s.output(), "\r\n", "\n")
		if code == 0 {
			t.Fatalf("%v: exit 0\n%s", args, out)
		}
		lines := strings.Split(out, "\n")
		if len(lines) < 3 {
			t.Fatalf("%v: too little output to show wrapping:\n%s", args, out)
		}
		for _, l := range lines {
			// A word longer than a line (a path) gets a line of its own.
			if n := len([]rune(l)); n > 80 && len(strings.Fields(l)) > 1 {
				t.Errorf("%v: a %d-column line on an 80-column terminal:\n%s", args, n, l)
			}
		}
	}
}

// visibleLines is what a terminal shows of out: for each line, the text
// after its last carriage return (what was drawn over the line last).
func visibleLines(out string) []string {
	var v []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		v = append(v, l[strings.LastIndex(l, "\r")+1:])
	}
	return v
}

// The progress bar ends where a failed commit stopped, not at N/N; with
// -v, log lines never share the bar's line.
func TestPTYBarStopsWhereTheCommitStopped(t *testing.T) {
	f := newPTYFixture(t)
	must(t, f.srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: 2, Kind: "500"}))
	s := f.start(t, nil, "import", "plan.md", "-v")
	s.answer(promptText, "y")
	s.wantExit(4)
	out := s.output()
	committed := strings.Count(out, "  - committed ")
	if committed == 0 || committed >= 5 {
		t.Fatalf("%d committed items in the report:\n%s", committed, out)
	}
	var bars []string
	for _, l := range visibleLines(out) {
		if strings.Contains(l, "Committing [") {
			bars = append(bars, l)
			if strings.Contains(l, "level=") {
				t.Errorf("a log line shares the bar's line: %q", l)
			}
		}
	}
	if len(bars) == 0 {
		t.Fatalf("no bar:\n%s", out)
	}
	if last, want := bars[len(bars)-1], fmt.Sprintf(" %d/5 stopped", committed); !strings.HasSuffix(last, want) {
		t.Fatalf("the bar ends as %q, want it to end with %q\n%s", last, want, out)
	}
	if !strings.Contains(out, "level=") {
		t.Fatal("-v logged nothing: the log-line check proves nothing")
	}
}

// dwire init without the token in the environment asks for it first, with
// hidden input, uses it for the check only and says how to export it; a
// later failed check keeps the answers.
func TestPTYInitAsksForTheTokenFirstAndKeepsAnswers(t *testing.T) {
	f := newPTYFixture(t)
	must(t, os.Remove(filepath.Join(f.dir, ".devworkwire.yaml")))
	noToken := []string{"JIRA_API_TOKEN="}
	s := f.start(t, noToken, "init")
	s.waitFor("Token: ")
	if strings.Contains(s.output(), "Jira site") {
		t.Fatalf("asked questions before the token:\n%s", s.output())
	}
	// The site is not known yet: either kind of token is named.
	if !strings.Contains(s.output(), "API token (Jira Cloud) or personal access token (Jira Data Center)") {
		t.Errorf("the prompt does not name both kinds of token:\n%s", s.output())
	}
	s.send(testToken + "\r")
	s.answer("Jira site", f.url, "Project key", "DEMO", "e-mail", "demo@example.com", "Reference field", "")
	s.wantExit(0)
	out := s.output()
	if strings.Contains(out, testToken) {
		t.Fatalf("the pasted token was echoed:\n%s", out)
	}
	if !strings.Contains(out, "export JIRA_API_TOKEN=<your token>") {
		t.Errorf("no word on exporting the token:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(f.dir, ".devworkwire.yaml"))
	must(t, err)
	if strings.Contains(string(b), testToken) || !strings.Contains(string(b), "project: DEMO") {
		t.Fatalf("config:\n%s", b)
	}

	// A check that fails after the questions: offered to write it anyway.
	must(t, os.Remove(filepath.Join(f.dir, ".devworkwire.yaml")))
	for _, answer := range []string{"y", "n"} {
		s = f.start(t, nil, "init")
		s.answer("Jira site", f.url, "Project key", "DEMO", "e-mail", "demo@example.com", "Reference field", "Nope Field", "anyway", answer)
		s.wantExit(2)
		out = s.output()
		if !strings.Contains(out, "REFERENCE_FIELD_MISSING") {
			t.Fatalf("answer %s: the problem is not shown:\n%s", answer, out)
		}
		b, err := os.ReadFile(filepath.Join(f.dir, ".devworkwire.yaml"))
		switch answer {
		case "y":
			must(t, err)
			if !strings.Contains(string(b), "reference_field: Nope Field") {
				t.Fatalf("written anyway, but not the answers:\n%s", b)
			}
			must(t, os.Remove(filepath.Join(f.dir, ".devworkwire.yaml")))
		case "n":
			if err == nil {
				t.Fatal("answered n, but the file was written")
			}
			if !strings.Contains(out, "reference_field: Nope Field") || !strings.Contains(out, "project: DEMO") {
				t.Fatalf("answered n, and the answers were not printed:\n%s", out)
			}
		}
	}
}

// A slow Jira: after about a second of waiting a spinner on the terminal
// names the host, and it is gone when the answer is printed; never with
// --json.
func TestPTYSpinnerWhileJiraIsSlow(t *testing.T) {
	f := newPTYFixture(t)
	f.srv.SetLatency(1500 * time.Millisecond)
	host := strings.TrimPrefix(f.url, "http://")
	s := f.start(t, nil, "ls")
	s.wantExit(0)
	out := s.output()
	if !strings.Contains(out, "Waiting for Jira at "+host) {
		t.Fatalf("no spinner naming %s:\n%q", host, out)
	}
	found := false
	for _, l := range visibleLines(out) {
		if strings.Contains(l, "Waiting for Jira") {
			t.Errorf("the spinner stays on a line: %q", l)
		}
		found = found || l == "No work items match."
	}
	if !found {
		t.Errorf("the result does not stand on its own line:\n%q", out)
	}
	s = f.start(t, nil, "ls", "--json")
	s.wantExit(0)
	if strings.Contains(s.output(), "Waiting") {
		t.Fatalf("a spinner with --json:\n%s", s.output())
	}
}

// shows fails the test for each text the terminal did not show.
func (s *ptySession) shows(texts ...string) {
	s.t.Helper()
	out := s.output()
	for _, want := range texts {
		if !strings.Contains(out, want) {
			s.t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
}

// startWith runs dwire with the terminal as its controlling tty and on
// the streams not given: stdin from in and stdout to out when they are
// not nil (`echo … | dwire …`, `dwire … > out.txt`).
func (f *ptyFixture) startWith(t *testing.T, in io.Reader, out *os.File, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command("dwire", args...)
	cmd.Dir = f.dir
	cmd.Env = f.env
	ptmx, tty, err := pty.Open()
	must(t, err)
	t.Cleanup(func() { ptmx.Close() })
	must(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 80}))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if in != nil {
		cmd.Stdin = in
	}
	if out != nil {
		cmd.Stdout = out
	}
	// The terminal (fd 2 in the child) becomes its controlling tty.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	must(t, cmd.Start())
	tty.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	s := &ptySession{t: t, cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go s.pump()
	return s
}

// startRedirected runs dwire with stdout redirected to the file out.
func (f *ptyFixture) startRedirected(t *testing.T, out string, args ...string) *ptySession {
	t.Helper()
	file, err := os.Create(out)
	must(t, err)
	t.Cleanup(func() { file.Close() })
	return f.startWith(t, nil, file, args...)
}

// With stdout redirected, the preview a person confirms is shown on the
// terminal too (it used to go only into the file, so the prompt asked
// "Write 5 items?" with the plan invisible); the file keeps the preview
// and the result as before.
func TestPTYRedirectedStdoutShowsThePreviewOnTheTerminal(t *testing.T) {
	f := newPTYFixture(t)
	out := filepath.Join(f.dir, "out.txt")
	s := f.startRedirected(t, out, "import", "plan.md")
	s.answer(promptText, "y")
	s.wantExit(0)
	s.shows("Import preview of checkout-v2", "create", "Story s-1:", "5 to create")
	term := s.output()
	if i, j := strings.Index(term, "5 to create"), strings.Index(term, promptText); i < 0 || j < i {
		t.Errorf("the preview is not on the terminal before the prompt:\n%s", term)
	}
	b, err := os.ReadFile(out)
	must(t, err)
	for _, want := range []string{"Import preview of checkout-v2", "Committed: 5 created"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("stdout file lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(term, "Committed:") || strings.Contains(string(b), promptText) {
		t.Errorf("the result went to the terminal or the prompt to the file:\nterminal:\n%s\nfile:\n%s", term, b)
	}

	// A preview that needs no confirmation (a dry run) is not repeated on
	// the terminal.
	s = f.startRedirected(t, out, "import", "plan.md", "--dry-run")
	s.wantExit(0)
	if strings.Contains(s.output(), "Import preview of") {
		t.Errorf("a dry run's preview is on the terminal as well:\n%s", s.output())
	}
}

// dwire pull on a terminal: the document's diff, then the prompt; no
// leaves the file as it was, yes writes it, and the next import is
// unchanged. Without a terminal the pull is refused and writes nothing.
func TestPTYPull(t *testing.T) {
	f := importedPTYFixture(t)
	path := filepath.Join(f.dir, "plan.md")
	before, err := os.ReadFile(path)
	must(t, err)
	title := "Guest checkout, as Jira calls it"
	must(t, f.srv.EditAsPerson("DEMO-1", jiratest.PersonEdit{Summary: &title}))
	writes := len(f.srv.Writes())

	s := f.start(t, nil, "pull", "plan.md")
	s.answer(promptText, "n")
	s.wantExit(0)
	s.shows("Pull from Jira into plan.md", "-## Epic e-1: Guest checkout", "+## Epic e-1: Guest checkout, as Jira calls it", "Skipped: not confirmed; nothing was written.")
	if after, _ := os.ReadFile(path); string(after) != string(before) || len(f.srv.Writes()) != writes {
		t.Fatalf("no at the prompt wrote (file changed: %v, %d Jira writes)", string(after) != string(before), len(f.srv.Writes())-writes)
	}

	// No terminal: refused, nothing written.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dwire", "pull", "plan.md")
	cmd.Dir, cmd.Env, cmd.Stdin = f.dir, f.env, strings.NewReader("y\n")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "CONFIRMATION_REQUIRED") {
		t.Fatalf("pull without a terminal: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) || len(f.srv.Writes()) != writes {
		t.Fatal("a pull without a terminal wrote")
	}

	s = f.start(t, nil, "pull", "plan.md")
	s.answer(promptText, "y")
	s.wantExit(0)
	s.shows("Pulled: wrote plan.md")
	after, err := os.ReadFile(path)
	must(t, err)
	if want := strings.Replace(string(before), "## Epic e-1: Guest checkout\n", "## Epic e-1: "+title+"\n", 1); string(after) != want {
		t.Fatalf("file after yes:\n%s\nwant\n%s", after, want)
	}
	if ws := f.srv.Writes()[writes:]; len(ws) != 1 || !strings.Contains(ws[0].Path, "/properties/") {
		t.Errorf("the pull's Jira writes: %+v; want one property write", ws)
	}
	writes = len(f.srv.Writes())
	s = f.start(t, nil, "import", "plan.md")
	s.wantExit(0)
	if strings.Contains(s.output(), promptText) || len(f.srv.Writes()) != writes || !strings.Contains(s.output(), "5 unchanged") {
		t.Fatalf("the import after the pull is not unchanged:\n%s", s.output())
	}
}

// The commit summary shows each sub-task under its story (epic → story →
// sub-task), as the preview does, each title wrapped within the terminal's
// 80 columns and each link under its item, line by line.
func TestPTYCommitSummaryShowsSubtasksUnderTheirStory(t *testing.T) {
	f := newPTYFixture(t)
	plan := "---\nid: tasks\n---\n# Tasks\n\n## Epic e-1: Guest checkout\n\n### Story s-1: Let a guest pay\n\n" +
		"#### Sub-task t-1: Migration for the address table that is long enough to wrap around the line\n\n" +
		"#### Sub-task t-2: Form with autocomplete\n\n### Story s-2: Save address for next time\n\n#### Sub-task t-3: Another sub-task\n"
	must(t, os.WriteFile(filepath.Join(f.dir, "tasks.md"), []byte(plan), 0o600))
	s := f.start(t, nil, "import", "tasks.md")
	s.answer(promptText, "y")
	s.wantExit(0)
	lines := visibleLines(s.output())
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Committed: 6 created") {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no commit summary:\n%s", s.output())
	}
	summary := lines[at:]
	want := []*regexp.Regexp{ // after the counts and the structure line
		regexp.MustCompile(`^  created    DEMO-\d  Epic e-1: Guest checkout$`),
		regexp.MustCompile(`^                     │ http://\S+/browse/DEMO-\d$`),
		regexp.MustCompile(`^  created    DEMO-\d  ├─ Story s-1: Let a guest pay$`),
		regexp.MustCompile(`^                     │  │ http://\S+/browse/DEMO-\d$`),
		regexp.MustCompile(`^  created    DEMO-\d  │  ├─ Sub-task t-1: Migration for the address table that is$`),
		regexp.MustCompile(`^                     │  │  long enough to wrap around the line$`),
		regexp.MustCompile(`^                     │  │  http://\S+/browse/DEMO-\d$`),
		regexp.MustCompile(`^  created    DEMO-\d  │  └─ Sub-task t-2: Form with autocomplete$`),
		regexp.MustCompile(`^                     │     http://\S+/browse/DEMO-\d$`),
		regexp.MustCompile(`^  created    DEMO-\d  └─ Story s-2: Save address for next time$`),
		regexp.MustCompile(`^                        │ http://\S+/browse/DEMO-\d$`),
		regexp.MustCompile(`^  created    DEMO-\d     └─ Sub-task t-3: Another sub-task$`),
		regexp.MustCompile(`^                           http://\S+/browse/DEMO-\d$`),
	}
	for j, re := range want {
		if 2+j >= len(summary) || !re.MatchString(summary[2+j]) {
			t.Fatalf("line %d of the commit summary is not %s:\n%s", 2+j, re, strings.Join(summary, "\n"))
		}
	}
	for _, l := range summary {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("a %d-column line on an 80-column terminal: %s", n, l)
		}
	}
}

// A pull's rows read as the import preview's (the field as the import
// names it, values unquoted, "from → to", a long value wrapped, never
// cut), a conflict says how to resolve it (the command with --take-jira
// and --take-document and the items in conflict), and an item the flags
// name that the document lacks is refused naming the flag, not the MCP
// field.
func TestPullReadsAsTheImportAndSaysHowToResolveAConflict(t *testing.T) {
	f := importedPTYFixture(t)
	path := filepath.Join(f.dir, "plan.md")
	// A person renames the epic and rewrites a story's title in Jira; the
	// document renames the same story: s-2 is a conflict, e-1 a pull.
	epic := "Guest checkout, as Jira calls it"
	must(t, f.srv.EditAsPerson("DEMO-1", jiratest.PersonEdit{Summary: &epic}))
	story := "Remember the address so the next order needs no typing at all, as asked"
	key := ""
	for _, is := range f.srv.Issues() {
		if is.Summary == "Save address for next time" {
			key = is.Key
		}
	}
	if key == "" {
		t.Fatal("no issue for s-2")
	}
	must(t, f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &story}))
	plan, err := os.ReadFile(path)
	must(t, err)
	must(t, os.WriteFile(path, []byte(strings.Replace(string(plan), "Save address for next time", "Save the address", 1)), 0o600))

	run := func(args ...string) (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "dwire", args...)
		cmd.Dir, cmd.Env = f.dir, append(f.env, "NO_COLOR=1", "COLUMNS=80")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run("pull", "plan.md", "--dry-run")
	if code != 0 {
		t.Fatalf("pull --dry-run: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"      ~ title: Guest checkout → Guest checkout, as Jira calls it\n",
		"      ! title (conflict, neither taken):\n",
		"        in the document: Save the address\n",
		"        in Jira: Remember the address so the next order needs no typing at all,\n",
		"          as asked\n",
		"To resolve: `dwire pull plan.md --take-jira s-2` writes Jira's values into the\n",
		"--take-document s-2` keeps the document's",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the pull preview lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{`"`, "Title", "…"} {
		if strings.Contains(strings.Split(out, "\n---")[0], not) {
			t.Errorf("the pull preview's rows hold %q (quoted, capitalised or cut unlike the import preview):\n%s", not, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 && !strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "-") {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}

	out, code = run("pull", "plan.md", "--take-jira", "s-9", "--dry-run")
	if code != 1 || !strings.Contains(out, "--take-jira") || strings.Contains(out, "take_tracker") {
		t.Errorf("pull --take-jira s-9: exit %d; want exit 1 naming --take-jira, not take_tracker:\n%s", code, out)
	}
	out, code = run("pull", "plan.md", "--take-document", "s-9", "--item", "s-8", "--dry-run")
	if code != 1 || !strings.Contains(out, "--take-document") || strings.Contains(out, "take_document") {
		t.Errorf("pull --take-document s-9: exit %d; want exit 1 naming --take-document, not take_document:\n%s", code, out)
	}
}
