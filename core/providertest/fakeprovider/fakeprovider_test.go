package fakeprovider_test

import (
	"context"
	"errors"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
)

// harness is the fake as a providertest.Harness.
type harness struct {
	fake     *fakeprovider.Provider
	provider core.WorkItemProvider
}

func (h harness) Provider() core.WorkItemProvider { return h.provider }
func (h harness) EditTitle(_ context.Context, key, title string) error {
	return h.fake.EditTitle(key, title)
}
func (h harness) Link(_ context.Context, blocked, blocker string) error {
	return h.fake.Link(blocked, blocker)
}
func (h harness) Close() error         { return nil }
func (h harness) FutureSprint() string { return "DEMO Sprint 2" }

func newHarness(lag bool) providertest.HarnessMaker {
	return func(context.Context, testing.TB) (providertest.Harness, error) {
		p := fakeprovider.New(fakeprovider.Options{SearchLag: lag})
		h := harness{fake: p, provider: p}
		if lag {
			// Search catches up "later": on every read after the first.
			h.provider = &settling{Provider: p}
		}
		return h, nil
	}
}

// settling makes lagging items searchable only after one lookup or query
// has missed them, so the suite's polling paths are exercised.
type settling struct {
	*fakeprovider.Provider
	missed bool
}

func (s *settling) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	s.settleLater()
	return s.Provider.Lookup(ctx, refs, known)
}

func (s *settling) Query(ctx context.Context, f core.Filter) ([]core.WorkItem, bool, error) {
	s.settleLater()
	return s.Provider.Query(ctx, f)
}

func (s *settling) settleLater() {
	if s.missed {
		s.Provider.Settle()
	}
	s.missed = !s.missed
}

func TestContract(t *testing.T)              { providertest.Run(t, newHarness(false)) }
func TestContractWithSearchLag(t *testing.T) { providertest.Run(t, newHarness(true)) }

func TestForbidWritesFailsTheTest(t *testing.T) {
	p := fakeprovider.New(fakeprovider.Options{})
	rec := &recorder{TB: t}
	p.ForbidWrites(rec)
	_, err := p.Create(context.Background(), []core.ItemSpec{{Reference: "d/s-1", Kind: core.KindStory, Title: "x"}})
	if err == nil || !rec.failed {
		t.Fatalf("a forbidden write: err=%v, test failed=%v; want an error and a failed test", err, rec.failed)
	}
	if n := len(p.Items()); n != 0 {
		t.Errorf("a forbidden create created %d items", n)
	}
	p.AllowWrites()
	if _, err := p.Create(context.Background(), []core.ItemSpec{{Reference: "d/s-1", Kind: core.KindStory, Title: "x"}}); err != nil {
		t.Fatalf("after AllowWrites: %v", err)
	}
	if w := p.Stats().Writes; w != 2 {
		t.Errorf("Writes = %d; want 2 (both create calls counted)", w)
	}
}

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestItemFaults(t *testing.T) {
	ctx := context.Background()
	p := fakeprovider.New(fakeprovider.Options{})
	p.FailItem(2, fakeprovider.ItemFail, nil)
	p.FailItem(3, fakeprovider.ItemLost, nil)
	specs := []core.ItemSpec{
		{Reference: "d/s-1", Kind: core.KindStory, Title: "one"},
		{Reference: "d/s-2", Kind: core.KindStory, Title: "two"},
		{Reference: "d/s-3", Kind: core.KindStory, Title: "three"},
		{Reference: "d/s-4", Kind: core.KindStory, Title: "four"},
	}
	out, err := p.Create(ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Key == "" || out[1].Err == nil || out[1].Key != "" || !out[2].Unknown || out[2].Key != "" || out[3].Key == "" {
		t.Fatalf("outcomes = %+v", out)
	}
	// The lost item exists in the tracker all the same.
	if n := len(p.Items()); n != 3 {
		t.Errorf("items = %d; want 3 (s-1, the lost s-3, s-4)", n)
	}
}

// RecordBase replaces the base values with the spec's (none: not known),
// so a conflict never shows a value behind an older base.
func TestRecordBaseReplacesBaseValues(t *testing.T) {
	ctx := context.Background()
	p := fakeprovider.New(fakeprovider.Options{})
	spec := core.ItemSpec{Reference: "d/s-1", Kind: core.KindStory, Title: "one",
		FieldBases: map[string]string{"title": core.ContentFieldDigest("one")}, BaseValues: map[string][]string{"title": {"one"}}}
	out, err := p.Create(ctx, []core.ItemSpec{spec})
	if err != nil || out[0].Err != nil {
		t.Fatalf("create: %v %+v", err, out)
	}
	w, err := p.Get(ctx, out[0].Key)
	if err != nil || w.BaseValues["title"][0] != "one" {
		t.Fatalf("after the create: %v %v", err, w.BaseValues)
	}
	moved := spec
	moved.FieldBases, moved.BaseValues = map[string]string{"title": core.ContentFieldDigest("two")}, nil
	if err := p.RecordBase(ctx, w.Key, w.Fingerprint, moved); err != nil {
		t.Fatal(err)
	}
	if w, _ := p.Get(ctx, w.Key); w.BaseValues != nil {
		t.Errorf("base values %v after RecordBase without any; want none (not known)", w.BaseValues)
	}
}

func TestCrashAndCallFaults(t *testing.T) {
	ctx := context.Background()
	p := fakeprovider.New(fakeprovider.Options{})
	boom := core.Errorf(core.CodeJiraUnavailable, "scripted")
	p.FailCall(fakeprovider.OpGet, 1, boom)
	if _, err := p.Get(ctx, "DEMO-1"); !errors.Is(err, boom) {
		t.Fatalf("first Get: %v; want the scripted error", err)
	}
	if _, err := p.Get(ctx, "DEMO-1"); core.ErrorCode(err) != core.CodeWorkItemNotFound {
		t.Fatalf("second Get: %v; want WORK_ITEM_NOT_FOUND", err)
	}
	p.FailItem(1, fakeprovider.ItemCrashAfter, nil)
	func() {
		defer func() {
			if r := recover(); r != fakeprovider.ErrCrash {
				t.Fatalf("recovered %v; want ErrCrash", r)
			}
		}()
		_, _ = p.Create(ctx, []core.ItemSpec{{Reference: "d/s-1", Kind: core.KindStory, Title: "one"}})
	}()
	if n := len(p.Items()); n != 1 {
		t.Errorf("items after a crash-after = %d; want 1", n)
	}
	// The provider stays usable after the simulated death.
	if _, err := p.Get(ctx, p.Items()[0].Key); err != nil {
		t.Fatal(err)
	}
}

// LoseResponse applies the write and then returns the error: the tracker
// changed though the caller was told it failed.
func TestLoseResponseAppliesTheWrite(t *testing.T) {
	ctx := context.Background()
	p := fakeprovider.New(fakeprovider.Options{})
	outs, err := p.Create(ctx, []core.ItemSpec{{Reference: "d/e-1", Kind: core.KindEpic, Title: "Old", Digest: "d1"}})
	if err != nil || len(outs) != 1 || outs[0].Key == "" {
		t.Fatalf("create: %+v, %v", outs, err)
	}
	key := outs[0].Key
	p.LoseResponse(fakeprovider.OpUpdate, 1, nil)
	err = p.Update(ctx, key, core.ItemSpec{Reference: "d/e-1", Kind: core.KindEpic, Title: "New", Digest: "d2"})
	if core.ErrorCode(err) != core.CodeJiraUnavailable || !core.AsError(err).Retryable {
		t.Fatalf("update with a lost response: %v; want a retryable JIRA_UNAVAILABLE", err)
	}
	if w, _ := p.Get(ctx, key); w.Title != "New" {
		t.Errorf("title %q: the update was not applied", w.Title)
	}
	p.LoseResponse(fakeprovider.OpComment, 0, nil)
	for range 2 {
		if err := p.AddComment(ctx, key, "note"); core.ErrorCode(err) != core.CodeJiraUnavailable {
			t.Fatalf("comment with a lost response: %v", err)
		}
	}
	if n := len(p.Comments(key)); n != 2 {
		t.Errorf("%d comments; want 2 (applied every time)", n)
	}
	p.LoseResponse(fakeprovider.OpTransition, 1, nil)
	if err := p.Transition(ctx, key, "31"); core.ErrorCode(err) != core.CodeJiraUnavailable {
		t.Fatalf("transition with a lost response: %v", err)
	}
	if w, _ := p.Get(ctx, key); w.Status != core.StatusDone {
		t.Errorf("status %s: the transition was not applied", w.Status)
	}
}

// Hold stops the n-th call of an op before it takes effect until resumed;
// other calls go on meanwhile.
func TestHoldPausesACallBeforeItsEffect(t *testing.T) {
	ctx := context.Background()
	p := fakeprovider.New(fakeprovider.Options{})
	reached, resume := p.Hold(fakeprovider.OpCreate, 2)
	if _, err := p.Create(ctx, []core.ItemSpec{{Reference: "d/e-1", Kind: core.KindEpic, Title: "One", Digest: "d1"}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Create(ctx, []core.ItemSpec{{Reference: "d/e-2", Kind: core.KindEpic, Title: "Two", Digest: "d2"}})
		done <- err
	}()
	<-reached
	if n := len(p.Items()); n != 1 {
		t.Fatalf("%d items while the second create is held; want 1", n)
	}
	if _, err := p.Get(ctx, p.Items()[0].Key); err != nil { // other calls go on
		t.Fatal(err)
	}
	resume()
	resume() // idempotent
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(p.Items()); n != 2 {
		t.Errorf("%d items after resume; want 2", n)
	}
}

func (h harness) SetFieldAsPerson(_ context.Context, key, field string, values []string) error {
	return h.fake.SetField(key, field, values)
}
