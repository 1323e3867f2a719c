package storetest

import (
	"bytes"
	"flag"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"pgregory.net/rapid"
)

// The model: what the contract says the store holds.
type modelPreview struct {
	plan       []byte
	expires    time.Time
	consumedAt time.Time
	consumedBy string
}

type modelRun struct {
	id, handle string
	state      core.RunState
	started    time.Time
	finished   time.Time
	outcomes   []core.ItemOutcome
	result     []byte
}

type model struct {
	pruned   map[string]time.Time // tombstones: handle → expiry
	previews map[string]*modelPreview
	runs     map[string]*modelRun
	index    map[[2]string]core.IndexEntry
}

var modelSeq atomic.Int64

// setRapidDefault sets a rapid flag unless the command line set it.
func setRapidDefault(name, value string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if !set && flag.Lookup(name) != nil {
		_ = flag.Set(name, value)
	}
}

// testModel runs random sequences of store calls — saves, loads, starts,
// outcomes, finishes, index writes and reads, clock jumps, prunes and
// reopens — against one store and checks every answer against the model.
func testModel(t *testing.T, e *env, checks int) {
	setRapidDefault("rapid.checks", strconv.Itoa(checks))
	rapid.Check(t, func(rt *rapid.T) {
		// Start each check after everything earlier checks left has
		// expired, and clear it, so prune counts are this check's own.
		e.clock.Advance(48 * time.Hour)
		if _, err := e.s.Prune(t.Context(), e.clock.Now(), core.Retention{}); err != nil {
			rt.Fatalf("initial prune: %v", err)
		}
		id := modelSeq.Add(1)
		handle := func(i int) string { return fmt.Sprintf("m%d-h%d", id, i) }
		key := func(i int) string { return fmt.Sprintf("m%d-k%d", id, i) }
		scope := func(i int) string { return fmt.Sprintf("m%d-scope%d", id, i) }
		m := &model{pruned: map[string]time.Time{}, previews: map[string]*modelPreview{}, runs: map[string]*modelRun{}, index: map[[2]string]core.IndexEntry{}}
		ctx := t.Context()
		handleGen := rapid.IntRange(0, 4)
		keyGen := rapid.IntRange(0, 3)
		runIDs := 0

		rt.Repeat(map[string]func(*rapid.T){
			"save": func(rt *rapid.T) {
				h := handle(handleGen.Draw(rt, "handle"))
				ttl := rapid.SampledFrom([]time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute}).Draw(rt, "ttl")
				plan := rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(rt, "plan")
				now := e.clock.Now()
				err := e.s.SavePreview(ctx, core.Preview{Handle: h, Kind: core.PreviewImport, Scope: "s", Plan: plan, CreatedAt: now, ExpiresAt: now.Add(ttl)})
				if _, exists := m.previews[h]; exists {
					if core.ErrorCode(err) != core.CodeInternal {
						rt.Fatalf("SavePreview(%s) over an existing handle: %v, want INTERNAL_ERROR", h, err)
					}
					return
				}
				if err != nil {
					rt.Fatalf("SavePreview(%s): %v", h, err)
				}
				m.previews[h] = &modelPreview{plan: bytes.Clone(plan), expires: now.Add(ttl)}
			},
			"load": func(rt *rapid.T) {
				h := handle(handleGen.Draw(rt, "handle"))
				p, err := e.s.LoadPreview(ctx, h)
				mp, ok := m.previews[h]
				if !ok {
					if core.ErrorCode(err) != m.absent(h) {
						rt.Fatalf("LoadPreview(%s) of an absent handle: %v, want %s", h, err, m.absent(h))
					}
					return
				}
				if err != nil {
					rt.Fatalf("LoadPreview(%s): %v", h, err)
				}
				if !bytes.Equal(p.Plan, mp.plan) || !p.ExpiresAt.Equal(mp.expires) || !p.ConsumedAt.Equal(mp.consumedAt) || p.ConsumedBy != mp.consumedBy {
					rt.Fatalf("LoadPreview(%s) = %+v, model %+v", h, p, mp)
				}
			},
			"start": func(rt *rapid.T) {
				h, k := handle(handleGen.Draw(rt, "handle")), key(keyGen.Draw(rt, "key"))
				runIDs++
				rid := fmt.Sprintf("m%d-run%d", id, runIDs)
				now := e.clock.Now()
				run, started, err := e.s.StartRun(ctx, core.StartRunRequest{Key: k, Handle: h, RunID: rid, Now: now})
				code := core.ErrorCode(err)
				if mr, ok := m.runs[k]; ok {
					if mr.handle != h {
						if code != core.CodeIdempotencyKeyReused || started {
							rt.Fatalf("StartRun(%s, %s), key used for %s: %v started %v", k, h, mr.handle, err, started)
						}
						return
					}
					if err != nil || started || run.ID != mr.id || run.State != mr.state {
						rt.Fatalf("StartRun(%s, %s) repeat: %+v started %v, %v; model %+v", k, h, run, started, err, mr)
					}
					return
				}
				mp, ok := m.previews[h]
				var want core.Code
				switch {
				case !ok:
					want = m.absent(h)
				case mp.consumedBy != "":
					want = core.CodePreviewNotFound
				case !now.Before(mp.expires):
					want = core.CodePreviewExpired
				}
				if want != "" {
					if code != want || started {
						rt.Fatalf("StartRun(%s, %s) = started %v, %v; want %s", k, h, started, err, want)
					}
					return
				}
				if err != nil || !started || run.ID != rid || run.State != core.RunInProgress {
					rt.Fatalf("StartRun(%s, %s) = %+v started %v, %v; want a new run", k, h, run, started, err)
				}
				mp.consumedAt, mp.consumedBy = now, k
				m.runs[k] = &modelRun{id: rid, handle: h, state: core.RunInProgress, started: now}
			},
			"record": func(rt *rapid.T) {
				k := key(keyGen.Draw(rt, "key"))
				var batch []core.ItemOutcome
				for _, i := range rapid.SliceOfN(rapid.IntRange(0, 5), 1, 4).Draw(rt, "outcomes") {
					batch = append(batch, outcome(i))
				}
				if mr := m.runInProgress(rt, "RecordOutcomes", k, e.s.RecordOutcomes(ctx, k, batch)); mr != nil {
					mr.outcomes = append(mr.outcomes, batch...)
				}
			},
			"finish": func(rt *rapid.T) {
				k := key(keyGen.Draw(rt, "key"))
				st := rapid.SampledFrom([]core.RunState{core.RunCommitted, core.RunPartial, core.RunFailed}).Draw(rt, "state")
				res := rapid.SliceOfN(rapid.Byte(), 0, 32).Draw(rt, "result")
				now := e.clock.Now()
				if mr := m.runInProgress(rt, "FinishRun", k, e.s.FinishRun(ctx, k, st, res, now)); mr != nil {
					mr.state, mr.result, mr.finished = st, bytes.Clone(res), now
				}
			},
			"get": func(rt *rapid.T) {
				k := key(keyGen.Draw(rt, "key"))
				r, found, err := e.s.GetRun(ctx, k)
				if err != nil {
					rt.Fatalf("GetRun(%s): %v", k, err)
				}
				mr, ok := m.runs[k]
				if found != ok {
					rt.Fatalf("GetRun(%s) found=%v, model %v", k, found, ok)
				}
				if !ok {
					return
				}
				if r.ID != mr.id || r.Handle != mr.handle || r.State != mr.state || !r.StartedAt.Equal(mr.started) ||
					!r.FinishedAt.Equal(mr.finished) || !bytes.Equal(r.Result, mr.result) || len(r.Outcomes) != len(mr.outcomes) {
					rt.Fatalf("GetRun(%s) = %+v, model %+v", k, r, mr)
				}
				for i := range mr.outcomes {
					if r.Outcomes[i] != mr.outcomes[i] {
						rt.Fatalf("GetRun(%s) outcome %d = %+v, model %+v", k, i, r.Outcomes[i], mr.outcomes[i])
					}
				}
			},
			"upsert": func(rt *rapid.T) {
				n := rapid.IntRange(0, 4).Draw(rt, "n")
				var batch []core.IndexEntry
				for range n {
					ent := indexEntry(scope(rapid.IntRange(0, 1).Draw(rt, "scope")), rapid.IntRange(0, 5).Draw(rt, "ref"), e.clock.Now())
					ent.Key = fmt.Sprintf("DEMO-%d", rapid.IntRange(1, 99).Draw(rt, "key"))
					batch = append(batch, ent)
				}
				if err := e.s.UpsertIndex(ctx, batch); err != nil {
					rt.Fatalf("UpsertIndex: %v", err)
				}
				for _, ent := range batch {
					m.index[[2]string{ent.Scope, string(ent.Reference)}] = ent
				}
			},
			"lookup": func(rt *rapid.T) {
				sc := scope(rapid.IntRange(0, 1).Draw(rt, "scope"))
				var refs []core.Reference
				for _, i := range rapid.SliceOfN(rapid.IntRange(0, 7), 0, 5).Draw(rt, "refs") {
					refs = append(refs, core.NewReference("doc", fmt.Sprintf("s-%d", i)))
				}
				got, err := e.s.LookupIndex(ctx, sc, refs)
				if err != nil {
					rt.Fatalf("LookupIndex: %v", err)
				}
				want := map[core.Reference]core.IndexEntry{}
				for _, r := range refs {
					if ent, ok := m.index[[2]string{sc, string(r)}]; ok {
						want[r] = ent
					}
				}
				if len(got) != len(want) {
					rt.Fatalf("LookupIndex(%s, %v) = %v, model %v", sc, refs, got, want)
				}
				for r, ent := range want {
					if got[r] != ent {
						rt.Fatalf("LookupIndex(%s)[%s] = %+v, model %+v", sc, r, got[r], ent)
					}
				}
			},
			"advance": func(rt *rapid.T) {
				e.clock.Advance(rapid.SampledFrom([]time.Duration{time.Second, time.Minute, 4 * time.Minute, 20 * time.Minute}).Draw(rt, "by"))
			},
			"advanceToExpiry": func(rt *rapid.T) {
				// Land exactly on a preview's expiry: expired from then on.
				if mp, ok := m.previews[handle(handleGen.Draw(rt, "handle"))]; ok && mp.expires.After(e.clock.Now()) {
					e.clock.Advance(mp.expires.Sub(e.clock.Now()))
				}
			},
			"prune": func(rt *rapid.T) {
				now := e.clock.Now()
				n, err := e.s.Prune(ctx, now, core.Retention{})
				if err != nil {
					rt.Fatalf("Prune: %v", err)
				}
				if want := m.prune(now); n.Previews != want {
					rt.Fatalf("Prune = %+v, model %d previews", n, want)
				}
			},
			"reopen": func(rt *rapid.T) {
				e.reopen()
				m.prune(e.clock.Now())
			},
		})
	})
}

// prune turns the previews expired before now into tombstones and returns
// how many (a check never runs long enough for tombstones or runs to pass
// the default retention).
// runInProgress checks the store's answer err to op on the run with key
// k against the model: a missing or finished run must be refused
// (INTERNAL_ERROR), a run in progress accepted. It returns the model's run
// to update when the store accepted, else nil.
func (m *model) runInProgress(rt *rapid.T, op, k string, err error) *modelRun {
	mr, ok := m.runs[k]
	if !ok || mr.state != core.RunInProgress {
		if core.ErrorCode(err) != core.CodeInternal {
			rt.Fatalf("%s(%s) on a missing or finished run: %v", op, k, err)
		}
		return nil
	}
	if err != nil {
		rt.Fatalf("%s(%s): %v", op, k, err)
	}
	return mr
}

func (m *model) prune(now time.Time) int {
	n := 0
	for h, p := range m.previews {
		if p.expires.Before(now) {
			delete(m.previews, h)
			m.pruned[h] = p.expires
			n++
		}
	}
	return n
}

// absent is the code for a handle without a preview.
func (m *model) absent(h string) core.Code {
	if _, ok := m.pruned[h]; ok {
		return core.CodePreviewExpired
	}
	return core.CodePreviewNotFound
}
