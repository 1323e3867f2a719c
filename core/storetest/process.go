package storetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

// process.go holds the cross-process cases: children that race (StartRun
// here, AcquireLock in lock.go, Fence in fence.go) and a child killed in
// the middle of a run (the crash case).

// Environment of a race child process.
const (
	// EnvChild puts a test binary in race-child mode (see
	// RunChildIfRequested).
	EnvChild       = "DWIRE_STORETEST_CHILD"
	envHandlesFile = "DWIRE_STORETEST_HANDLES"
	envProcess     = "DWIRE_STORETEST_PROCESS"
	envGoroutines  = "DWIRE_STORETEST_GOROUTINES"
	envNow         = "DWIRE_STORETEST_NOW"
)

// RunChildIfRequested must be called first in the TestMain of a package
// whose harness is a ProcessHarness; open opens the store the harness's
// ChildEnv describes; ctx is the child's (TestMain's) context. In a child process of the crash case it records
// outcomes until it is killed. In a child process of a race it opens the
// store with open, says READY on stdout, waits until stdin closes (the
// parent releases every child at once), races (StartRun, AcquireLock or
// Fence), prints one JSON attempt per line and exits; otherwise it returns
// at once.
func RunChildIfRequested(ctx context.Context, open func(ctx context.Context) (core.Store, error)) {
	var run func(context.Context, func(ctx context.Context) (core.Store, error)) error
	switch os.Getenv(EnvChild) {
	case "":
		return
	case "crash":
		run = runCrashChild
	case childLock:
		run = runLockChild
	case childFence:
		run = runFenceChild
	default:
		run = runChild
	}
	if err := run(ctx, open); err != nil {
		fmt.Fprintln(os.Stderr, "storetest child:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func runChild(ctx context.Context, open func(ctx context.Context) (core.Store, error)) error {
	return runRaceChild(ctx, open, func(ctx context.Context, s core.Store, proc, id int, handles []string, now time.Time) []any {
		var out []any
		for _, a := range raceOnce(ctx, s, fmt.Sprint("p", proc), id, handles, now) {
			out = append(out, a)
		}
		return out
	})
}

// runRaceChild opens the store, says READY, waits for the start signal
// (stdin closing), runs race in every goroutine and prints the results as
// JSON lines.
func runRaceChild(ctx context.Context, open func(ctx context.Context) (core.Store, error), race func(ctx context.Context, s core.Store, proc, id int, handles []string, now time.Time) []any) error {
	b, err := os.ReadFile(os.Getenv(envHandlesFile))
	if err != nil {
		return err
	}
	handles := strings.Fields(string(b))
	proc, err := strconv.Atoi(os.Getenv(envProcess))
	if err != nil {
		return err
	}
	gs, err := strconv.Atoi(os.Getenv(envGoroutines))
	if err != nil {
		return err
	}
	now, err := time.Parse(time.RFC3339Nano, os.Getenv(envNow))
	if err != nil {
		return err
	}
	s, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Println("READY")
	_, _ = io.Copy(io.Discard, os.Stdin) // released when the parent closes stdin
	all := inGoroutines(gs, func(g int) []any { return race(ctx, s, proc, proc*gs+g, handles, now) })
	enc := json.NewEncoder(os.Stdout)
	for _, a := range all {
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
	return nil
}

// processCases are the cases Run adds for a ProcessHarness. Each opens
// its parent store on the store's own clocks, like its children.
var processCases = []testCase{
	// 8 OS processes × 4 goroutines (each process with its own
	// connections) race StartRun on the same 200 handles.
	{"ProcessRace", func(t *testing.T, e *env) { processRace(t, e.openReal(), 8, 4, 200, e.childEnv()) }},
	// 8 OS processes × 4 goroutines race AcquireLock on the same 50 names.
	{"ProcessLockRace", func(t *testing.T, e *env) { processLockRace(t, e.openReal(), 8, 4, 50, e.childEnv()) }},
	// 4 OS processes × 4 goroutines race Fence by a lock's lapsed holder
	// against takeovers.
	{"ProcessFenceRace", func(t *testing.T, e *env) { processFenceRace(t, e.openReal(), 4, 4, e.childEnv()) }},
	// A process killed (SIGKILL) in the middle of a run.
	{"ProcessCrash", func(t *testing.T, e *env) {
		processCrash(t, e.openReal(), func(ctx context.Context) (core.Store, error) { return e.h.Open(ctx, nil) }, e.childEnv())
	}},
}

// childEnv is the environment children need to open the harness's store.
func (e *env) childEnv() []string { return e.h.(ProcessHarness).ChildEnv() }

// processRace saves handles previews through s, then starts procs copies
// of the test binary (each with goroutines racers, and env added to its
// environment so it can open the same underlying store) that race StartRun
// on every handle at once. It checks that every handle started exactly
// once, that each loser got the documented outcome, and that s agrees.
func processRace(t *testing.T, s core.Store, procs, goroutines, handles int, env []string) {
	t.Helper()
	ctx := t.Context()
	clock := NewClock(time.Now())
	hs := make([]string, handles)
	for i := range hs {
		hs[i] = fmt.Sprintf("proc-race-%d-%d", time.Now().UnixNano(), i)
		err := s.SavePreview(ctx, core.Preview{Handle: hs[i], Kind: core.PreviewImport, Scope: "race",
			Plan: []byte(hs[i]), CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatalf("SavePreview: %v", err)
		}
	}
	all := raceAttempts[attempt](t, "1", hs, procs, goroutines, clock.Now(), env, procs*goroutines*handles)
	checkRace(t, s, hs, all)
	t.Logf("%d processes × %d goroutines raced on %d handles: each started exactly once", procs, goroutines, handles)
}

// raceAttempts is spawnRace with every child line decoded as a T; want,
// when > 0, is how many attempts must come back.
func raceAttempts[T any](t *testing.T, mode string, args []string, procs, goroutines int, now time.Time, env []string, want int) []T {
	t.Helper()
	var all []T
	for _, line := range spawnRace(t, mode, args, procs, goroutines, now, env) {
		var a T
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("child output %q: %v", line, err)
		}
		all = append(all, a)
	}
	if want > 0 && len(all) != want {
		t.Fatalf("%d attempts reported, want %d", len(all), want)
	}
	return all
}

// childCmd is the test binary re-executed as a child in mode, running no
// test, with vars added to its environment and then env (what it needs to
// open the harness's store).
func childCmd(ctx context.Context, mode string, env []string, vars ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(append(append(os.Environ(), EnvChild+"="+mode), vars...), env...)
	return cmd
}

// spawnRace starts procs children in mode, releases them at once and
// returns their JSON lines.
func spawnRace(t *testing.T, mode string, hs []string, procs, goroutines int, now time.Time, env []string) []json.RawMessage {
	t.Helper()
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "handles")
	if err := os.WriteFile(file, []byte(strings.Join(hs, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	type child struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		out    *bufio.Reader
		stderr *streamtest.Buffer
	}
	children := make([]*child, procs)
	for p := range children {
		c := &child{cmd: childCmd(ctx, mode, env, envHandlesFile+"="+file,
			envProcess+"="+strconv.Itoa(p), envGoroutines+"="+strconv.Itoa(goroutines),
			envNow+"="+now.Format(time.RFC3339Nano))}
		piped := streamtest.Start(t, c.cmd)
		c.stdin, c.stderr, c.out = piped.Stdin, piped.Stderr, bufio.NewReader(piped.Stdout)
		children[p] = c
	}
	for p, c := range children {
		line, err := c.out.ReadString('\n')
		if strings.TrimSpace(line) != "READY" {
			_ = c.cmd.Wait()
			t.Fatalf("child %d did not get ready: %q, %v; stderr:\n%s", p, line, err, c.stderr.String())
		}
	}
	for _, c := range children {
		_ = c.stdin.Close() // go
	}
	var all []json.RawMessage
	for p, c := range children {
		dec := json.NewDecoder(c.out)
		for {
			var a json.RawMessage
			if err := dec.Decode(&a); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("child %d output: %v", p, err)
			}
			all = append(all, a)
		}
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v; stderr:\n%s", p, err, c.stderr.String())
		}
	}
	return all
}

const (
	envCrashHandle = "DWIRE_STORETEST_CRASH_HANDLE"
	envCrashKey    = "DWIRE_STORETEST_CRASH_KEY"
)

// crashBatch is how many outcomes the crash child records per call.
const crashBatch = 5

// runCrashChild starts a run and records batches of crashBatch outcomes
// (0…4, 5…9, …) forever, printing "recorded N" after RecordOutcomes of
// batch N returned and then waiting for the parent's go-ahead (a byte on
// stdin), so it is never more than one batch ahead of what the parent has
// read (a pipe buffers ~64 KiB).
func runCrashChild(ctx context.Context, open func(ctx context.Context) (core.Store, error)) error {
	s, err := open(ctx)
	if err != nil {
		return err
	}
	stdin := bufio.NewReader(os.Stdin)
	h, key := os.Getenv(envCrashHandle), os.Getenv(envCrashKey)
	now, err := time.Parse(time.RFC3339Nano, os.Getenv(envNow))
	if err != nil {
		return err
	}
	if _, started, err := s.StartRun(ctx, core.StartRunRequest{Key: key, Handle: h, RunID: "run-" + key, Now: now}); err != nil || !started {
		return fmt.Errorf("StartRun: started=%v, %v", started, err)
	}
	for i := 0; ; i++ {
		batch := make([]core.ItemOutcome, crashBatch)
		for j := range batch {
			batch[j] = outcome(i*crashBatch + j)
		}
		if err := s.RecordOutcomes(ctx, key, batch); err != nil {
			return err
		}
		fmt.Printf("recorded %d\n", i)
		if _, err := stdin.ReadByte(); err != nil {
			return err
		}
	}
}

// processCrash kills a process in the middle of a commit run: a child (the
// test binary, with env added so it can open the same store) starts a run
// on a preview saved through s and records batches of outcomes until,
// after at least 20 acknowledged batches, it gets SIGKILL. reopen then
// opens the store as a restarted process would; the run must be
// in_progress with every acknowledged batch, in order, and all or nothing
// of the one in flight beyond them (never part of a batch), a repeat
// StartRun must return it, and it must still finish.
func processCrash(t *testing.T, s core.Store, reopen func(ctx context.Context) (core.Store, error), env []string) {
	t.Helper()
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	h := fmt.Sprintf("crash-%d", time.Now().UnixNano())
	key := "key-" + h
	if err := s.SavePreview(ctx, core.Preview{Handle: h, Kind: core.PreviewImport, Scope: "crash", Plan: []byte("plan"), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	cmd := childCmd(ctx, "crash", env, envCrashHandle+"="+h, envCrashKey+"="+key, envNow+"="+now.Format(time.RFC3339Nano))
	child := streamtest.Start(t, cmd)
	in, out, stderr := child.Stdin, child.Stdout, child.Stderr
	acked := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "recorded "))
		if err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		acked = n
		// The go-ahead for the next outcome: after the 20th, the kill
		// follows at once, likely while that next one is being written.
		if _, err := in.Write([]byte{'\n'}); err != nil {
			t.Fatalf("go-ahead to the child: %v", err)
		}
		if acked >= 19 {
			break
		}
	}
	if acked < 19 {
		_ = cmd.Wait()
		t.Fatalf("child stopped after %d batches; stderr:\n%s", acked+1, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s2, err := reopen(ctx)
	if err != nil {
		t.Fatalf("reopen after the crash: %v", err)
	}
	defer s2.Close()
	r, found, err := s2.GetRun(ctx, key)
	if err != nil || !found {
		t.Fatalf("GetRun after the crash: found %v, %v", found, err)
	}
	if r.State != core.RunInProgress {
		t.Fatalf("run state after the crash = %s, want in_progress", r.State)
	}
	if n := len(r.Outcomes); n%crashBatch != 0 || n < (acked+1)*crashBatch || n > (acked+2)*crashBatch {
		t.Fatalf("%d outcomes survived; %d batches of %d were acknowledged before the kill (a batch is recorded whole or not at all)", n, acked+1, crashBatch)
	}
	for i, o := range r.Outcomes {
		if o != outcome(i) {
			t.Fatalf("outcome %d after the crash = %+v, want %+v", i, o, outcome(i))
		}
	}
	again, started, err := s2.StartRun(ctx, core.StartRunRequest{Key: key, Handle: h, RunID: "other", Now: now})
	if err != nil || started || again.ID != r.ID || len(again.Outcomes) != len(r.Outcomes) {
		t.Fatalf("StartRun after the crash = %+v started %v, %v", again, started, err)
	}
	if err := s2.FinishRun(ctx, key, core.RunPartial, []byte("after crash"), now.Add(time.Minute)); err != nil {
		t.Fatalf("FinishRun after the crash: %v", err)
	}
	t.Logf("killed the child after %d acknowledged batches of %d outcomes; %d outcomes survived", acked+1, crashBatch, len(r.Outcomes))
}
