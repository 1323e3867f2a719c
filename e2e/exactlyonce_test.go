package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The exactly-once scenarios ("Exactly once under real-world timing, and the
// person confirms exactly what is written"), through real dwire processes
// and the real mockjira, on SQLite and on Postgres.

// exactlyOnceStats counts the scenarios' runs and the duplicates they
// found, for the issue's note (logged when the test ends).
var exactlyOnceStats struct{ pauseRuns, pauseHeld, swapRuns, duplicates atomic.Int64 }

// countDuplicates adds the tracker's duplicates to the figures and fails
// the test on any.
func (e *env) countDuplicates() {
	e.t.Helper()
	d, err := e.jira.Duplicates(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	exactlyOnceStats.duplicates.Add(int64(len(d)))
	if len(d) > 0 {
		e.t.Errorf("DUPLICATES in the tracker: %v", d)
	}
}

// pauseLease is the commit lock's lease in the pause scenario
// (DWIRE_COMMIT_LOCK_LEASE): short, so the pause past it takes seconds,
// and far below the Jira adapter's request timeout (30 s), so the paused
// process's in-flight request does not time out while it is stopped.
const pauseLease = 3 * time.Second

// TestPausePastLease: a real `dwire import` is SIGSTOPped
// mid-commit (every request to the fake taking 300 ms) and stays stopped
// until its commit lock's lease has lapsed by the store's clock; another
// `dwire import` on the same store then previews and commits the same
// document; then the first is SIGCONTed. Exactly one issue per reference,
// and the resumed process reports that it stopped (COMMIT_PARTIAL, exit
// 4: it lost the lock after writing).
//
// The pause comes once the first story batch is fenced (its write-ahead
// markers in the store: the batch is about to be sent or on its way), or
// once that batch is in Jira. Sending one request at a time
// (jira.max_in_flight: 1), 200 items: the epics, then stories in batches
// of 50, 50, 50 and 46. Writes in parallel (jira.max_in_flight: 4), 602
// items: 12 story batches, more than are ever in flight at once, so the
// paused process still has batches to fence when it resumes (one that
// fenced everything before the pause just finishes: nothing is left for
// it to stop before).
func TestPausePastLease(t *testing.T) {
	for _, kind := range storeKinds {
		for _, v := range []pauseVariant{
			{name: "one-at-a-time/fenced", inFlight: 1, epics: 4, stories: 49, at: "fenced"},
			{name: "one-at-a-time/created", inFlight: 1, epics: 4, stories: 49, at: "created"},
			{name: "parallel/fenced", inFlight: 4, epics: 2, stories: 300, at: "fenced"},
		} {
			t.Run(kind+"/"+v.name, func(t *testing.T) { pausePastLease(t, kind, v) })
		}
	}
	t.Cleanup(logExactlyOnceStats(t))
}

// pauseVariant is one shape of the pause scenario.
type pauseVariant struct {
	name           string
	inFlight       int // jira.max_in_flight
	epics, stories int // stories per epic
	at             string
}

func logExactlyOnceStats(t *testing.T) func() {
	return func() {
		t.Logf("exactly-once scenarios so far: pause-past-lease %d runs (%d paused between fencing a batch and sending it: the taker-over held it back), confirmation-swap %d runs; duplicates found: %d",
			exactlyOnceStats.pauseRuns.Load(), exactlyOnceStats.pauseHeld.Load(), exactlyOnceStats.swapRuns.Load(), exactlyOnceStats.duplicates.Load())
	}
}

func pausePastLease(t *testing.T, kind string, v pauseVariant) {
	ctx := context.Background()
	o := envOptions{}
	if v.inFlight > 0 {
		o.jira = fmt.Sprintf("  max_in_flight: %d\n", v.inFlight)
	}
	e, st := newStoreEnv(t, kind, o)
	e.extra = append(e.extra, "DWIRE_COMMIT_LOCK_LEASE="+pauseLease.String())
	p := planSpec{id: "paused", epics: v.epics, stories: v.stories}
	total := v.epics * (1 + v.stories)
	at := v.at
	e.write("plan.md", p.markdown())
	if err := e.jira.SetConfig(ctx, 300, 0, 0); err != nil {
		t.Fatal(err)
	}

	// A: the person answers y; the commit starts.
	a := e.ptyAtPrompt("import", "plan.md")
	// Ranking is on by default: every item after the first is also
	// placed after the one before it (total-1 rank moves).
	if !strings.Contains(oneLine(a.shown()), fmt.Sprintf("Write to Jira (%d writes: create %d items, place %d items in the backlog order)?", 2*total-1, total, total-1)) {
		t.Fatalf("A's question is not about %d creates:\n%s", total, a.shown())
	}
	a.send("y\r")
	// Pause A, outside any store transaction, once it has fenced its
	// first story batch (the batch's write-ahead markers are in the
	// store), or once that batch is in Jira.
	pollUntil(t, 2*time.Minute, "A's first batch of stories is "+at, func() bool {
		if at == "fenced" {
			return a.done() || st.indexed(p.id+"/s-") > 0
		}
		return a.done() || len(e.issues()) >= v.epics+50
	})
	if a.done() {
		t.Fatalf("A ended before its first story batch was %s:\n%s", at, a.shown())
	}
	st.pauseOutside(a)
	pausedAt := time.Now()
	// A cannot renew its lease: wait until it lapses by the store's clock.
	pollUntil(t, time.Minute, "A's commit lock lapses by the store's clock", func() bool {
		held, live := st.commitLocks()
		return held == 1 && live == 0
	})
	atPause := len(e.issues()) // A's request in flight (300 ms) has long been answered
	if atPause >= total {
		t.Fatalf("A had created all %d issues before the pause: the scenario paused nothing", atPause)
	}

	// B: another process on the same store previews the same document and
	// commits it, taking over the lapsed lock.
	b := e.dwirePTY("y\r", "import", "plan.md")
	held := 0
	if m := regexp.MustCompile(`(\d+) held back`).FindStringSubmatch(b.stdout); m != nil {
		fmt.Sscan(m[1], &held)
	}
	afterB := len(e.issues())
	switch {
	case held == 0 && b.code == 0 && afterB == total:
		// A's batch in flight had reached Jira before the pause; B found
		// it and created the rest.
	case held > 0 && b.code == 4 && strings.Contains(b.stdout, "Error: COMMIT_PARTIAL:") && afterB == total-held:
		// A was paused between fencing a batch and sending it: B holds
		// those items back (their markers say A may be creating them) and
		// says not everything was written (COMMIT_PARTIAL, exit 4).
	default:
		t.Fatalf("B (exit %d, %d held back) left %d issues for %d references, %d of them A's at the pause:\n%s", b.code, held, afterB, total, atPause, b.stdout)
	}
	e.countDuplicates()

	// A resumes: it sends at most the batch it had fenced, and is fenced
	// out at its next write.
	a.signal(syscall.SIGCONT)
	ra := a.wait(2 * time.Minute)
	pause := time.Since(pausedAt)
	if ra.code != 4 {
		t.Errorf("the resumed A exited %d, want 4 (COMMIT_PARTIAL: it had written before it lost the lock)", ra.code)
	}
	for _, want := range []string{"Error: COMMIT_PARTIAL:", "lost the commit lock of document paused", "stopped before sending anything more"} {
		if !strings.Contains(strings.Join(strings.Fields(ra.stdout), " "), want) {
			t.Errorf("the resumed A did not report %q:\n%s", want, ra.stdout)
		}
	}
	e.countDuplicates()
	e.matches(p)
	if n := len(e.issues()); n != total {
		t.Errorf("the tracker holds %d issues for %d references", n, total)
	}
	var again previewJSON
	if r := e.dwireJSON(&again, "import", "plan.md", "--dry-run"); r.code != 0 || again.Counts.Unchanged != total {
		t.Errorf("a re-preview after both: %+v\n%s", again.Counts, r)
	}
	exactlyOnceStats.pauseRuns.Add(1)
	if held > 0 {
		exactlyOnceStats.pauseHeld.Add(1)
	}
	t.Logf("pause-past-lease on %s, %d items, max_in_flight %d, paused once the first story batch was %s: A paused %s with %d issues written, B held back %d and exited %d, A exited %d; %d issues for %d references, duplicates found: 0",
		kind, total, v.inFlight, at, pause.Round(100*time.Millisecond), atPause, held, b.code, ra.code, len(e.issues()), total)
}

// previewHandle finds the handle a preview printed.
var previewHandle = regexp.MustCompile(`Preview ((?:imp|prg)_[0-9a-f]+) \(expires`)

// TestConfirmationSwap: the person confirms at the prompt of
// `dwire import` or `dwire review` while another process rewrites the
// stored plan and its digest in the store (SQLite and Postgres): the
// commit is refused with PREVIEW_STALE, and nothing is written.
func TestConfirmationSwap(t *testing.T) {
	for _, kind := range storeKinds {
		for _, cmd := range []string{"import", "review"} {
			t.Run(kind+"/"+cmd, func(t *testing.T) { confirmationSwap(t, kind, cmd) })
		}
	}
	t.Cleanup(logExactlyOnceStats(t))
}

func confirmationSwap(t *testing.T, kind, cmd string) {
	e, st := newStoreEnv(t, kind, envOptions{})
	p := planSpec{id: "swap", epics: 1, stories: 2, titles: map[string]string{"e-1": "Shown epic"}}
	e.write("plan.md", p.markdown())
	args := []string{"import", "plan.md"}
	if cmd == "review" {
		var pv previewJSON
		if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 || pv.PreviewHandle == "" {
			t.Fatalf("dwire import --dry-run --json: %s", r)
		}
		args = []string{"review", pv.PreviewHandle}
	}
	s := e.ptyAtPrompt(args...)
	m := previewHandle.FindStringSubmatch(s.shown())
	if m == nil || !strings.Contains(s.shown(), "Epic e-1: Shown epic") || !strings.Contains(oneLine(s.shown()), "Write to Jira (5 writes: create 3 items,") {
		t.Fatalf("the person did not see the plan and its handle:\n%s", s.shown())
	}
	st.swapPlan(m[1], "Shown epic", "Injected epic")
	s.send("y\r")
	r := s.wait(2 * time.Minute)
	if r.code != 1 || !strings.Contains(r.stdout, "Error: PREVIEW_STALE:") {
		t.Errorf("dwire %v after the swap: exit %d, want 1 with PREVIEW_STALE\n%s", args, r.code, r.stdout)
	}
	if w := e.writes(); w != 0 {
		t.Errorf("%d writes after the stored plan was swapped at the prompt", w)
	}
	if n := len(e.issues()); n != 0 {
		t.Errorf("the tracker holds %d issues after a refused commit", n)
	}
	exactlyOnceStats.swapRuns.Add(1)
}
