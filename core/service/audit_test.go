package service_test

import (
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

var (
	agentActor  = core.Actor{Kind: core.ActorAgent, User: "alice", Client: "claude-code", ClientVersion: "1.2.3"}
	personActor = core.Actor{Kind: core.ActorPerson, User: "bob"}
)

// trail returns the audit records of handle, oldest first.
func (e *env) trail(handle string) []core.AuditRecord {
	e.t.Helper()
	recs, _, err := e.st.ListAudit(e.ctx, core.AuditFilter{Handle: handle}, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Reverse(recs)
	return recs
}

func events(recs []core.AuditRecord) []core.AuditEvent {
	var out []core.AuditEvent
	for _, r := range recs {
		out = append(out, r.Event)
	}
	return out
}

// An agent's preview and a person's commit of it through review leave
// three records: the preview (the agent, its client and version, the
// document, the digest), the commit's start (the person, the review
// channel, who previewed, the tracker account) and its end (committed, the
// keys written).
func TestAuditRecordsWhoPreviewedAndWhoConfirmed(t *testing.T) {
	e := newEnv(t)
	e.ctx = core.WithActor(t.Context(), agentActor)
	pre := e.preview(checkoutDoc())
	e.ctx = core.WithChannel(core.WithActor(t.Context(), personActor), core.ChannelReview)
	res := e.commit(pre.PreviewHandle, "idk_review")
	recs := e.trail(pre.PreviewHandle)
	if got := events(recs); !slices.Equal(got, []core.AuditEvent{core.AuditPreview, core.AuditCommitStarted, core.AuditCommitFinished}) {
		t.Fatalf("events %v; want preview, commit_started, commit_finished", got)
	}
	p, start, end := recs[0], recs[1], recs[2]
	if p.By == nil || *p.By != agentActor || !slices.Equal(p.Documents, []string{"checkout"}) || p.PlanDigest != pre.PlanDigest || p.Kind != core.PreviewImport || p.Scope != fakeprovider.DefaultScope {
		t.Errorf("preview record %+v", p)
	}
	for _, r := range []core.AuditRecord{start, end} {
		if r.By == nil || *r.By != personActor || r.PreviewedBy == nil || *r.PreviewedBy != agentActor || r.Channel != core.ChannelReview ||
			r.Account == nil || r.Account.ID != fakeprovider.FakeAccount.ID || r.Account.Name != fakeprovider.FakeAccount.Name || r.IdempotencyKey != "idk_review" || r.PlanDigest != pre.PlanDigest || !slices.Equal(r.Documents, []string{"checkout"}) {
			t.Errorf("%s record %+v", r.Event, r)
		}
	}
	var keys []string
	for _, it := range res.Items {
		if it.Outcome == core.OutcomeCommitted {
			keys = append(keys, it.Key)
		}
	}
	slices.Sort(keys)
	got := slices.Clone(end.Keys)
	slices.Sort(got)
	if end.Outcome != "committed" || len(keys) == 0 || !slices.Equal(got, keys) || start.Outcome != "" || len(start.Keys) != 0 {
		t.Errorf("start %+v\nend %+v; want the end committed with keys %v", start, end, keys)
	}
	if recs, _, _ := e.st.ListAudit(e.ctx, core.AuditFilter{Item: keys[0]}, 0); len(recs) != 1 || recs[0].Seq != end.Seq {
		t.Errorf("the trail filtered by key %s = %+v; want the commit's end", keys[0], recs)
	}
}

// The commit attempt is in the trail before its first write: a process
// that dies at its first create leaves the start record (who, channel,
// account, key), and no end.
func TestAuditStartIsRecordedBeforeTheFirstWrite(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime()
	pre := e.preview(checkoutDoc())
	e.ctx = core.WithActor(t.Context(), personActor)
	e.p.CrashAt(fakeprovider.OpCreate, 1, false)
	crash(t, func() {
		_, _ = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "idk_dies"})
	})
	recs := e.trail(pre.PreviewHandle)
	if got := events(recs); !slices.Equal(got, []core.AuditEvent{core.AuditPreview, core.AuditCommitStarted}) {
		t.Fatalf("events after a crash at the first write %v; want preview, commit_started", got)
	}
	if s := recs[1]; s.IdempotencyKey != "idk_dies" || s.Channel != core.ChannelPrompt || s.Account == nil || s.By == nil || *s.By != personActor {
		t.Errorf("start record %+v", s)
	}
}

// setPolicy sets the policy as a person.
func (e *env) setPolicy(p core.AgentPolicy) {
	e.t.Helper()
	if _, err := e.svc.SetGatePolicy(core.WithActor(e.t.Context(), personActor), p); err != nil {
		e.t.Fatal(err)
	}
}

// Under ask-person, an agent's confirmed: true alone is refused
// (CONFIRMATION_REQUIRED, nothing written, the refusal recorded); the
// same commit confirmed through an accepted elicitation goes ahead.
func TestPolicyAskPersonRefusesAnAgentsOwnConfirmation(t *testing.T) {
	e := newEnv(t)
	e.setPolicy(core.PolicyAskPerson)
	agent := core.WithActor(t.Context(), agentActor)
	e.ctx = agent
	pre := e.preview(checkoutDoc())
	_, err := e.svc.ImportCommit(agent, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeConfirmationRequired, "agents: ask-person", "confirmed: true alone is not enough", "Nothing was written")
	if w := e.p.Writes(); w != 0 {
		t.Fatalf("a refused commit wrote %d times", w)
	}
	recs := e.trail(pre.PreviewHandle)
	if got := events(recs); !slices.Equal(got, []core.AuditEvent{core.AuditPreview, core.AuditCommitRefused}) || recs[1].Channel != core.ChannelAgent || recs[1].Code != core.CodeConfirmationRequired {
		t.Fatalf("trail %+v; want the preview and the refusal (channel agent)", recs)
	}
	e.ctx = core.WithChannel(agent, core.ChannelElicitation)
	e.commit(pre.PreviewHandle, "")
	if w := e.p.Writes(); w == 0 {
		t.Fatal("the commit a person accepted through elicitation wrote nothing")
	}
	if got := events(e.trail(pre.PreviewHandle)); !slices.Equal(got[2:], []core.AuditEvent{core.AuditCommitStarted, core.AuditCommitFinished}) {
		t.Errorf("events %v", got)
	}
}

// Under preview-only, no agent commits, not even one a person accepted
// through elicitation; a person commits the agent's preview.
func TestPolicyPreviewOnlyLeavesCommitsToPeople(t *testing.T) {
	e := newEnv(t)
	e.setPolicy(core.PolicyPreviewOnly)
	e.ctx = core.WithActor(t.Context(), agentActor)
	pre := e.preview(checkoutDoc())
	for _, ch := range []core.Channel{core.ChannelAgent, core.ChannelElicitation} {
		_, err := e.svc.ImportCommit(core.WithChannel(e.ctx, ch), service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
		wantErr(t, err, core.CodeConfirmationRequired, "agents: preview-only", "a person reviews this preview")
	}
	if w := e.p.Writes(); w != 0 {
		t.Fatalf("refused commits wrote %d times", w)
	}
	e.ctx = core.WithChannel(core.WithActor(t.Context(), personActor), core.ChannelReview)
	e.commit(pre.PreviewHandle, "")
	if e.p.Writes() == 0 {
		t.Fatal("the person's commit wrote nothing")
	}
}

// The default policy is confirm (an agent's confirmed: true commits); an
// agent cannot set the policy; an unknown value is refused; a change is
// recorded with who made it.
func TestGatePolicyDefaultsAndWhoSetsIt(t *testing.T) {
	e := newEnv(t)
	if p, err := e.svc.GatePolicy(e.ctx); err != nil || p.Agents != core.PolicyConfirm {
		t.Fatalf("GatePolicy of a new store = %+v, %v; want confirm", p, err)
	}
	agent := core.WithActor(t.Context(), agentActor)
	e.ctx = agent
	e.importDoc(checkoutDoc()) // under confirm, the agent's confirmed: true commits
	e.ctx = t.Context()
	_, err := e.svc.SetGatePolicy(agent, core.PolicyConfirm)
	wantErr(t, err, core.CodeConfirmationRequired, "Only a person sets the gate policy")
	_, err = e.svc.SetGatePolicy(core.WithActor(t.Context(), personActor), "yolo")
	wantErr(t, err, core.CodeValidationFailed, `"yolo" is not a gate policy`, "confirm, ask-person, preview-only")
	e.setPolicy(core.PolicyAskPerson)
	p, err := e.svc.GatePolicy(e.ctx)
	if err != nil || p.Agents != core.PolicyAskPerson || p.SetBy == nil || *p.SetBy != personActor {
		t.Fatalf("GatePolicy after set = %+v, %v", p, err)
	}
	recs, _, _ := e.st.ListAudit(e.ctx, core.AuditFilter{}, 1)
	if len(recs) != 1 || recs[0].Event != core.AuditPolicySet || recs[0].Note != "agents: ask-person (was confirm)" || *recs[0].By != personActor {
		t.Fatalf("trail %+v; want the policy change last", recs)
	}
}
