package service_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// TestPreviewRefusesWhatTheTrackerWouldRefuse: an item the tracker would
// refuse as too large at Create (or Update) — its text as the tracker
// counts it, criteria included, over the limit, although core/plan's own
// checks pass — is refused by the preview, as VALIDATION_FAILED naming
// every such item with its line, size and limit, all at once: no preview
// stored, zero writes. Before, the preview planned it as a create and the
// commit failed.
func TestPreviewRefusesWhatTheTrackerWouldRefuse(t *testing.T) {
	const limit = 60
	e := newEnv(t, fakeprovider.Options{TextLimit: limit})
	big := story("s-1", "Big", "e-1")
	big.desc = strings.Repeat("x", limit-5) // under the limit alone; the criteria push it over
	huge := story("s-3", "Huge", "e-1")
	huge.desc = strings.Repeat("y", limit+10)
	doc := markdown("sized", epic("e-1", "Epic"), big, story("s-2", "Small", "e-1"), huge)
	e.p.ForbidWrites(t)
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	e.p.AllowWrites()
	ce := wantErr(t, err, core.CodeValidationFailed, "2 item(s)", "Nothing was stored")
	if len(ce.Details) != 2 {
		t.Fatalf("details = %+v; want one per oversized item", ce.Details)
	}
	for i, want := range []struct {
		ref  string
		size int
	}{{"sized/s-1", fakeprovider.TextSize(core.ItemSpec{Description: big.desc, AcceptanceCriteria: big.ac})}, {"sized/s-3", fakeprovider.TextSize(core.ItemSpec{Description: huge.desc, AcceptanceCriteria: huge.ac})}} {
		d := ce.Details[i]
		if d.Item != want.ref || d.Field != "description" || d.Line == 0 ||
			!strings.Contains(d.Message, strconv.Itoa(want.size)) || !strings.Contains(d.Message, strconv.Itoa(limit)) {
			t.Errorf("detail %d = %+v; want %s, its line, size %d and limit %d", i, d, want.ref, want.size, limit)
		}
	}
	if n := e.p.Writes(); n != 0 {
		t.Errorf("%d writes; want 0", n)
	}

	// Shortened, the same document previews and commits.
	big.desc, huge.desc = "short", "short"
	e.importDoc(markdown("sized", epic("e-1", "Epic"), big, story("s-2", "Small", "e-1"), huge))

	// An update that would grow past the limit is refused the same way.
	huge.desc = strings.Repeat("z", limit+1)
	_, err = e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(markdown("sized", epic("e-1", "Epic"), big, story("s-2", "Small", "e-1"), huge))})
	ce = wantErr(t, err, core.CodeValidationFailed, "1 item(s)")
	if len(ce.Details) != 1 || ce.Details[0].Item != "sized/s-3" {
		t.Errorf("details = %+v; want sized/s-3", ce.Details)
	}
}

// TestPreviewWithoutItemChecker: a provider without the capability is
// trusted: the preview plans the item (the commit may still refuse it).
func TestPreviewWithoutItemChecker(t *testing.T) {
	e := newEnv(t)
	e.svc = e.service(struct{ core.WorkItemProvider }{e.p}) // hides CheckItems
	res := e.preview(checkoutDoc())
	if res.Counts.Create != len(checkoutItems) {
		t.Errorf("counts = %+v", res.Counts)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpCheckItems]; n != 0 {
		t.Errorf("CheckItems called %d times through a provider without it", n)
	}
}
