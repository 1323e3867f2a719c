package service

import (
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// A commit re-reads the items its preview read, once, before its first
// write, and refuses the plan when the tracker no longer shows them so:
// PREVIEW_STALE, nothing written. The import, progress and the pull check
// in this one shape: each item as the preview saw it (seen), compared with
// the tracker now (changedSince), and one refusal (refuseStale).

// seen is an item as a preview saw it in the tracker.
type seen struct {
	ref         core.Reference
	key         string
	fingerprint string
}

// changedSince says why the tracker's item now (found: it is there) is not
// the one the preview saw, or nil when it is.
func (v seen) changedSince(now core.WorkItem, found bool) *core.Detail {
	switch {
	case !found:
		return &core.Detail{Item: string(v.ref), Key: v.key, Message: fmt.Sprintf("%s (%s) is no longer in the tracker", v.ref, v.key)}
	case now.Key != v.key || now.Fingerprint != v.fingerprint:
		return &core.Detail{Item: string(v.ref), Key: now.Key, Message: fmt.Sprintf("%s (%s) changed in the tracker since the preview", v.ref, now.Key)}
	}
	return nil
}

// refuseStale is the refusal of a plan the tracker no longer matches:
// head says what changed (details: each item), next what to run again
// (a sentence: the new-preview advice a front door replaces with its own
// step when it asks for a preview again).
func refuseStale(head, next string, details ...core.Detail) *core.Error {
	return core.Errorf(core.CodePreviewStale, "%s, so the stored plan no longer matches it. Nothing was written. %s", head, next).
		WithRerun(strings.TrimSuffix(next, ".")).WithDetails(details...)
}

// rerunImport is the import's new-preview advice inside a sentence.
var rerunImport = core.RerunInSentence(core.PreviewImport)

// rerunPull is the pull's: a pull is previewed and committed again as one.
const rerunPull = "Run the pull again"
