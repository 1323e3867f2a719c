package jiratest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Issue links (POST/DELETE /rest/api/3/issueLink, GET issueLink/{id},
// GET issueLinkType[/{id}]) and the routes of this file and agile.go.
//
// Direction, as Atlassian's issue linking model documents it
// (https://developer.atlassian.com/cloud/jira/platform/issue-linking-model/):
// a link has a source and a destination; the source's issue view labels it
// with the type's outward description ("blocks"), the destination's with
// the inward one ("is blocked by"). In GET issue/{key} fields.issuelinks the
// source lists the link with outwardIssue = the destination, the
// destination with inwardIssue = the source. In POST issueLink the
// inwardIssue is the source: {"type":{"name":"Blocks"},"inwardIssue":A,
// "outwardIssue":B} makes "A blocks B" (B "is blocked by" A).

type linkType struct{ ID, Name, Inward, Outward string }

// linkTypes are Jira Cloud's default issue link types.
var linkTypes = []linkType{
	{"10000", "Blocks", "is blocked by", "blocks"},
	{"10001", "Cloners", "is cloned by", "clones"},
	{"10002", "Duplicate", "is duplicated by", "duplicates"},
	{"10003", "Relates", "relates to", "relates to"},
}

// LinkTypeBlocksID is the id of the Blocks link type.
const LinkTypeBlocksID = "10000"

func (t linkType) id() string   { return t.ID }
func (t linkType) name() string { return t.Name }

func (t *linkType) json(base string) map[string]any {
	return map[string]any{"id": t.ID, "name": t.Name, "inward": t.Inward, "outward": t.Outward, "self": base + "/rest/api/3/issueLinkType/" + t.ID}
}

func (l *link) linkType() *linkType {
	if l.TypeID == "" {
		return &linkTypes[0]
	}
	return byID(linkTypes, l.TypeID)
}

func (s *Server) structureRoutes(h func(string, http.HandlerFunc)) {
	h("GET /rest/api/3/issueLinkType", s.handleLinkTypes)
	h("GET /rest/api/3/issueLinkType/{id}", s.handleLinkType)
	h("POST /rest/api/3/issueLink", s.handleCreateLink)
	h("GET /rest/api/3/issueLink/{id}", serveFound(s, s.linkByPath, s.linkJSON))
	h("DELETE /rest/api/3/issueLink/{id}", s.handleDeleteLink)
	h("GET /rest/agile/1.0/board", s.handleBoards)
	h("GET /rest/agile/1.0/board/{boardId}", serveFound(s, s.visibleBoard, func(base string, b *board) any { return s.boardJSON(base, b) }))
	h("GET /rest/agile/1.0/board/{boardId}/sprint", s.handleBoardSprints)
	h("GET /rest/agile/1.0/sprint/{sprintId}", serveFound(s, s.visibleSprint, func(base string, sp *sprint) any { return sprintJSON(base, sp) }))
	h("POST /rest/agile/1.0/sprint/{sprintId}/issue", withLockedBody(s, s.handleMoveToSprint))
	h("PUT /rest/agile/1.0/issue/rank", s.handleRank)
}

func (s *Server) handleLinkTypes(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	out := []any{}
	for i := range linkTypes {
		out = append(out, s.linkTypeJSON(base, &linkTypes[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"issueLinkTypes": out})
}

func (s *Server) handleLinkType(w http.ResponseWriter, r *http.Request) {
	t := byID(linkTypes, r.PathValue("id"))
	if t == nil {
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("No issue link type with id '%s' found.", r.PathValue("id"))))
		return
	}
	writeJSON(w, http.StatusOK, s.linkTypeJSON(s.base(r), t))
}

type linkRequest struct {
	Type         *objRef         `json:"type"`
	InwardIssue  *objRef         `json:"inwardIssue"`
	OutwardIssue *objRef         `json:"outwardIssue"`
	Comment      json.RawMessage `json:"comment"`
}

func (s *Server) handleCreateLink(w http.ResponseWriter, r *http.Request) {
	var in linkRequest
	if e := decodeBody(r, &in); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	e := newErr()
	if in.Type == nil || (in.Type.ID == "" && in.Type.Name == "") {
		e.Errors["issueLinkType"] = "The issue link type (type: id or name) is required."
	}
	if in.InwardIssue == nil || (in.InwardIssue.ID == "" && in.InwardIssue.Key == "") {
		e.Errors["inwardIssue"] = "The inward issue (id or key) is required."
	}
	if in.OutwardIssue == nil || (in.OutwardIssue.ID == "" && in.OutwardIssue.Key == "") {
		e.Errors["outwardIssue"] = "The outward issue (id or key) is required."
	}
	if len(in.Comment) > 0 && !isNull(in.Comment) {
		e.ErrorMessages = append(e.ErrorMessages, "mockjira does not model a comment with an issue link; link without it.")
	}
	if !e.empty() {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var t *linkType
	if in.Type.ID != "" {
		t = byID(linkTypes, in.Type.ID)
	} else {
		t = s.linkTypeNamed(in.Type.Name)
	}
	if t == nil {
		what := in.Type.Name
		if in.Type.ID != "" {
			what = in.Type.ID
		}
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("No issue link type with name '%s' found.", what)))
		return
	}
	from, to := s.linkedIssue(in.InwardIssue), s.linkedIssue(in.OutwardIssue)
	if from == nil || to == nil {
		writeErr(w, http.StatusNotFound, newErr(msgNoPermIssue))
		return
	}
	if !from.Proj.perms.Edit || from.Proj.denies(PermLinkIssues) { // Edit stands for Link issues unless a profile denies it (site.go)
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("No Link Issue Permission for issue '%s'.", from.Key)))
		return
	}
	if from == to {
		writeErr(w, http.StatusBadRequest, newErr("You cannot link an issue to itself."))
		return
	}
	for _, l := range s.links {
		if l.Blocker == from && l.Blocked == to && l.linkType() == t {
			w.WriteHeader(http.StatusCreated) // a duplicate answers "created" (Jira's documented behaviour)
			return
		}
	}
	s.addLinkLocked(t, from, to)
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) linkedIssue(ref *objRef) *issue {
	k := ref.Key
	if k == "" {
		k = ref.ID
	}
	iss := s.issueByKeyOrID(k)
	if iss == nil || !iss.Proj.perms.Browse {
		return nil
	}
	return iss
}

// addLinkLocked links from (source) to to (destination); like Jira it
// moves both issues' updated. Call with s.mu held.
func (s *Server) addLinkLocked(t *linkType, from, to *issue) *link {
	s.nextLink++
	l := &link{ID: s.nextLink, Blocker: from, Blocked: to, TypeID: t.ID}
	s.links = append(s.links, l)
	s.touchLocked(from, to)
	return l
}

// touchLocked moves the issues' updated (a change outside their fields:
// links, sprint, rank). Call with s.mu held.
func (s *Server) touchLocked(issues ...*issue) {
	for _, iss := range issues {
		st := iss.cur.clone()
		st.Updated = s.now()
		s.setState(iss, st)
	}
}

// linkByPath finds the link of the {id} path value (400 when it is not a
// number, 404 when no visible link has it). Call with s.mu held.
func (s *Server) linkByPath(w http.ResponseWriter, r *http.Request) *link {
	if _, err := strconv.ParseInt(r.PathValue("id"), 10, 64); err != nil {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The issue link ID '%s' is invalid.", r.PathValue("id"))))
		return nil
	}
	return byPathID(w, r, "id", func(id int64) *link {
		for _, l := range s.links {
			if l.ID == id {
				return l
			}
		}
		return nil
	}, func(l *link) bool { return l.Blocker.Proj.perms.Browse && l.Blocked.Proj.perms.Browse },
		fmt.Sprintf("No issue link with id '%s' exists.", r.PathValue("id")))
}

func (s *Server) linkJSON(base string, l *link) any {
	return map[string]any{
		"id": itoa(l.ID), "self": base + "/rest/api/3/issueLink/" + itoa(l.ID), "type": s.linkTypeJSON(base, l.linkType()),
		"inwardIssue": s.issueRefJSON(base, l.Blocker), "outwardIssue": s.issueRefJSON(base, l.Blocked),
	}
}

func (s *Server) handleDeleteLink(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.linkByPath(w, r)
	if l == nil {
		return
	}
	i := slices.Index(s.links, l)
	if !l.Blocker.Proj.perms.Edit && !l.Blocked.Proj.perms.Edit {
		writeErr(w, http.StatusNotFound, newErr("You do not have the permission to link issues in this project."))
		return
	}
	s.links = append(s.links[:i:i], s.links[i+1:]...)
	s.touchLocked(l.Blocker, l.Blocked)
	w.WriteHeader(http.StatusNoContent)
}

// LinkSnapshot is the admin view of an issue link: From is its source
// (shown "blocks" for Blocks), To its destination ("is blocked by").
type LinkSnapshot struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Links returns every issue link, oldest first.
func (s *Server) Links() []LinkSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LinkSnapshot, 0, len(s.links))
	for _, l := range s.links {
		out = append(out, LinkSnapshot{ID: itoa(l.ID), Type: l.linkType().Name, From: l.Blocker.Key, To: l.Blocked.Key})
	}
	return out
}

// LinkTyped adds a link of the named type (Blocks, Relates, Duplicate,
// Cloners) from source to destination, as a person would.
func (s *Server) LinkTyped(typeName, from, to string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := byName(linkTypes, typeName)
	if t == nil {
		names := make([]string, len(linkTypes))
		for i, lt := range linkTypes {
			names[i] = lt.Name
		}
		return fmt.Errorf("link type %q does not exist; use one of %s", typeName, strings.Join(names, ", "))
	}
	a, b := s.issueByKeyOrID(from), s.issueByKeyOrID(to)
	if a == nil || b == nil || a == b {
		return fmt.Errorf("link needs two different existing issues, got %q and %q", from, to)
	}
	s.addLinkLocked(t, a, b)
	return nil
}
