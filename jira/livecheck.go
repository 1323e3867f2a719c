package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

// The live check asks a real Jira Cloud site what only a real site can
// answer — the assumptions the adapter makes where Atlassian's
// documentation is silent (docs/jira-client.md, "What the live check
// settles"). PlanLiveCheck reads and writes nothing; RunLiveCheck makes
// exactly the writes the plan names: one bulk create of four stories and,
// when the story type's edit screen lacks parent, one edit of one of them
// (parent: null). Everything else is a read.

// LiveCheckOptions say what the live check asks beyond its writes.
type LiveCheckOptions struct {
	// Run names this run: the created issues' summaries and references
	// carry it, so they are told apart from any other run's.
	Run string
	// HiddenEmail is the full e-mail of a user whose e-mail is hidden by
	// their privacy settings ("" = the question is not asked).
	HiddenEmail string
	// SearchWait bounds how long the search-token question waits for
	// Jira's index (default 60 s).
	SearchWait time.Duration
}

// LiveCheckCreate is one issue the live check creates.
type LiveCheckCreate struct {
	IssueType string `json:"issue_type"`
	Summary   string `json:"summary"`
	Reference string `json:"reference"`
	Asks      string `json:"asks"` // the question it is for
}

// LiveCheckPlan is what the live check will do in one project: it is what
// the preview shows, and RunLiveCheck does exactly this.
type LiveCheckPlan struct {
	Project string            `json:"project"`
	Style   string            `json:"style"` // company-managed | team-managed
	Creates []LiveCheckCreate `json:"creates"`
	// MayEdit is the one conditional write, in words.
	MayEdit string   `json:"may_edit"`
	Reads   []string `json:"reads"`

	opts  LiveCheckOptions
	descs []json.RawMessage // each create's description (ADF), in Creates' order
}

// LiveFinding is one answer of the live check.
type LiveFinding struct {
	Project  string `json:"project,omitempty"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Evidence string `json:"evidence"`
	// Asked is false when the site could not be asked (the evidence says
	// why); Holds says whether what DevWorkWire assumes holds.
	Asked bool `json:"asked"`
	Holds bool `json:"holds"`
}

// LiveCheckResult is what the live check found in one project and what it
// left there.
type LiveCheckResult struct {
	Project  string        `json:"project"`
	Findings []LiveFinding `json:"findings"`
	Created  []string      `json:"created"`          // keys, in the request's order
	Edited   []string      `json:"edited,omitempty"` // keys edited (parent: null)
}

// The live check's questions, as the findings name them.
const (
	QuestionSearchToken  = "Does search keep dw<hex>0 as one token?"
	QuestionBulkOrder    = "Does a bulk create list issues[] in request order?"
	QuestionParentNull   = "Is parent: null refused where parent is off the edit screen?"
	QuestionNestedTasks  = "Is a task list inside a list item accepted?"
	QuestionADFRoundTrip = "Does stored ADF come back unchanged?"
	QuestionHiddenEmail  = "Is a hidden-e-mail user found by a full e-mail query?"
	QuestionSimpleBoard  = "Do simple boards list sprints?"
)

// Markdown of the live check's descriptions, converted as an import
// converts a document's.
const (
	liveRichText = "# Heading\n\nSome **strong**, *emphasised*, `code` and a [link](https://example.com).\n\n" +
		"1. first\n2. second\n   - nested\n\n> quoted\n\n```go\nfmt.Println(\"hi\")\n```\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\n- [ ] open task\n- [x] done task\n"
	liveNestedTasks = "- Setup\n  - [ ] wire it\n  - [x] test it\n"
	livePlain       = "Created by dwire's live check."
)

// PlanLiveCheck reads what the live check needs in the Provider's project
// (its style, the reference field, the story type) and returns the plan.
// It writes nothing.
func (p *Provider) PlanLiveCheck(ctx context.Context, o LiveCheckOptions) (LiveCheckPlan, error) {
	ctx, done := p.observe(ctx, "PlanLiveCheck")
	defer done()
	if p.dataCenter() {
		return LiveCheckPlan{}, core.Errorf(core.CodeValidationFailed, "The live check asks questions about Jira Cloud; this configuration is Jira Data Center (jira.deployment). Point it at a throwaway Jira Cloud site.")
	}
	if o.Run == "" || strings.ContainsAny(o.Run, " /\t") {
		return LiveCheckPlan{}, core.Errorf(core.CodeValidationFailed, "The live check needs a run name of letters and digits, not %q.", o.Run)
	}
	if o.SearchWait <= 0 {
		o.SearchWait = time.Minute
	}
	m, err := p.creatableMeta(ctx)
	if err != nil {
		return LiveCheckPlan{}, err
	}
	var proj struct {
		Style      string `json:"style"`
		Simplified bool   `json:"simplified"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/project/" + url.PathEscape(p.cfg.Project), endpoint: "GET /rest/api/3/project/{key}", action: "read project " + p.cfg.Project}, &proj); err != nil {
		return LiveCheckPlan{}, err
	}
	style := "company-managed"
	if proj.Simplified || proj.Style == "next-gen" {
		style = "team-managed"
	}
	story := m.typeNames[1]
	plan := LiveCheckPlan{Project: p.cfg.Project, Style: style, opts: o}
	for i, c := range []struct {
		what, md, asks string
	}{
		{"rich text", liveRichText, QuestionADFRoundTrip},
		{"search token", livePlain, QuestionSearchToken},
		{"parent null", livePlain, QuestionParentNull},
		{"task list in a list item", liveNestedTasks, QuestionNestedTasks},
	} {
		desc, err := toADF(c.md)
		if err != nil {
			return LiveCheckPlan{}, err
		}
		plan.descs = append(plan.descs, desc)
		plan.Creates = append(plan.Creates, LiveCheckCreate{
			IssueType: story, Summary: fmt.Sprintf("[dwire live check %s] %s", o.Run, c.what),
			Reference: fmt.Sprintf("livecheck-%s/s-%d", o.Run, i+1), Asks: c.asks,
		})
	}
	plan.MayEdit = fmt.Sprintf("only if parent is not on the edit screen of %s in %s: one edit of %q setting parent: null", story, p.cfg.Project, plan.Creates[2].Summary)
	plan.Reads = []string{
		"the created issues by key (bulk fetch: " + QuestionBulkOrder + ")",
		fmt.Sprintf("search for the second issue's reference token, every 2 s for up to %s", o.SearchWait),
		"the boards of " + p.cfg.Project + " and the sprints of its simple boards",
	}
	if o.HiddenEmail != "" {
		plan.Reads = append(plan.Reads, "a user search for "+o.HiddenEmail)
	}
	return plan, nil
}

// RunLiveCheck makes the plan's writes and asks its questions. A question
// that cannot be asked is a finding that says why, not an error; the
// error is for a create Jira refused as a whole (nothing was created) or
// whose outcome is unknown.
func (p *Provider) RunLiveCheck(ctx context.Context, plan LiveCheckPlan) (LiveCheckResult, error) {
	ctx, done := p.observe(ctx, "RunLiveCheck")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return LiveCheckResult{}, err
	}
	res := LiveCheckResult{Project: plan.Project}
	add := func(f LiveFinding) {
		f.Project = plan.Project
		res.Findings = append(res.Findings, f)
	}
	req := bulkRequest{}
	for i, c := range plan.Creates {
		typeID := m.storyTypeID
		req.IssueUpdates = append(req.IssueUpdates, issueUpdate{Fields: map[string]any{
			"project": map[string]string{"key": p.cfg.Project}, "issuetype": map[string]string{"id": typeID},
			"summary": c.Summary, "description": plan.descs[i], m.refFieldFor(typeID): refValue(core.Reference(c.Reference)),
		}})
	}
	resp, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/issue/bulk", body: req, class: retryNever, endpoint: "POST /rest/api/3/issue/bulk", action: "create the live check's issues in project " + p.cfg.Project}, nil)
	if isUncertain(err) {
		return res, core.Errorf(core.CodeJiraUnavailable, "Jira did not answer the live check's create in %s: it may have created the issues. Search Jira for %q to find and delete them.", p.cfg.Project, "[dwire live check "+plan.opts.Run+"]")
	}
	var br bulkResponse
	if resp != nil {
		_ = json.Unmarshal(resp.body, &br)
	}
	if err != nil && len(br.Errors) == 0 {
		return res, err
	}
	refused := map[int]string{}
	for _, e := range br.Errors {
		msg, _ := p.translateErrors(e.ElementErrors)
		refused[e.FailedElementNumber] = msg
	}
	var sent []int // the elements created, in request order
	for i := range plan.Creates {
		if _, bad := refused[i]; !bad {
			sent = append(sent, i)
		}
	}
	if len(br.Issues) != len(sent) {
		return res, core.Errorf(core.CodeJiraUnavailable, "Jira answered the live check's create in %s with %d issues for %d elements. Search Jira for %q to find and delete what it created.", p.cfg.Project, len(br.Issues), len(sent), "[dwire live check "+plan.opts.Run+"]")
	}
	for _, ci := range br.Issues {
		res.Created = append(res.Created, ci.Key)
	}
	nested := LiveFinding{Question: QuestionNestedTasks, Asked: true, Holds: true, Answer: "yes",
		Evidence: "the create of a description whose list item holds a task list (as the converter writes \"- item\\n  - [ ] task\") was accepted"}
	if msg, bad := refused[3]; bad {
		nested.Answer, nested.Holds, nested.Evidence = "no", false, "Jira refused that element of the bulk create: "+msg
	}
	for i, msg := range refused {
		if i != 3 {
			add(LiveFinding{Question: plan.Creates[i].Asks, Answer: "not asked", Evidence: "Jira refused the issue it needs: " + msg})
		}
	}
	byRef := p.liveOrder(ctx, m, plan, sent, br.Issues, add)
	if key, ok := byRef[plan.Creates[0].Reference]; ok {
		add(p.liveRoundTrip(plan.descs[0], key))
	}
	add(nested)
	if key, ok := byRef[plan.Creates[1].Reference]; ok {
		add(p.liveSearchToken(ctx, m, core.Reference(plan.Creates[1].Reference), key, plan.opts.SearchWait))
	}
	if key, ok := byRef[plan.Creates[2].Reference]; ok {
		f, edited := p.liveParentNull(ctx, key.key)
		add(f)
		if edited {
			res.Edited = append(res.Edited, key.key)
		}
	}
	add(p.liveSimpleBoards(ctx))
	if plan.opts.HiddenEmail != "" {
		add(p.liveHiddenEmail(ctx, plan.opts.HiddenEmail))
	}
	return res, nil
}

// liveIssue is a created issue as the live check read it back.
type liveIssue struct {
	key         string
	description json.RawMessage
}

// liveOrder reads the created issues back by key and answers whether
// issues[] came in request order: the issue answered at each position
// holds that position's reference. It returns the issues by reference.
func (p *Provider) liveOrder(ctx context.Context, m *meta, plan LiveCheckPlan, sent []int, made []createdIssue, add func(LiveFinding)) map[string]liveIssue {
	keys := make([]string, len(made))
	for i, ci := range made {
		keys[i] = ci.Key
	}
	var fetched bulkFetchResponse
	fields := append(slices.Clone(m.refIDs), "description")
	_, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/issue/bulkfetch", body: bulkFetchRequest{IssueIdsOrKeys: keys, Fields: fields, Properties: []string{}}, class: retryIdempotent, endpoint: bulkFetchEndpoint, action: "read the live check's issues"}, &fetched)
	if err != nil {
		add(LiveFinding{Question: QuestionBulkOrder, Answer: "not asked", Evidence: "the created issues could not be read back: " + core.AsError(err).Message})
		return nil
	}
	byKey := map[string]issue{}
	for _, is := range fetched.Issues {
		byKey[is.Key] = is
	}
	out := map[string]liveIssue{}
	var pairs []string
	inOrder := true
	for j, ci := range made {
		is, ok := byKey[ci.Key]
		if !ok {
			inOrder = false
			pairs = append(pairs, ci.Key+" not read back")
			continue
		}
		held := string(parseRefValue(m.refValueIn(is.Fields)))
		want := plan.Creates[sent[j]].Reference
		out[held] = liveIssue{key: ci.Key, description: is.Fields["description"]}
		if held != want {
			inOrder = false
		}
		pairs = append(pairs, fmt.Sprintf("%d: %s (id %s) holds %s", j+1, ci.Key, ci.ID, held[strings.LastIndex(held, "/")+1:]))
	}
	f := LiveFinding{Question: QuestionBulkOrder, Asked: true, Holds: inOrder, Answer: "yes",
		Evidence: strings.Join(pairs, "; ") + " (the adapter pairs by position and checks that ids ascend)"}
	if !inOrder {
		f.Answer = "no"
	}
	add(f)
	return out
}

// liveRoundTrip compares the description sent with the one read back.
func (p *Provider) liveRoundTrip(sent json.RawMessage, got liveIssue) LiveFinding {
	f := LiveFinding{Question: QuestionADFRoundTrip, Asked: true}
	var a, b any
	if json.Unmarshal(sent, &a) != nil || json.Unmarshal(got.description, &b) != nil {
		f.Answer, f.Evidence = "no", got.key+"'s description could not be read as ADF"
		return f
	}
	if path := firstDifference("", a, b); path != "" {
		f.Answer, f.Evidence = "no", fmt.Sprintf("%s's description differs from what was sent at %s: an imported item would read as edited in Jira", got.key, path)
		return f
	}
	f.Answer, f.Holds = "yes", true
	f.Evidence = fmt.Sprintf("%s's description (headings, marks, lists, quote, code, table, rule, task list) read back as sent", got.key)
	return f
}

// firstDifference is the JSON path of the first place a and b differ, ""
// when they are equal.
func firstDifference(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return orRoot(path)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if d := firstDifference(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return orRoot(path)
		}
		for i := range max(len(x), len(y)) {
			if i >= len(x) || i >= len(y) {
				return fmt.Sprintf("%s[%d]", path, i)
			}
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return orRoot(path)
	}
	return ""
}

func orRoot(path string) string {
	if path == "" {
		return "the top"
	}
	return strings.TrimPrefix(path, ".")
}

// liveSearchToken searches for the issue's reference token until it is
// found or wait has passed; the reference's phrase tells a lagging index
// from a token split apart.
func (p *Provider) liveSearchToken(ctx context.Context, m *meta, ref core.Reference, want liveIssue, wait time.Duration) LiveFinding {
	f := LiveFinding{Question: QuestionSearchToken}
	token := refToken(ref)
	byToken := p.projectClause() + " AND (" + m.refMatch([]string{jql.String(token)}) + ")"
	byPhrase := p.projectClause() + " AND (" + m.refMatch([]string{jql.Phrase(string(ref))}) + ")"
	start := timeNow()
	for {
		found, err := p.liveFinds(ctx, byToken, want.key)
		if err != nil {
			f.Answer, f.Evidence = "not asked", "the search failed: "+core.AsError(err).Message
			return f
		}
		if found {
			f.Asked, f.Holds, f.Answer = true, true, "yes"
			f.Evidence = fmt.Sprintf("%s found %s after %.1f s", byToken, want.key, timeNow().Sub(start).Seconds())
			return f
		}
		if timeNow().Sub(start) >= wait {
			break
		}
		if err := sleepCtx(ctx, 2*time.Second); err != nil {
			f.Answer, f.Evidence = "not asked", "interrupted while waiting for Jira's index"
			return f
		}
	}
	phrase, err := p.liveFinds(ctx, byPhrase, want.key)
	switch {
	case err == nil && phrase:
		f.Asked, f.Answer = true, "no"
		f.Evidence = fmt.Sprintf("after %s the token finds nothing while the reference's phrase finds %s: the index splits or changes the token", wait, want.key)
	default:
		f.Answer = "not asked"
		f.Evidence = fmt.Sprintf("after %s neither the token nor the reference's phrase finds %s: the index has not caught up (run again with a longer --search-wait)", wait, want.key)
	}
	return f
}

func (p *Provider) liveFinds(ctx context.Context, q, key string) (bool, error) {
	var resp searchResponse
	if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: searchRequest{JQL: q, Fields: []string{"key"}, Properties: []string{}, MaxResults: 10}, class: retryIdempotent, endpoint: searchEndpoint, action: "search for the live check's issue"}, &resp); err != nil {
		return false, err
	}
	return slices.ContainsFunc(resp.Issues, func(is issue) bool { return is.Key == key }), nil
}

// liveParentNull reads key's edit screen; where parent is not on it, it
// sends parent: null and reports whether Jira refused it. It reports
// whether the edit was sent and accepted.
func (p *Provider) liveParentNull(ctx context.Context, key string) (LiveFinding, bool) {
	f := LiveFinding{Question: QuestionParentNull}
	var em struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: issuePath(key) + "/editmeta", key: key, endpoint: "GET /rest/api/3/issue/{key}/editmeta", action: "read the edit screen of " + key}, &em); err != nil {
		f.Answer, f.Evidence = "not asked", "the edit screen could not be read: "+core.AsError(err).Message
		return f, false
	}
	if _, on := em.Fields["parent"]; on {
		f.Answer, f.Holds = "not asked", true
		f.Evidence = fmt.Sprintf("parent is on %s's edit screen (editmeta lists it); take it off the Story edit screen of a company-managed project to ask", key)
		return f, false
	}
	f.Asked = true
	body := map[string]any{"fields": map[string]any{"parent": nil}}
	resp, err := p.do(ctx, call{method: "PUT", path: issuePath(key), body: body, class: retryIdempotent, key: key, endpoint: "PUT /rest/api/3/issue/{key}", action: "edit " + key}, nil)
	if err != nil && resp != nil && resp.status == http.StatusBadRequest {
		// What the adapter assumes: it sends parent: null only to an
		// issue that has a parent.
		f.Answer, f.Holds = "yes", true
		f.Evidence = fmt.Sprintf("editmeta of %s has no parent; PUT parent: null answered 400: %s", key, core.AsError(err).Message)
		return f, false
	}
	if err != nil {
		f.Asked, f.Answer, f.Evidence = false, "not asked", "the edit failed: "+core.AsError(err).Message
		return f, false
	}
	f.Answer = "no"
	f.Evidence = fmt.Sprintf("editmeta of %s has no parent; PUT parent: null answered %s (the adapter's care, sending parent: null only to an issue that has a parent, is then not needed; it costs nothing)", key, strconv.Itoa(resp.status))
	return f, true
}

// liveSimpleBoards lists the project's boards and the sprints of each
// simple board.
func (p *Provider) liveSimpleBoards(ctx context.Context) LiveFinding {
	f := LiveFinding{Question: QuestionSimpleBoard}
	boards, err := agileList[boardJSON](ctx, p, "/rest/agile/1.0/board", "GET /rest/agile/1.0/board", "list the boards of project "+p.cfg.Project, url.Values{"projectKeyOrId": {p.cfg.Project}})
	if err != nil {
		f.Answer, f.Evidence = "not asked", "the boards could not be read: "+core.AsError(err).Message
		return f
	}
	var seen, ev []string
	for _, b := range boards {
		seen = append(seen, fmt.Sprintf("%s (%s)", b.Name, b.Type))
		if !strings.EqualFold(b.Type, "simple") {
			continue
		}
		sps, err := agileList[sprintValue](ctx, p, "/rest/agile/1.0/board/"+url.PathEscape(b.ID.String())+"/sprint", "GET /rest/agile/1.0/board/{id}/sprint", "list the sprints of board "+b.Name, nil)
		if err != nil {
			ev = append(ev, fmt.Sprintf("board %s: %s", b.Name, core.AsError(err).Message))
			continue
		}
		var names []string
		for _, sp := range sps {
			names = append(names, fmt.Sprintf("%s (%s)", sp.Name, sp.State))
		}
		ev = append(ev, fmt.Sprintf("board %s lists %d sprints: %s", b.Name, len(sps), strings.Join(names, ", ")))
		f.Asked = true
		if len(sps) > 0 {
			f.Answer, f.Holds = "yes", true
		}
	}
	switch {
	case !f.Asked && len(ev) == 0:
		f.Answer = "not asked"
		f.Evidence = fmt.Sprintf("%s has no simple board (boards: %s); a team-managed project has one", p.cfg.Project, orNone(seen))
	case f.Answer == "":
		f.Answer = "no"
		f.Evidence = strings.Join(ev, "; ") + " (sprints may be off on the board)"
	default:
		f.Evidence = strings.Join(ev, "; ")
	}
	return f
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// liveHiddenEmail searches users for a full e-mail address.
func (p *Provider) liveHiddenEmail(ctx context.Context, email string) LiveFinding {
	f := LiveFinding{Question: QuestionHiddenEmail}
	var found []userJSON
	if _, err := p.do(ctx, p.userSearch(false, url.Values{"query": {email}, "maxResults": {"50"}}, "find the user "+email), &found); err != nil {
		f.Answer, f.Evidence = "not asked", "the user search failed: "+core.AsError(err).Message
		return f
	}
	// The adapter assumes not: a person whose e-mail is hidden is mapped
	// to an account id under users: in the configuration (harmless if
	// Jira finds them after all).
	f.Asked = true
	if len(found) == 0 {
		f.Holds = true
		f.Answer, f.Evidence = "no", "GET user/search?query="+email+" answered no one (map such people under users: in the configuration)"
		return f
	}
	var who []string
	for _, u := range found {
		e := u.Email
		if e == "" {
			e = "hidden"
		}
		who = append(who, fmt.Sprintf("%s (%s, e-mail %s)", u.DisplayName, u.AccountID, e))
	}
	f.Answer, f.Evidence = "yes", "GET user/search?query="+email+" answered "+strings.Join(who, ", ")
	return f
}
