package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// policyService is what a Service offers when its state store keeps the
// team's gate policy and the audit trail (service.WorkItemService does).
type policyService interface {
	GatePolicy(ctx context.Context) (core.GatePolicy, error)
	NoteLooseningIgnored(ctx context.Context, local string, p core.GatePolicy) error
}

// agentContext says, for the service's audit trail and gate policy, that
// an agent makes this call: the operating-system user the server runs as
// (set by the front door that started it) and the client's name and
// version from initialize.
func agentContext(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	a := core.Actor{Kind: core.ActorAgent, User: core.ActorFrom(ctx).User}
	if req != nil {
		if ci := req.ClientInfo(); ci != nil {
			a.Client, a.ClientVersion = ci.Name, ci.Version
		}
	}
	return service.WithMadeBy(core.WithActor(ctx, a), a.String()+" via MCP")
}

// localStrictness ranks the server's own elicitation setting against the
// team's policies (core.AgentPolicy.Strictness): off is looser than
// confirm, when-available is confirm, required is ask-person.
func localStrictness(mode string) int {
	switch mode {
	case ElicitationOff:
		return core.PolicyConfirm.Strictness() - 1
	case ElicitationRequired:
		return core.PolicyAskPerson.Strictness()
	}
	return core.PolicyConfirm.Strictness()
}

// gatePolicy is the team's policy in force for a commit of this call, and
// the elicitation mode that applies: the server's own setting where it is
// as strict or stricter, else the policy's. A looser setting that was
// chosen (not the default) is recorded once in the audit trail and
// logged; it never takes effect.
func (s *server) gatePolicy(ctx context.Context, b backend) (core.GatePolicy, string, error) {
	ps, ok := b.svc.(policyService)
	if !ok {
		return core.DefaultGatePolicy, s.elicit, nil
	}
	p, err := ps.GatePolicy(ctx)
	if err != nil {
		return core.GatePolicy{}, "", err
	}
	s.describePolicy(&p.Agents)
	mode := s.elicit
	if localStrictness(s.elicit) < p.Agents.Strictness() {
		mode = ElicitationWhenAvailable // the service refuses what the policy does not allow
		if s.localSet && s.looseningNoted.CompareAndSwap(false, true) {
			local := "elicitation: " + s.elicit
			s.logger.Warn("the local elicitation setting is looser than the team's gate policy; the policy stays in force", "elicitation", s.elicit, "policy", p.Agents)
			if err := ps.NoteLooseningIgnored(ctx, local, p); err != nil {
				s.looseningNoted.Store(false)
				s.logger.Warn("could not record the ignored local setting in the audit trail", "code", core.ErrorCode(err))
			}
		}
	}
	return p, mode, nil
}

// withReviewStep names the person's way forward when the gate policy
// refused an agent's commit.
func withReviewStep(e *core.Error, handle string) *core.Error {
	if e.Code != core.CodeConfirmationRequired || !isPolicyRefusal(e) || strings.TrimSpace(handle) == "" {
		return e
	}
	c := *e
	c.Message = strings.TrimSpace(c.Message) + fmt.Sprintf(" Next: tell the person the plan is ready, and that they can review and commit it with `dwire review %s` in a terminal.", strings.TrimSpace(handle))
	return &c
}

// isPolicyRefusal reports whether e is the service's refusal under the
// team's gate policy.
func isPolicyRefusal(e *core.Error) bool {
	for _, d := range e.Details {
		if d.Field == "policy" {
			return true
		}
	}
	return false
}

// policyNote is what the commit tools' descriptions say about the gate
// policy in force: the team's (p, with mode the server's own elicitation
// setting), or, while the server has not read it yet (p nil), what it may
// require.
func policyNote(p *core.AgentPolicy, mode string) string {
	const again = " The server reads the policy again on every tool call and, when it changed, updates this description (notifications/tools/list_changed)."
	if p == nil {
		return " Gate policy in force: not read yet (the team's policy, stored with its state: dwire policy; the server reads it when it opens the state store and then updates this description with notifications/tools/list_changed). Until then assume it may be stricter: agents: ask-person commits only what the person accepted when the server asked them, and refuses confirmed: true alone; agents: preview-only refuses every agent commit, and a person commits with dwire review. Both refuse with CONFIRMATION_REQUIRED and write nothing."
	}
	in := " Gate policy in force: agents: " + string(*p) + " (the team's, stored with its state: dwire policy)"
	switch *p {
	case core.PolicyPreviewOnly:
		return in + ": this tool refuses every agent commit with CONFIRMATION_REQUIRED and writes nothing; tell the person the plan is ready, and they commit it with dwire review <preview_handle> in a terminal." + again
	case core.PolicyAskPerson:
		return in + ": the server asks the person and commits only what they accepted; confirmed: true alone, or a client that cannot be asked, is refused with CONFIRMATION_REQUIRED and nothing is written." + again
	}
	switch mode {
	case ElicitationRequired:
		return in + ", and this server requires the person's answer (--elicitation required): it asks the person and commits only what they accepted; a client that cannot be asked is refused with CONFIRMATION_REQUIRED." + again
	case ElicitationOff:
		return in + ", and this server does not ask the person (--elicitation off): confirmed: true, sent only after the person agreed, commits." + again
	}
	return in + ": where the client supports elicitation the server asks the person and commits only what they accepted; otherwise confirmed: true, sent only after the person agreed, commits." + again
}

// commitTool is a commit tool as registered, to register again with the
// policy in force in its description.
type commitTool struct {
	tool    *mcp.Tool
	base    string // the description without the policy
	handler mcp.ToolHandler
}

// describePolicy makes the commit tools' descriptions name p (nil: not
// read yet). A change re-registers them, which sends connected clients
// notifications/tools/list_changed.
func (s *server) describePolicy(p *core.AgentPolicy) {
	note := policyNote(p, s.elicit)
	s.describeMu.Lock()
	defer s.describeMu.Unlock()
	if note == s.described {
		return
	}
	s.described = note
	for _, name := range []string{ToolImportCommit, ToolProgressCommit, ToolPullCommit} {
		c, ok := s.commitTools[name]
		if !ok {
			continue
		}
		t := *c.tool
		t.Description = c.base + note
		s.ms.AddTool(&t, c.handler)
	}
}

// readPolicy reads the team's policy from b's service, for the tool
// descriptions (a service that keeps none is under the default). A
// failure leaves the descriptions as they are; the call goes on.
func (s *server) readPolicy(ctx context.Context, b backend) {
	ps, ok := b.svc.(policyService)
	if !ok {
		s.describePolicy(&core.DefaultGatePolicy.Agents)
		return
	}
	p, err := ps.GatePolicy(ctx)
	if err != nil {
		s.logger.Debug("could not read the gate policy for the tool descriptions", "code", core.ErrorCode(err))
		return
	}
	s.describePolicy(&p.Agents)
}

type modeKey struct{}

// withMode carries the elicitation mode in force for one commit call to
// confirm.
func withMode(ctx context.Context, mode string) context.Context {
	return context.WithValue(ctx, modeKey{}, mode)
}

// modeOf is the mode withMode set, else the server's own.
func (s *server) modeOf(ctx context.Context) string {
	if m, ok := ctx.Value(modeKey{}).(string); ok {
		return m
	}
	return s.elicit
}

// answered reports whether req carries the answer to a question the
// server asked (confirm accepts it only if the person accepted).
func answered(req *mcp.CallToolRequest) bool {
	return req != nil && req.Params != nil && (req.Params.InputResponses != nil || req.Params.RequestState != "")
}
