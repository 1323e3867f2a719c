// Package streamtest holds the stream helpers that tests of several
// modules share: Buffer, a goroutine-safe sink for logs and a child
// process's output; Start and StartWaited, which run a child process on
// pipes; RunWithin, which runs one with a deadline; and GoBuild, which
// builds the binary a test runs as a child.
package streamtest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers: a log
// sink, or a child process's stderr read while the process still writes.
// The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Piped is a started child process whose stdin and stdout are pipes and
// whose stderr goes to a Buffer.
type Piped struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr *Buffer

	exited chan struct{} // StartWaited: closed once the process exited
	err    error         // StartWaited: its Wait error, valid after exited
}

// Start connects cmd's stdin and stdout to pipes and its stderr to a new
// Buffer, then starts it; t fails (Fatal) if any of that fails. The caller
// waits for cmd.
//
// Stdout is a pipe of Start's own, not exec's StdoutPipe: Wait closes the
// pipes exec.Cmd made, so reading those after (or while) Wait runs fails
// with "file already closed". This one stays readable until the test ends.
func Start(t testing.TB, cmd *exec.Cmd) *Piped {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd.Stdout = w
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	p := &Piped{Stdin: stdin, Stdout: r, Stderr: &Buffer{}}
	cmd.Stderr = p.Stderr
	err = cmd.Start()
	w.Close() // the child holds its own copy: EOF once it exits
	if err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	return p
}

// StartWaited is Start, and then waits for cmd in the background: Exited
// is closed once cmd exited, and Err is then its Wait error. A process
// still running when the test ends is killed. Stdout stays readable after
// the exit (see Start).
func StartWaited(t testing.TB, cmd *exec.Cmd) *Piped {
	t.Helper()
	p := Start(t, cmd)
	p.exited = make(chan struct{})
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// Exited is closed once a process started with StartWaited exited.
func (p *Piped) Exited() <-chan struct{} { return p.exited }

// Err is the Wait error of a process started with StartWaited, valid once
// Exited is closed.
func (p *Piped) Err() error { return p.err }

// WaitExit waits at most d for a process started with StartWaited to exit
// and returns its Wait error; t fails (Fatal) when it is still running
// then, with why it should have exited (e.g. "after SIGTERM") and what it
// wrote to stderr.
func (p *Piped) WaitExit(t testing.TB, d time.Duration, why string) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(d):
		t.Fatalf("the process did not exit %s within %s; stderr:\n%s", why, d, p.Stderr.String())
		return nil
	}
}

// RunWithin starts cmd and waits at most d for it to exit. It returns
// cmd's error, or, when d passed first, kills cmd and returns an error
// saying so.
func RunWithin(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("did not exit in time: killed after %s", d)
	}
}

// GoBuild builds the main package pkg (a directory, relative to the
// test's working directory, or an import path) into the file out with
// `go build` and flags, statically (CGO_ENABLED=0) as the release builds
// do. The error carries the compiler's output.
func GoBuild(out, pkg string, flags ...string) error {
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
