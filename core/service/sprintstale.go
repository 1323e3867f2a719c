package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// staleSprints re-reads the sprints the plan moves items into (one read
// per sprint name) and names each one that is no longer open: closed, or
// gone, since the preview. The commit refuses before its first write,
// instead of creating the items and then failing on the move.
func (s *WorkItemService) staleSprints(ctx context.Context, ops []sprintOp) ([]core.Detail, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	sp, ok := s.p.(core.StructureProvider)
	if !ok {
		return nil, nil
	}
	read := map[string][]core.Sprint{} // by name, as the tracker compares them
	var details []core.Detail
	for _, op := range ops {
		name := strings.ToLower(op.Sprint)
		list, seen := read[name]
		if !seen {
			var err error
			if list, err = sp.Sprints(ctx, op.Sprint); err != nil {
				return nil, err
			}
			read[name] = list
		}
		state := ""
		for _, sr := range list {
			if sr.ID == op.SprintID {
				state = sr.State
			}
		}
		if state != "" && state != core.SprintClosed {
			continue
		}
		what := "was closed"
		if state == "" {
			what = "no longer exists"
		}
		for _, it := range op.Items {
			details = append(details, core.Detail{Item: string(it.Ref), Key: it.Key, Field: "sprint",
				Message: fmt.Sprintf("sprint %s %s since the preview; the plan would move %s into it. Name an active or future sprint", op.Sprint, what, it.Label)})
		}
	}
	return details, nil
}
