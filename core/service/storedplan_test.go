package service_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// rewritingStore returns stored plans rewritten by f, as a store holding
// a plan written by another version of DevWorkWire would.
type rewritingStore struct {
	*memstore.Store
	f func([]byte) []byte
}

func (s rewritingStore) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	p, err := s.Store.LoadPreview(ctx, handle)
	if err == nil {
		p.Plan = s.f(p.Plan)
	}
	return p, err
}

// A stored plan of another format version is refused by every reader of
// stored plans — the commit and the show-a-stored-preview read alike (the
// latter used to decode it without a version check) — and nothing is
// written.
func TestStoredPlanOfAnotherVersionIsRefusedEverywhere(t *testing.T) {
	e := newEnv(t)
	e.importDoc(checkoutDoc())
	imp := e.preview(markdown("checkout", checkoutItems[:2]...))
	prog := progressPreview(t, e, service.ProgressPreviewInput{Item: "checkout/s-1", Status: core.StatusDone})
	future := func(b []byte) []byte { return bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1) }
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: rewritingStore{e.st, future}, Now: e.clock.Now})
	e.p.ForbidWrites(t)
	for _, h := range []string{imp.PreviewHandle, prog.PreviewHandle} {
		_, err := svc.StoredPreview(e.ctx, h)
		wantErr(t, err, core.CodeInternal, "format version 2", "Nothing was written")
	}
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: imp.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeInternal, "format version 2", "run the import preview again")
	_, err = svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: prog.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeInternal, "format version 2", "run the progress preview again")

	// The same plans, as stored, are shown and committed.
	e.p.AllowWrites()
	info, err := e.svc.StoredPreview(e.ctx, imp.PreviewHandle)
	if err != nil || info.Import == nil || info.Import.Counts != imp.Counts || len(info.Import.Items) != len(imp.Items) {
		t.Fatalf("StoredPreview = %+v, %v; want the preview as made", info, err)
	}
	if res := e.commit(imp.PreviewHandle, ""); res.Counts.Unchanged != 2 {
		t.Errorf("commit %+v", res.Counts)
	}
}

// A stored plan written by an earlier build (its "result" held the whole
// preview result, handle and counts included) still decodes: the stored
// format has its own types, and fields only a result has are ignored.
func TestStoredPlanOfAnEarlierBuildStillDecodes(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(markdown("checkout", checkoutItems[:2]...))
	old := func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"result":{`), []byte(`"result":{"result_type":"preview","preview_handle":"","expires_at":"0001-01-01T00:00:00Z","counts":{"create":9},"items":null,"future_field":true,`), 1)
	}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: rewritingStore{e.st, old}, Now: e.clock.Now})
	info, err := svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil || info.Import.Counts != pre.Counts || info.Import.PreviewHandle != pre.PreviewHandle || info.Import.Document != "checkout" {
		t.Fatalf("StoredPreview of an earlier build's plan = %+v, %v; want %+v", info.Import, err, pre.Counts)
	}
}
