package service

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
)

// fillCreates names on each planned create the fields the provider fills
// itself (core.CreateFiller: an epic's Epic Name where the tracker
// requires it), so the preview shows every value the commit writes. A
// no-op when the provider has no CreateFiller or the plan creates nothing.
func (s *WorkItemService) fillCreates(ctx context.Context, entries []planEntry) error {
	cf, ok := s.p.(core.CreateFiller)
	if !ok {
		return nil
	}
	creates := func(e *planEntry) bool { return e.Action == core.ActionCreate && !e.Blocked }
	n := 0
	for i := range entries {
		if creates(&entries[i]) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	specs := make([]core.ItemSpec, 0, n) // (a spec is large: made once, not grown)
	for i := range entries {
		if e := &entries[i]; creates(e) {
			specs = append(specs, e.Spec)
		}
	}
	fills, err := cf.CreateFills(ctx, specs)
	if err != nil {
		return err
	}
	for i := range entries {
		if e := &entries[i]; creates(e) {
			e.Fills = fills[e.Spec.Reference]
		}
	}
	return nil
}
