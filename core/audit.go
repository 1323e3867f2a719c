package core

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// The audit trail: who previewed, who confirmed, through which channel,
// as which tracker account, what went out. One record per preview, two per
// commit attempt (its start, before the first write, and its end), one per
// refused attempt and per change of the gate policy. Records are only ever
// appended: a start is never updated into an end, so a commit whose
// process died leaves its start record, and the store can keep the trail
// without any UPDATE on it. Retention (Retention.Audit, a year by default)
// is the only thing that deletes them. No record holds a token or a raw
// tracker body: the account is the provider's account id and display
// name, the outcome a run state or an error code.

// ActorKind says whether a person or an agent stood behind a call.
type ActorKind string

// The actor kinds.
const (
	// ActorPerson is a person at a terminal (the front door's process runs
	// under their operating-system user).
	ActorPerson ActorKind = "person"
	// ActorAgent is an agent calling through an agent front door, which
	// names the agent's client as the client reported it.
	ActorAgent ActorKind = "agent"
)

// Actor is who made a preview or confirmed a commit, as the front door
// knows it. The front door sets it (WithActor); nothing in it is proven
// beyond what the front door can see: the operating-system user the
// process runs as, and the client name and version an agent's host sent.
type Actor struct {
	Kind ActorKind `json:"kind"`
	// User is the operating-system user the front door runs as.
	User string `json:"user,omitempty"`
	// Client and ClientVersion are the agent's client, as it named itself.
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
}

// String is the actor for people: "alice", "agent claude-code 1.2 (alice)".
func (a Actor) String() string {
	if a.Kind != ActorAgent {
		return orUnknown(a.User)
	}
	s := "agent " + orUnknown(a.Client)
	if a.ClientVersion != "" {
		s += " " + a.ClientVersion
	}
	if a.User != "" {
		s += " (" + a.User + ")"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Channel is how a commit was confirmed.
type Channel string

// The confirmation channels, from the strongest evidence of a person's
// intent to the weakest.
const (
	// ChannelPrompt: a person answered the confirmation prompt of the
	// workflow's own command at a terminal.
	ChannelPrompt Channel = "prompt"
	// ChannelReview: a person reviewed a stored preview and confirmed it
	// at a terminal (the review command).
	ChannelReview Channel = "review"
	// ChannelElicitation: the agent's host asked the person and reported
	// that they accepted. Proves the host said yes, not who clicked.
	ChannelElicitation Channel = "elicitation"
	// ChannelAgent: the agent sent confirmed: true on its own; nothing
	// shows that a person saw the plan.
	ChannelAgent Channel = "agent"
)

// Channels lists the channels in the order above.
var Channels = []Channel{ChannelPrompt, ChannelReview, ChannelElicitation, ChannelAgent}

// Account is the tracker account a write went out as (never its token).
type Account struct {
	ID   string `json:"account_id"`
	Name string `json:"name,omitempty"`
	// NameRead is when Name was last read from the tracker (the service's
	// clock): a record may name the account by what an earlier record
	// recorded, without a read of its own (docs/service.md).
	NameRead time.Time `json:"name_read,omitzero"`
}

// AuditEvent is what an audit record records.
type AuditEvent string

// The audit events.
const (
	AuditPreview        AuditEvent = "preview"
	AuditCommitStarted  AuditEvent = "commit_started"
	AuditCommitFinished AuditEvent = "commit_finished"
	// AuditCommitRefused: the gate policy refused a commit attempt, or
	// the plan was stale (Code PREVIEW_STALE); nothing written.
	AuditCommitRefused AuditEvent = "commit_refused"
	// AuditPreviewSetAside: nobody waits on a stored preview any more (Note
	// says why: a person declined it, or it was a dry run); `dwire review`
	// no longer lists it. Its handle still commits if given.
	AuditPreviewSetAside AuditEvent = "preview_set_aside"
	// AuditPolicySet: someone set the gate policy.
	AuditPolicySet AuditEvent = "policy_set"
	// AuditLooseningIgnored: a front door's local setting asked for a
	// looser gate than the policy; the policy stayed in force.
	AuditLooseningIgnored AuditEvent = "loosening_ignored"
)

// AuditRecord is one entry of the audit trail.
type AuditRecord struct {
	// Seq is the store's sequence number (set by AppendAudit; later
	// records have larger numbers).
	Seq   int64      `json:"seq"`
	At    time.Time  `json:"at"`
	Event AuditEvent `json:"event"`
	Scope string     `json:"scope,omitempty"`
	// Kind and Handle are the preview's.
	Kind   PreviewKind `json:"kind,omitempty"`
	Handle string      `json:"preview_handle,omitempty"`
	// Documents are the document ids of an import or pull; Item the work
	// item key of a progress update.
	Documents []string `json:"documents,omitempty"`
	Item      string   `json:"item,omitempty"`
	// By did what the record records: made the preview, confirmed the
	// commit, set the policy. PreviewedBy is, on a commit's records, who
	// made its preview.
	By          *Actor `json:"by,omitempty"`
	PreviewedBy *Actor `json:"previewed_by,omitempty"`
	// Channel is how a commit was confirmed.
	Channel Channel `json:"channel,omitempty"`
	// Account is the tracker account the writes went out as.
	Account        *Account `json:"account,omitempty"`
	PlanDigest     string   `json:"plan_digest,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	RunID          string   `json:"run_id,omitempty"`
	// Outcome is a finished commit's run state (committed, partial,
	// failed), or "refused".
	Outcome string `json:"outcome,omitempty"`
	// Code is the error code of a commit that did not commit.
	Code Code `json:"code,omitempty"`
	// Keys are the tracker keys a finished commit wrote.
	Keys []string `json:"keys,omitempty"`
	// Note says more in a few words (a policy change, an ignored local
	// setting, why a commit was refused).
	Note string `json:"note,omitempty"`
}

// AuditFilter selects audit records; zero fields match everything.
type AuditFilter struct {
	// Handle matches the records of one preview and its commits.
	Handle   string
	Document string
	// Item matches a progress record's item or any key a commit wrote.
	Item string
	// Who matches the operating-system user or the agent's client name
	// of whoever made the preview or did what the record records.
	Who     string
	Channel Channel
	// Account matches the records naming this tracker account id.
	Account string
	Since   time.Time // at or after
	Until   time.Time // before
}

// Match reports whether r passes f. Every store filters with it.
func (f AuditFilter) Match(r AuditRecord) bool {
	if f.Handle != "" && r.Handle != f.Handle {
		return false
	}
	if f.Account != "" && (r.Account == nil || r.Account.ID != f.Account) {
		return false
	}
	if f.Document != "" && !slices.Contains(r.Documents, f.Document) {
		return false
	}
	if f.Item != "" && !strings.EqualFold(r.Item, f.Item) && !slices.ContainsFunc(r.Keys, func(k string) bool { return strings.EqualFold(k, f.Item) }) {
		return false
	}
	if f.Who != "" && !actorIs(r.By, f.Who) && !actorIs(r.PreviewedBy, f.Who) {
		return false
	}
	if f.Channel != "" && r.Channel != f.Channel {
		return false
	}
	if !f.Since.IsZero() && r.At.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !r.At.Before(f.Until) {
		return false
	}
	return true
}

func actorIs(a *Actor, who string) bool {
	return a != nil && (strings.EqualFold(a.User, who) || strings.EqualFold(a.Client, who) || (who == string(a.Kind)))
}

// AgentPolicy is the team's rule for commits an agent asks for.
type AgentPolicy string

// The agent policies, from the loosest to the strictest.
const (
	// PolicyConfirm: an agent commits with confirmed: true; where its
	// host can ask the person, the person is asked too (the contract's
	// rule 2; the default).
	PolicyConfirm AgentPolicy = "confirm"
	// PolicyAskPerson: an agent's commit goes ahead only when its host
	// asked the person and reported them accepting; confirmed: true alone
	// is refused.
	PolicyAskPerson AgentPolicy = "ask-person"
	// PolicyPreviewOnly: agents preview; only a person commits.
	PolicyPreviewOnly AgentPolicy = "preview-only"
)

// AgentPolicies lists the policies from the loosest to the strictest.
var AgentPolicies = []AgentPolicy{PolicyConfirm, PolicyAskPerson, PolicyPreviewOnly}

// Strictness orders policies: a larger number is a tighter gate; -1 for
// an unknown policy.
func (p AgentPolicy) Strictness() int { return slices.Index(AgentPolicies, p) }

// Meaning says what the policy does, for people.
func (p AgentPolicy) Meaning() string {
	switch p {
	case PolicyConfirm:
		return "an agent commits once it sends confirmed: true; where its host can ask the person, the person is asked too"
	case PolicyAskPerson:
		return "an agent's commit goes ahead only when its host asked the person and they accepted; confirmed: true alone is refused"
	case PolicyPreviewOnly:
		return "agents preview only; a person reviews and commits every plan"
	}
	return "unknown policy"
}

// GatePolicy is the gate policy stored with the team's state.
type GatePolicy struct {
	Agents AgentPolicy `json:"agents"`
	// SetAt and SetBy say who set it last; zero for the default.
	SetAt time.Time `json:"set_at,omitzero"`
	SetBy *Actor    `json:"set_by,omitempty"`
}

// DefaultGatePolicy is the policy of a store where nobody set one.
var DefaultGatePolicy = GatePolicy{Agents: PolicyConfirm}

// EncodeAudit is the stored form of a record (its JSON without Seq),
// shared by the stores.
func EncodeAudit(r AuditRecord) ([]byte, error) {
	r.Seq = 0
	r.At = r.At.UTC()
	return json.Marshal(r)
}

// DecodeAudit reads a stored record and sets its sequence number.
func DecodeAudit(seq int64, b []byte) (AuditRecord, error) {
	var r AuditRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return AuditRecord{}, Wrap(err, CodeInternal, "Audit record %d cannot be read.", seq)
	}
	r.Seq = seq
	return r, nil
}

// AppendAudit decodes a stored record, newest first in a listing, and
// appends it to out when f matches it; more reports a match past limit
// (limit <= 0: no limit), where the listing stops. Every store's ListAudit
// reads its rows through it.
func AppendAudit(out []AuditRecord, seq int64, body []byte, f AuditFilter, limit int) (_ []AuditRecord, more bool, err error) {
	r, err := DecodeAudit(seq, body)
	if err != nil {
		return out, false, err
	}
	if !f.Match(r) {
		return out, false, nil
	}
	if limit > 0 && len(out) == limit {
		return out, true, nil
	}
	return append(out, r), false, nil
}

// CheckPolicy refuses an unknown agents value (VALIDATION_FAILED).
func CheckPolicy(p GatePolicy) error {
	if p.Agents.Strictness() < 0 {
		names := make([]string, len(AgentPolicies))
		for i, a := range AgentPolicies {
			names[i] = string(a)
		}
		return Errorf(CodeValidationFailed, "%q is not a gate policy for agents. Use one of %s.", p.Agents, strings.Join(names, ", ")).
			WithDetails(Detail{Field: "agents", Message: "unknown policy " + string(p.Agents)})
	}
	return nil
}

type actorKey struct{}
type channelKey struct{}

// WithActor returns ctx saying who calls the service (set by the front
// door): recorded with every preview and commit, and what the gate policy
// is applied to.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor WithActor set; a person of unknown name
// when none was set.
func ActorFrom(ctx context.Context) Actor {
	a, ok := ctx.Value(actorKey{}).(Actor)
	if !ok || a.Kind == "" {
		a.Kind = ActorPerson
	}
	return a
}

// WithChannel returns ctx saying how the commits made with it were
// confirmed (set by the front door just before it commits).
func WithChannel(ctx context.Context, c Channel) context.Context {
	return context.WithValue(ctx, channelKey{}, c)
}

// ChannelFrom is the channel WithChannel set: for an agent without one,
// its own confirmed: true; for a person, the workflow's prompt.
func ChannelFrom(ctx context.Context, a Actor) Channel {
	if c, ok := ctx.Value(channelKey{}).(Channel); ok && c != "" {
		return c
	}
	if a.Kind == ActorAgent {
		return ChannelAgent
	}
	return ChannelPrompt
}
