package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// policyEnv is the real service over a memstore whose gate policy a
// person set, behind a server with options o.
func policyEnv(t *testing.T, policy core.AgentPolicy, o Options, copts *mcp.ClientOptions) (*real, *memstore.Store) {
	t.Helper()
	r := realOver(nil)
	r.setPolicy(t, policy)
	return r.serve(t, o, copts), r.st
}

// setPolicy sets the gate policy as a person (the lead) does.
func (r *real) setPolicy(t *testing.T, policy core.AgentPolicy) {
	t.Helper()
	if _, err := r.svc.SetGatePolicy(core.WithActor(t.Context(), core.Actor{Kind: core.ActorPerson, User: "lead"}), policy); err != nil {
		t.Fatal(err)
	}
}

// Under ask-person, an agent's confirmed: true from a client that cannot
// ask the person is refused, writes nothing, names dwire review, and is in
// the trail with the client's name; under preview-only even a client that
// asked (and the person accepted) is refused, and the person is not asked.
func TestPolicyRefusesAnAgentsCommitAndNamesReview(t *testing.T) {
	for _, c := range []struct {
		policy core.AgentPolicy
		copts  *mcp.ClientOptions
		asked  bool
	}{
		{core.PolicyAskPerson, nil, false},
		{core.PolicyPreviewOnly, &mcp.ClientOptions{}, false},
	} {
		t.Run(string(c.policy), func(t *testing.T) {
			asked := false
			copts := c.copts
			if copts != nil {
				copts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = true
					return accept(), nil
				}
			}
			r, st := policyEnv(t, c.policy, Options{}, copts)
			h := r.preview(t)
			wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodeConfirmationRequired)
			_, err := r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})
			for _, want := range []string{"agents: " + string(c.policy), "Nothing was written", "dwire review " + h} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %v lacks %q", err, want)
				}
			}
			if r.prov.Writes() != 0 || asked != c.asked {
				t.Errorf("writes %d, person asked %v; want none, %v", r.prov.Writes(), asked, c.asked)
			}
			recs, _, _ := st.ListAudit(t.Context(), core.AuditFilter{Handle: h}, 0)
			if len(recs) != 3 || recs[0].Event != core.AuditCommitRefused || recs[0].By.Client != "test-client" || recs[0].By.ClientVersion != "1.0.0" ||
				recs[2].Event != core.AuditPreview || recs[2].By.Kind != core.ActorAgent || recs[2].By.Client != "test-client" {
				t.Errorf("trail %+v; want the agent's preview and two refusals", recs)
			}
		})
	}
}

// Under ask-person, a commit the person accepted through elicitation goes
// ahead and is recorded with the elicitation channel.
func TestPolicyAskPersonCommitsWhatThePersonAccepted(t *testing.T) {
	r, st := policyEnv(t, core.PolicyAskPerson, Options{}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return accept(), nil },
	})
	h := r.preview(t)
	r.c.mustCall(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})
	recs, _, _ := st.ListAudit(t.Context(), core.AuditFilter{Handle: h}, 0)
	if len(recs) != 3 || recs[0].Event != core.AuditCommitFinished || recs[0].Channel != core.ChannelElicitation || len(recs[0].Keys) != 3 {
		t.Fatalf("trail %+v; want the commit finished through elicitation with 3 keys", recs)
	}
}

// A server started with a looser local setting than the team's policy
// (--elicitation off under ask-person) does not loosen it: the agent's
// confirmed: true is refused, and the ignored setting is in the trail,
// once. The default setting is no loosening, and not recorded.
func TestLooserLocalSettingDoesNotTakeEffectAndIsRecorded(t *testing.T) {
	r, st := policyEnv(t, core.PolicyAskPerson, Options{Elicitation: ElicitationOff}, nil)
	for range 2 {
		h := r.preview(t)
		wantCode(t, errOf(r.c.call(t, ToolImportCommit, map[string]any{"preview_handle": h, "confirmed": true})), core.CodeConfirmationRequired)
	}
	if r.prov.Writes() != 0 {
		t.Fatalf("wrote %d times under ask-person with elicitation off", r.prov.Writes())
	}
	recs, _, _ := st.ListAudit(t.Context(), core.AuditFilter{}, 0)
	var notes []string
	for _, rec := range recs {
		if rec.Event == core.AuditLooseningIgnored {
			notes = append(notes, rec.Note)
			if rec.By == nil || rec.By.Client != "test-client" {
				t.Errorf("loosening record %+v does not name the client", rec)
			}
		}
	}
	if !slices.Equal(notes, []string{"elicitation: off is looser than the policy agents: ask-person, which stays in force"}) {
		t.Errorf("loosening records %q; want one", notes)
	}

	r2, st2 := policyEnv(t, core.PolicyAskPerson, Options{}, nil)
	wantCode(t, errOf(r2.c.call(t, ToolImportCommit, map[string]any{"preview_handle": r2.preview(t), "confirmed": true})), core.CodeConfirmationRequired)
	if recs, _, _ := st2.ListAudit(t.Context(), core.AuditFilter{}, 0); slices.ContainsFunc(recs, func(r core.AuditRecord) bool { return r.Event == core.AuditLooseningIgnored }) {
		t.Error("the default elicitation setting was recorded as a loosening")
	}
}

// The commit tools' descriptions name the gate policy in force from the
// first tools/list (read before the server answers), say what the
// server's own elicitation setting adds, and follow a change of the
// team's policy made by someone else: the next tool call reads it and the
// client gets notifications/tools/list_changed, then the new text. The
// read-only tools' descriptions do not change.
func TestToolDescriptionsNameThePolicyInForce(t *testing.T) {
	changed := make(chan struct{}, 8)
	copts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	r, _ := policyEnv(t, core.PolicyAskPerson, Options{}, copts)
	descs := func() map[string]string {
		res, err := r.c.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, tl := range res.Tools {
			m[tl.Name] = tl.Description
		}
		return m
	}
	commits := []string{ToolImportCommit, ToolProgressCommit, ToolPullCommit}
	before := descs()
	for _, name := range commits {
		if d := before[name]; !strings.Contains(d, "Gate policy in force: agents: ask-person") || !strings.Contains(d, "confirmed: true alone") || !strings.HasPrefix(d, tierWrites) {
			t.Errorf("%s at start: %q; want the tier and agents: ask-person in force", name, d)
		}
	}
	if _, err := r.svc.SetGatePolicy(core.WithActor(t.Context(), core.Actor{Kind: core.ActorPerson, User: "lead"}), core.PolicyPreviewOnly); err != nil {
		t.Fatal(err)
	}
	r.preview(t)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the policy changed")
	}
	after := descs()
	for _, name := range commits {
		if d := after[name]; !strings.Contains(d, "Gate policy in force: agents: preview-only") || !strings.Contains(d, "dwire review <preview_handle>") || strings.Contains(d, "ask-person") {
			t.Errorf("%s after the change: %q; want agents: preview-only in force", name, d)
		}
	}
	for name, d := range before {
		if !slices.Contains(commits, name) && after[name] != d {
			t.Errorf("%s's description changed with the policy", name)
		}
	}

	for mode, want := range map[string]string{
		ElicitationWhenAvailable: "agents: confirm (the team's, stored with its state: dwire policy): where the client supports elicitation",
		ElicitationRequired:      "agents: confirm (the team's, stored with its state: dwire policy), and this server requires the person's answer (--elicitation required)",
		ElicitationOff:           "agents: confirm (the team's, stored with its state: dwire policy), and this server does not ask the person (--elicitation off)",
	} {
		r, _ := policyEnv(t, core.PolicyConfirm, Options{Elicitation: mode}, nil)
		if d := r.c.tool(t, ToolImportCommit).Description; !strings.Contains(d, want) {
			t.Errorf("--elicitation %s under confirm: %q; want %q", mode, d, want)
		}
	}
}

// A server whose service opens on the first tool call (dwire mcp) and
// whose early read failed says the policy is not read yet, and names it
// once a call opened the service.
func TestToolDescriptionsNameThePolicyOnceRead(t *testing.T) {
	r := realOver(nil)
	r.setPolicy(t, core.PolicyPreviewOnly)
	ws, _ := newWorkspace(t)
	changed := make(chan struct{}, 8)
	c := connect(t, nil, Options{
		Open: func(context.Context) (Service, string, error) { return r.svc, ws, nil },
		Policy: func(context.Context) (core.GatePolicy, error) {
			return core.GatePolicy{}, core.Errorf(core.CodeConfigMissing, "no configuration")
		},
	}, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}, "")
	if d := c.tool(t, ToolImportCommit).Description; !strings.Contains(d, "Gate policy in force: not read yet") {
		t.Fatalf("before any call: %q; want the policy not read yet", d)
	}
	c.mustCall(t, ToolImportPreview, map[string]any{"path": "plans/checkout.md"})
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed once the policy was read")
	}
	if d := c.tool(t, ToolImportCommit).Description; !strings.Contains(d, "Gate policy in force: agents: preview-only") {
		t.Fatalf("after a call: %q; want agents: preview-only", d)
	}
}
