package render

import (
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core/streamtest"
)

func TestSpinnerSilentWhenQuick(t *testing.T) {
	var b streamtest.Buffer
	s := StartSpinner(&b, 80, "Waiting for Jira", time.Hour, time.Millisecond)
	s.Stop()
	s.Stop()
	if b.String() != "" {
		t.Fatalf("a quick call drew %q", b.String())
	}
}

func TestSpinnerDrawsAndClears(t *testing.T) {
	var b streamtest.Buffer
	s := StartSpinner(&b, 80, "Waiting for Jira at example.atlassian.net", 0, time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(b.String(), "Waiting") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("spinner never redrew: %q", b.String())
		}
		time.Sleep(time.Millisecond)
	}
	s.Around(func() { _, _ = b.Write([]byte("log line\n")) })
	s.Stop()
	out := b.String()
	before, after, ok := strings.Cut(out, "log line\n")
	if !ok {
		t.Fatalf("no log line: %q", out)
	}
	// The log line starts on a cleared line: the spinner's text is blanked.
	if seg := before[strings.LastIndex(before, "\r"):]; seg != "\r" {
		t.Fatalf("the log line does not start at a cleared line: %q", before)
	}
	// After Stop the line is blank.
	segs := strings.Split(after, "\r")
	if len(segs) < 2 || strings.TrimSpace(segs[len(segs)-2]) != "" || segs[len(segs)-1] != "" {
		t.Fatalf("something stays on the line after Stop: %q", after)
	}
}
