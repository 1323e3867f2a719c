//go:build unix

package plan

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readFileWithin runs ReadFile(path) and fails the test if it has not
// returned within a generous deadline (it must not block at all). On a
// timeout, release opens the thing ReadFile may be stuck on so that the
// goroutine ends.
func readFileWithin(t *testing.T, path string, release func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		release()
		<-done
		t.Fatalf("ReadFile(%s) blocked for 10 s; it must refuse a non-regular file at once", path)
		return nil
	}
}

func wantNotRegular(t *testing.T, err error, what string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeSourceNotFound {
		t.Fatalf("got %v, want SOURCE_NOT_FOUND", err)
	}
	for _, s := range []string{what, "not a regular file", "save the plan as a regular"} {
		if !strings.Contains(pe.Message, s) {
			t.Errorf("message %q does not contain %q", pe.Message, s)
		}
	}
}

// TestReadFileRefusesFIFO: a FIFO named plan.md with no writer used to
// block ReadFile in open(2) forever.
func TestReadFileRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.md")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	err := readFileWithin(t, path, func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	wantNotRegular(t, err, "named pipe (FIFO)")
}

// TestReadFileRefusesFIFOWithWriter: a FIFO that does have a writer (which
// never closes it) is refused too, without reading from it.
func TestReadFileRefusesFIFOWithWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.md")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	// A reader-writer open does not block and keeps a writer attached.
	rw, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	err = readFileWithin(t, path, func() { rw.Write([]byte("## Story s-1: x\n")); rw.Close() })
	wantNotRegular(t, err, "named pipe (FIFO)")
}

func TestReadFileRefusesSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "dw") // short: socket paths are limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "plan.md")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("unix socket: %v", err)
	}
	defer l.Close()
	err = readFileWithin(t, path, func() {})
	wantNotRegular(t, err, "a socket")
}

func TestReadFileRefusesDevice(t *testing.T) {
	const dev = "/dev/zero" // endless: reading it would only stop at MaxSize
	if _, err := os.Stat(dev); err != nil {
		t.Fatalf("%s: %v", dev, err)
	}
	err := readFileWithin(t, dev, func() {})
	wantNotRegular(t, err, "a character device")
}
