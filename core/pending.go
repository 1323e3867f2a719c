package core

import (
	"context"
	"time"
)

// PreviewLister is the Store capability behind "which previews are waiting
// for a person?" (`dwire review` without a handle). Every store in this
// repository has it (core/memstore, SQLite, Postgres; checked by
// core/storetest); it is kept apart from Store so that the port's core
// methods stay the gate's.
type PreviewLister interface {
	// PendingPreviews returns up to limit previews of scope that are
	// neither consumed nor expired at now, newest first, and whether more
	// matched. Each is returned as LoadPreview would (digest checked; a
	// tampered one is skipped rather than failing the list).
	PendingPreviews(ctx context.Context, scope string, now time.Time, limit int) (previews []Preview, truncated bool, err error)
}
