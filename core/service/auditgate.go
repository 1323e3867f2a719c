package service

import (
	"context"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// audits returns the store's AuditStore, or nil.
func (s *WorkItemService) audits() core.AuditStore {
	a, _ := s.st.(core.AuditStore)
	return a
}

// appendAudit stamps r (time, scope) and appends it.
func (s *WorkItemService) appendAudit(ctx context.Context, r core.AuditRecord) error {
	as := s.audits()
	if as == nil {
		return nil
	}
	if r.At.IsZero() {
		r.At = core.UTCSecond(s.now())
	}
	if r.Scope == "" {
		r.Scope = s.p.Scope()
	}
	_, err := as.AppendAudit(context.WithoutCancel(ctx), r)
	return err
}

// policy is the gate policy in force (DefaultGatePolicy without an
// AuditStore).
func (s *WorkItemService) policy(ctx context.Context) (core.GatePolicy, error) {
	as := s.audits()
	if as == nil {
		return core.DefaultGatePolicy, nil
	}
	return as.LoadPolicy(ctx)
}

// auditPreview records a stored preview and who made it. Best effort: the
// preview wrote nothing, and its plan is stored; a store fault is logged.
func (s *WorkItemService) auditPreview(ctx context.Context, p core.Preview, plan any) {
	a := core.ActorFrom(ctx)
	r := core.AuditRecord{At: p.CreatedAt, Event: core.AuditPreview, Scope: p.Scope, Kind: p.Kind, Handle: p.Handle, By: &a, PlanDigest: p.Digest, RunID: core.RunIDFrom(ctx)}
	r.Documents, r.Item = planSubject(plan)
	if err := s.appendAudit(ctx, r); err != nil {
		s.log.Warn("could not record the preview in the audit trail", "code", core.ErrorCode(err), "handle", p.Handle)
	}
}

// planSubject is what a plan is about: its documents, or its work item.
func planSubject(plan any) (documents []string, item string) {
	switch pl := plan.(type) {
	case importPlan:
		for _, d := range pl.Head.docs() {
			documents = append(documents, d.ID)
		}
	case *importPlan:
		return planSubject(*pl)
	case progressPlan:
		item = pl.Key
	case *progressPlan:
		item = pl.Key
	case pullPlan:
		documents = []string{pl.Pull.Document}
	case *pullPlan:
		documents = []string{pl.Pull.Document}
	}
	return documents, item
}

// previewRecord is the audit record of the preview of handle (found
// false when the trail has none).
func (s *WorkItemService) previewRecord(ctx context.Context, handle string) (core.AuditRecord, bool) {
	as := s.audits()
	if as == nil {
		return core.AuditRecord{}, false
	}
	recs, _, err := as.ListAudit(ctx, core.AuditFilter{Handle: handle}, 0)
	if err != nil {
		return core.AuditRecord{}, false
	}
	for _, r := range recs {
		if r.Event == core.AuditPreview {
			return r, true
		}
	}
	return core.AuditRecord{}, false
}

// commitRecord is the part every record of a commit attempt shares.
func (s *WorkItemService) commitRecord(ctx context.Context, event core.AuditEvent, kind core.PreviewKind, handle string) core.AuditRecord {
	a := core.ActorFrom(ctx)
	r := core.AuditRecord{Event: event, Kind: kind, Handle: handle, By: &a, Channel: core.ChannelFrom(ctx, a), RunID: core.RunIDFrom(ctx)}
	if p, ok := s.previewRecord(ctx, handle); ok {
		r.PreviewedBy, r.Documents, r.Item, r.PlanDigest = p.By, p.Documents, p.Item, p.PlanDigest
	}
	return r
}

// checkPolicy applies the team's gate policy to an agent's commit: under
// preview-only no agent commits; under ask-person only one whose host
// asked the person, who accepted. A refusal is recorded.
func (s *WorkItemService) checkPolicy(ctx context.Context, o *op, kind core.PreviewKind, handle string) error {
	a := core.ActorFrom(ctx)
	if a.Kind != core.ActorAgent {
		return nil
	}
	pol, err := s.policy(ctx)
	if err != nil {
		return err
	}
	var refusal *core.Error
	switch ch := core.ChannelFrom(ctx, a); {
	case pol.Agents == core.PolicyPreviewOnly:
		refusal = core.Errorf(core.CodeConfirmationRequired, "The team's gate policy (agents: preview-only) lets agents preview but not commit: a person reviews this preview and commits it. Nothing was written.")
	case pol.Agents == core.PolicyAskPerson && ch != core.ChannelElicitation:
		refusal = core.Errorf(core.CodeConfirmationRequired, "The team's gate policy (agents: ask-person) lets an agent's commit go ahead only when its host asked the person and they accepted; confirmed: true alone is not enough. Nothing was written. Have a person review this preview and commit it, or use a host that asks the person.")
	default:
		return nil
	}
	refusal = refusal.WithDetails(core.Detail{Field: "policy", Message: "agents: " + string(pol.Agents)})
	r := s.commitRecord(ctx, core.AuditCommitRefused, kind, handle)
	r.Outcome, r.Code, r.Note = "refused", core.CodeConfirmationRequired, "agents: "+string(pol.Agents)
	if err := s.appendAudit(ctx, r); err != nil {
		o.log.Warn("could not record the refused commit in the audit trail", "code", core.ErrorCode(err))
	}
	return refusal
}

// account is the tracker account the provider writes as (nil when the
// provider cannot say): the one known without a request (knownAccount),
// else the provider's read of it.
func (s *WorkItemService) account(ctx context.Context) (*core.Account, error) {
	ar, ok := s.p.(core.AccountReader)
	if !ok || s.audits() == nil {
		return nil, nil
	}
	if a, known := s.knownAccount(ctx); known {
		return &a, nil
	}
	a, err := ar.Account(ctx)
	if err != nil {
		return nil, err
	}
	a.NameRead = core.UTCSecond(s.now())
	return &a, nil
}

// accountNameFor is how long a display name read from the tracker stands
// for its account in later records: a name changed in the tracker is
// recorded from the first commit after that long at the latest.
const accountNameFor = 7 * 24 * time.Hour

// knownAccount names the account the provider writes as without a
// request to the tracker: the provider's own knowledge of it when whole
// (core.AccountSeer: read in this process), else the id its answers named
// with the display name of the audit trail's newest record of that id,
// if that name was read within accountNameFor. known is false when it
// cannot name both.
func (s *WorkItemService) knownAccount(ctx context.Context) (a core.Account, known bool) {
	sa, ok := s.p.(core.AccountSeer)
	if !ok {
		return core.Account{}, false
	}
	a = sa.SeenAccount()
	switch {
	case a.ID == "":
		return core.Account{}, false
	case a.Name != "":
		a.NameRead = core.UTCSecond(s.now())
		return a, true
	}
	as := s.audits()
	if as == nil {
		return core.Account{}, false
	}
	since := s.now().Add(-accountNameFor)
	recs, _, err := as.ListAudit(ctx, core.AuditFilter{Account: a.ID, Since: since}, 1)
	if err != nil || len(recs) == 0 {
		return core.Account{}, false
	}
	r := recs[0].Account
	read := r.NameRead
	if read.IsZero() {
		read = recs[0].At // recorded before names carried their read time
	}
	if r.Name == "" || read.Before(since) {
		return core.Account{}, false
	}
	a.Name, a.NameRead = r.Name, read
	return a, true
}

// auditStarted records a started commit attempt, before its first write.
func (s *WorkItemService) auditStarted(ctx context.Context, o *op, g *gate, account *core.Account) error {
	r := s.commitRecord(ctx, core.AuditCommitStarted, g.preview.Kind, g.preview.Handle)
	r.Account, r.IdempotencyKey, r.RunID = account, g.key, o.runID
	if err := s.appendAudit(ctx, r); err != nil {
		return core.Wrap(err, core.CodeInternal, "The commit could not be recorded in the audit trail, so nothing was written (the preview's handle is used up: run the %s again). Check the state store.", core.PreviewName(g.preview.Kind))
	}
	return nil
}

// auditFinished records how a started commit attempt ended: the run's
// state and the keys it wrote. Best effort (the writes happened; the run
// keeps its outcomes): a store fault is logged.
func (s *WorkItemService) auditFinished(ctx context.Context, o *op, g *gate, account *core.Account, err error) {
	r := s.commitRecord(ctx, core.AuditCommitFinished, g.preview.Kind, g.preview.Handle)
	r.Account, r.IdempotencyKey, r.RunID, r.Outcome = account, g.key, o.runID, string(core.RunCommitted)
	if err != nil {
		r.Code = core.ErrorCode(err)
		r.Outcome = string(core.RunFailed)
		if r.Code == core.CodeCommitPartial {
			r.Outcome = string(core.RunPartial)
		}
	}
	if run, found, gerr := s.st.GetRun(context.WithoutCancel(ctx), g.key); gerr == nil && found {
		if run.State != core.RunInProgress {
			r.Outcome = string(run.State)
		}
		listed := make(map[string]bool, len(r.Keys))
		for _, k := range r.Keys {
			listed[k] = true
		}
		for _, oc := range run.Outcomes { // a key once, however many outcomes name it
			if oc.Outcome == core.OutcomeCommitted && oc.Key != "" && !listed[oc.Key] {
				listed[oc.Key] = true
				r.Keys = append(r.Keys, oc.Key)
			}
		}
	}
	if aerr := s.appendAudit(ctx, r); aerr != nil {
		o.log.Error("could not record the commit's end in the audit trail", "code", core.ErrorCode(aerr))
	}
}

// GatePolicy returns the gate policy in force (DefaultGatePolicy when
// none was set, or the store keeps none).
func (s *WorkItemService) GatePolicy(ctx context.Context) (core.GatePolicy, error) {
	ctx, o := s.begin(ctx, "policy.show")
	p, err := s.policy(ctx)
	if err != nil {
		return core.GatePolicy{}, o.fail(err)
	}
	return p, nil
}

// SetGatePolicy stores the policy for agents' commits, recording who set
// it (WithActor) in the audit trail. An agent cannot set it.
// Errors: VALIDATION_FAILED (unknown value), CONFIRMATION_REQUIRED (an
// agent asked), CONFIG_INVALID (the store keeps no policy).
func (s *WorkItemService) SetGatePolicy(ctx context.Context, agents core.AgentPolicy) (core.GatePolicy, error) {
	ctx, o := s.begin(ctx, "policy.set")
	a := core.ActorFrom(ctx)
	p := core.GatePolicy{Agents: agents, SetAt: core.UTCSecond(s.now()), SetBy: &a}
	if err := core.CheckPolicy(p); err != nil {
		return core.GatePolicy{}, o.fail(err)
	}
	if a.Kind == core.ActorAgent {
		return core.GatePolicy{}, o.fail(core.Errorf(core.CodeConfirmationRequired, "Only a person sets the gate policy; an agent cannot. Nothing was changed."))
	}
	as := s.audits()
	if as == nil {
		return core.GatePolicy{}, o.fail(core.Errorf(core.CodeConfigInvalid, "This state store keeps no gate policy."))
	}
	old, err := as.LoadPolicy(ctx)
	if err != nil {
		return core.GatePolicy{}, o.fail(err)
	}
	if err := as.SavePolicy(ctx, p); err != nil {
		return core.GatePolicy{}, o.fail(err)
	}
	if err := s.appendAudit(ctx, core.AuditRecord{At: p.SetAt, Event: core.AuditPolicySet, By: &a, Scope: "-", Note: "agents: " + string(agents) + " (was " + string(old.Agents) + ")"}); err != nil {
		o.log.Warn("could not record the policy change in the audit trail", "code", core.ErrorCode(err))
	}
	o.done("policy set", "agents", agents)
	return p, nil
}

// NoteLooseningIgnored records that a front door's local setting (local,
// in its own words) asked for a looser gate than the policy in force,
// which stays in force.
func (s *WorkItemService) NoteLooseningIgnored(ctx context.Context, local string, p core.GatePolicy) error {
	a := core.ActorFrom(ctx)
	return s.appendAudit(ctx, core.AuditRecord{Event: core.AuditLooseningIgnored, By: &a, Note: local + " is looser than the policy agents: " + string(p.Agents) + ", which stays in force"})
}

// AuditQuery asks for a part of the audit trail.
type AuditQuery struct {
	Filter core.AuditFilter
	Limit  int // 0: DefaultAuditLimit
}

// DefaultAuditLimit bounds an audit listing without a limit.
const DefaultAuditLimit = 50

// AuditResult is a part of the audit trail, newest first.
type AuditResult struct {
	RunID     string             `json:"run_id"`
	Records   []core.AuditRecord `json:"records"`
	Returned  int                `json:"returned"`
	Truncated bool               `json:"truncated"`
}

// AuditLog returns the records of the trail passing q's filter, newest
// first. It writes nothing. Errors: CONFIG_INVALID (the store keeps no
// trail).
func (s *WorkItemService) AuditLog(ctx context.Context, q AuditQuery) (AuditResult, error) {
	ctx, o := s.begin(ctx, "audit.list")
	as := s.audits()
	if as == nil {
		return AuditResult{}, o.fail(core.Errorf(core.CodeConfigInvalid, "This state store keeps no audit trail."))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	recs, truncated, err := as.ListAudit(ctx, q.Filter, limit)
	if err != nil {
		return AuditResult{}, o.fail(err)
	}
	if recs == nil {
		recs = []core.AuditRecord{}
	}
	return AuditResult{RunID: o.runID, Records: recs, Returned: len(recs), Truncated: truncated}, nil
}
