package storetest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// testAudit: audit records are appended with increasing sequence numbers,
// read back newest first exactly as appended (survive a reopen), filtered
// by handle, document, item (or a written key), who and channel, and
// time, bounded by the limit with truncated set; concurrent appends all
// land with distinct numbers; Prune deletes only the records older than
// Retention.Audit (one exactly that old is kept).
func testAudit(t *testing.T, e *env) {
	a := capability[core.AuditStore](t, e)
	ctx, now := t.Context(), e.clock.Now().UTC().Truncate(time.Second)
	if got, more, err := a.ListAudit(ctx, core.AuditFilter{}, 0); err != nil || len(got) != 0 || more {
		t.Fatalf("ListAudit of a new store = %+v, %v, %v; want none", got, more, err)
	}
	alice := &core.Actor{Kind: core.ActorPerson, User: "alice"}
	bot := &core.Actor{Kind: core.ActorAgent, User: "alice", Client: "claude-code", ClientVersion: "1.2.3"}
	recs := []core.AuditRecord{
		{At: now, Event: core.AuditPreview, Scope: "https://a.atlassian.net/A", Kind: core.PreviewImport, Handle: "imp_1", Documents: []string{"plan"}, By: bot, PlanDigest: "sha256:aa"},
		{At: now.Add(time.Minute), Event: core.AuditCommitStarted, Scope: "https://a.atlassian.net/A", Kind: core.PreviewImport, Handle: "imp_1", Documents: []string{"plan"}, By: alice, PreviewedBy: bot, Channel: core.ChannelReview, Account: &core.Account{ID: "557058:1", Name: "Alice"}, PlanDigest: "sha256:aa", IdempotencyKey: "idk_1", RunID: "run_1"},
		{At: now.Add(2 * time.Minute), Event: core.AuditCommitFinished, Scope: "https://a.atlassian.net/A", Kind: core.PreviewImport, Handle: "imp_1", Documents: []string{"plan"}, By: alice, PreviewedBy: bot, Channel: core.ChannelReview, Account: &core.Account{ID: "557058:1", Name: "Alice"}, Outcome: "committed", Keys: []string{"A-1", "A-2"}},
		{At: now.Add(3 * time.Minute), Event: core.AuditCommitRefused, Kind: core.PreviewProgress, Handle: "prg_2", Item: "A-7", By: bot, Channel: core.ChannelAgent, Outcome: "refused", Code: core.CodeConfirmationRequired, Note: "agents: ask-person"},
	}
	var last int64
	for i, r := range recs {
		seq, err := a.AppendAudit(ctx, r)
		if err != nil || seq <= last {
			t.Fatalf("AppendAudit #%d = %d, %v; want a number above %d", i, seq, err, last)
		}
		recs[i].Seq, last = seq, seq
	}
	check := func(when string, a core.AuditStore) {
		t.Helper()
		got, more, err := a.ListAudit(ctx, core.AuditFilter{}, 0)
		if err != nil || more || len(got) != len(recs) {
			t.Fatalf("%s: ListAudit = %d records, %v, %v; want %d", when, len(got), more, err, len(recs))
		}
		for i, r := range got {
			want := recs[len(recs)-1-i]
			if !sameAudit(r, want) {
				t.Errorf("%s: record %d = %+v\nwant %+v", when, i, r, want)
			}
		}
	}
	check("after AppendAudit", a)
	e.s = e.open()
	a = e.s.(core.AuditStore)
	check("after a reopen", a)

	for _, c := range []struct {
		name string
		f    core.AuditFilter
		want []int // indexes into recs, newest first
	}{
		{"handle", core.AuditFilter{Handle: "imp_1"}, []int{2, 1, 0}},
		{"document", core.AuditFilter{Document: "plan"}, []int{2, 1, 0}},
		{"item", core.AuditFilter{Item: "A-7"}, []int{3}},
		{"written key", core.AuditFilter{Item: "a-2"}, []int{2}},
		{"person", core.AuditFilter{Who: "alice"}, []int{3, 2, 1, 0}},
		{"client", core.AuditFilter{Who: "claude-code"}, []int{3, 2, 1, 0}},
		{"channel", core.AuditFilter{Channel: core.ChannelReview}, []int{2, 1}},
		{"account", core.AuditFilter{Account: "557058:1"}, []int{2, 1}},
		{"other account", core.AuditFilter{Account: "557058:2"}, nil},
		{"since", core.AuditFilter{Since: now.Add(time.Minute)}, []int{3, 2, 1}},
		{"until", core.AuditFilter{Until: now.Add(time.Minute)}, []int{0}},
		{"none", core.AuditFilter{Document: "other"}, nil},
	} {
		got, _, err := a.ListAudit(ctx, c.f, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var seqs, want []int64
		for _, r := range got {
			seqs = append(seqs, r.Seq)
		}
		for _, i := range c.want {
			want = append(want, recs[i].Seq)
		}
		if !slices.Equal(seqs, want) {
			t.Errorf("ListAudit(%s) = %v; want %v", c.name, seqs, want)
		}
	}
	if got, more, err := a.ListAudit(ctx, core.AuditFilter{}, 2); err != nil || !more || len(got) != 2 || got[0].Seq != recs[3].Seq {
		t.Errorf("ListAudit(limit 2) = %d records, more %v, %v; want the 2 newest and more", len(got), more, err)
	}
	if got, more, err := a.ListAudit(ctx, core.AuditFilter{Handle: "imp_1"}, 3); err != nil || more || len(got) != 3 {
		t.Errorf("ListAudit(limit = matches) = %d, more %v, %v; want 3 and no more", len(got), more, err)
	}

	var wg sync.WaitGroup
	seqs := make([]int64, 8)
	for i := range seqs {
		wg.Go(func() {
			seq, err := a.AppendAudit(ctx, core.AuditRecord{At: now.Add(time.Hour), Event: core.AuditPreview, Handle: "imp_c"})
			if err != nil {
				t.Errorf("concurrent AppendAudit: %v", err)
			}
			seqs[i] = seq
		})
	}
	wg.Wait()
	slices.Sort(seqs)
	if len(slices.Compact(seqs)) != 8 || seqs[0] <= last {
		t.Errorf("concurrent appends got numbers %v; want 8 distinct ones above %d", seqs, last)
	}

	// Exactly at the retention's end nothing is old enough yet.
	if n, err := e.s.Prune(ctx, now.Add(24*time.Hour), core.Retention{Audit: 24 * time.Hour}); err != nil || n.Audit != 0 {
		t.Fatalf("Prune(at the oldest record's retention end) = %+v, %v; want no audit record deleted", n, err)
	}
	n, err := e.s.Prune(ctx, now.Add(90*time.Second).Add(24*time.Hour), core.Retention{Audit: 24 * time.Hour})
	if err != nil || n.Audit != 2 {
		t.Fatalf("Prune(audit older than a day) = %+v, %v; want 2 audit records", n, err)
	}
	if got, _, err := a.ListAudit(ctx, core.AuditFilter{Handle: "imp_1"}, 0); err != nil || len(got) != 1 || got[0].Seq != recs[2].Seq {
		t.Errorf("after Prune: %+v, %v; want only the finished commit of imp_1", got, err)
	}
	if n, err := e.s.Prune(ctx, now.Add(24*time.Hour), core.Retention{}); err != nil || n.Audit != 0 {
		t.Errorf("Prune with the default retention (a year) = %+v, %v; want no audit record deleted", n, err)
	}
}

// sameAudit compares records by what they say (times as instants).
func sameAudit(a, b core.AuditRecord) bool {
	ja, _ := core.EncodeAudit(a)
	jb, _ := core.EncodeAudit(b)
	return a.Seq == b.Seq && a.At.Equal(b.At) && string(ja) == string(jb)
}

// testPolicy: a new store has the default policy (confirm); a saved one
// is read back (also after a reopen) and replaced by the next; an
// unknown value is refused (VALIDATION_FAILED) and changes nothing.
func testPolicy(t *testing.T, e *env) {
	a := capability[core.AuditStore](t, e)
	ctx, now := t.Context(), e.clock.Now().UTC().Truncate(time.Second)
	if p, err := a.LoadPolicy(ctx); err != nil || p.Agents != core.PolicyConfirm || !p.SetAt.IsZero() || p.SetBy != nil {
		t.Fatalf("LoadPolicy of a new store = %+v, %v; want the default (confirm)", p, err)
	}
	set := core.GatePolicy{Agents: core.PolicyAskPerson, SetAt: now, SetBy: &core.Actor{Kind: core.ActorPerson, User: "lead"}}
	if err := a.SavePolicy(ctx, set); err != nil {
		t.Fatal(err)
	}
	if err := a.SavePolicy(ctx, core.GatePolicy{Agents: "anything-goes", SetAt: now}); core.ErrorCode(err) != core.CodeValidationFailed {
		t.Errorf("SavePolicy(unknown) = %v; want VALIDATION_FAILED", err)
	}
	e.s = e.open()
	a = e.s.(core.AuditStore)
	p, err := a.LoadPolicy(ctx)
	if err != nil || p.Agents != core.PolicyAskPerson || !p.SetAt.Equal(now) || p.SetBy == nil || *p.SetBy != *set.SetBy {
		t.Fatalf("LoadPolicy after a reopen = %+v, %v; want %+v", p, err, set)
	}
	if err := a.SavePolicy(ctx, core.GatePolicy{Agents: core.PolicyPreviewOnly, SetAt: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if p, err := a.LoadPolicy(ctx); err != nil || p.Agents != core.PolicyPreviewOnly || p.SetBy != nil {
		t.Errorf("LoadPolicy after a second SavePolicy = %+v, %v; want preview-only", p, err)
	}
}

// AuditNeverRewritten checks a SQL store's refusal of an UPDATE of its
// audit table: a record is appended to a; each of updates (run by exec
// with the record's sequence number as its one argument) must fail with
// the trigger's "never rewritten"; the record must read back as
// appended; then, once drop removed the trigger, the first update must go
// through and change one row (so the refusal was the trigger's, not a
// mistake in the statement).
func AuditNeverRewritten(t *testing.T, a core.AuditStore, updates []string, exec func(stmt string, seq int64) (rows int64, err error), drop func() error) {
	t.Helper()
	ctx := t.Context()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	seq, err := a.AppendAudit(ctx, core.AuditRecord{At: at, Event: core.AuditPreview, Handle: "imp_a", Documents: []string{"plan"}, By: &core.Actor{Kind: core.ActorPerson, User: "alice"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range updates {
		if _, err := exec(stmt, seq); err == nil || !strings.Contains(err.Error(), "never rewritten") {
			t.Errorf("%s = %v; want the trigger's refusal", stmt, err)
		}
	}
	got, _, err := a.ListAudit(ctx, core.AuditFilter{}, 0)
	if err != nil || len(got) != 1 || got[0].Seq != seq || got[0].By == nil || got[0].By.User != "alice" || !got[0].At.Equal(at) {
		t.Fatalf("after the refused UPDATEs the trail = %+v, %v; want the record as appended", got, err)
	}
	if err := drop(); err != nil {
		t.Fatal(err)
	}
	if n, err := exec(updates[0], seq); err != nil || n != 1 {
		t.Fatalf("%s without the trigger = %d rows, %v; want 1 row changed", updates[0], n, err)
	}
}
