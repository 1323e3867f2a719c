package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// attempt is one StartRun call's result in a race.
type attempt struct {
	Handle  string `json:"handle"`
	Key     string `json:"key"`
	Started bool   `json:"started"`
	RunKey  string `json:"run_key,omitempty"` // the run returned
	RunID   string `json:"run_id,omitempty"`
	Code    string `json:"code,omitempty"`
	Err     string `json:"err,omitempty"`
}

// raceKey is the key a racer uses on handle: racers with even ids share one
// key per handle (they must see the winner's run when it is theirs), the
// others use their own.
func raceKey(racer string, id int, handle string) string {
	if id%2 == 0 {
		return "shared-" + handle
	}
	return fmt.Sprintf("own-%s-%d-%s", racer, id, handle)
}

// raceOnce runs StartRun for every handle, in a random order.
func raceOnce(ctx context.Context, s core.Store, racer string, id int, handles []string, now time.Time) []attempt {
	out := make([]attempt, 0, len(handles))
	for _, h := range shuffled(handles) {
		key := raceKey(racer, id, h)
		run, started, err := s.StartRun(ctx, core.StartRunRequest{Key: key, Handle: h, RunID: "run-" + key, Now: now})
		a := attempt{Handle: h, Key: key, Started: started, RunKey: run.Key, RunID: run.ID}
		if err != nil {
			a.Code = string(core.ErrorCode(err))
			a.Err = err.Error()
		}
		out = append(out, a)
	}
	return out
}

// race says what the attempts A of a race for names are: won gives an
// attempt's name, who made it and whether it won; winner (optional)
// checks each winning attempt; noun and verb word the failures ("lock",
// "taken").
type race[A any] struct {
	noun, verb string
	won        func(A) (name, by string, ok bool)
	winner     func(A)
}

// wonOnce returns the winning attempt of each of names, failing t when one
// was won twice or not every one was won.
func wonOnce[A any](t *testing.T, r race[A], names []string, attempts []A) map[string]A {
	t.Helper()
	winners := map[string]A{}
	for _, a := range attempts {
		name, by, ok := r.won(a)
		if !ok {
			continue
		}
		if w, dup := winners[name]; dup {
			_, first, _ := r.won(w)
			t.Fatalf("%s %s %s twice: by %s and by %s", r.noun, name, r.verb, first, by)
		}
		if r.winner != nil {
			r.winner(a)
		}
		winners[name] = a
	}
	if len(winners) != len(names) {
		t.Fatalf("%d of %d %ss were %s", len(winners), len(names), r.noun, r.verb)
	}
	return winners
}

// checkRace verifies a race's attempts: every handle started exactly once,
// every loser got the documented outcome, and the store agrees.
func checkRace(t *testing.T, s core.Store, handles []string, attempts []attempt) {
	t.Helper()
	winners := wonOnce(t, race[attempt]{noun: "handle", verb: "started",
		won: func(a attempt) (string, string, bool) { return a.Handle, a.Key, a.Started },
		winner: func(a attempt) {
			if a.Code != "" || a.RunKey != a.Key {
				t.Fatalf("winner %+v", a)
			}
		}}, handles, attempts)
	for _, a := range attempts {
		if a.Started {
			continue
		}
		w := winners[a.Handle]
		switch {
		case a.Code == "" && a.Key == w.Key && a.RunKey == w.Key && a.RunID == w.RunID:
			// Same key as the winner: the existing run.
		case a.Code == string(core.CodePreviewNotFound) && a.Key != w.Key:
			// Another key: the handle is consumed.
		default:
			t.Fatalf("loser on %s (winner key %s) got %+v", a.Handle, w.Key, a)
		}
	}
	ctx := t.Context()
	for _, h := range handles {
		w := winners[h]
		p, err := s.LoadPreview(ctx, h)
		if err != nil {
			t.Fatalf("LoadPreview(%s) after race: %v", h, err)
		}
		if p.ConsumedBy != w.Key || p.ConsumedAt.IsZero() {
			t.Fatalf("preview %s consumed by %q, but %q won", h, p.ConsumedBy, w.Key)
		}
		r, found, err := s.GetRun(ctx, w.Key)
		if err != nil || !found || r.Handle != h || r.ID != w.RunID || r.State != core.RunInProgress {
			t.Fatalf("winner run of %s: %+v found %v, %v", h, r, found, err)
		}
	}
}

func (e *env) saveMany(n int) []string {
	handles := make([]string, n)
	for i := range handles {
		handles[i] = e.save(e.preview(core.PreviewImport, time.Hour)).Handle
	}
	return handles
}

func testConcurrentStartRun(t *testing.T, e *env, goroutines, n int) {
	handles := e.saveMany(n)
	now := e.clock.Now()
	all := inGoroutines(goroutines, func(g int) []attempt {
		return raceOnce(t.Context(), e.s, "g", g, handles, now)
	})
	if len(all) != goroutines*n {
		t.Fatalf("%d attempts, want %d", len(all), goroutines*n)
	}
	checkRace(t, e.s, handles, all)
}

func testConcurrentSameKeyOtherHandles(t *testing.T, e *env) {
	// One key, many handles at once: exactly one handle is consumed, the
	// rest stay free and get IDEMPOTENCY_KEY_REUSED.
	handles := e.saveMany(16)
	var wg sync.WaitGroup
	type res struct {
		h       string
		started bool
		err     error
	}
	out := make(chan res, len(handles))
	for _, h := range handles {
		wg.Go(func() {
			_, started, err := e.start("one-key", h)
			out <- res{h, started, err}
		})
	}
	wg.Wait()
	close(out)
	winner := ""
	for r := range out {
		switch {
		case r.started && r.err == nil:
			if winner != "" {
				t.Fatalf("one key started two runs: %s and %s", winner, r.h)
			}
			winner = r.h
		case !r.started && core.ErrorCode(r.err) == core.CodeIdempotencyKeyReused:
		default:
			t.Fatalf("StartRun(%s) = started %v, %v", r.h, r.started, r.err)
		}
	}
	if winner == "" {
		t.Fatal("no StartRun won")
	}
	for _, h := range handles {
		p := e.load(h)
		if (h == winner) != (p.ConsumedBy == "one-key") || (h != winner && !p.ConsumedAt.IsZero()) {
			t.Fatalf("handle %s: consumed by %q at %v (winner %s)", h, p.ConsumedBy, p.ConsumedAt, winner)
		}
	}
	if r := e.getRun("one-key"); r.Handle != winner {
		t.Fatalf("run handle %s, winner %s", r.Handle, winner)
	}
}

func testConcurrentOutcomes(t *testing.T, e *env) {
	// Runs record outcomes concurrently; each run keeps its own, in order.
	const runs, per = 8, 25
	handles := e.saveMany(runs)
	for i, h := range handles {
		e.mustStart(fmt.Sprint("r", i), h)
	}
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Go(func() {
			for j := range per {
				o := outcome(j)
				o.Key = fmt.Sprintf("R%d-%d", i, j)
				if err := e.s.RecordOutcomes(t.Context(), fmt.Sprint("r", i), []core.ItemOutcome{o}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("RecordOutcomes: %v", err)
	}
	for i := range runs {
		r := e.getRun(fmt.Sprint("r", i))
		if len(r.Outcomes) != per {
			t.Fatalf("run %d has %d outcomes, want %d", i, len(r.Outcomes), per)
		}
		for j, o := range r.Outcomes {
			if want := fmt.Sprintf("R%d-%d", i, j); o.Key != want {
				t.Fatalf("run %d outcome %d = %s, want %s (order lost)", i, j, o.Key, want)
			}
		}
	}
}

func testOutcomeBatchesAtomic(t *testing.T, e *env) {
	// Writers record batches of one run's outcomes concurrently while
	// readers read the run: every read sees whole batches only (all of a
	// batch or none), each batch's outcomes together and in order.
	const writers, batches, size = 3, 6, 7
	p := e.save(e.preview(core.PreviewImport, time.Hour))
	e.mustStart("k1", p.Handle)
	batchOf := func(w, b int) []core.ItemOutcome {
		out := make([]core.ItemOutcome, size)
		for j := range out {
			out[j] = outcome(j)
			out[j].Key = fmt.Sprintf("W%d-B%d-%d", w, b, j)
		}
		return out
	}
	// whole checks that outcomes are whole batches, each in order, and
	// each writer's batches in its order.
	whole := func(outcomes []core.ItemOutcome) error {
		if len(outcomes)%size != 0 {
			return fmt.Errorf("%d outcomes: not a whole number of batches of %d", len(outcomes), size)
		}
		next := map[int]int{}
		for i := 0; i < len(outcomes); i += size {
			var w, b, j int
			if _, err := fmt.Sscanf(outcomes[i].Key, "W%d-B%d-%d", &w, &b, &j); err != nil || j != 0 || b != next[w] {
				return fmt.Errorf("outcome %d is %s: not the start of writer %d's batch %d", i, outcomes[i].Key, w, next[w])
			}
			next[w]++
			for j, want := range batchOf(w, b) {
				if outcomes[i+j] != want {
					return fmt.Errorf("outcome %d is %+v, want %+v (a batch interleaved or torn)", i+j, outcomes[i+j], want)
				}
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				if err := e.s.RecordOutcomes(t.Context(), "k1", batchOf(w, b)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var readers sync.WaitGroup
	reads := make([]int, 2)
	for r := range reads {
		readers.Go(func() {
			for {
				run, found, err := e.s.GetRun(t.Context(), "k1")
				if err == nil && !found {
					err = fmt.Errorf("GetRun: run not found")
				}
				if err == nil {
					err = whole(run.Outcomes)
				}
				if err != nil {
					errs <- err
					return
				}
				reads[r]++
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := e.getRun("k1").Outcomes
	if err := whole(got); err != nil || len(got) != writers*batches*size {
		t.Fatalf("after all writers: %d outcomes (want %d), %v", len(got), writers*batches*size, err)
	}
	t.Logf("%d reads during the writes saw whole batches only", reads[0]+reads[1])
}

// shuffled returns a copy of xs in a random order.
func shuffled[T any](xs []T) []T {
	out := append([]T(nil), xs...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// inGoroutines runs racer(0) … racer(n-1) in n goroutines released at
// once and returns all their results.
func inGoroutines[T any](n int, racer func(g int) []T) []T {
	var (
		mu  sync.Mutex
		all []T
		wg  sync.WaitGroup
	)
	start := make(chan struct{})
	for g := range n {
		wg.Go(func() {
			<-start
			res := racer(g)
			mu.Lock()
			all = append(all, res...)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return all
}
