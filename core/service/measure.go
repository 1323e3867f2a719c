package service

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// checkItems refuses a plan whose creates or updates the tracker would
// refuse (ItemChecker), as VALIDATION_FAILED listing every such item with
// its line in the document. Nothing is stored. A no-op when the provider
// has no ItemChecker.
func (s *WorkItemService) checkItems(ctx context.Context, doc *plan.Document, entries []planEntry) error {
	ic, ok := s.p.(core.ItemChecker)
	if !ok {
		return nil
	}
	specs := make([]core.ItemSpec, 0, len(entries)) // (a spec is large: grown once)
	for i := range entries {
		if e := &entries[i]; (e.Action == core.ActionCreate || e.Action == core.ActionUpdate || e.Action == ActionAdopt) && !e.Blocked {
			specs = append(specs, e.Spec)
		}
	}
	if len(specs) == 0 {
		return nil
	}
	details, err := ic.CheckItems(ctx, specs)
	if err != nil || len(details) == 0 {
		return err
	}
	lines := make(map[core.Reference]int, len(doc.Items))
	for _, it := range doc.Items {
		lines[core.NewReference(doc.ID, it.ID)] = it.Line
	}
	items := map[string]bool{}
	for i := range details {
		if details[i].Line == 0 {
			details[i].Line = lines[core.Reference(details[i].Item)]
		}
		items[details[i].Item] = true
	}
	return core.Errorf(core.CodeValidationFailed, "The tracker would refuse %d item(s) of this document (see details: each names the item, the field, its size as the tracker counts it and the limit). Nothing was stored and nothing was written. Shorten them (or split them) and preview again.",
		len(items)).WithDetails(details...)
}
