package pgstore_test

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
)

// Two stores on one schema commit two previews of one document at once:
// one creates, the other is PREVIEW_STALE, no duplicates.
func TestTwoPreviewsOfOneDocumentCommittedAtOnce(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	storetest.TwoPreviewsOfOneDocument(t, func(t *testing.T) core.Store { return open(t, url, schema) })
}
