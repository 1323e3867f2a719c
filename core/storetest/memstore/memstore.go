package memstore

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
)

// Options configure a Store.
type Options struct {
	// Now is the clock used to prune expired previews when the store is
	// (re)opened and to measure lock leases; nil means time.Now.
	Now func() time.Time
	// Retention applies to the prune on (re)open (zero: the defaults).
	Retention core.Retention
}

// Store is an in-memory core.Store. It is safe for concurrent use.
type Store struct {
	d      *data
	now    func() time.Time // lock leases
	closed atomic.Bool
}

var _ core.Store = (*Store)(nil)

type data struct {
	mu       sync.Mutex
	previews map[string]*preview
	pruned   map[string]tombstone // handles of pruned previews
	runs     map[string]*core.Run
	index    map[indexKey]core.IndexEntry
	locks    map[string]lockRow
	docs     map[indexKey]core.DocumentRecord // documents.go (scope, document id)
	audit    auditTrail                       // audit.go
	pace     map[string][]byte                // pace.go: key → encoded core.PaceState
}

// lockRow is a lock; a released lock keeps its row (owner "") so its
// generation keeps counting.
type lockRow struct {
	owner      string
	expires    time.Time
	generation int64
	renewed    time.Time // when owner last took or renewed it
}

type preview struct {
	p core.Preview // p.Digest is the digest stored with the plan
}

// tombstone is what is left of a pruned preview.
type tombstone struct {
	kind      core.PreviewKind
	expiredAt time.Time
}

// notFound is the error for a handle without a preview: PREVIEW_EXPIRED
// while its tombstone is kept, else PREVIEW_NOT_FOUND.
func (d *data) notFound(handle string) error {
	if t, ok := d.pruned[handle]; ok {
		return storeerr.PreviewPruned(handle, t.kind, t.expiredAt)
	}
	return storeerr.PreviewNotFound(handle)
}

type indexKey struct {
	scope string
	ref   core.Reference
}

// New returns an empty store.
func New(opts Options) *Store {
	d := &data{
		previews: map[string]*preview{},
		pruned:   map[string]tombstone{},
		runs:     map[string]*core.Run{},
		index:    map[indexKey]core.IndexEntry{},
		locks:    map[string]lockRow{},
	}
	return open(d, opts)
}

// Reopen returns a new Store over the same data, as if the process had
// restarted: expired previews are pruned at opts.Now. s itself is left as
// it is (close it first to simulate a crash faithfully).
func (s *Store) Reopen(opts Options) *Store { return open(s.d, opts) }

func open(d *data, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{d: d, now: now}
	d.mu.Lock()
	d.prune(ts(now()), opts.Retention)
	d.mu.Unlock()
	return s
}

// TamperPlan replaces the stored plan of handle without updating its
// digest (for tests of tamper detection). It reports whether the handle
// exists.
func (s *Store) TamperPlan(handle string, plan []byte) bool {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	p, ok := s.d.previews[handle]
	if ok {
		p.p.Plan = bytes.Clone(plan)
	}
	return ok
}

// ts normalises a time to what every store keeps: UTC, microseconds.
func ts(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

func (s *Store) lock() (*data, error) {
	if s.closed.Load() {
		return nil, storeerr.Closed("in-memory")
	}
	s.d.mu.Lock()
	return s.d, nil
}

// SavePreview implements core.Store.
func (s *Store) SavePreview(_ context.Context, p core.Preview) error {
	p, err := storeerr.CheckPreview(p)
	if err != nil {
		return err
	}
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	if _, dup := d.previews[p.Handle]; dup {
		return storeerr.DuplicateHandle(p.Handle)
	}
	p.Plan = bytes.Clone(p.Plan)
	p.CreatedAt, p.ExpiresAt, p.ConsumedAt = ts(p.CreatedAt), ts(p.ExpiresAt), ts(p.ConsumedAt)
	d.previews[p.Handle] = &preview{p: p}
	return nil
}

// LoadPreview implements core.Store.
func (s *Store) LoadPreview(_ context.Context, handle string) (core.Preview, error) {
	d, err := s.lock()
	if err != nil {
		return core.Preview{}, err
	}
	defer d.mu.Unlock()
	p, ok := d.previews[handle]
	if !ok {
		return core.Preview{}, d.notFound(handle)
	}
	if core.PlanDigest(p.p.Plan) != p.p.Digest {
		return core.Preview{}, storeerr.PreviewTampered(handle)
	}
	out := p.p
	out.Plan = bytes.Clone(p.p.Plan)
	return out, nil
}

// StartRun implements core.Store.
func (s *Store) StartRun(_ context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	d, err := s.lock()
	if err != nil {
		return core.Run{}, false, err
	}
	defer d.mu.Unlock()
	if r, ok := d.runs[req.Key]; ok {
		if r.Handle != req.Handle {
			return core.Run{}, false, storeerr.KeyReused(req.Key, r.Handle, req.Handle)
		}
		return cloneRun(r), false, nil
	}
	p, ok := d.previews[req.Handle]
	if !ok {
		return core.Run{}, false, d.notFound(req.Handle)
	}
	now := ts(req.Now)
	if !p.p.ConsumedAt.IsZero() {
		runID := ""
		if r, ok := d.runs[p.p.ConsumedBy]; ok {
			runID = r.ID
		}
		return core.Run{}, false, storeerr.PreviewConsumed(req.Handle, runID, p.p.ConsumedAt)
	}
	if !now.Before(p.p.ExpiresAt) {
		return core.Run{}, false, storeerr.PreviewExpired(req.Handle, p.p.ExpiresAt)
	}
	if err := core.CheckPlanDigest(req.Handle, "", req.PlanDigest, p.p.Digest); err != nil {
		return core.Run{}, false, err
	}
	p.p.ConsumedAt, p.p.ConsumedBy = now, req.Key
	r := &core.Run{ID: req.RunID, Key: req.Key, Handle: req.Handle, State: core.RunInProgress, StartedAt: now}
	d.runs[req.Key] = r
	return cloneRun(r), true, nil
}

func cloneRun(r *core.Run) core.Run {
	out := *r
	out.Outcomes = slices.Clone(r.Outcomes)
	out.Result = bytes.Clone(r.Result)
	return out
}

// RecordOutcomes implements core.Store: under the store's lock, so a
// reader sees all of a batch or none of it.
func (s *Store) RecordOutcomes(_ context.Context, key string, outcomes []core.ItemOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	return s.withRunInProgress(key, func(r *core.Run) { r.Outcomes = append(r.Outcomes, outcomes...) })
}

// withRunInProgress changes the in_progress run with this key under the
// store's lock.
func (s *Store) withRunInProgress(key string, change func(*core.Run)) error {
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	r, err := d.inProgress(key)
	if err != nil {
		return err
	}
	change(r)
	return nil
}

// inProgress returns the in_progress run with this key.
func (d *data) inProgress(key string) (*core.Run, error) {
	r, ok := d.runs[key]
	if !ok {
		return nil, storeerr.RunNotFound(key)
	}
	if r.State != core.RunInProgress {
		return nil, storeerr.RunFinished(key, r.State)
	}
	return r, nil
}

// FinishRun implements core.Store.
func (s *Store) FinishRun(_ context.Context, key string, state core.RunState, result []byte, now time.Time) error {
	if err := storeerr.CheckFinalState(state); err != nil {
		return err
	}
	return s.withRunInProgress(key, func(r *core.Run) {
		r.State, r.Result, r.FinishedAt = state, bytes.Clone(result), ts(now)
	})
}

// GetRun implements core.Store.
func (s *Store) GetRun(_ context.Context, key string) (core.Run, bool, error) {
	d, err := s.lock()
	if err != nil {
		return core.Run{}, false, err
	}
	defer d.mu.Unlock()
	r, ok := d.runs[key]
	if !ok {
		return core.Run{}, false, nil
	}
	return cloneRun(r), true, nil
}

// UpsertIndex implements core.Store.
func (s *Store) UpsertIndex(_ context.Context, entries []core.IndexEntry) error {
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	d.upsert(entries)
	return nil
}

func (d *data) upsert(entries []core.IndexEntry) {
	for _, e := range entries {
		e.UpdatedAt = ts(e.UpdatedAt)
		d.index[indexKey{e.Scope, e.Reference}] = e
	}
}

// LookupIndex implements core.Store.
func (s *Store) LookupIndex(_ context.Context, scope string, refs []core.Reference) (map[core.Reference]core.IndexEntry, error) {
	d, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	out := make(map[core.Reference]core.IndexEntry, len(refs))
	for _, r := range refs {
		if e, ok := d.index[indexKey{scope, r}]; ok {
			out[r] = e
		}
	}
	return out, nil
}

// Prune implements core.Store.
func (s *Store) Prune(_ context.Context, now time.Time, r core.Retention) (core.Pruned, error) {
	d, err := s.lock()
	if err != nil {
		return core.Pruned{}, err
	}
	defer d.mu.Unlock()
	n := d.prune(ts(now), r)
	n.Pace = d.prunePace(s.now().Add(-r.OrDefault().Pace)) // pace.go: on the clock TakePace stamps with
	return n, nil
}

func (d *data) prune(now time.Time, r core.Retention) core.Pruned {
	r = r.OrDefault()
	var n core.Pruned
	for h, p := range d.previews {
		if p.p.ExpiresAt.Before(now) {
			delete(d.previews, h)
			d.pruned[h] = tombstone{kind: p.p.Kind, expiredAt: p.p.ExpiresAt}
			n.Previews++
		}
	}
	for h, t := range d.pruned {
		if t.expiredAt.Before(now.Add(-r.Tombstones)) {
			delete(d.pruned, h)
			n.Tombstones++
		}
	}
	for k, run := range d.runs {
		if run.State != core.RunInProgress && run.FinishedAt.Before(now.Add(-r.Runs)) {
			delete(d.runs, k)
			n.Runs++
		}
	}
	n.Audit = d.pruneAudit(now.Add(-r.Audit).UnixMicro())
	return n
}

// AcquireLock implements core.Store.
func (s *Store) AcquireLock(_ context.Context, name, owner string, lease time.Duration) (core.Lock, error) {
	if err := storeerr.CheckLock(name, owner, lease); err != nil {
		return core.Lock{}, err
	}
	d, err := s.lock()
	if err != nil {
		return core.Lock{}, err
	}
	defer d.mu.Unlock()
	now := ts(s.now())
	l := d.locks[name]
	switch {
	case l.owner == owner:
	case l.owner == "" || !now.Before(l.expires):
		l.owner, l.generation = owner, l.generation+1
	default:
		return core.Lock{}, storeerr.LockHeld(name, l.owner, l.expires, l.renewed, now)
	}
	l.expires, l.renewed = ts(now.Add(lease)), now
	d.locks[name] = l
	gen := l.generation
	return core.Lock{Name: name, Owner: owner, Generation: gen, Expires: l.expires, Release: func(context.Context) error {
		d, err := s.lock()
		if err != nil {
			return err
		}
		defer d.mu.Unlock()
		cur := d.locks[name]
		if cur.owner != owner || cur.generation != gen {
			return storeerr.LockLost(name, owner, gen, cur.owner, cur.generation)
		}
		d.locks[name] = lockRow{generation: gen}
		return nil
	}}, nil
}

// Fence implements core.Store.
func (s *Store) Fence(_ context.Context, name, owner string, generation int64, markers []core.IndexEntry) error {
	if err := storeerr.CheckFence(name, owner, generation); err != nil {
		return err
	}
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	if l := d.locks[name]; l.owner != owner || l.generation != generation {
		return storeerr.LockLost(name, owner, generation, l.owner, l.generation)
	}
	d.upsert(markers)
	return nil
}

// Close implements core.Store. Later calls fail with INTERNAL_ERROR; the
// data stays available to Reopen.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}
