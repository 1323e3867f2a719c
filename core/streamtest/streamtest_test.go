package streamtest_test

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
)

// The test binary is its own child process: in child mode it echoes stdin
// to stdout and says so on stderr.
func TestMain(m *testing.M) {
	switch os.Getenv("STREAMTEST_CHILD") {
	case "echo":
		_, _ = io.Copy(os.Stdout, os.Stdin)
		_, _ = os.Stderr.WriteString("echoed\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STREAMTEST_CHILD="+mode)
	return cmd
}

func TestBufferConcurrentWriters(t *testing.T) {
	var b streamtest.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := len(b.String()); n != 800 {
		t.Fatalf("%d bytes, want 800", n)
	}
}

func TestStartPipes(t *testing.T) {
	cmd := child("echo")
	p := streamtest.Start(t, cmd)
	if _, err := io.WriteString(p.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	out, err := io.ReadAll(p.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if string(out) != "hello\n" || p.Stderr.String() != "echoed\n" {
		t.Fatalf("stdout %q, stderr %q", out, p.Stderr.String())
	}
}

func TestStartWaited(t *testing.T) {
	p := streamtest.StartWaited(t, child("echo"))
	p.Stdin.Close()
	if _, err := io.ReadAll(p.Stdout); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitExit(t, time.Minute, "after its stdin closed"); err != nil || p.Stderr.String() != "echoed\n" {
		t.Fatalf("err %v, stderr %q", err, p.Stderr.String())
	}
}

// Stdout is read after the process exited and Wait (in the background)
// returned: with exec's own pipe, Wait had closed it ("file already
// closed"), which made every reader racing Wait flaky.
func TestStartWaitedStdoutOutlivesWait(t *testing.T) {
	p := streamtest.StartWaited(t, child("echo"))
	if _, err := io.WriteString(p.Stdin, "kept\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	if err := p.WaitExit(t, time.Minute, "after its stdin closed"); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(p.Stdout)
	if err != nil || string(out) != "kept\n" || p.Err() != nil {
		t.Fatalf("stdout %q, read error %v, wait error %v", out, err, p.Err())
	}
}

func TestRunWithinKillsALateProcess(t *testing.T) {
	if err := streamtest.RunWithin(child("echo"), time.Minute); err != nil {
		t.Fatalf("a process that exits: %v", err)
	}
	// A child whose stdin stays open does not exit.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hang := child("echo")
	hang.Stdin = r
	err = streamtest.RunWithin(hang, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not exit in time") {
		t.Fatalf("a hanging process: %v, want did not exit in time", err)
	}
}

func TestGoBuildSaysWhatFailed(t *testing.T) {
	err := streamtest.GoBuild(t.TempDir()+"/x", "./no-such-package")
	if err == nil || !strings.Contains(err.Error(), "go build ./no-such-package") || !strings.Contains(err.Error(), "no-such-package") {
		t.Fatalf("GoBuild of a missing package: %v", err)
	}
}
