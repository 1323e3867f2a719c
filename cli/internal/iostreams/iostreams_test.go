package iostreams

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

func TestColorOnlyOnTTYAndNeverWithNoColor(t *testing.T) {
	s, _, _, _ := Test()
	s.SetColor(true)
	if s.ColorEnabled() {
		t.Fatal("colour enabled on a non-terminal")
	}
	s.SetTTY(true, true, true)
	if !s.ColorEnabled() || !s.ColorEnabledErr() {
		t.Fatal("colour disabled on a terminal")
	}
	if got := s.ColorScheme(false).Red("x"); got != "\x1b[31mx\x1b[0m" {
		t.Fatalf("Red = %q", got)
	}
	s.SetColor(false)
	if s.ColorEnabled() {
		t.Fatal("colour enabled with NO_COLOR")
	}
	if got := s.ColorScheme(false).Red("x"); got != "x" {
		t.Fatalf("Red without colour = %q", got)
	}
}

func TestCanPrompt(t *testing.T) {
	s, _, _, _ := Test()
	if s.CanPrompt() {
		t.Fatal("CanPrompt with buffers")
	}
	s.SetTTY(true, false, true)
	if !s.CanPrompt() {
		t.Fatal("cannot prompt with stdin and stderr terminals")
	}
	s.SetTTY(false, true, true)
	if _, _, ok := s.PromptIn(); ok {
		t.Fatal("PromptIn without a terminal opener must fail")
	}
}

func TestSystemDetectsPseudoTerminal(t *testing.T) {
	ptmx, tty := openPTY(t)
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	oldIn, oldOut, oldErr := os.Stdin, os.Stdout, os.Stderr
	os.Stdin, os.Stdout, os.Stderr = tty, tty, tty
	defer func() { os.Stdin, os.Stdout, os.Stderr = oldIn, oldOut, oldErr }()

	env := map[string]string{}
	s := System(func(k string) string { return env[k] })
	if !s.IsStdinTTY() || !s.IsStdoutTTY() || !s.IsStderrTTY() || !s.CanPrompt() {
		t.Fatal("terminal not detected")
	}
	if !s.ColorEnabled() {
		t.Fatal("colour off on a terminal without NO_COLOR")
	}
	if s.Width() != 100 {
		t.Fatalf("width = %d, want 100", s.Width())
	}
	env["NO_COLOR"] = "1"
	if System(func(k string) string { return env[k] }).ColorEnabled() {
		t.Fatal("colour on with NO_COLOR")
	}
}

func TestStripANSI(t *testing.T) {
	if got := StripANSI("\x1b[1ma\x1b[0mb"); got != "ab" {
		t.Fatalf("StripANSI = %q", got)
	}
}

// openPTY opens a pseudo-terminal pair, closed when the test ends.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return ptmx, tty
}
