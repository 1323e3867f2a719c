package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confirmKey labels our question in the MCP input-request map.
const confirmKey = "confirm_commit"

// questionTTL bounds how long an asked question may be answered.
const questionTTL = 15 * time.Minute

// maxPending bounds the unanswered questions kept; past it the oldest are
// forgotten (their answers are then refused, and the person is asked anew).
const maxPending = 256

// previewLoader shows a stored plan again: Service.StoredPreview, or
// StoredPull for a pull's.
type previewLoader func(ctx context.Context, handle string) (service.PreviewInfo, error)

// confirm decides whether a commit may go ahead without asking, must ask
// the person first, or must be refused. It returns:
//   - (nil, digest, nil): call the service (which enforces the gate
//     itself), committing the plan with that digest when it is not empty:
//     the plan the person accepted, as it was shown to them;
//   - (result, "", nil): a result carrying the elicitation request (multi
//     round-trip: the client, or for legacy clients the SDK on our behalf,
//     asks the person and calls again with the answer);
//   - (nil, "", err): refused.
//
// Asking is on top of, never instead of, preview_handle + confirmed: true:
// the service still checks both.
func (s *server) confirm(ctx context.Context, req *mcp.CallToolRequest, load previewLoader, tool string, kind core.PreviewKind, in service.CommitInput) (*mcp.CallToolResult, string, error) {
	mode := s.modeOf(ctx) // the team's policy may be stricter (policy.go)
	if mode == ElicitationOff || !in.Confirmed {
		// Without confirmed: true the service refuses with
		// CONFIRMATION_REQUIRED; there is nothing to ask the person yet.
		return nil, "", nil
	}
	if answered(req) {
		digest, err := s.checkAnswer(ctx, req, tool, in)
		return nil, digest, err
	}
	info, err := load(ctx, in.PreviewHandle)
	if err != nil {
		return nil, "", err
	}
	if info.Kind != kind || info.ConsumedBy != "" {
		// The service refuses a handle of the other kind, and a consumed
		// handle either replays (same key) or is refused: no new write
		// can happen, so there is nothing to ask about.
		return nil, "", nil
	}
	shown := shownDigest(info)
	if shown != "" {
		// The agent saw another plan than the one stored now: do not ask
		// the person about a plan the agent did not show them.
		if err := core.CheckPlanDigest(in.PreviewHandle, kind, in.PlanDigest, shown); err != nil {
			return nil, "", err
		}
	}
	if !clientCanElicit(req) {
		if mode == ElicitationRequired {
			byPerson := fmt.Sprintf("commit the plan with `dwire review %s`", in.PreviewHandle)
			if info.Pull != nil {
				byPerson = fmt.Sprintf("pull the document in a terminal with `dwire pull %s`", info.Pull.Path)
			}
			return nil, "", core.Errorf(core.CodeConfirmationRequired,
				"This server requires a person to confirm every commit through MCP elicitation (elicitation: required), and this client does not support elicitation. Nothing was written. Use a client that supports elicitation, or have a person %s.",
				byPerson)
		}
		return nil, "", nil
	}
	nonce := s.pending.add(pendingQuestion{tool: tool, handle: in.PreviewHandle, key: in.IdempotencyKey, digest: shown})
	if l := logOf(ctx); l != nil {
		l.asked = true
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{confirmKey: &mcp.ElicitParams{
			Mode:    "form",
			Message: describe(info),
			RequestedSchema: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"confirm": {Type: "boolean", Title: "Write these changes to Jira", Description: "Tick to let DevWorkWire write the changes above to Jira now. This cannot be undone by DevWorkWire."},
				},
				Required: []string{"confirm"},
			},
		}},
		RequestState: nonce,
	}, "", nil
}

// shownDigest is the digest of the stored plan a question shows.
func shownDigest(info service.PreviewInfo) string {
	switch {
	case info.Import != nil:
		return info.Import.PlanDigest
	case info.Progress != nil:
		return info.Progress.PlanDigest
	case info.Pull != nil:
		return info.Pull.PlanDigest
	}
	return ""
}

// checkAnswer accepts the person's answer only for a question this server
// asked, for this very commit, once, and returns the digest of the plan
// the question showed: the commit executes that plan or nothing.
func (s *server) checkAnswer(ctx context.Context, req *mcp.CallToolRequest, tool string, in service.CommitInput) (string, error) {
	st := logOf(ctx)
	if st == nil {
		st = &callLog{}
	}
	st.answered = true
	q, ok := s.pending.take(req.Params.RequestState)
	if !ok || q.tool != tool || q.handle != in.PreviewHandle || q.key != in.IdempotencyKey {
		return "", core.Errorf(core.CodeConfirmationRequired,
			"The confirmation sent with this %s call does not answer a question this server asked for this preview (it is unknown, expired, already used or for another plan). Nothing was written. Call %s again without inputResponses so the person can be asked.",
			tool, tool)
	}
	resp, _ := req.Params.InputResponses[confirmKey].(*mcp.ElicitResult)
	if resp == nil {
		return "", core.Errorf(core.CodeConfirmationRequired,
			"The client did not return the person's answer to the confirmation question. Nothing was written. Call %s again so the person can be asked.", tool)
	}
	switch resp.Action {
	case "accept":
		if v, _ := resp.Content["confirm"].(bool); v {
			st.accepted = true
			return q.digest, nil
		}
		return "", core.Errorf(core.CodeConfirmationRequired,
			"The person submitted the confirmation without ticking \"Write these changes to Jira\". Nothing was written. Ask them again if they want to go ahead.")
	case "decline":
		return "", core.Wrap(errDeclined, core.CodeConfirmationRequired,
			"The person declined to write this plan to Jira. Nothing was written. Do not retry unless they ask you to.")
	default:
		return "", core.Errorf(core.CodeConfirmationRequired,
			"The person dismissed the confirmation question without answering (%s). Nothing was written. Ask them before calling %s again.", orDefault(resp.Action, "no action"), tool)
	}
}

// errDeclined is the cause of the refusal of a commit the person
// declined: nobody waits on its preview any more (setAside).
var errDeclined = errors.New("declined by the person")

// asideService is what a Service offers when it can record that nobody
// waits on a preview (service.WorkItemService does), so `dwire review`
// no longer lists it.
type asideService interface {
	SetPreviewAside(ctx context.Context, handle, why string) error
}

// setAside records that the person declined the preview of handle: it
// leaves `dwire review`'s list (its handle still shows and commits). Best
// effort: the refusal is the answer either way.
func setAside(ctx context.Context, b backend, handle string) {
	if a, ok := b.svc.(asideService); ok {
		_ = a.SetPreviewAside(context.WithoutCancel(ctx), handle, service.AsideDeclined)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clientCanElicit reports whether the client declared form elicitation.
func clientCanElicit(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	// Neither form nor url declared means form, for backward compatibility.
	return e.Form != nil || e.URL == nil
}

// maxListed bounds the writes of one kind listed in a confirmation
// question; past it the question says how many more there are (the counts
// by kind always cover every write).
const maxListed = 15

// describe says what will be written where, for the person: every write
// of the stored plan (service.PlanWrites), counted by kind and each named,
// up to maxListed of a kind.
func describe(info service.PreviewInfo) string {
	var b strings.Builder
	switch {
	case info.Import != nil:
		p := info.Import
		what := fmt.Sprintf("importing document %q", p.Document)
		if len(p.Documents) > 0 {
			what = fmt.Sprintf("importing %d documents", len(p.Documents))
		}
		fmt.Fprintf(&b, "DevWorkWire is about to write to Jira (%s), %s: %s", p.Scope, what, p.Writes.Summary())
		fmt.Fprintf(&b, ". %s and %s are left alone", core.Plural(p.Counts.Unchanged, "unchanged item", "unchanged items"), core.Plural(p.Counts.Drift, "item edited in Jira", "items edited in Jira"))
		if p.Counts.Removed > 0 {
			fmt.Fprintf(&b, ", and %s the document no longer lists", core.Plural(p.Counts.Removed, "item", "items"))
		}
		if p.Counts.Blocked > 0 {
			fmt.Fprintf(&b, "; %s held back (not created)", core.Plural(p.Counts.Blocked, "item is", "items are"))
		}
		b.WriteString(".\n")
		listWrites(&b, p.Writes)
	case info.Progress != nil:
		p := info.Progress
		fmt.Fprintf(&b, "DevWorkWire is about to write to Jira: work item %s %q", p.Item.Key, p.Item.Title)
		if p.Item.URL != "" {
			fmt.Fprintf(&b, " (%s)", p.Item.URL)
		}
		b.WriteString(":\n")
		if p.TargetStatus != "" && p.TargetStatus != p.CurrentStatus {
			fmt.Fprintf(&b, "- move from %s to %s", p.CurrentStatus, p.TargetStatus)
			if p.Transition != "" {
				fmt.Fprintf(&b, " (transition %q)", p.Transition)
			}
			b.WriteString("\n")
		}
		if p.Comment != "" {
			c := p.Comment
			if len(c) > 300 {
				c = c[:300] + "…"
			}
			fmt.Fprintf(&b, "- add the comment: %s\n", c)
		}
	case info.Pull != nil:
		describePull(&b, info.Pull)
	default:
		b.WriteString("DevWorkWire is about to write a previewed plan to Jira.\n")
	}
	b.WriteString("This writes to Jira and cannot be undone by DevWorkWire. Confirm only if you expect this change.")
	return b.String()
}

func progressMessage(done, total int) string {
	return fmt.Sprintf("%d of %d items written", done, total)
}

type pendingQuestion struct {
	tool, handle, key string
	digest            string // of the plan the question showed
	expires           time.Time
}

// pendingConfirmations remembers the questions this server asked, so an
// answer is accepted only once and only for the commit it was asked for.
type pendingConfirmations struct {
	mu sync.Mutex
	m  map[string]pendingQuestion
}

func newPendingConfirmations() *pendingConfirmations {
	return &pendingConfirmations{m: map[string]pendingQuestion{}}
}

func (p *pendingConfirmations) add(q pendingQuestion) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	now := time.Now()
	q.expires = now.Add(questionTTL)
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range p.m {
		if now.After(v.expires) {
			delete(p.m, k)
		}
	}
	for len(p.m) >= maxPending {
		oldest, first := "", time.Time{}
		for k, v := range p.m {
			if oldest == "" || v.expires.Before(first) {
				oldest, first = k, v.expires
			}
		}
		delete(p.m, oldest)
	}
	p.m[nonce] = q
	return nonce
}

func (p *pendingConfirmations) take(nonce string) (pendingQuestion, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.m[nonce]
	if !ok {
		return q, false
	}
	delete(p.m, nonce)
	return q, time.Now().Before(q.expires)
}

// describePull says what a pull commit writes: the file, and DevWorkWire's
// record on each item in Jira.
func describePull(b *strings.Builder, p *service.PullPreviewResult) {
	c := p.Counts
	fmt.Fprintf(b, "DevWorkWire is about to pull what people changed in Jira into the planning document %s (document %q): %s", p.Path, p.Document, p.Planned.Summary())
	if p.Diff == "" {
		b.WriteString("; the file stays as it is")
	}
	b.WriteString(". A record is DevWorkWire's own, on the issue in Jira: no field, text or status of an issue changes")
	if c.Conflict > 0 {
		fmt.Fprintf(b, "; %s", core.Plural(c.Conflict, "item in conflict is left as it is", "items in conflict are left as they are"))
	}
	b.WriteString(".\n")
	listWrites(b, p.Planned)
	if p.Diff != "" {
		b.WriteString("The file's previous content is not kept by DevWorkWire (keep it in version control). ")
	}
}

// listWrites names each write, one a line, up to maxListed of a kind, and
// says how many more of a kind there are.
func listWrites(b *strings.Builder, w service.PlanWrites) {
	shown := map[core.Action]int{}
	for _, pw := range w.Writes {
		if shown[pw.Action] == maxListed {
			continue
		}
		shown[pw.Action]++
		doc := ""
		if pw.Document != "" {
			doc = pw.Document + ": "
		}
		fmt.Fprintf(b, "- %s%s %s\n", doc, pw.Action, pw.Text)
	}
	for _, c := range w.Counts {
		if c.Count > maxListed {
			fmt.Fprintf(b, "… and %d more %s writes (%s in all).\n", c.Count-maxListed, c.Action, c.Text)
		}
	}
}
