package jiratest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// The endpoints of one issue (/rest/api/3/issue/{key}...): read, edit,
// transitions, comments and entity properties. Each is written as an
// issueHandler behind withIssue (or withIssueBody), which does what every
// one of them does first, in Jira's order.

// issueHandler serves one issue's endpoint. It runs with s.mu held, the
// issue found and browsable and the permission the endpoint needs checked.
type issueHandler func(w http.ResponseWriter, r *http.Request, iss *issue)

// permission is a project permission an endpoint needs beyond Browse,
// with the message of Jira's 403 when it is missing.
type permission struct {
	has    func(Permissions) bool
	denied string
}

var (
	browse         = permission{}
	needEdit       = permission{func(p Permissions) bool { return p.Edit }, "You do not have permission to edit issues in this project."}
	needTransition = permission{func(p Permissions) bool { return p.Transition }, "You do not have permission to transition this issue."}
	needComment    = permission{func(p Permissions) bool { return p.Comment }, "You do not have the permission to comment on this issue."}
)

// withIssue is the prologue of the issue endpoints: lock the server, find
// the issue by the {key} path value (key or id; 404 when it does not exist
// or its project is not browsable), check need (403), then call h.
func (s *Server) withIssue(need permission, h issueHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		iss := s.issueByKeyOrID(r.PathValue("key"))
		if iss == nil || !iss.Proj.perms.Browse {
			writeErr(w, http.StatusNotFound, newErr(msgNoPermIssue))
			return
		}
		if need.has != nil && !need.has(iss.Proj.perms) {
			writeErr(w, http.StatusForbidden, newErr(need.denied))
			return
		}
		h(w, r, iss)
	}
}

// withIssueBody is withIssue for an endpoint with a JSON body: the body is
// decoded first (400 on bad JSON, before the issue is looked up, as Jira
// does).
func withIssueBody[T any](s *Server, need permission, h func(w http.ResponseWriter, r *http.Request, iss *issue, in T)) http.HandlerFunc {
	return withBody(func(w http.ResponseWriter, r *http.Request, in T) {
		s.withIssue(need, func(w http.ResponseWriter, r *http.Request, iss *issue) { h(w, r, iss, in) })(w, r)
	})
}

// issueRoutes registers the issue endpoints with h (auth included).
func (s *Server) issueRoutes(h func(pattern string, f http.HandlerFunc)) {
	h("GET /rest/api/3/issue/{key}", s.withIssue(browse, s.getIssue))
	h("PUT /rest/api/3/issue/{key}", withIssueBody(s, browse, s.editIssue))
	h("GET /rest/api/3/issue/{key}/editmeta", s.withIssue(browse, s.editMeta))
	h("GET /rest/api/3/issue/{key}/transitions", s.withIssue(browse, s.getTransitions))
	h("POST /rest/api/3/issue/{key}/transitions", withIssueBody(s, needTransition, s.doTransition))
	h("GET /rest/api/3/issue/{key}/comment", s.withIssue(browse, s.getComments))
	h("POST /rest/api/3/issue/{key}/comment", withIssueBody(s, needComment, s.addComment))
	h("GET /rest/api/3/issue/{key}/properties", s.withIssue(browse, s.listProps))
	h("GET /rest/api/3/issue/{key}/properties/{prop}", s.withIssue(browse, s.getProp))
	h("PUT /rest/api/3/issue/{key}/properties/{prop}", withIssueBody(s, needEdit, s.setProp))
	h("DELETE /rest/api/3/issue/{key}/properties/{prop}", s.withIssue(browse, s.deleteProp))
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, iss *issue) {
	q := r.URL.Query()
	fs := parseFieldSel(q["fields"], "*all")
	ps := parsePropSel(q["properties"])
	writeJSON(w, http.StatusOK, s.renderIssue(s.base(r), iss, iss.cur, fs, ps))
}

// editIssue checks the Edit permission itself (in validateWrite), with the
// field-level answer Jira gives.
func (s *Server) editIssue(w http.ResponseWriter, r *http.Request, iss *issue, in issueUpdate) {
	pw, status, e := s.validateWrite(in, iss)
	if e != nil {
		writeErr(w, status, e)
		return
	}
	s.applyEdit(iss, pw)
	if r.URL.Query().Get("returnIssue") == "true" {
		writeJSON(w, http.StatusOK, s.renderIssue(s.base(r), iss, iss.cur, parseFieldSel(nil, "*all"), parsePropSel(nil)))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getComments(w http.ResponseWriter, r *http.Request, iss *issue) {
	base := s.base(r)
	cs := []any{}
	for _, c := range iss.comments {
		cs = append(cs, s.commentJSON(base, iss, c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"comments": cs, "maxResults": 5000, "startAt": 0, "total": len(cs)})
}

// commentRequest is Comment as POST .../comment reads it.
type commentRequest struct {
	Body json.RawMessage `json:"body"`
}

func (s *Server) addComment(w http.ResponseWriter, r *http.Request, iss *issue, in commentRequest) {
	if len(in.Body) == 0 || isNull(in.Body) {
		writeErr(w, http.StatusBadRequest, fieldErr("comment", "Comment body can not be empty!"))
		return
	}
	if err := validADF(in.Body); err != nil {
		writeErr(w, http.StatusBadRequest, fieldErr("comment", msgADF))
		return
	}
	body := compact(in.Body)
	if utf8.RuneCount(body) > maxTextLength {
		writeErr(w, http.StatusBadRequest, fieldErr("comment", msgTooLong))
		return
	}
	s.nextCmt++
	c := comment{ID: s.nextCmt, Body: body, Created: s.now()}
	iss.comments = append(iss.comments, c)
	st := iss.cur.clone()
	st.CommentText = append(st.CommentText, adfText(c.Body))
	st.Updated = c.Created
	s.setState(iss, st)
	writeJSON(w, http.StatusCreated, s.commentJSON(s.base(r), iss, c))
}

func (s *Server) listProps(w http.ResponseWriter, r *http.Request, iss *issue) {
	keys := []any{}
	for _, k := range sortedKeys(iss.props) {
		keys = append(keys, map[string]any{"key": k, "self": s.base(r) + "/rest/api/3/issue/" + itoa(iss.ID) + "/properties/" + k})
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

// prop returns the {prop} property of iss, or writes Jira's 404.
func prop(w http.ResponseWriter, r *http.Request, iss *issue) (string, json.RawMessage, bool) {
	k := r.PathValue("prop")
	v, ok := iss.props[k]
	if !ok {
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("The property with key '%s' does not exist.", k)))
	}
	return k, v, ok
}

func (s *Server) getProp(w http.ResponseWriter, r *http.Request, iss *issue) {
	if k, v, ok := prop(w, r, iss); ok {
		writeJSON(w, http.StatusOK, map[string]any{"key": k, "value": json.RawMessage(v)})
	}
}

func (s *Server) setProp(w http.ResponseWriter, r *http.Request, iss *issue, v json.RawMessage) {
	k := r.PathValue("prop")
	switch {
	case utf8.RuneCountInString(k) > maxPropKey:
		writeErr(w, http.StatusBadRequest, newErr("The property key cannot be longer than 255 characters."))
		return
	case len(v) > maxPropValue:
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The property '%s' exceeds the maximum length of 32768 bytes.", k)))
		return
	}
	_, existed := iss.props[k]
	iss.props[k] = compact(v)
	if existed {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) deleteProp(w http.ResponseWriter, r *http.Request, iss *issue) {
	if k, _, ok := prop(w, r, iss); ok {
		delete(iss.props, k)
		w.WriteHeader(http.StatusNoContent)
	}
}
