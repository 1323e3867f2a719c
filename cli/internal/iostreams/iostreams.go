// Package iostreams is the one place that knows about the process's
// standard streams: which of them are terminals, whether colour may be
// used, how wide the terminal is and whether the user can be asked a
// question. Results go to Out; prompts, progress, warnings and errors go to
// ErrOut.
package iostreams

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"
)

// IOStreams carries the standard streams and what is known about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	noColor   bool
	width     int

	// ttyIn opens the controlling terminal for a prompt when stdin is
	// taken by data (e.g. `--comment -`). nil → not available.
	ttyIn func() (io.ReadCloser, error)

	mu sync.Mutex
	// around, while a status line (progress bar) is drawn on stderr, runs
	// a write with that line cleared and redraws it after.
	around func(write func())
}

// SetStatusLine registers a line drawn in place on stderr (a progress
// bar): while it is set, LogWriter's writes go through around, which
// clears the line, writes, and redraws it. The returned function unsets it.
func (s *IOStreams) SetStatusLine(around func(write func())) (unset func()) {
	s.mu.Lock()
	s.around = around
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.around = nil
		s.mu.Unlock()
	}
}

// LogWriter is stderr for log lines: they never break into a status line.
func (s *IOStreams) LogWriter() io.Writer { return logWriter{s} }

type logWriter struct{ s *IOStreams }

func (w logWriter) Write(p []byte) (n int, err error) {
	w.s.mu.Lock()
	around := w.s.around
	w.s.mu.Unlock()
	if around == nil {
		return w.s.ErrOut.Write(p)
	}
	around(func() { n, err = w.s.ErrOut.Write(p) })
	return n, err
}

// fder is a stream with a file descriptor.
type fder interface{ Fd() uintptr }

func isTTY(v any) bool {
	f, ok := v.(fder)
	return ok && term.IsTerminal(int(f.Fd()))
}

// System returns the streams of this process. getenv is os.Getenv in
// production; colour is off when NO_COLOR is set (to anything), when
// TERM=dumb, or when the stream is not a terminal.
func System(getenv func(string) string) *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTTY(os.Stdin),
		stdoutTTY: isTTY(os.Stdout),
		stderrTTY: isTTY(os.Stderr),
	}
	_, set := lookup(getenv, "NO_COLOR")
	s.noColor = set || getenv("TERM") == "dumb"
	s.width = 80
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if term.IsTerminal(int(f.Fd())) {
			if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
				s.width = w
				break
			}
		}
	}
	s.ttyIn = func() (io.ReadCloser, error) { return os.Open("/dev/tty") }
	return s
}

// lookup reports whether the variable is set; getenv cannot tell an empty
// value from an unset one, so a non-empty value counts as set. NO_COLOR's
// convention is "set to any non-empty value".
func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// Test returns streams backed by buffers: no terminal anywhere, width 80.
func Test() (s *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: 80, noColor: true}, in, out, errOut
}

// SetTTY marks all three streams as terminals (or not); for tests.
func (s *IOStreams) SetTTY(in, out, errOut bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = in, out, errOut
}

// SetColor enables or disables colour; for tests.
func (s *IOStreams) SetColor(on bool) { s.noColor = !on }

// SetWidth sets the terminal width; for tests.
func (s *IOStreams) SetWidth(w int) { s.width = w }

// IsStdinTTY reports whether stdin is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// CanPrompt reports whether a person can be asked a question: stdin and
// stderr (where the prompt is written) are both terminals.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// PromptIn returns the reader a prompt reads from. When stdin is a
// terminal it is stdin. When stdin carries data (a piped comment) but
// stderr is a terminal, it opens the controlling terminal. ok is false when
// no person can be asked.
func (s *IOStreams) PromptIn() (r io.Reader, closeFn func(), ok bool) {
	if s.CanPrompt() {
		return s.In, func() {}, true
	}
	if !s.stderrTTY || s.ttyIn == nil {
		return nil, func() {}, false
	}
	f, err := s.ttyIn()
	if err != nil {
		return nil, func() {}, false
	}
	return f, func() { f.Close() }, true
}

// ReadSecret shows prompt on ErrOut and reads one line without echoing it
// (a token pasted at a prompt), from stdin when it is a terminal; fallback
// reads a line from when stdin is not one (tests). On a terminal the echo
// is turned off before the prompt is shown, so nothing typed or pasted
// after the prompt appears is ever echoed, however fast it comes. It
// returns ErrSecretInterrupted when ctx ends first (Ctrl-C), with the
// terminal's echo restored.
func (s *IOStreams) ReadSecret(ctx context.Context, prompt string, fallback *bufio.Reader) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	f, isFile := s.In.(*os.File)
	if isFile && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		restore, err := echoOff(fd)
		if err != nil { // a system whose echo we cannot set: x/term's way
			state, err := term.GetState(fd)
			if err != nil {
				return "", err
			}
			restore = func() { _ = term.Restore(fd, state) }
			fmt.Fprint(s.ErrOut, prompt)
			go func() {
				b, err := term.ReadPassword(fd)
				ch <- result{string(b), err}
			}()
		} else {
			fmt.Fprint(s.ErrOut, prompt)
			go func() {
				l, err := readLine(f)
				ch <- result{l, err}
			}()
		}
		select {
		case <-ctx.Done():
			restore()
			fmt.Fprintln(s.ErrOut)
			return "", ErrSecretInterrupted
		case r := <-ch:
			restore()
			fmt.Fprintln(s.ErrOut) // the Enter was not echoed
			return strings.TrimSpace(r.line), r.err
		}
	}
	fmt.Fprint(s.ErrOut, prompt)
	go func() {
		l, err := fallback.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case <-ctx.Done():
		return "", ErrSecretInterrupted
	case r := <-ch:
		if r.err != nil && r.line == "" {
			return "", ErrSecretInterrupted
		}
		return strings.TrimSpace(r.line), nil
	}
}

// readLine reads up to the end of a line, a byte at a time so that nothing
// after it is taken from the terminal.
func readLine(r io.Reader) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' || b[0] == '\r' {
				return string(line), nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return string(line), nil
			}
			return string(line), err
		}
	}
}

// ErrSecretInterrupted: ReadSecret ended without an answer.
var ErrSecretInterrupted = errors.New("iostreams: secret prompt interrupted")

// Width is the terminal width for layout; 80 when unknown. Layout never
// uses more than Width columns, and never fewer than 40.
func (s *IOStreams) Width() int {
	if s.width < 40 {
		return 40
	}
	return s.width
}

// ColorEnabled reports whether stdout may carry colour.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.noColor }

// ColorEnabledErr reports whether stderr may carry colour.
func (s *IOStreams) ColorEnabledErr() bool { return s.stderrTTY && !s.noColor }

// ColorScheme returns colour functions for stdout (err=false) or stderr.
// Colour is only ever layered on text that already says what it means.
func (s *IOStreams) ColorScheme(err bool) *ColorScheme {
	on := s.ColorEnabled()
	if err {
		on = s.ColorEnabledErr()
	}
	return &ColorScheme{on: on}
}

// ColorScheme wraps text in ANSI colours when enabled.
type ColorScheme struct{ on bool }

func (c *ColorScheme) wrap(code, t string) string {
	if !c.on || t == "" {
		return t
	}
	return "\x1b[" + code + "m" + t + "\x1b[0m"
}

// Red colours t red.
func (c *ColorScheme) Red(t string) string { return c.wrap("31", t) }

// Green colours t green.
func (c *ColorScheme) Green(t string) string { return c.wrap("32", t) }

// Yellow colours t yellow.
func (c *ColorScheme) Yellow(t string) string { return c.wrap("33", t) }

// Cyan colours t cyan.
func (c *ColorScheme) Cyan(t string) string { return c.wrap("36", t) }

// Bold makes t bold.
func (c *ColorScheme) Bold(t string) string { return c.wrap("1", t) }

// Gray makes t dim.
func (c *ColorScheme) Gray(t string) string { return c.wrap("90", t) }

// Enabled reports whether the scheme adds colour.
func (c *ColorScheme) Enabled() bool { return c.on }

// StripANSI removes colour escapes (for width arithmetic and tests).
func StripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
