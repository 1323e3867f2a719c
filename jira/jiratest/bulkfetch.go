package jiratest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// maxBulkFetch is Jira's limit of issues per POST /issue/bulkfetch.
const maxBulkFetch = 100

// bulkFetchRequest is BulkFetchIssueRequestBean.
type bulkFetchRequest struct {
	IssueIdsOrKeys *[]string `json:"issueIdsOrKeys"`
	Fields         []string  `json:"fields,omitempty"`
	Properties     []string  `json:"properties,omitempty"`
	Expand         []string  `json:"expand,omitempty"`
	FieldsByKeys   bool      `json:"fieldsByKeys,omitempty"`
}

// handleBulkFetch is POST /rest/api/3/issue/bulkfetch: up to 100 issues by
// id or key, read from the issues themselves (not the search index, so
// never subject to search lag), in ascending id order. Issues that do not
// exist or sit in a project the user cannot browse are left out silently,
// as Jira does; fields and properties are selected as in search, except
// that the default field selection is *navigable.
func (s *Server) handleBulkFetch(w http.ResponseWriter, r *http.Request) {
	var req bulkFetchRequest
	if e := decodeStrict(r, &req); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	if req.IssueIdsOrKeys == nil || len(*req.IssueIdsOrKeys) == 0 {
		writeErr(w, http.StatusBadRequest, fieldErr("issueIdsOrKeys", "Provide at least one issue id or key."))
		return
	}
	if n := len(*req.IssueIdsOrKeys); n > maxBulkFetch {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The number of issues requested (%d) exceeds the limit of %d.", n, maxBulkFetch)))
		return
	}
	ps := parsePropSel(req.Properties)
	if n := len(ps.incl); n > maxSearchProps {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("You can request at most %d issue properties; you requested %d.", maxSearchProps, n)))
		return
	}
	for _, e := range req.Expand {
		switch e {
		case "renderedFields", "names", "schema", "transitions", "operations", "editmeta", "changelog", "versionedRepresentations":
		default:
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The expand value '%s' is not valid.", e)))
			return
		}
	}
	fs := parseFieldSel(req.Fields, "*navigable")
	s.readAnswer(w, func() answer {
		var hits []*issue
		seen := map[int64]bool{}
		for _, k := range *req.IssueIdsOrKeys {
			iss := s.issueByKeyOrID(strings.TrimSpace(k))
			if iss == nil || !iss.Proj.perms.Browse || seen[iss.ID] {
				continue
			}
			seen[iss.ID] = true
			hits = append(hits, iss)
		}
		slices.SortFunc(hits, func(a, b *issue) int { return cmpInt(a.ID, b.ID) })
		s.found()
		base := s.base(r)
		out := make([]any, 0, len(hits))
		for _, iss := range hits {
			out = append(out, s.renderIssue(base, iss, iss.cur, fs, ps))
		}
		return encodeJSON(http.StatusOK, map[string]any{"issues": out, "issueErrors": []any{}})
	})
}

// permissionInfo describes the project permissions mypermissions answers.
// The first five are Permissions' fields (deny clears one); Link and
// Schedule issues go with Edit (the fake's stand-in for them) unless a
// Profile denies them (site.go); USER_PICKER is global.
var permissionInfo = []permInfo{
	{"BROWSE_PROJECTS", "10", "Browse Projects", "Ability to browse projects and the issues within them.", "PROJECT", func(p Permissions) bool { return p.Browse }, func(p *Permissions) { p.Browse = false }},
	{"CREATE_ISSUES", "11", "Create Issues", "Ability to create issues.", "PROJECT", func(p Permissions) bool { return p.Create }, func(p *Permissions) { p.Create = false }},
	{"EDIT_ISSUES", "12", "Edit Issues", "Ability to edit issues.", "PROJECT", func(p Permissions) bool { return p.Edit }, func(p *Permissions) { p.Edit = false }},
	{"TRANSITION_ISSUES", "46", "Transition Issues", "Ability to transition issues.", "PROJECT", func(p Permissions) bool { return p.Transition }, func(p *Permissions) { p.Transition = false }},
	{"ADD_COMMENTS", "15", "Add Comments", "Ability to comment on issues.", "PROJECT", func(p Permissions) bool { return p.Comment }, func(p *Permissions) { p.Comment = false }},
	{PermLinkIssues, "21", "Link Issues", "Ability to link issues together and create linked issues. Only useful if issue linking is turned on.", "PROJECT", func(p Permissions) bool { return p.Edit }, nil},
	{PermScheduleIssues, "28", "Schedule Issues", "Ability to set or edit an issue's due date.", "PROJECT", func(p Permissions) bool { return p.Edit }, nil},
	{PermUserPicker, "27", "Browse users and groups", "View and select users or groups from the user picker, and share issues. Users with this permission can see the names of all users and groups on your site.", "GLOBAL", nil, nil},
}

type permInfo struct {
	key, id, name, description, typ string
	has                             func(Permissions) bool // nil: granted unless the profile denies it
	deny                            func(*Permissions)
}

// in reports whether the user has the permission in p.
func (pi permInfo) in(p *project) bool {
	return (pi.has == nil || pi.has(p.perms)) && !p.denies(pi.key)
}

func permissionByKey(k string) *permInfo {
	for i := range permissionInfo {
		if permissionInfo[i].key == k {
			return &permissionInfo[i]
		}
	}
	return nil
}

// handleMyPermissions is GET /rest/api/3/mypermissions for the modelled
// project permissions, in the context of one project (projectKey or
// projectId) or globally (granted if granted in any project). A project
// that does not exist is 404. For a project that exists but that the user
// cannot browse, the fake answers 200 with every permission the user lacks
// there (BROWSE_PROJECTS false), so a client can name what is missing.
func (s *Server) handleMyPermissions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	keys := listEntries(q["permissions"])
	if len(keys) == 0 {
		writeErr(w, http.StatusBadRequest, newErr("The 'permissions' query parameter is required: a comma-separated list of permission keys."))
		return
	}
	idx := map[string]int{}
	for i, p := range permissionInfo {
		idx[p.key] = i
	}
	for _, k := range keys {
		if _, ok := idx[k]; !ok {
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The permission key '%s' is not valid (mockjira models %s).", k, modelledPermissionKeys())))
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var projs []*project
	switch pk, pid := q.Get("projectKey"), q.Get("projectId"); {
	case pid != "" || pk != "":
		ref := pid
		if ref == "" {
			ref = pk
		}
		p := s.projectByKeyOrID(ref)
		if p == nil {
			writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("No project could be found with key '%s'.", ref)))
			return
		}
		projs = []*project{p}
	case q.Get("issueKey") != "" || q.Get("issueId") != "":
		writeErr(w, http.StatusBadRequest, newErr("mockjira models mypermissions in a project or the global context only; use projectKey or projectId."))
		return
	default:
		projs = s.projects
	}
	out := map[string]any{}
	for _, k := range keys {
		pi := permissionInfo[idx[k]]
		has := false
		if pi.typ == "GLOBAL" {
			has = !slices.Contains(s.site.DeniedPermissions, pi.key)
		}
		for _, p := range projs {
			has = has || (pi.typ != "GLOBAL" && pi.in(p))
		}
		out[k] = map[string]any{"id": pi.id, "key": pi.key, "name": pi.name, "type": pi.typ, "description": pi.description, "havePermission": has}
	}
	writeJSON(w, http.StatusOK, map[string]any{"permissions": out})
}

func modelledPermissionKeys() string {
	ks := make([]string, len(permissionInfo))
	for i, p := range permissionInfo {
		ks[i] = p.key
	}
	return strings.Join(ks, ", ")
}
