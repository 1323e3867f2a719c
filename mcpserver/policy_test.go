package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// policyEnv is the real service over a memstore whose gate policy a
// person set, behind a server with options o.
func policyEnv(t *testing.T, policy core.AgentPolicy, o Options, copts *mcp.ClientOptions) (*real, *memstore.Store) {
	t.Helper()
	clk := storetest.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	prov := fakeprovider.New(fakeprovider.Options{Now: clk.Now})
	st := memstore.New(memstore.Options{Now: clk.Now})
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: prov, Store: st, Now: clk.Now})
	if _, err := svc.SetGatePolicy(core.WithActor(t.Context(), core.Actor{Kind: core.ActorPerson, User: "lead"}), policy); err != nil {
		t.Fatal(err)
	}
	ws, _ := newWorkspace(t)
	o.Workspace = ws
	return &real{prov: prov, svc: svc, clock: clk, ws: ws, c: connect(t, svc, o, copts, "")}, st
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
