package service_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// Two imports of one document from separate state stores whose commits
// start at the same moment, while the tracker's search lags: both stale
// checks pass (neither has written), both create. The one whose creates
// land second detects it right after its creates (DuplicateChecker, which
// reads the items, not the search index) and reports it: COMMIT_PARTIAL,
// not retryable, run partial, naming every reference held twice with its
// issues (oldest first) and what to do. The first, whose check ran before
// the second wrote, is committed. Before, both reported "committed".
func TestSameMomentCommitsFromSeparateStoresReportTheDuplicates(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	doc := checkoutDoc()
	n := len(checkoutItems)
	a := e.svc
	bStore := memstore.New(memstore.Options{Now: e.clock.Now}) // another person's own store
	b := e.serviceWith(service.ServiceOptions{Store: bStore, Logger: slog.New(slog.DiscardHandler)})
	pa := e.preview(doc)
	pb, err := b.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	if err != nil || pb.Counts.Create != n {
		t.Fatalf("B's preview: %+v, %v", pb.Counts, err)
	}

	// A's commit passes its stale check and stops before its first create
	// takes effect; B commits meanwhile (its stale check sees nothing of
	// A's); then A's creates land.
	reached, resume := e.p.Hold(fakeprovider.OpCreate, 1)
	waitA := e.commitAsync(a, pa.PreviewHandle, "A")
	<-reached
	resB, err := b.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pb.PreviewHandle, Confirmed: true, IdempotencyKey: "B"})
	if err != nil || resB.Counts.Created != n {
		t.Fatalf("B's commit: %+v, %v; want all %d created", resB.Counts, err, n)
	}
	resume()
	aErr := waitA()

	ce, ok := aErr.(*core.Error)
	if !ok || ce.Code != core.CodeCommitPartial {
		t.Fatalf("A's commit = %v; want COMMIT_PARTIAL reporting the duplicates", aErr)
	}
	if ce.Retryable {
		t.Error("retryable = true; repeating the commit cannot fix a duplicate")
	}
	for _, f := range []string{"Everything was written", "6 reference(s) are now held by more than one issue", "separate state store", "keep its oldest issue", "delete the others"} {
		if !strings.Contains(ce.Message, f) {
			t.Errorf("message %q lacks %q", ce.Message, f)
		}
	}
	holders := map[string][]string{}
	for _, it := range e.p.Items() {
		holders[string(it.Reference)] = append(holders[string(it.Reference)], it.Key)
	}
	dupDetails := 0
	for _, d := range ce.Details {
		keys := holders[d.Item]
		if len(keys) != 2 {
			t.Fatalf("%s is held by %v; want the two imports' issues", d.Item, keys)
		}
		if d.Outcome != core.OutcomeCommitted || d.Key != keys[1] || d.Code != core.CodeCommitPartial ||
			!strings.Contains(d.Message, "DUPLICATE") || !strings.Contains(d.Message, "keep "+keys[0]) || !strings.Contains(d.Message, "delete "+keys[1]) {
			t.Errorf("detail %+v; want A's key %s, keep %s, delete %s", d, keys[1], keys[0], keys[1])
		}
		dupDetails++
	}
	if dupDetails != n {
		t.Errorf("%d details; want one per reference (%d)", dupDetails, n)
	}
	if run, _, _ := e.st.GetRun(e.ctx, "A"); run.State != core.RunPartial {
		t.Errorf("A's run is %s; want partial", run.State)
	}
	// The same key replays the report.
	if _, err := a.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pa.PreviewHandle, Confirmed: true, IdempotencyKey: "A"}); core.ErrorCode(err) != core.CodeCommitPartial || !strings.Contains(err.Error(), "more than one issue") {
		t.Errorf("replay = %v", err)
	}
	if got := e.p.Stats().Calls[fakeprovider.OpDuplicates]; got != 2 {
		t.Errorf("%d duplicate checks; want one per commit", got)
	}
}

// A commit nobody else raced reports nothing and makes one check; a
// commit that creates nothing makes none.
func TestDuplicateCheckWhenAlone(t *testing.T) {
	e := newEnv(t)
	res := e.importDoc(checkoutDoc())
	if res.Counts.Created != len(checkoutItems) {
		t.Fatalf("counts %+v", res.Counts)
	}
	if got := e.p.Stats().Calls[fakeprovider.OpDuplicates]; got != 1 {
		t.Errorf("%d duplicate checks; want 1", got)
	}
	items := append([]docItem(nil), checkoutItems...)
	items[1].title = "Pay as a guest"
	e.importDoc(markdown("checkout", items...)) // an update only
	if got := e.p.Stats().Calls[fakeprovider.OpDuplicates]; got != 1 {
		t.Errorf("%d duplicate checks after an update-only commit; want still 1", got)
	}
}
