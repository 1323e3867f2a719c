package service

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
)

// StoredPull shows a stored pull plan again, as PullPreview returned it
// (PreviewInfo.Pull), with who consumed it: what a front door asks the
// person to confirm before PullCommit, and where the commit writes
// (Pull.Path). It writes nothing. Errors: as StoredPreview's
// (PREVIEW_NOT_FOUND, PREVIEW_EXPIRED, another scope); PREVIEW_NOT_FOUND
// for a handle that is not a pull's.
func (s *WorkItemService) StoredPull(ctx context.Context, handle string) (PreviewInfo, error) {
	return s.showStored(ctx, "pull.show", handle, func(k core.PreviewKind) error {
		if k != core.PreviewPull {
			return refuseKind(handle, k, core.PreviewPull)
		}
		return nil
	})
}
