package service_test

import (
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// A preview that expired and was pruned (the store's retention job, or
// the prune every store runs when it opens) still answers PREVIEW_EXPIRED
// "expired N minutes ago", from its tombstone, instead of
// PREVIEW_NOT_FOUND "unknown, or expired and pruned".
func TestCommitOfAPrunedPreviewSaysWhenItExpired(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	e.clock.Advance(33 * time.Minute) // valid for 30 minutes: expired 3 minutes ago
	if n, err := e.st.Prune(e.ctx, e.clock.Now(), core.Retention{}); err != nil || n.Previews != 1 {
		t.Fatalf("Prune = %+v, %v", n, err)
	}
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewExpired, "expired 3 minutes ago", "Run the import preview again")
	// Past the tombstone's retention the handle is unknown.
	e.clock.Advance(core.DefaultRetention.Tombstones)
	if n, err := e.st.Prune(e.ctx, e.clock.Now(), core.Retention{}); err != nil || n.Tombstones != 1 {
		t.Fatalf("Prune = %+v, %v", n, err)
	}
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "unknown")
}
