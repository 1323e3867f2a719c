package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

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
func runCrashChild(open func(ctx context.Context) (core.Store, error)) error {
	ctx := context.Background()
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
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvChild+"=crash", envCrashHandle+"="+h, envCrashKey+"="+key, envNow+"="+now.Format(time.RFC3339Nano))
	cmd.Env = append(cmd.Env, env...)
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
