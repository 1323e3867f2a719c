package iostreams

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
	"golang.org/x/sys/unix"
)

// By the time the token prompt can be seen, the terminal's echo is off: a
// token pasted the instant the prompt appears is never shown.
func TestReadSecretTurnsEchoOffBeforeThePrompt(t *testing.T) {
	ptmx, tty := openPTY(t)
	var errOut streamtest.Buffer
	s := &IOStreams{In: tty, Out: &bytes.Buffer{}, ErrOut: &errOut}
	type answer struct {
		line string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		l, err := s.ReadSecret(context.Background(), "Token: ", bufio.NewReader(strings.NewReader("")))
		done <- answer{l, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errOut.String(), "Token: ") {
		if time.Now().After(deadline) {
			t.Fatal("the prompt was never shown")
		}
		time.Sleep(time.Millisecond) // polling the buffer, not waiting for an effect
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO != 0 {
		t.Fatal("the prompt is shown while the terminal still echoes: a fast paste would be echoed")
	}
	if _, err := ptmx.Write([]byte("s3cret-token\r")); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadSecret did not return")
	}
	if a.err != nil || a.line != "s3cret-token" {
		t.Fatalf("ReadSecret = %q, %v", a.line, a.err)
	}
	tio, err = unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ECHO == 0 {
		t.Fatal("echo was not turned back on")
	}
}
