package memstore

import (
	"context"

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
	st, err := core.DecodePace(d.pace[key])
	if err != nil {
		return core.PaceGrant{}, core.Wrap(err, core.CodeInternal, "The shared pacing state cannot be read.")
	}
	g := st.Take(s.now(), r)
	b, err := core.EncodePace(st)
	if err != nil {
		return core.PaceGrant{}, core.Wrap(err, core.CodeInternal, "The shared pacing state cannot be stored.")
	}
	if d.pace == nil {
		d.pace = map[string][]byte{}
	}
	d.pace[key] = b
	return g, nil
}
