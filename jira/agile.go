package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Sprints and rank through the Jira Software (Agile) REST API 1.0:
// GET /rest/agile/1.0/board?projectKeyOrId=… (Cloud's board types are
// scrum, kanban and simple — a team-managed project's, sprints on), GET
// board/{id}/sprint of the boards that have sprints, POST sprint/{id}/issue (≤ 50 issues), PUT issue/rank
// (≤ 50 issues; 204, or 207 with one entry per issue when some failed).

type agilePage[T any] struct {
	StartAt    int  `json:"startAt"`
	MaxResults int  `json:"maxResults"`
	IsLast     bool `json:"isLast"`
	Values     []T  `json:"values"`
}

type boardJSON struct {
	ID   json.Number `json:"id"`
	Name string      `json:"name"`
	Type string      `json:"type"`
}

// agileList reads every page of an Agile API list.
func agileList[T any](ctx context.Context, p *Provider, path, endpoint, action string, q url.Values) ([]T, error) {
	var all []T
	for start, pages := 0, 0; pages < 100; pages++ {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("startAt", strconv.Itoa(start))
		qq.Set("maxResults", "50")
		var page agilePage[T]
		if _, err := p.do(ctx, call{method: "GET", path: path, query: qq, class: retryIdempotent, endpoint: endpoint, action: action}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Values...)
		start += len(page.Values)
		if page.IsLast || len(page.Values) == 0 {
			break
		}
	}
	return all, nil
}

// Sprints returns the sprints named name (ignoring case; "" for every
// one) of the project's boards that have sprints (scrum, and simple: a
// team-managed project's), in every state. A project whose boards are all Kanban boards is refused
// by name: they have no sprints.
func (p *Provider) Sprints(ctx context.Context, name string) ([]core.Sprint, error) {
	ctx, done := p.observe(ctx, "Sprints")
	defer done()
	boards, err := agileList[boardJSON](ctx, p, "/rest/agile/1.0/board", "GET /rest/agile/1.0/board", "list the boards of project "+p.cfg.Project,
		url.Values{"projectKeyOrId": {p.cfg.Project}})
	if err != nil {
		return nil, err
	}
	var out []core.Sprint
	var withSprints, kanban []string
	for _, b := range boards {
		if !boardHasSprints(b.Type) {
			if strings.EqualFold(b.Type, "kanban") {
				kanban = append(kanban, b.Name)
			}
			continue
		}
		sps, err := agileList[sprintValue](ctx, p, "/rest/agile/1.0/board/"+url.PathEscape(b.ID.String())+"/sprint", "GET /rest/agile/1.0/board/{id}/sprint",
			"list the sprints of board "+b.Name, nil)
		if err != nil && strings.EqualFold(b.Type, "simple") && core.ErrorCode(err) == core.CodeValidationFailed {
			continue // a team-managed board with sprints off: Jira says it does not support them
		}
		if err != nil {
			return nil, err
		}
		withSprints = append(withSprints, b.Name)
		for _, sp := range sps {
			if name == "" || strings.EqualFold(strings.TrimSpace(sp.Name), strings.TrimSpace(name)) {
				out = append(out, core.Sprint{ID: sp.ID.String(), Name: sp.Name, State: sp.State, Board: b.Name})
			}
		}
	}
	if len(withSprints) == 0 && len(kanban) > 0 {
		return nil, core.Errorf(core.CodeValidationFailed, "Sprint %q cannot be set: project %s has only Kanban boards (%s), and Kanban boards have no sprints. Remove the Sprint field from the plan, or add a Scrum board to the project in Jira.",
			name, p.cfg.Project, strings.Join(kanban, ", ")).WithDetails(core.Detail{Field: "sprint", Message: "the project's boards are Kanban boards, which have no sprints"})
	}
	return out, nil
}

// boardHasSprints: Jira Cloud's scrum boards and team-managed projects'
// simple boards have sprints (a simple board's may be off: then its
// sprint list is empty); kanban boards do not.
func boardHasSprints(typ string) bool {
	return strings.EqualFold(typ, "scrum") || strings.EqualFold(typ, "simple")
}

type agileIssues struct {
	Issues            []string `json:"issues"`
	RankBeforeIssue   string   `json:"rankBeforeIssue,omitempty"`
	RankAfterIssue    string   `json:"rankAfterIssue,omitempty"`
	RankCustomFieldID int64    `json:"rankCustomFieldId,omitempty"`
}

func checkAgileBatch(keys []string) error {
	if len(keys) == 0 || len(keys) > core.MaxBatch {
		return core.Errorf(core.CodeInternal, "%d items in one sprint or rank request; send 1 to %d.", len(keys), core.MaxBatch)
	}
	return nil
}

// MoveToSprint puts up to 50 items into the sprint (sub-tasks follow
// their parent in Jira).
func (p *Provider) MoveToSprint(ctx context.Context, sprintID string, keys []string) error {
	ctx, done := p.observe(ctx, "MoveToSprint")
	defer done()
	if err := checkAgileBatch(keys); err != nil {
		return err
	}
	_, err := p.do(ctx, call{method: "POST", path: "/rest/agile/1.0/sprint/" + url.PathEscape(sprintID) + "/issue", body: agileIssues{Issues: keys}, class: retryRejected,
		endpoint: "POST /rest/agile/1.0/sprint/{id}/issue", action: fmt.Sprintf("move %s to sprint %s", core.Plural(len(keys), "work item", "work items"), sprintID)}, nil)
	return structureWriteErr(err)
}

type rankResponse struct {
	Entries []struct {
		IssueKey string   `json:"issueKey"`
		Status   int      `json:"status"`
		Errors   []string `json:"errors"`
	} `json:"entries"`
}

// Rank places up to 50 items, in order, right before (or after) anchor.
func (p *Provider) Rank(ctx context.Context, keys []string, anchor string, before bool) ([]core.RankOutcome, error) {
	ctx, done := p.observe(ctx, "Rank")
	defer done()
	if err := checkAgileBatch(keys); err != nil {
		return nil, err
	}
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	body := agileIssues{Issues: keys}
	if before {
		body.RankBeforeIssue = anchor
	} else {
		body.RankAfterIssue = anchor
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(m.structure.rankField, "customfield_"), 10, 64); err == nil {
		body.RankCustomFieldID = n
	}
	var resp rankResponse
	r, err := p.do(ctx, call{method: "PUT", path: "/rest/agile/1.0/issue/rank", body: body, class: retryRejected, endpoint: "PUT /rest/agile/1.0/issue/rank",
		action: fmt.Sprintf("rank %s relative to %s", core.Plural(len(keys), "work item", "work items"), anchor)}, &resp)
	if err != nil {
		return nil, structureWriteErr(err)
	}
	out := make([]core.RankOutcome, len(keys))
	failed := map[string]string{}
	if r != nil && r.status == http.StatusMultiStatus {
		for _, e := range resp.Entries {
			if e.Status >= 300 {
				failed[strings.ToUpper(e.IssueKey)] = strings.Join(e.Errors, "; ")
			}
		}
	}
	for i, k := range keys {
		out[i].Key = k
		if msg, ok := failed[strings.ToUpper(k)]; ok {
			if msg == "" {
				msg = "no reason given"
			}
			out[i].Err = core.Errorf(core.CodeValidationFailed, "Jira did not rank %s: %s", k, p.clean(msg)).WithDetails(core.Detail{Key: k, Field: "rank", Message: msg})
		}
	}
	return out, nil
}
