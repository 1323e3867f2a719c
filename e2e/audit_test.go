package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// auditLog is the part of `dwire log --json` the tests read.
type auditLog struct {
	Records []struct {
		Event   string `json:"event"`
		Handle  string `json:"preview_handle"`
		Channel string `json:"channel"`
		By      *struct {
			Kind, User, Client string
			ClientVersion      string `json:"client_version"`
		} `json:"by"`
		PreviewedBy *struct {
			Kind, Client string
		} `json:"previewed_by"`
		Account *struct {
			ID   string `json:"account_id"`
			Name string `json:"name"`
		} `json:"account"`
		Key     string   `json:"idempotency_key"`
		Outcome string   `json:"outcome"`
		Code    string   `json:"code"`
		Keys    []string `json:"keys"`
		Note    string   `json:"note"`
	} `json:"records"`
}

func (e *env) auditLog(args ...string) auditLog {
	e.t.Helper()
	var l auditLog
	if r := e.dwireJSON(&l, append([]string{"log"}, args...)...); r.code != 0 {
		e.t.Fatalf("dwire log: %s", r)
	}
	return l
}

// onEveryStore runs f against a SQLite store and a shared Postgres store.
func onEveryStore(t *testing.T, f func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) { f(t, newEnv(t, envOptions{})) })
	t.Run("postgres", func(t *testing.T) { f(t, newEnv(t, envOptions{storeURL: teamStore(t)})) })
}

// TestAuditAgentPreviewsPersonReviews: an agent previews over dwire mcp,
// dwire review's list says the agent (client, version, user) made it,
// a person commits the handle with dwire review on a terminal; dwire log
// (text and --json, from another process) shows the preview by the agent's
// client, and the commit's start and end by the person through review,
// with the Jira account and the keys written.
func TestAuditAgentPreviewsPersonReviews(t *testing.T) {
	onEveryStore(t, func(t *testing.T, e *env) {
		e.extra = append(e.extra, "USER=ana")
		p := planSpec{id: "audit-review", epics: 1, stories: 2}
		cs, _ := e.mcp()
		pv := e.scPreview(cs, e.write("plan.md", p.markdown()))
		// dwire review without a handle: the row names who made it.
		list := e.dwire("review")
		block, _, _ := strings.Cut(list.stdout[strings.Index(list.stdout, pv.PreviewHandle)+1:], "\n\n")
		if !strings.Contains(list.stdout, pv.PreviewHandle) || !strings.Contains(block, "by agent dwire-e2e 1.0.0 (ana) via MCP") {
			t.Errorf("dwire review does not say the agent made %s:\n%s", pv.PreviewHandle, list)
		}
		if r := e.dwirePTY("y\r", "review", pv.PreviewHandle); r.code != 0 {
			t.Fatalf("dwire review: %s", r)
		}
		e.matches(p)
		l := e.auditLog("--document", p.id)
		if len(l.Records) != 3 {
			t.Fatalf("dwire log --document %s: %d records, want 3: %+v", p.id, len(l.Records), l.Records)
		}
		end, prev := l.Records[0], l.Records[2]
		if prev.Event != "preview" || prev.By == nil || prev.By.Kind != "agent" || prev.By.Client != "dwire-e2e" || prev.By.ClientVersion != "1.0.0" || prev.Handle != pv.PreviewHandle {
			t.Errorf("preview record %+v", prev)
		}
		for i, rec := range l.Records[:2] {
			want := []string{"commit_finished", "commit_started"}[i]
			if rec.Event != want || rec.Channel != "review" || rec.By == nil || rec.By.Kind != "person" || rec.By.User != "ana" ||
				rec.PreviewedBy == nil || rec.PreviewedBy.Client != "dwire-e2e" || rec.Account == nil || rec.Account.ID == "" {
				t.Errorf("record %d = %+v; want %s by ana via review, previewed by dwire-e2e, with the account", i, rec, want)
			}
		}
		if end.Outcome != "committed" || len(end.Keys) != 3 {
			t.Errorf("commit end %+v; want committed with 3 keys", end)
		}
		r := e.dwire("log")
		for _, want := range []string{"commit finished", "by ana via dwire review", "previewed by agent dwire-e2e 1.0.0", "Jira account", end.Account.ID, "keys " + end.Keys[0], "previewed", pv.PreviewHandle} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("dwire log lacks %q:\n%s", want, r.stdout)
			}
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if len([]rune(line)) > 80 {
				t.Errorf("dwire log line wider than 80 columns: %q", line)
			}
		}
		if l := e.auditLog("--who", "dwire-e2e", "--channel", "review", "--since", "1h"); len(l.Records) != 2 {
			t.Errorf("dwire log --who dwire-e2e --channel review: %d records, want the commit's 2", len(l.Records))
		}
	})
}

// mcpWith starts dwire mcp with extra arguments.
func (e *env) mcpWith(args ...string) *mcp.ClientSession {
	e.t.Helper()
	c := e.cmd(append([]string{"mcp"}, args...)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "dwire-e2e", Version: "1.0.0"}, nil)
	cs, err := client.Connect(e.t.Context(), &mcp.CommandTransport{Command: c, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		e.t.Fatalf("connect to dwire mcp %v: %v", args, err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestAuditPolicyBindsAgents: a person sets agents: ask-person (asked on a
// terminal); an agent whose server runs with --elicitation off (looser)
// sends confirmed: true: refused, nothing written, told to have a person
// run dwire review; the ignored setting is in the log. Under preview-only
// the same. A person then commits the agent's preview with dwire review.
func TestAuditPolicyBindsAgents(t *testing.T) {
	onEveryStore(t, func(t *testing.T, e *env) {
		if r := e.dwirePTY("y\r", "policy", "set", "agents", "ask-person"); r.code != 0 || !strings.Contains(r.stdout, "agents: ask-person") {
			t.Fatalf("dwire policy set: %s", r)
		}
		cs := e.mcpWith("--elicitation", "off")
		for i, policy := range []string{"ask-person", "preview-only"} {
			if i > 0 {
				if r := e.dwirePTY("y\r", "policy", "set", "agents", policy); r.code != 0 {
					t.Fatalf("dwire policy set: %s", r)
				}
			}
			p := planSpec{id: "audit-" + policy, epics: 1, stories: 1}
			pv := e.scPreview(cs, e.write(p.id+".md", p.markdown()))
			o := e.scCommitImport(cs, pv.PreviewHandle, newKey())
			msg, _ := o.errData["message"].(string)
			if o.code() != "CONFIRMATION_REQUIRED" || !strings.Contains(msg, "agents: "+policy) || !strings.Contains(msg, "dwire review "+pv.PreviewHandle) {
				t.Errorf("under %s the agent's commit: %s %v; want CONFIRMATION_REQUIRED naming the policy and dwire review", policy, scOrOK(o.code()), o.errData)
			}
			if w := e.writes(); w != 0 {
				t.Fatalf("under %s the refused commit made %d writes", policy, w)
			}
			if i == 1 {
				if r := e.dwirePTY("y\r", "review", pv.PreviewHandle); r.code != 0 {
					t.Fatalf("dwire review under preview-only: %s", r)
				}
				e.matches(p)
			}
		}
		var refused, ignored int
		for _, r := range e.auditLog().Records {
			switch r.Event {
			case "commit_refused":
				refused++
				if r.Channel != "agent" || r.By == nil || r.By.Client != "dwire-e2e" || r.Code != "CONFIRMATION_REQUIRED" {
					t.Errorf("refusal record %+v", r)
				}
			case "loosening_ignored":
				ignored++
				if !strings.Contains(r.Note, "elicitation: off") || r.By == nil || r.By.Client != "dwire-e2e" {
					t.Errorf("loosening record %+v", r)
				}
			}
		}
		if refused != 2 || ignored != 1 {
			t.Errorf("the log has %d refusals and %d ignored loosenings; want 2 and 1", refused, ignored)
		}
		if r := e.dwire("log", "--channel", "agent"); !strings.Contains(r.stdout, "commit refused") || !strings.Contains(r.stdout, "CONFIRMATION_REQUIRED") {
			t.Errorf("dwire log --channel agent:\n%s", r)
		}
		if r := e.dwire("policy"); !strings.Contains(r.stdout, "agents: preview-only") {
			t.Errorf("dwire policy:\n%s", r)
		}
	})
}

// TestMCPToolDescriptionsNameTheTeamPolicy: dwire mcp's first tools/list
// names the policy a person set in the shared store (read before the
// server answers); when another member changes it, the next tool call
// sends notifications/tools/list_changed and the commit tools name the
// new policy.
func TestMCPToolDescriptionsNameTheTeamPolicy(t *testing.T) {
	onEveryStore(t, func(t *testing.T, e *env) {
		if r := e.dwirePTY("y\r", "policy", "set", "agents", "ask-person"); r.code != 0 {
			t.Fatalf("dwire policy set: %s", r)
		}
		changed := make(chan struct{}, 8)
		cs, _ := e.mcpClient("dwire-e2e", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
		describes := func(policy string) {
			t.Helper()
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, tl := range res.Tools {
				if strings.HasSuffix(tl.Name, "_commit") {
					n++
					if !strings.Contains(tl.Description, "Gate policy in force: agents: "+policy) {
						t.Errorf("%s's description does not name agents: %s:\n%s", tl.Name, policy, tl.Description)
					}
				}
			}
			if n != 3 {
				t.Errorf("%d commit tools listed; want 3", n)
			}
		}
		describes("ask-person")
		if r := e.dwirePTY("y\r", "policy", "set", "agents", "preview-only"); r.code != 0 {
			t.Fatalf("dwire policy set: %s", r)
		}
		e.scPreview(cs, e.write("plan.md", planSpec{id: "described", epics: 1, stories: 1}.markdown()))
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatal("no notifications/tools/list_changed after the policy changed")
		}
		describes("preview-only")
	})
}
