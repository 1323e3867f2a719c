package jira

import (
	"context"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

// Search tuning: references per lookup query (bounded also by JQL length),
// issues per page, the most pages one search may read.
const (
	lookupBatch    = 100
	maxJQLLength   = 8000
	pageSize       = 100
	maxPages       = 1000
	maxReconcile   = 50 // Jira accepts at most 50 reconcileIssues ids
	defaultLimit   = 25
	maxQueryLimit  = 100
	searchEndpoint = "POST /rest/api/3/search/jql"
)

type searchRequest struct {
	JQL             string   `json:"jql"`
	Fields          []string `json:"fields"`
	Properties      []string `json:"properties"`
	MaxResults      int      `json:"maxResults"`
	NextPageToken   string   `json:"nextPageToken,omitempty"`
	ReconcileIssues []int64  `json:"reconcileIssues,omitempty"`
}

type searchResponse struct {
	Issues        []issue `json:"issues"`
	NextPageToken string  `json:"nextPageToken"`
	IsLast        *bool   `json:"isLast"`
}

// search runs a JQL search over every page, calling visit for each issue
// until it returns false.
func (p *Provider) search(ctx context.Context, m *meta, q string, reconcile []int64, action string, visit func(issue) bool) error {
	req := searchRequest{JQL: q, Fields: m.fieldsRequested(), Properties: []string{PropertyKey}, MaxResults: pageSize, ReconcileIssues: reconcile}
	seen := map[string]bool{}
	for page := 0; page < maxPages; page++ {
		var resp searchResponse
		if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: req, class: retryIdempotent, endpoint: searchEndpoint, action: action}, &resp); err != nil {
			return err
		}
		for _, is := range resp.Issues {
			if !visit(is) {
				return nil
			}
		}
		last := resp.IsLast == nil || *resp.IsLast
		if resp.NextPageToken == "" || (last && resp.IsLast != nil) {
			return nil
		}
		if seen[resp.NextPageToken] {
			return core.Errorf(core.CodeInternal, "Jira returned the same page token twice while trying to %s; stopping instead of looping.", action)
		}
		seen[resp.NextPageToken] = true
		req.NextPageToken = resp.NextPageToken
	}
	return core.Errorf(core.CodeInternal, "The search to %s returned more than %d pages; narrow it down.", action, maxPages)
}

// typesClause is the list of the issue types DevWorkWire writes, by id
// (a localised site translates the names), or by name should an id not be
// a number.
func (m *meta) typesClause() string {
	for _, id := range m.typeIDs {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			return jql.List(m.typeNames)
		}
	}
	return "(" + strings.Join(m.typeIDs, ", ") + ")"
}

func (p *Provider) projectClause() string { return "project = " + jql.String(p.cfg.Project) }

// Query returns up to f.Limit items matching f, and whether more matched.
func (p *Provider) Query(ctx context.Context, f core.Filter) ([]core.WorkItem, bool, error) {
	ctx, done := p.observe(ctx, "Query")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, false, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxQueryLimit)
	clauses := []string{p.projectClause(), "issuetype in " + m.typesClause()}
	status := f.Status
	if f.Ready {
		if status != "" && status != core.StatusTodo {
			return []core.WorkItem{}, false, nil
		}
		status = core.StatusTodo
	}
	if status != "" {
		if !status.Valid() {
			return nil, false, core.Errorf(core.CodeValidationFailed, "%q is not a status; use todo, in_progress or done.", status).WithDetails(core.Detail{Field: "status"})
		}
		// By id (Jira's fixed category ids: 2 To Do, 4 In Progress, 3
		// Done): a localised site translates the names.
		clauses = append(clauses, "statusCategory = "+map[core.Status]string{core.StatusTodo: "2", core.StatusInProgress: "4", core.StatusDone: "3"}[status])
	}
	if f.EpicKey != "" {
		if err := p.checkKey(f.EpicKey); err != nil {
			return nil, false, err
		}
		clauses = append(clauses, p.epicClause(m, f.EpicKey))
	}
	if f.Document != "" {
		clauses = append(clauses, m.docClauseFor(f.Document))
	}
	if strings.TrimSpace(f.Text) != "" {
		t := jql.Terms(f.Text)
		clauses = append(clauses, "(summary ~ "+t+" OR description ~ "+t+")")
	}
	// Backlog order where the site ranks issues (an import ranks its
	// items in the document's order; keys follow the order creates reached
	// Jira), else key order.
	order := " ORDER BY key ASC"
	if m.structure.rankField != "" {
		order = " ORDER BY Rank ASC, key ASC"
	}
	q := strings.Join(clauses, " AND ") + order
	items := []core.WorkItem{}
	truncated := false
	err = p.search(ctx, m, q, nil, "query work items", func(is issue) bool {
		w := p.workItem(m, is)
		if f.Document != "" && !strings.HasPrefix(string(w.Reference), f.Document+"/") {
			return true
		}
		if status != "" && w.Status != status {
			return true
		}
		if f.Kind != "" && w.Kind != f.Kind {
			return true
		}
		if f.EpicKey != "" && w.ParentKey != f.EpicKey {
			return true
		}
		if f.Ready && f.Kind == "" && w.Kind == core.KindEpic {
			return true // ready work is stories and sub-tasks (core.Filter.Ready)
		}
		if f.Ready {
			for _, b := range w.BlockedBy {
				if b.Status != core.StatusDone {
					return true
				}
			}
		}
		if len(items) == limit {
			truncated = true
			return false
		}
		items = append(items, w)
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return items, truncated, nil
}
