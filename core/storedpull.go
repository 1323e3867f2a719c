package core

import (
	"context"
	"strings"
)

// StoredPull shows a stored pull plan again, as PullPreview returned it
// (PreviewInfo.Pull; Kind is PreviewImport, the kind a pull's plan is
// stored under), with who consumed it: what a front door asks the person
// to confirm before PullCommit, and where the commit writes (Pull.Path).
// It writes nothing. Errors: as StoredPreview's (PREVIEW_NOT_FOUND,
// PREVIEW_EXPIRED, another scope); PREVIEW_NOT_FOUND for a handle that is
// not a pull's.
func (s *WorkItemService) StoredPull(ctx context.Context, handle string) (PreviewInfo, error) {
	ctx, o := s.begin(ctx, "pull.show")
	info, err := s.storedPull(ctx, strings.TrimSpace(handle))
	if err != nil {
		return PreviewInfo{}, o.fail(err)
	}
	o.done("preview shown", "handle", handle, "kind", "pull")
	return info, nil
}

func (s *WorkItemService) storedPull(ctx context.Context, handle string) (PreviewInfo, error) {
	var pl pullPlan
	p, err := s.loadPreview(ctx, handle, "")
	if err == nil {
		err = s.checkScope(p)
	}
	if err == nil && (p.Kind != PreviewImport || !isPullPlan(p.Plan)) {
		err = Errorf(CodePreviewNotFound, "Handle %q is %s preview handle, not a pull one: commit it as what it is, or run the pull preview again.", handle, aKind(p.Kind)).
			WithDetails(Detail{Field: "preview_handle", Message: "not a pull preview"})
	}
	if err == nil {
		err = decodePlan(p, PreviewImport, &pl, func() int { return pl.Version }, pullPlanVersion)
	}
	if err != nil {
		return PreviewInfo{}, err
	}
	if now := s.now(); !now.Before(p.ExpiresAt) && p.ConsumedAt.IsZero() {
		return PreviewInfo{}, RefuseExpiredPreview(handle, p.Kind, p.ExpiresAt, p.ExpiresAt.Sub(p.CreatedAt), now)
	}
	res := pl.result(p)
	info := PreviewInfo{Kind: p.Kind, Pull: &res, ConsumedBy: p.ConsumedBy}
	if info.Commit, err = s.commitSummary(ctx, p, len(pl.Entries)); err != nil {
		return PreviewInfo{}, err
	}
	return info, nil
}
