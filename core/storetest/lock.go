package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// childLock is the EnvChild value of a ProcessLockRace child.
const childLock = "lock"

// lockAttempt is one AcquireLock call's result in a race.
type lockAttempt struct {
	Name   string `json:"name"`
	Owner  string `json:"owner"`
	Won    bool   `json:"won"`
	Holder string `json:"holder,omitempty"` // the owner the error named
	Code   string `json:"code,omitempty"`
	Err    string `json:"err,omitempty"`
}

// acquire calls AcquireLock and returns the lock (zero when it did not
// win).
func acquire(ctx context.Context, s core.Store, name, owner string, lease time.Duration) (core.Lock, lockAttempt) {
	lk, err := s.AcquireLock(ctx, name, owner, lease)
	a := lockAttempt{Name: name, Owner: owner, Won: err == nil}
	if err != nil {
		a.Code, a.Err = string(core.ErrorCode(err)), err.Error()
		var held *core.LockHeldError
		if errors.As(err, &held) {
			a.Holder = held.Owner
		}
	}
	return lk, a
}

// lockRaceOnce tries every name once, in a random order, never releasing.
func lockRaceOnce(ctx context.Context, s core.Store, owner string, names []string) []lockAttempt {
	out := make([]lockAttempt, 0, len(names))
	for _, n := range shuffled(names) {
		_, a := acquire(ctx, s, n, owner, time.Hour)
		out = append(out, a)
	}
	return out
}

// checkLockRace verifies that every name was won exactly once, that every
// loser was told who holds it, and that the store agrees afterwards.
func checkLockRace(t *testing.T, s core.Store, names []string, attempts []lockAttempt) {
	t.Helper()
	won := wonOnce(t, race[lockAttempt]{noun: "lock", verb: "taken",
		won: func(a lockAttempt) (string, string, bool) { return a.Name, a.Owner, a.Won }}, names, attempts)
	winners := make(map[string]string, len(won))
	for n, a := range won {
		winners[n] = a.Owner
	}
	for _, a := range attempts {
		if !a.Won && (a.Code != string(core.CodeInternal) || a.Holder != winners[a.Name]) {
			t.Fatalf("loser on %s (winner %s) got %+v", a.Name, winners[a.Name], a)
		}
	}
	for _, n := range names {
		_, a := acquire(t.Context(), s, n, "checker", time.Hour)
		if a.Won || a.Holder != winners[n] {
			t.Fatalf("after the race, lock %s: %+v; want held by %s", n, a, winners[n])
		}
	}
}

func runLockChild(ctx context.Context, open func(ctx context.Context) (core.Store, error)) error {
	return runRaceChild(ctx, open, func(ctx context.Context, s core.Store, proc, id int, names []string, _ time.Time) []any {
		var out []any
		for _, a := range lockRaceOnce(ctx, s, fmt.Sprintf("p%d-g%d", proc, id), names) {
			out = append(out, a)
		}
		return out
	})
}

// processLockRace starts procs copies of the test binary (each with
// goroutines racers; env is added to their environment so they open the
// same underlying store) that race AcquireLock on every one of locks names
// at once. It checks that every lock was taken by exactly one owner, that
// the losers were told who holds it, and that s agrees.
func processLockRace(t *testing.T, s core.Store, procs, goroutines, locks int, env []string) {
	t.Helper()
	names := make([]string, locks)
	for i := range names {
		names[i] = fmt.Sprintf("proc-lock-%d-%d", time.Now().UnixNano(), i)
	}
	all := raceAttempts[lockAttempt](t, childLock, names, procs, goroutines, time.Now(), env, procs*goroutines*locks)
	checkLockRace(t, s, names, all)
	t.Logf("%d processes × %d goroutines raced on %d locks: each taken exactly once", procs, goroutines, locks)
}

// acquire takes name for owner and returns its Release (checking the
// returned Lock describes what was asked).
func (e *env) acquire(name, owner string, lease time.Duration) func(context.Context) error {
	e.t.Helper()
	return e.acquireLock(name, owner, lease).Release
}

func (e *env) acquireLock(name, owner string, lease time.Duration) core.Lock {
	e.t.Helper()
	lk, err := e.s.AcquireLock(e.t.Context(), name, owner, lease)
	if err != nil {
		e.t.Fatalf("AcquireLock(%s, %s): %v", name, owner, err)
	}
	if lk.Release == nil {
		e.t.Fatalf("AcquireLock(%s, %s): nil Release func", name, owner)
	}
	if lk.Name != name || lk.Owner != owner || lk.Generation <= 0 || !lk.Expires.Equal(e.clock.Now().Add(lease)) {
		e.t.Fatalf("AcquireLock(%s, %s, %s) at %s = %+v", name, owner, lease, e.clock.Now(), lk)
	}
	return lk
}

// wantHeld asserts that owner cannot take name because holder has it
// until expires.
func (e *env) wantHeld(name, owner, holder string, expires time.Time) {
	e.t.Helper()
	lk, err := e.s.AcquireLock(e.t.Context(), name, owner, time.Minute)
	ce := wantCode(e.t, err, core.CodeInternal, fmt.Sprintf("AcquireLock(%s, %s) while %s holds it", name, owner, holder))
	if lk.Release != nil {
		e.t.Fatalf("AcquireLock(%s, %s) failed but returned a release func", name, owner)
	}
	if !ce.Retryable {
		e.t.Fatalf("lock-held error is not retryable: %v", err)
	}
	var held *core.LockHeldError
	if !errors.As(err, &held) {
		e.t.Fatalf("lock-held error %v has no *core.LockHeldError cause", err)
	}
	if held.Name != name || held.Owner != holder || !held.Expires.Equal(expires) {
		e.t.Fatalf("lock-held cause %+v; want %s held by %s until %s", held, name, holder, expires)
	}
}

func testLockExclusive(t *testing.T, e *env) {
	ctx := t.Context()
	t0 := e.clock.Now()
	relA := e.acquire("scope/doc", "a", time.Minute)
	e.wantHeld("scope/doc", "b", "a", t0.Add(time.Minute))
	// Names are independent.
	relOther := e.acquire("scope/other-doc", "b", time.Minute)
	// The holder renews its lease by acquiring again.
	e.clock.Advance(30 * time.Second)
	relA2 := e.acquire("scope/doc", "a", time.Minute)
	e.wantHeld("scope/doc", "b", "a", t0.Add(90*time.Second))
	if err := relA2(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	// Released: another owner takes it at once.
	relB := e.acquire("scope/doc", "b", time.Minute)
	e.wantHeld("scope/doc", "c", "b", e.clock.Now().Add(time.Minute))
	// A stale release func of the former holder changes nothing.
	wantCode(t, relA(ctx), core.CodeInternal, "release by a former holder")
	e.wantHeld("scope/doc", "c", "b", e.clock.Now().Add(time.Minute))
	if err := relB(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	wantCode(t, relB(ctx), core.CodeInternal, "a second release")
	if err := relOther(ctx); err != nil {
		t.Fatalf("release other: %v", err)
	}
	e.acquire("scope/doc", "c", time.Minute)
}

func testLockLeaseExpiry(t *testing.T, e *env) {
	ctx := t.Context()
	t0 := e.clock.Now()
	relA := e.acquire("lease", "a", time.Minute)
	e.clock.Advance(59 * time.Second)
	e.wantHeld("lease", "b", "a", t0.Add(time.Minute))
	// A lease ends at now >= expiry: the holder is presumed dead.
	e.clock.Advance(time.Second)
	relB := e.acquire("lease", "b", time.Minute)
	wantCode(t, relA(ctx), core.CodeInternal, "release after the lease was taken over")
	e.wantHeld("lease", "a", "b", e.clock.Now().Add(time.Minute))
	// b renews before its lease ends, so it keeps the lock past the first
	// expiry.
	e.clock.Advance(50 * time.Second)
	e.acquire("lease", "b", time.Minute)
	e.clock.Advance(50 * time.Second)
	e.wantHeld("lease", "c", "b", e.clock.Now().Add(10*time.Second))
	if err := relB(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
}

func testLockSurvivesReopen(t *testing.T, e *env) {
	// The holder's process dies without releasing (SIGKILL): the lock
	// stays until its lease ends, then another owner takes it.
	t0 := e.clock.Now()
	e.acquire("crashed", "dead", 2*time.Minute)
	e.reopen()
	e.wantHeld("crashed", "alive", "dead", t0.Add(2*time.Minute))
	e.clock.Advance(2 * time.Minute)
	e.acquire("crashed", "alive", time.Minute)
}

func testLockSameOwnerReacquires(t *testing.T, e *env) {
	// A process that took a lock dies (SIGKILL) and a new process acting
	// for the same owner (the service uses the commit's idempotency key)
	// takes it over at once, within the dead holder's lease: the lock is
	// re-entrant by owner, across processes. Other owners still wait.
	ctx := t.Context()
	t0 := e.clock.Now()
	e.acquire("same-owner", "idk_1 imp_1", 2*time.Minute)
	e.reopen()
	e.clock.Advance(10 * time.Second)
	rel := e.acquire("same-owner", "idk_1 imp_1", time.Minute)
	// The lease now runs from the re-acquisition.
	e.wantHeld("same-owner", "idk_2 imp_2", "idk_1 imp_1", t0.Add(70*time.Second))
	if err := rel(ctx); err != nil {
		t.Fatalf("release after re-acquiring: %v", err)
	}
	e.acquire("same-owner", "idk_2 imp_2", time.Minute)
}

// wantSilent asserts that another owner is told name's holder last took
// or renewed it at renewed, silent since (on the store's clock).
func (e *env) wantSilent(name, holder string, renewed time.Time) {
	e.t.Helper()
	_, err := e.s.AcquireLock(e.t.Context(), name, "someone-else", time.Minute)
	var held *core.LockHeldError
	if !errors.As(err, &held) {
		e.t.Fatalf("AcquireLock(%s) while %s holds it: %v; want a *core.LockHeldError", name, holder, err)
	}
	if held.Owner != holder || !held.Renewed.Equal(renewed) || held.Silent != e.clock.Now().Sub(renewed) {
		e.t.Fatalf("held by %s, renewed %s, silent %s; want %s, renewed %s, silent %s",
			held.Owner, held.Renewed, held.Silent, holder, renewed, e.clock.Now().Sub(renewed))
	}
}

func testLockHeartbeat(t *testing.T, e *env) {
	// Every take and renewal is a heartbeat: another owner is told when
	// the holder was last heard from, long before its lease runs out, so a
	// holder killed mid-commit is told apart from a running one.
	t0 := e.clock.Now()
	e.acquire("beat", "a", time.Hour)
	e.wantSilent("beat", "a", t0)
	e.clock.Advance(7 * time.Second)
	e.wantSilent("beat", "a", t0) // silent for 7 s; the lease runs for an hour
	e.acquire("beat", "a", time.Hour)
	e.wantSilent("beat", "a", t0.Add(7*time.Second)) // renewed: heard from now
	// The holder dies (SIGKILL): its last heartbeat stays, and its silence
	// grows, in every process that opens the store.
	e.reopen()
	e.clock.Advance(3 * time.Second)
	e.wantSilent("beat", "a", t0.Add(7*time.Second))
	// A new holder after the lease ran out has its own heartbeat.
	e.clock.Advance(time.Hour)
	e.acquire("beat", "b", time.Minute)
	e.wantSilent("beat", "b", e.clock.Now())
}

func testLockInvalid(t *testing.T, e *env) {
	ctx := t.Context()
	for _, c := range []struct {
		name, owner string
		lease       time.Duration
	}{{"", "o", time.Minute}, {"n", "", time.Minute}, {"n", "o", 0}, {"n", "o", -time.Second}} {
		lk, err := e.s.AcquireLock(ctx, c.name, c.owner, c.lease)
		wantCode(t, err, core.CodeInternal, fmt.Sprintf("AcquireLock(%q, %q, %s)", c.name, c.owner, c.lease))
		if lk.Release != nil {
			t.Fatalf("AcquireLock(%q, %q, %s) failed with a release func", c.name, c.owner, c.lease)
		}
	}
	e.acquire("n", "o", time.Minute) // nothing was taken by the refused calls
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.AcquireLock(ctx, "n2", "o", time.Minute)
	wantCode(t, err, core.CodeInternal, "AcquireLock on a closed store")
}

func testConcurrentLocks(t *testing.T, e *env) {
	// 16 goroutines race for 20 locks at once: each lock has one winner.
	const goroutines, locks = 16, 20
	names := make([]string, locks)
	for i := range names {
		names[i] = fmt.Sprintf("race-%d", i)
	}
	all := inGoroutines(goroutines, func(g int) []lockAttempt {
		return lockRaceOnce(t.Context(), e.s, fmt.Sprint("g", g), names)
	})
	checkLockRace(t, e.s, names, all)
}
