package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRepeatOfAKilledCommitIsNotRunning: a real `dwire mcp` commits a
// plan (every request to the fake taking 300 ms) and is SIGKILLed once
// its first story batch is in Jira; another `dwire mcp` repeats the call
// with the same idempotency key and handle. While the first one runs, the
// repeat is told it is running; once it was killed, within a few seconds
// (its commit lock's heartbeat stopped) and long before the lock's lease
// lapses (10 minutes here), the repeat is told it is not running: it did
// not finish, how many outcomes were recorded, and to run the preview
// again. No repeat writes anything. On SQLite and Postgres.
func TestRepeatOfAKilledCommitIsNotRunning(t *testing.T) { eachStore(t, repeatOfAKilledCommit) }

// eachStore runs f as a subtest on each kind of store.
func eachStore(t *testing.T, f func(t *testing.T, kind string)) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) { f(t, kind) })
	}
}

// slowJira makes every request to the fake take ms milliseconds until
// the test ends.
func (e *env) slowJira(ms int) {
	e.t.Helper()
	if err := e.jira.SetConfig(context.Background(), ms, 0, 0); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = e.jira.SetConfig(context.Background(), 0, 0, 0) })
}

func repeatOfAKilledCommit(t *testing.T, kind string) {
	e, _ := newStoreEnv(t, kind, envOptions{jira: "  max_in_flight: 1\n"})
	// A lease far longer than the test: only the heartbeat can tell the
	// repeat that the holder died.
	e.extra = append(e.extra, "DWIRE_COMMIT_LOCK_LEASE=10m")
	p := planSpec{id: "killed", epics: 2, stories: 60}
	path := e.write(p.id+".md", p.markdown())
	e.slowJira(300)

	cs, cmd := e.mcp()
	pv := e.scPreview(cs, path)
	args := map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": newKey()}
	first := make(chan scOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		first <- e.scCall(ctx, cs, "import_commit", args)
	}()
	pollUntil(t, 3*time.Minute, "the first story batch is in Jira", func() bool { return len(e.issues()) >= p.epics+50 })

	other, _ := e.mcp() // another agent, the same key and handle
	repeat := func() scOutcome {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		o := e.scCall(ctx, other, "import_commit", args)
		if o.transport != nil {
			t.Fatalf("the repeat: %v", o.transport)
		}
		return o
	}
	if o := repeat(); o.code() != "COMMIT_INTERRUPTED" || !strings.Contains(message(o), "is running now") {
		t.Fatalf("a repeat while the commit runs: %v; want COMMIT_INTERRUPTED, is running now", o.errData)
	}

	t0 := time.Now()
	kill(cmd)
	if o := <-first; o.transport == nil {
		t.Fatalf("the commit finished before the kill (%v): the scenario killed nothing", o.errData)
	}
	killedAt := time.Now()
	var last scOutcome
	deadline := killedAt.Add(2 * time.Minute)
	for {
		last = repeat()
		if last.code() != "COMMIT_INTERRUPTED" {
			t.Fatalf("a repeat after the kill: %v; want COMMIT_INTERRUPTED", last.errData)
		}
		if !strings.Contains(message(last), "is running now") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after the kill, a repeat still says the dead commit is running: %s", time.Since(killedAt).Round(time.Second), message(last))
		}
		<-time.After(250 * time.Millisecond) // the poll interval
	}
	told := time.Since(killedAt)
	msg := message(last)
	for _, want := range []string{"is not running", "stopped renewing its commit lock of document killed", "did not finish", "item outcome(s) were recorded", "call import_preview again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the repeat after the kill says %q; want %q in it", msg, want)
		}
	}
	if ds, _ := last.errData["details"].([]any); len(ds) < p.epics {
		t.Errorf("the repeat lists %d recorded outcomes; want at least the %d epics", len(ds), p.epics)
	}
	if w := e.docWritesSince(t0, p.id); len(w) > 1 { // at most the killed process's request in flight
		t.Errorf("%d writes after the kill: %+v", len(w), w)
	}
	t.Logf("%s: a repeat was told the killed commit is not running %s after the kill (its lock's lease runs 10 minutes)", kind, told.Round(100*time.Millisecond))
}

// message is an MCP error's message.
func message(o scOutcome) string { return fmt.Sprint(o.errData["message"]) }
