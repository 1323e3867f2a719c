package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core/plan"
)

// ItemChecker is an optional capability of a WorkItemProvider: it tells,
// without writing anything, which items the tracker would refuse at Create
// or Update for reasons only the provider can know — above all a text
// field's size as the tracker counts it (the document the provider will
// send, acceptance criteria included, not the Markdown). The import
// preview calls it for every item it plans to write, so it refuses what
// the commit would be refused, every problem at once, before any write.
// A provider without it is trusted to accept what core/plan validated.
type ItemChecker interface {
	// CheckItems returns one Detail per problem, each naming the item
	// (Detail.Item: its reference), the field, and what is wrong (the size
	// as the tracker counts it and the limit); nil when the tracker would
	// accept every spec. A non-nil error means the check itself could not
	// run (e.g. the tracker is unavailable). Reads only.
	CheckItems(ctx context.Context, specs []ItemSpec) ([]Detail, error)
}

// checkItems refuses a plan whose creates or updates the tracker would
// refuse (ItemChecker), as VALIDATION_FAILED listing every such item with
// its line in the document. Nothing is stored. A no-op when the provider
// has no ItemChecker.
func (s *WorkItemService) checkItems(ctx context.Context, doc *plan.Document, entries []planEntry) error {
	ic, ok := s.p.(ItemChecker)
	if !ok {
		return nil
	}
	var specs []ItemSpec
	for _, e := range entries {
		if (e.Action == ActionCreate || e.Action == ActionUpdate || e.Action == ActionAdopt) && !e.Blocked {
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
	lines := make(map[Reference]int, len(doc.Items))
	for _, it := range doc.Items {
		lines[NewReference(doc.ID, it.ID)] = it.Line
	}
	items := map[string]bool{}
	for i := range details {
		if details[i].Line == 0 {
			details[i].Line = lines[Reference(details[i].Item)]
		}
		items[details[i].Item] = true
	}
	return Errorf(CodeValidationFailed, "The tracker would refuse %d item(s) of this document (see details: each names the item, the field, its size as the tracker counts it and the limit). Nothing was stored and nothing was written. Shorten them (or split them) and preview again.",
		len(items)).WithDetails(details...)
}

// SizeProblem returns the Detail an ItemChecker reports for the text field
// of ref (a domain name: "description", "acceptance_criteria") that is
// size characters long as the tracker counts them, when at most limit are
// allowed; every provider words it the same.
func SizeProblem(ref Reference, field string, size, limit int) Detail {
	return Detail{Item: string(ref), Field: field, Message: fmt.Sprintf("the %s of %s is %d characters as the tracker counts them; at most %d are allowed",
		strings.ReplaceAll(field, "_", " "), ref, size, limit)}
}
