package memstore

import (
	"context"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.PaceStore = (*Store)(nil)

// TakePace implements core.PaceStore (kept encoded, as the SQL stores
// keep it).
func (s *Store) TakePace(_ context.Context, key string, r core.PaceRequest) (core.PaceGrant, error) {
	d, err := s.lock()
	if err != nil {
		return core.PaceGrant{}, err
	}
	defer d.mu.Unlock()
	b, g, err := core.StepPace(d.pace[key], s.now(), r)
	if err != nil {
		return core.PaceGrant{}, core.Wrap(err, core.CodeInternal, "The shared pacing state cannot be kept.")
	}
	if d.pace == nil {
		d.pace = map[string][]byte{}
	}
	d.pace[key] = b
	return g, nil
}

// prunePace deletes the pacing states last used before cutoff and
// returns how many. The caller holds d.mu.
func (d *data) prunePace(cutoff time.Time) int {
	n := 0
	for k, b := range d.pace {
		if core.PaceUnused(b, cutoff) {
			delete(d.pace, k)
			n++
		}
	}
	return n
}
