package jiratest

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

type sysField struct {
	id, name   string
	schemaType string
	system     string
	items      string
	navigable  bool
	orderable  bool
	searchable bool
	clauses    []string
}

// systemFields are the system fields the fake models (GET /field lists
// them; fields=*all returns them).
var systemFields = []sysField{
	{"summary", "Summary", "string", "summary", "", true, true, true, []string{"summary"}},
	{"description", "Description", "string", "description", "", true, true, true, []string{"description"}},
	{"issuetype", "Issue Type", "issuetype", "issuetype", "", true, true, true, []string{"issuetype", "type"}},
	{"project", "Project", "project", "project", "", true, false, true, []string{"project"}},
	{"status", "Status", "status", "status", "", true, false, true, []string{"status"}},
	{"statusCategory", "Status Category", "statusCategory", "statusCategory", "", false, false, true, []string{"statusCategory"}},
	{"parent", "Parent", "issuelink", "parent", "", true, true, true, []string{"parent"}},
	{"created", "Created", "datetime", "created", "", true, false, true, []string{"created", "createdDate"}},
	{"updated", "Updated", "datetime", "updated", "", true, false, true, []string{"updated", "updatedDate"}},
	{"statuscategorychangedate", "Status Category Changed", "datetime", "statuscategorychangedate", "", true, false, true, []string{"statusCategoryChangedDate"}},
	{"issuelinks", "Linked Issues", "array", "issuelinks", "issuelinks", true, true, true, []string{"issueLink"}},
	{"subtasks", "Sub-tasks", "array", "subtasks", "issuelinks", true, false, true, []string{"subtasks"}},
	{"labels", "Labels", "array", "labels", "string", true, true, true, []string{"labels"}},
	{"comment", "Comment", "comments-page", "comment", "", false, true, true, []string{"comment"}},
}

// selection is a parsed `fields` or `properties` parameter
// (comma-separated and/or repeated): "*all", "-name" (left out) and
// names; "*navigable" (every navigable field) only in fields.
type selection struct {
	all, navigable bool
	incl, excl     map[string]bool
}

func parseSelection(entries []string, fields bool) selection {
	sel := selection{incl: map[string]bool{}, excl: map[string]bool{}}
	for _, e := range entries {
		switch {
		case e == "*all":
			sel.all = true
		case fields && e == "*navigable":
			sel.navigable = true
		case strings.HasPrefix(e, "-"):
			sel.excl[e[1:]] = true
		default:
			sel.incl[e] = true
		}
	}
	return sel
}

// fieldSel is a parsed `fields` parameter.
type fieldSel struct{ selection }

// parseFieldSel parses Jira's fields list; def is used when nothing is
// given ("*all" for GET issue, "id" for search).
func parseFieldSel(vals []string, def string) fieldSel {
	entries := listEntries(vals)
	if len(entries) == 0 {
		entries = []string{def}
	}
	return fieldSel{parseSelection(entries, true)}
}

func (fs fieldSel) wants(id string, navigable bool) bool {
	if fs.excl[id] {
		return false
	}
	return fs.all || (fs.navigable && navigable) || fs.incl[id]
}

// onlyID reports whether no issue field is wanted (fields=id or none).
func (fs fieldSel) onlyID() bool {
	if fs.all || fs.navigable {
		return false
	}
	for f := range fs.incl {
		if f != "id" && f != "key" {
			return false
		}
	}
	return true
}

// propSel is a parsed `properties` parameter.
type propSel struct{ selection }

func parsePropSel(vals []string) propSel {
	return propSel{parseSelection(listEntries(vals), false)}
}

func (ps propSel) any() bool { return ps.all || len(ps.incl) > 0 }

func (s *Server) statusJSON(base string, st *status) map[string]any {
	return map[string]any{
		"self":        base + "/rest/api/3/status/" + st.ID,
		"description": "",
		"iconUrl":     base + "/images/icons/statuses/generic.png",
		"name":        st.Name,
		"id":          st.ID,
		"statusCategory": map[string]any{
			"self":      base + "/rest/api/3/statuscategory/" + strconv.Itoa(st.Category.ID),
			"id":        st.Category.ID,
			"key":       st.Category.Key,
			"colorName": st.Category.ColorName,
			"name":      st.Category.Name,
		},
	}
}

func issueTypeJSON(base string, t *issueType, p *project) map[string]any {
	return map[string]any{
		"self":           base + "/rest/api/3/issuetype/" + t.ID,
		"id":             t.ID,
		"description":    t.Description,
		"iconUrl":        base + "/images/icons/issuetypes/" + strings.ToLower(t.Name) + ".svg",
		"name":           issueTypeName(p, t),
		"subtask":        t.Subtask,
		"avatarId":       10300,
		"hierarchyLevel": t.HierarchyLevel,
	}
}

func projectRefJSON(base string, p *project) map[string]any {
	return map[string]any{
		"self":           base + "/rest/api/3/project/" + itoa(p.ID),
		"id":             itoa(p.ID),
		"key":            p.Key,
		"name":           p.Name,
		"projectTypeKey": "software",
		"simplified":     p.teamManaged(),
		"avatarUrls":     avatarURLs(base),
	}
}

func avatarURLs(base string) map[string]string {
	return map[string]string{
		"48x48": base + "/secure/projectavatar?avatarId=10400",
		"24x24": base + "/secure/projectavatar?size=small&avatarId=10400",
		"16x16": base + "/secure/projectavatar?size=xsmall&avatarId=10400",
		"32x32": base + "/secure/projectavatar?size=medium&avatarId=10400",
	}
}

// issueRefJSON is the short form of an issue used in parent and links.
func (s *Server) issueRefJSON(base string, iss *issue) map[string]any {
	st := iss.cur
	return map[string]any{
		"id":   itoa(iss.ID),
		"key":  iss.Key,
		"self": base + "/rest/api/3/issue/" + itoa(iss.ID),
		"fields": map[string]any{
			"summary":   st.Summary,
			"status":    s.statusJSON(base, byID(statuses, st.StatusID)),
			"issuetype": issueTypeJSON(base, byID(issueTypes, st.TypeID), iss.Proj),
			"priority": map[string]any{
				"self": base + "/rest/api/3/priority/3", "iconUrl": base + "/images/icons/priorities/medium.svg", "name": "Medium", "id": "3",
			},
		},
	}
}

func (s *Server) userJSON(base string) map[string]any {
	return map[string]any{
		"self":         base + "/rest/api/3/user?accountId=" + s.accountID(),
		"accountId":    s.accountID(),
		"emailAddress": s.opts.Email,
		"displayName":  s.opts.DisplayName,
		"active":       true,
		"timeZone":     "Etc/UTC",
		"accountType":  "atlassian",
		"avatarUrls":   avatarURLs(base),
	}
}

func (s *Server) accountID() string { return "557058:00000000-0000-4000-8000-000000000001" }

func (s *Server) commentJSON(base string, iss *issue, c comment) map[string]any {
	return map[string]any{
		"self":         base + "/rest/api/3/issue/" + itoa(iss.ID) + "/comment/" + itoa(c.ID),
		"id":           itoa(c.ID),
		"author":       s.userJSON(base),
		"updateAuthor": s.userJSON(base),
		"body":         c.Body,
		"created":      jiraTime(c.Created),
		"updated":      jiraTime(c.Created),
		"jsdPublic":    true,
	}
}

// renderIssue renders an IssueBean from state st (the current state, or
// the search index's view). Call with s.mu held.
func (s *Server) renderIssue(base string, iss *issue, st *issueState, fs fieldSel, ps propSel) map[string]any {
	out := map[string]any{
		"expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
		"id":     itoa(iss.ID),
	}
	if !fs.onlyID() || fs.incl["key"] {
		out["self"] = base + "/rest/api/3/issue/" + itoa(iss.ID)
		out["key"] = iss.Key
	}
	if !fs.onlyID() {
		f := map[string]any{}
		add := func(id string, nav bool, v func() any) {
			if fs.wants(id, nav) {
				f[id] = v()
			}
		}
		add("summary", true, func() any { return st.Summary })
		add("description", true, func() any {
			if st.Description == nil {
				return nil
			}
			return st.Description
		})
		add("issuetype", true, func() any { return issueTypeJSON(base, byID(issueTypes, st.TypeID), iss.Proj) })
		add("project", true, func() any { return projectRefJSON(base, iss.Proj) })
		add("status", true, func() any { return s.statusJSON(base, byID(statuses, st.StatusID)) })
		if st.ParentID != 0 && fs.wants("parent", true) {
			if p := s.byID[st.ParentID]; p != nil {
				f["parent"] = s.issueRefJSON(base, p)
			}
		}
		add("created", true, func() any { return jiraTime(iss.Created) })
		add("updated", true, func() any { return jiraTime(st.Updated) })
		add("statuscategorychangedate", true, func() any { return jiraTime(st.StatusChanged) })
		add("labels", true, func() any {
			if st.Labels == nil {
				return []string{}
			}
			return st.Labels
		})
		add("issuelinks", true, func() any { return s.linksJSON(base, iss) })
		s.renderAgile(base, iss, st, fs, f)
		add("comment", false, func() any {
			cs := []any{}
			for _, c := range iss.comments {
				cs = append(cs, s.commentJSON(base, iss, c))
			}
			return map[string]any{"comments": cs, "self": base + "/rest/api/3/issue/" + itoa(iss.ID) + "/comment", "maxResults": len(cs), "total": len(cs), "startAt": 0}
		})
		s.renderModelFields(base, iss, st, fs, f)
		ref := s.refField(iss.Proj, st.TypeID) // a team-managed project's is per issue type (site.go)
		add(ref, true, func() any {
			if v, ok := st.Custom[ref]; ok {
				return v
			}
			return nil
		})
		s.renderResolution(base, iss, st, fs, f) // workflow.go
		out["fields"] = f
	}
	if ps.any() {
		props := map[string]any{}
		keys := make([]string, 0, len(iss.props))
		for k := range iss.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if (ps.all || ps.incl[k]) && !ps.excl[k] {
				props[k] = json.RawMessage(iss.props[k])
			}
		}
		out["properties"] = props
	}
	return out
}

func (s *Server) linksJSON(base string, iss *issue) []any {
	out := []any{}
	for _, l := range s.links {
		typ := s.linkTypeJSON(base, l.linkType())
		switch iss {
		case l.Blocked:
			out = append(out, map[string]any{"id": itoa(l.ID), "self": base + "/rest/api/3/issueLink/" + itoa(l.ID), "type": typ, "inwardIssue": s.issueRefJSON(base, l.Blocker)})
		case l.Blocker:
			out = append(out, map[string]any{"id": itoa(l.ID), "self": base + "/rest/api/3/issueLink/" + itoa(l.ID), "type": typ, "outwardIssue": s.issueRefJSON(base, l.Blocked)})
		}
	}
	return out
}
