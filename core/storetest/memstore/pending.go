package memstore

import (
	"bytes"
	"context"
	"sort"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.PreviewLister = (*Store)(nil)

// PendingPreviews implements core.PreviewLister.
func (s *Store) PendingPreviews(_ context.Context, scope string, now time.Time, limit int) ([]core.Preview, bool, error) {
	d, err := s.lock()
	if err != nil {
		return nil, false, err
	}
	defer d.mu.Unlock()
	var out []core.Preview
	for _, p := range d.previews {
		if p.p.Scope != scope || !p.p.ConsumedAt.IsZero() || !now.Before(p.p.ExpiresAt) || core.PlanDigest(p.p.Plan) != p.p.Digest {
			continue
		}
		c := p.p
		c.Plan = bytes.Clone(p.p.Plan)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].Handle < out[j].Handle
	})
	if limit > 0 && len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

var (
	_ core.IndexLister   = (*Store)(nil)
	_ core.DocumentStore = (*Store)(nil) // documents.go
)

// ListIndex implements core.IndexLister.
func (s *Store) ListIndex(_ context.Context, scope string, limit int) ([]core.IndexEntry, error) {
	return s.listIndex(scope, limit, func(core.IndexEntry) bool { return true })
}

// listIndex lists up to limit (<= 0: all) entries of scope with a key
// that keep accepts.
func (s *Store) listIndex(scope string, limit int, keep func(core.IndexEntry) bool) ([]core.IndexEntry, error) {
	d, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	var out []core.IndexEntry
	for _, e := range d.index {
		if e.Scope == scope && e.Key != "" && keep(e) && (limit <= 0 || len(out) < limit) {
			out = append(out, e)
		}
	}
	return out, nil
}
