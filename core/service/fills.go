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
	var specs []core.ItemSpec
	for i := range entries {
		if e := &entries[i]; e.Action == core.ActionCreate && !e.Blocked {
			specs = append(specs, e.Spec)
		}
	}
	if len(specs) == 0 {
		return nil
	}
	fills, err := cf.CreateFills(ctx, specs)
	if err != nil {
		return err
	}
	for i := range entries {
		if e := &entries[i]; e.Action == core.ActionCreate && !e.Blocked {
			e.Fills = fills[e.Spec.Reference]
		}
	}
	return nil
}
