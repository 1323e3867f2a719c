package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
)

// Two stores on one file commit two previews of one document at once: one
// creates, the other is PREVIEW_STALE, no duplicates.
func TestTwoPreviewsOfOneDocumentCommittedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	storetest.TwoPreviewsOfOneDocument(t, func(t *testing.T) core.Store { return open(t, path) })
}
