package jira

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

var _ core.IssueReader = (*Provider)(nil)

// orderByRE finds a query's ORDER BY clause (the export orders by rank
// itself, so it is dropped).
var orderByRE = regexp.MustCompile(`(?is)\s+order\s+by\s+[^"']*$`)

// ReadIssues implements core.IssueReader: one search over every page for
// the selection (always within the configured project), then one search
// per 100 stories for their sub-tasks. An epic selection reads the epic
// first (WORK_ITEM_NOT_FOUND, or VALIDATION_FAILED when it is not an
// epic). A query Jira refuses is VALIDATION_FAILED with Jira's reason.
func (p *Provider) ReadIssues(ctx context.Context, sel core.IssueSelection) ([]core.WorkItem, error) {
	ctx, done := p.observe(ctx, "ReadIssues")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	var out []core.WorkItem
	seen := map[string]bool{}
	visit := func(is issue) bool {
		if proj, _, _ := strings.Cut(is.Key, "-"); !strings.EqualFold(proj, p.cfg.Project) {
			return true // never another project's issue, whatever the query said
		}
		if w := p.workItem(m, is); !seen[w.Key] {
			seen[w.Key] = true
			out = append(out, w)
		}
		return true
	}
	var q, prefix string
	switch {
	case sel.Epic != "":
		e, err := p.Get(ctx, sel.Epic)
		if err != nil {
			return nil, err
		}
		if e.Kind != core.KindEpic {
			return nil, core.Errorf(core.CodeValidationFailed, "%s is %s, not an epic; give an epic's key, or select the issues with a query.", e.Key, strings.ToLower(string(e.Kind))).
				WithDetails(core.Detail{Key: e.Key, Field: "epic", Message: "not an epic"})
		}
		seen[e.Key] = true
		out = append(out, e)
		q = p.projectClause() + " AND " + p.epicClause(m, e.Key)
	case sel.Query != "":
		inner := orderByRE.ReplaceAllString(sel.Query, "")
		if !jql.Balanced(inner) {
			// "x) OR (project = OTHER" would read past the project's scope.
			return nil, core.Errorf(core.CodeValidationFailed, "The query's parentheses or quotes do not pair up, so it cannot be kept within project %s (DevWorkWire reads only the project it is configured for). Close every '(' and quote the query opens, and open every ')' it closes.", p.cfg.Project).
				WithDetails(core.Detail{Field: "jql", Message: "unbalanced parentheses or quotes"})
		}
		prefix = p.projectClause() + " AND ("
		q = prefix + inner + ")"
	default:
		if !strings.EqualFold(sel.Project, p.cfg.Project) {
			return nil, core.Errorf(core.CodeValidationFailed, "Project %s is not %s, the project DevWorkWire is configured for (jira.project); export %s from a workspace configured for it.", sel.Project, p.cfg.Project, sel.Project).
				WithDetails(core.Detail{Field: "project", Message: "not the configured project " + p.cfg.Project})
		}
		q = p.projectClause()
	}
	if err := p.search(ctx, m, q+" ORDER BY key ASC", nil, "read the issues to export", visit); err != nil {
		if sel.Query != "" {
			err = inQueryPositions(err, prefix, orderByRE.ReplaceAllString(sel.Query, ""))
		}
		return nil, err
	}
	var stories []string
	for _, w := range out {
		if w.Kind == core.KindStory && len(w.Subtasks) > 0 {
			stories = append(stories, w.Key)
		}
	}
	for start := 0; start < len(stories); start += lookupBatch {
		batch := stories[start:min(start+lookupBatch, len(stories))]
		if err := p.search(ctx, m, p.projectClause()+" AND parent in "+jql.List(batch)+" ORDER BY key ASC", nil, "read the sub-tasks to export", visit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// jqlPositionRE finds the position Jira gives in a refused query's
// message: "(line 1, character 45)".
var jqlPositionRE = regexp.MustCompile(`\(line (\d+), character (\d+)\)`)

// inQueryPositions moves the positions in Jira's refusal of a query from
// the query sent (prefix, then the person's query, then what closes it) to
// the person's own text: the first line's characters shift by the
// prefix's; a position past the end of the query says so; one inside the
// prefix (never the person's) is dropped.
func inQueryPositions(err error, prefix, query string) error {
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeValidationFailed {
		return err
	}
	lines := strings.Split(query, "\n")
	c := *e
	c.Message = jqlPositionRE.ReplaceAllStringFunc(e.Message, func(pos string) string {
		m := jqlPositionRE.FindStringSubmatch(pos)
		line, _ := strconv.Atoi(m[1])
		char, _ := strconv.Atoi(m[2])
		if line == 1 {
			char -= utf8.RuneCountInString(prefix)
		}
		switch {
		case line < 1 || line > len(lines) || char < 1:
			return "(at a place DevWorkWire added around the query)"
		case line == len(lines) && char > utf8.RuneCountInString(lines[line-1]):
			return "(at the end of the query)"
		}
		return fmt.Sprintf("(line %d, character %d of the query)", line, char)
	})
	return &c
}

var _ core.PeopleReader = (*Provider)(nil)

// People implements core.PeopleReader: every person the items' user
// fields (the assignee, user-picker custom fields) name, each read once
// by account id with the user search (GET /rest/api/3/user/search), with
// the e-mail Jira shows: "" when their privacy settings hide it, or when
// the search does not find them (an inactive account).
func (p *Provider) People(ctx context.Context, items []core.WorkItem) (map[string]string, error) {
	ctx, done := p.observe(ctx, "People")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, w := range items {
		for key, vals := range w.Fields {
			if f := m.byKey[key]; f == nil || f.kind != kindUser {
				continue
			}
			for _, acc := range vals {
				out[acc] = ""
			}
		}
	}
	for _, acc := range slices.Sorted(maps.Keys(out)) {
		u, ok, err := p.userByAccount(ctx, acc, false)
		if err != nil {
			return nil, err
		}
		if ok {
			out[acc] = u.Email
		}
	}
	return out, nil
}
