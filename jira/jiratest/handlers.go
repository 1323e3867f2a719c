package jiratest

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	h := func(pattern string, f http.HandlerFunc) { m.Handle(pattern, s.auth(f)) }
	h("GET /rest/api/3/myself", s.handleMyself)
	// serverInfo needs no permission in Jira Cloud: anonymous calls work,
	// so it cannot be used to check credentials (a wrong token still 401s).
	m.Handle("GET /rest/api/3/serverInfo", s.authOr(s.handleServerInfo, true))
	// v2's serverInfo answers on Cloud and Data Center alike: a client
	// tells them apart by its deploymentType (site.go).
	m.Handle("GET /rest/api/2/serverInfo", s.authOr(s.handleServerInfo, true))
	h("GET /rest/api/3/project/{key}", s.handleProject)
	h("GET /rest/api/3/field", s.handleFields)
	// createmeta paths overlap {key}/properties/{prop} in ServeMux terms,
	// so they get their own mux.
	cm := http.NewServeMux()
	cm.Handle("GET /rest/api/3/issue/createmeta/{project}/issuetypes", s.auth(s.withCreateMeta(s.createMetaTypes)))
	cm.Handle("GET /rest/api/3/issue/createmeta/{project}/issuetypes/{id}", s.auth(s.withCreateMeta(s.createMetaFields)))
	h("POST /rest/api/3/issue", withLockedBody(s, s.handleCreate))
	h("POST /rest/api/3/issue/bulk", s.handleBulkCreate)
	h("POST /rest/api/3/issue/bulkfetch", s.handleBulkFetch)
	h("GET /rest/api/3/mypermissions", s.handleMyPermissions)
	h("GET /rest/api/3/user/assignable/search", s.handleAssignableSearch)
	h("GET /rest/api/3/user/search", s.handleUserSearch)
	s.issueRoutes(h)
	s.structureRoutes(h)
	h("GET /rest/api/3/search/jql", s.handleSearchGet)
	h("POST /rest/api/3/search/jql", s.handleSearchPost)
	h("POST /rest/api/3/search/approximate-count", s.handleCount)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/rest/api/3/search") && r.URL.Path == "/rest/api/3/search" {
			writeErr(w, http.StatusGone, newErr("The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046"))
			return
		}
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("mockjira does not model %s %s.", r.Method, r.URL.Path)))
	})
	s.mux = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/rest/api/3/issue/createmeta/") {
			if _, pat := cm.Handler(r); pat != "" {
				cm.ServeHTTP(w, r)
				return
			}
		}
		m.ServeHTTP(w, r)
	})
}

// auth checks Basic auth like Jira Cloud (401 for a missing or wrong
// e-mail/token pair).
func (s *Server) auth(next http.HandlerFunc) http.Handler { return s.authOr(next, false) }

// authOr is auth; with anonymous, a request without an Authorization
// header is let through too.
func (s *Server) authOr(next http.HandlerFunc, anonymous bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := anonymous && r.Header.Get("Authorization") == ""
		if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Basic ") {
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic ")); err == nil {
				email, token, _ := strings.Cut(string(raw), ":")
				ok = strings.EqualFold(email, s.opts.Email) && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) == 1
			}
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="protected-area"`)
			writeErr(w, http.StatusUnauthorized, newErr("Client must be authenticated to access this resource."))
			return
		}
		if r.Header.Get("Authorization") != "" {
			s.nameAccount(w)
		}
		if (r.Method == http.MethodPost || r.Method == http.MethodPut) && r.ContentLength != 0 {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				writeErr(w, http.StatusUnsupportedMediaType, newErr("Unsupported Media Type: send the request body as application/json (Content-Type header)."))
				return
			}
		}
		next(w, r)
	})
}

// nameAccount names the authenticated account in the answer's header, as
// Jira does: Cloud's X-AAccountId (its account id; documented in the
// introduction of Atlassian's REST API v3 description, "Special request
// and response headers"), Data Center's X-AUSERNAME (its user name;
// documented in the Data Center REST reference's section of that name).
func (s *Server) nameAccount(w http.ResponseWriter) {
	s.mu.RLock()
	dc := s.site.dataCenter()
	s.mu.RUnlock()
	if dc {
		w.Header().Set("X-AUSERNAME", s.dcUserName(DemoAccountID))
		return
	}
	w.Header().Set("X-AAccountId", s.accountID())
}

func (s *Server) handleMyself(w http.ResponseWriter, r *http.Request) {
	u := s.userJSON(s.base(r))
	u["locale"] = "en_US"
	u["groups"] = map[string]any{"size": 1, "items": []any{}}
	u["applicationRoles"] = map[string]any{"size": 1, "items": []any{}}
	u["expand"] = "groups,applicationRoles"
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) handleServerInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.serverInfoJSON(r))
}

// visibleProject finds a project the user may browse.
func (s *Server) visibleProject(k string) *project {
	p := s.projectByKeyOrID(k)
	if p == nil || !p.perms.Browse {
		return nil
	}
	return p
}

func (s *Server) handleProject(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := r.PathValue("key")
	p := s.visibleProject(k)
	if p == nil {
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("No project could be found with key '%s'.", k)))
		return
	}
	base := s.base(r)
	out := projectRefJSON(base, p)
	out["expand"] = "description,lead,issueTypes,url,projectKeys,permissions,insight"
	out["description"] = ""
	out["assigneeType"] = "UNASSIGNED"
	projectStyleJSON(p, out)
	out["isPrivate"] = false
	out["lead"] = s.userJSON(base)
	types := []any{}
	for _, t := range p.projectTypes() {
		types = append(types, issueTypeJSON(base, t, p))
	}
	out["issueTypes"] = types
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) fieldsJSON(base string) []any {
	out := []any{}
	for _, f := range systemFields {
		sch := map[string]any{"type": f.schemaType, "system": f.system}
		if f.items != "" {
			sch["items"] = f.items
		}
		out = append(out, map[string]any{
			"id": f.id, "key": f.id, "name": f.name, "custom": false, "orderable": f.orderable,
			"navigable": f.navigable, "searchable": f.searchable, "clauseNames": f.clauses, "schema": sch,
		})
	}
	n := strings.TrimPrefix(s.fieldID, "customfield_")
	num, _ := strconv.Atoi(n)
	if s.globalRefListed() { // team-managed projects have their own (site.go)
		out = append(out, map[string]any{
			"id": s.fieldID, "key": s.fieldID, "name": s.fieldName,
			"custom": true, "orderable": true, "navigable": true, "searchable": !s.refUnsearchable,
			"clauseNames": []string{"cf[" + n + "]", s.fieldName},
			"schema":      map[string]any{"type": "string", "custom": TextFieldType, "customId": num},
		})
	}
	out = append(out, s.teamRefFieldsJSON(base)...)
	if s.opts.DuplicateFieldName && s.fieldID != DecoyFieldID {
		out = append(out, map[string]any{
			"id": DecoyFieldID, "key": DecoyFieldID, "name": s.fieldName,
			"custom": true, "orderable": true, "navigable": true, "searchable": true,
			"clauseNames": []string{"cf[10051]", s.fieldName},
			"schema":      map[string]any{"type": "string", "custom": TextAreaFieldType, "customId": 10051},
		})
	}
	out = append(out, agileFieldsJSON()...)
	return append(out, s.modelFieldsJSON()...)
}

func (s *Server) handleFields(w http.ResponseWriter, r *http.Request) {
	s.readAnswer(w, func() answer { return encodeJSON(http.StatusOK, s.fieldsJSON(s.base(r))) })
}

// paging parses startAt/maxResults for createmeta (max 200).
func paging(r *http.Request) (start, max int, e *jiraError) { return pageParams(r, 200, true) }

// pageParams parses startAt/maxResults (default 50): a maxResults above
// limit is refused (refuse) or capped.
func pageParams(r *http.Request, limit int, refuse bool) (start, max int, e *jiraError) {
	start, max = 0, 50
	q := r.URL.Query()
	if v := q.Get("startAt"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, newErr("Parameter 'startAt' must be a non-negative number.")
		}
		start = n
	}
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, newErr("Parameter 'maxResults' must be a non-negative number.")
		}
		if n > limit && refuse {
			return 0, 0, newErr(fmt.Sprintf("Parameter 'maxResults' must not exceed the limit '%d'", limit))
		}
		max = min(n, limit)
	}
	return start, max, nil
}

func pageOf[T any](items []T, start, max int) []T {
	if start > len(items) {
		start = len(items)
	}
	end := min(start+max, len(items))
	return items[start:end]
}

// createMetaHandler serves a createmeta page of one project: with s.mu
// held, the project browsable and the paging parameters parsed.
type createMetaHandler func(w http.ResponseWriter, r *http.Request, p *project, start, max int)

// withCreateMeta is the prologue of the createmeta endpoints: paging
// (400), lock, the {project} path value (404 unless browsable).
func (s *Server) withCreateMeta(h createMetaHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start, max, e := paging(r)
		if e != nil {
			writeErr(w, http.StatusBadRequest, e)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p := s.visibleProject(r.PathValue("project"))
		if p == nil {
			writeErr(w, http.StatusNotFound, newErr("No project could be found with key '"+r.PathValue("project")+"'."))
			return
		}
		h(w, r, p, start, max)
	}
}

func (s *Server) createMetaTypes(w http.ResponseWriter, r *http.Request, p *project, start, max int) {
	base := s.base(r)
	all := []any{}
	for _, t := range p.projectTypes() {
		all = append(all, issueTypeJSON(base, t, p))
	}
	writeJSON(w, http.StatusOK, map[string]any{"issueTypes": pageOf(all, start, max), "maxResults": max, "startAt": start, "total": len(all)})
}

func (s *Server) createMetaFields(w http.ResponseWriter, r *http.Request, p *project, start, max int) {
	t := byID(issueTypes, r.PathValue("id"))
	if t == nil || !p.types[t.ID] {
		writeErr(w, http.StatusNotFound, newErr("Issue type with id '"+r.PathValue("id")+"' does not exist or is not valid for project '"+p.Key+"'."))
		return
	}
	base := s.base(r)
	req := p.required[t.ID]
	fm := func(id, name string, required bool, schema map[string]any, ops ...string) map[string]any {
		if ops == nil {
			ops = []string{}
		}
		return map[string]any{"fieldId": id, "key": id, "name": name, "required": required || req[id], "hasDefaultValue": false, "operations": ops, "schema": schema}
	}
	all := []any{
		fm("issuetype", "Issue Type", true, map[string]any{"type": "issuetype", "system": "issuetype"}),
		fm("project", "Project", true, map[string]any{"type": "project", "system": "project"}, "set"),
		fm("summary", "Summary", true, map[string]any{"type": "string", "system": "summary"}, "set"),
		fm("description", "Description", false, map[string]any{"type": "string", "system": "description"}, "set"),
		fm("labels", "Labels", false, map[string]any{"type": "array", "items": "string", "system": "labels"}, "add", "set", "remove"),
	}
	all[0].(map[string]any)["allowedValues"] = []any{issueTypeJSON(base, t, p)}
	if t.ID != IssueTypeEpicID {
		all = append(all, fm("parent", "Parent", false, map[string]any{"type": "issuelink", "system": "parent"}, "set"))
	}
	ref := s.refField(p, t.ID) // a team-managed project's is per issue type (site.go)
	n, _ := strconv.Atoi(strings.TrimPrefix(ref, "customfield_"))
	if !s.fields.offScreen[p][t.ID][ref] { // FieldSeed.OffScreen can take the reference field off too
		all = append(all, fm(ref, s.fieldName, false, map[string]any{"type": "string", "custom": TextFieldType, "customId": n}, "set"))
	}
	for _, e := range s.modelFieldMeta(base, p, t.ID, req, false) {
		all = append(all, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"fields": pageOf(all, start, max), "maxResults": max, "startAt": start, "total": len(all)})
}

// decodeBody decodes a JSON request body like Jira (400 on bad JSON).
func decodeBody(r *http.Request, v any) *jiraError {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return newErr("Unexpected character or malformed JSON in the request body: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// decodeStrict decodes a JSON request body like Jira's newer endpoints
// (search, count, bulk fetch): unknown properties are refused (400).
func decodeStrict(r *http.Request, v any) *jiraError {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return newErr("Invalid request payload. Refer to the REST API documentation and try again: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func createdJSON(base string, iss *issue) map[string]any {
	return map[string]any{"id": itoa(iss.ID), "key": iss.Key, "self": base + "/rest/api/3/issue/" + itoa(iss.ID)}
}

// withBody is the prologue of an endpoint with a JSON body: decode it
// into a T (400 on bad JSON, before anything is locked or looked up, as
// Jira does), then call h.
func withBody[T any](h func(w http.ResponseWriter, r *http.Request, in T)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in T
		if e := decodeBody(r, &in); e != nil {
			writeErr(w, http.StatusBadRequest, e)
			return
		}
		h(w, r, in)
	}
}

// withLockedBody is withBody calling h with the server locked.
func withLockedBody[T any](s *Server, h func(w http.ResponseWriter, r *http.Request, in T)) http.HandlerFunc {
	return withBody(func(w http.ResponseWriter, r *http.Request, in T) {
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r, in)
	})
}

// handleCreate runs locked (withLockedBody).
func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, in issueUpdate) {
	pw, status, e := s.validateWrite(in, nil)
	if e != nil {
		writeErr(w, status, e)
		return
	}
	iss := s.applyCreate(pw)
	writeJSON(w, http.StatusCreated, createdJSON(s.base(r), iss))
}

func (s *Server) handleBulkCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		IssueUpdates []issueUpdate `json:"issueUpdates"`
	}
	// Request-level errors use the bulk response shape (CreatedIssues),
	// as the spec documents for 400.
	bulkErr := func(e *jiraError) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"issues": []any{}, "errors": []any{map[string]any{"status": http.StatusBadRequest, "elementErrors": e}}})
	}
	if e := decodeBody(r, &in); e != nil {
		bulkErr(e)
		return
	}
	if len(in.IssueUpdates) == 0 {
		bulkErr(newErr("Nothing to create. Provide at least one issue in 'issueUpdates'."))
		return
	}
	if len(in.IssueUpdates) > maxBulkIssues {
		bulkErr(newErr(fmt.Sprintf("The number of issues to create exceeds the limit of %d. You tried to create %d issues.", maxBulkIssues, len(in.IssueUpdates))))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.base(r)
	created := []any{}
	errs := []any{}
	for i, u := range in.IssueUpdates {
		pw, status, e := s.validateWrite(u, nil)
		if e != nil {
			errs = append(errs, map[string]any{"status": status, "elementErrors": e, "failedElementNumber": i})
			continue
		}
		created = append(created, createdJSON(base, s.applyCreate(pw)))
	}
	status := http.StatusCreated
	if len(created) == 0 {
		status = http.StatusBadRequest
	}
	if s.bulkReversed {
		// The order of issues[] is undocumented: answer newest first.
		slices.Reverse(created)
	}
	writeJSON(w, status, map[string]any{"issues": created, "errors": errs})
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
