package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestCrashCommit SIGKILLs the committing `dwire mcp` at random points of
// its commit (≥ 50 runs; 10 with -short), then asks a fresh `dwire mcp` to
// commit again with the same idempotency key and handle:
//   - the run started and did not finish → COMMIT_INTERRUPTED, zero writes;
//   - it finished before the kill → the stored result, replayed, zero writes;
//   - it never started → a fresh commit.
//
// Then a re-preview + commit with a new key makes the tracker match the
// document, with zero duplicates.
func TestCrashCommit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{})
	runs := 50
	if testing.Short() {
		runs = 10
	}
	// Each request to the fake takes ~30 ms, so a commit (a staleness
	// re-read, a bulk create of epics, one of stories) lasts a few hundred
	// ms and the kill lands inside it most of the time.
	if err := e.jira.SetConfig(ctx, 30, 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.jira.SetConfig(context.Background(), 0, 0, 0) })

	// Calibrate: one commit, not killed, measures how long a commit takes.
	cal := planSpec{id: "crash-calibration", epics: 2, stories: 2}
	cs, _ := e.mcp()
	calPath := e.write(cal.id+".md", cal.markdown())
	pv := e.scPreview(cs, calPath)
	o := e.scCommitImport(cs, pv.PreviewHandle, newKey())
	if o.errData != nil {
		t.Fatalf("calibration commit: %v", o.errData)
	}
	e.matches(cal)
	_ = cs.Close()
	window := o.elapsed + o.elapsed/4
	t.Logf("a commit takes %s here; kills land in [0, %s)", o.elapsed.Round(time.Millisecond), window.Round(time.Millisecond))

	outcomes := map[string]int{}
	start := time.Now()
	for i := range runs {
		p := planSpec{id: fmt.Sprintf("crash-%d", i), epics: 2, stories: 2}
		path := e.write(p.id+".md", p.markdown())
		cs, cmd := e.mcp()
		pv := e.scPreview(cs, path)
		key := newKey()
		first := make(chan scOutcome, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			first <- e.scCall(ctx, cs, "import.commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": key})
		}()
		delay := time.Duration(rand.Int64N(int64(window)))
		<-time.After(delay) // the random kill point, not a wait for something
		kill(cmd)
		o1 := <-first
		_ = cs.Close()
		finishedBeforeKill := o1.transport == nil
		if finishedBeforeKill && o1.errData != nil {
			t.Fatalf("run %d: the commit failed before the kill: %v", i, o1.errData)
		}

		// A fresh process, the same key and handle.
		cs2, _ := e.mcp()
		if err := e.jira.ClearRequests(ctx); err != nil {
			t.Fatal(err)
		}
		o2 := e.scCommitImport(cs2, pv.PreviewHandle, key)
		writes := e.scAppliedWrites()
		var outcome string
		switch {
		case o2.code() == "COMMIT_INTERRUPTED":
			outcome = "interrupted"
			if writes != 0 {
				t.Errorf("run %d: COMMIT_INTERRUPTED made %d writes", i, writes)
			}
			if finishedBeforeKill {
				t.Errorf("run %d: the commit had finished, yet the same key reports COMMIT_INTERRUPTED", i)
			}
		case o2.errData != nil:
			t.Errorf("run %d (killed after %s): the same key and handle got %v", i, delay, o2.errData)
			outcome = "unexpected " + o2.code()
		case o2.result.Replayed:
			outcome = "replayed"
			if writes != 0 {
				t.Errorf("run %d: a replayed result made %d writes", i, writes)
			}
		default:
			outcome = "fresh"
			if finishedBeforeKill {
				t.Errorf("run %d: the commit had finished, yet the same key committed again (not replayed)", i)
			}
		}
		outcomes[outcome]++
		e.noDuplicates()

		// Re-preview + commit with a new key: the tracker matches.
		e.scConverge(cs2, path, p)
		_ = cs2.Close()
	}
	elapsed := time.Since(start)
	t.Logf("crash scenario: %d runs in %s; outcomes of the same key after SIGKILL: %d COMMIT_INTERRUPTED, %d replayed (finished before the kill), %d fresh (killed before the run started), other: %v; duplicates found: 0",
		runs, elapsed.Round(time.Millisecond), outcomes["interrupted"], outcomes["replayed"], outcomes["fresh"], others(outcomes))
	if outcomes["interrupted"] == 0 {
		t.Errorf("no kill landed inside a commit in %d runs (outcomes %v): the scenario did not test an interrupted run", runs, outcomes)
	}
	if n := len(e.issues()); n != 6*(runs+1) {
		t.Errorf("the tracker holds %d issues, want %d", n, 6*(runs+1))
	}
	e.noDuplicates()
}

func others(m map[string]int) map[string]int {
	o := map[string]int{}
	for k, v := range m {
		switch k {
		case "interrupted", "replayed", "fresh":
		default:
			o[k] = v
		}
	}
	return o
}
