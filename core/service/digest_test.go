package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// swapStore models a state store whose stored plan (and its digest) was
// rewritten by someone who can write the store, after the preview was
// shown: LoadPreview returns the new plan, StartRun compares digests with
// it, as every store does.
type swapStore struct {
	*memstore.Store
	mu    sync.Mutex
	plans map[string][]byte
}

func (s *swapStore) swap(handle string, plan []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plans[handle] = plan
}

func (s *swapStore) swapped(handle string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.plans[handle]
	return b, ok
}

func (s *swapStore) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	p, err := s.Store.LoadPreview(ctx, handle)
	if b, ok := s.swapped(handle); ok && err == nil {
		p.Plan, p.Digest = b, core.PlanDigest(b)
	}
	return p, err
}

func (s *swapStore) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	if b, ok := s.swapped(req.Handle); ok {
		if err := core.CheckPlanDigest(req.Handle, "", req.PlanDigest, core.PlanDigest(b)); err != nil {
			return core.Run{}, false, err
		}
		req.PlanDigest = "" // the inner store holds the original
	}
	return s.Store.StartRun(ctx, req)
}

// The person confirms the plan they were shown, and exactly that plan is
// written: a commit with the preview's plan_digest refuses a stored plan
// that was swapped after the preview (PREVIEW_STALE, zero writes, the
// handle still unused), for import and progress alike.
func TestCommitRefusesAPlanSwappedAfterThePreview(t *testing.T) {
	e := newEnv(t)
	st := &swapStore{Store: e.st, plans: map[string][]byte{}}
	svc := e.serviceWith(service.ServiceOptions{Store: st})
	shown, err := svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(markdown("checkout", checkoutItems[:2]...))})
	if err != nil {
		t.Fatal(err)
	}
	if shown.PlanDigest == "" {
		t.Fatal("the preview carries no plan_digest")
	}
	// Someone with write access to the store puts a bigger plan under the
	// same handle (3 stories injected).
	other, err := svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(checkoutDoc())})
	if err != nil {
		t.Fatal(err)
	}
	injected, err := e.st.LoadPreview(e.ctx, other.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	st.swap(shown.PreviewHandle, injected.Plan)

	e.p.ForbidWrites(t)
	_, err = svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: shown.PreviewHandle, Confirmed: true, PlanDigest: shown.PlanDigest})
	wantErr(t, err, core.CodePreviewStale, "not the plan that was shown", "Nothing was written", "Run the import preview again")
	if p, _ := e.st.LoadPreview(e.ctx, shown.PreviewHandle); !p.ConsumedAt.IsZero() {
		t.Error("the refused commit consumed the handle")
	}
	// The store's own refusal, should the plan change between the load and
	// the run's start, reads the same.
	ce := core.AsError(core.CheckPlanDigest(shown.PreviewHandle, "", " "+shown.PlanDigest+" ", injected.Digest))
	if ce.Code != core.CodePreviewStale || ce.Message != core.RefusePlanChanged(shown.PreviewHandle, "", shown.PlanDigest, injected.Digest).Message {
		t.Errorf("core.CheckPlanDigest = %v", ce)
	}
	for _, confirmed := range []string{"", " ", shown.PlanDigest, " " + shown.PlanDigest} {
		if err := core.CheckPlanDigest(shown.PreviewHandle, "", confirmed, shown.PlanDigest); err != nil {
			t.Errorf("CheckPlanDigest(%q) of the stored plan: %v", confirmed, err)
		}
	}

	// Progress: the same.
	e.p.AllowWrites()
	e.importDoc(checkoutDoc())
	key := e.byRef()["checkout/s-1"].Key
	pshown, err := svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: key, Comment: "shipped"})
	if err != nil {
		t.Fatal(err)
	}
	pother, err := svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: key, Status: core.StatusDone, Comment: "something else"})
	if err != nil {
		t.Fatal(err)
	}
	pinjected, _ := e.st.LoadPreview(e.ctx, pother.PreviewHandle)
	st.swap(pshown.PreviewHandle, pinjected.Plan)
	e.p.ForbidWrites(t)
	_, err = svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pshown.PreviewHandle, Confirmed: true, PlanDigest: pshown.PlanDigest})
	wantErr(t, err, core.CodePreviewStale, "not the plan that was shown", "Run the progress preview again")

	// With the digest of the plan as it is now, the commit goes ahead.
	e.p.AllowWrites()
	if _, err := svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: pshown.PreviewHandle, Confirmed: true, PlanDigest: core.PlanDigest(pinjected.Plan)}); err != nil {
		t.Errorf("commit with the current digest: %v", err)
	}
}

// StoredPreview shows the digest a reviewer confirms, the one the preview
// returned.
func TestStoredPreviewCarriesThePlanDigest(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(checkoutDoc())
	info, err := e.svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil || info.Import.PlanDigest == "" || info.Import.PlanDigest != pre.PlanDigest {
		t.Fatalf("StoredPreview digest %q, preview %q (%v)", info.Import.PlanDigest, pre.PlanDigest, err)
	}
}
