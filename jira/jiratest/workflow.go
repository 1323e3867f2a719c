package jiratest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Workflows. A project's Profile.Workflow picks one:
//
//   - simple (the default): To Do, In Progress, Done with global
//     transitions 11/21/31 into each, no screens, no resolution;
//   - classic, as a company-managed project's classic workflow has it:
//     To Do → In Progress ("Start Progress" 4, back with "Stop Progress"
//     301), To Do or In Progress → Resolved ("Resolve Issue" 5: a screen
//     whose Resolution is required), Resolved → Closed ("Close Issue" 2: a
//     validator, every sub-task done), Resolved or Closed → To Do
//     ("Reopen Issue" 3, which clears the resolution). Resolved and Closed
//     are in the done category.
//
// GET transitions lists the transitions out of the issue's status
// (transitionId narrows; expand=transitions.fields adds each one's screen
// fields with allowed values); POST refuses a field not on the
// transition's screen, a missing required one, an unknown value, and a
// failing validator, with Jira's error bodies.

// transition is one workflow transition.
type transition struct {
	ID, Name string
	From     []string // status ids; nil: global (from every other status)
	To       string
	// Resolution: the transition's screen holds Resolution, required.
	Resolution bool
	// SubtasksDone: a validator refuses the transition while a sub-task
	// of the issue is not done.
	SubtasksDone bool
}

var simpleTransitions = []transition{
	{ID: TransitionToDoID, Name: "To Do", To: StatusToDoID},
	{ID: TransitionInProgressID, Name: "In Progress", To: StatusInProgressID},
	{ID: TransitionDoneID, Name: "Done", To: StatusDoneID},
}

// The classic workflow's transition ids (Jira's classic default workflow).
const (
	TransitionStartProgressID = "4"
	TransitionStopProgressID  = "301"
	TransitionResolveID       = "5"
	TransitionCloseID         = "2"
	TransitionReopenID        = "3"
)

var classicTransitions = []transition{
	{ID: TransitionStartProgressID, Name: "Start Progress", From: []string{StatusToDoID}, To: StatusInProgressID},
	{ID: TransitionStopProgressID, Name: "Stop Progress", From: []string{StatusInProgressID}, To: StatusToDoID},
	{ID: TransitionResolveID, Name: "Resolve Issue", From: []string{StatusToDoID, StatusInProgressID}, To: StatusResolvedID, Resolution: true},
	{ID: TransitionCloseID, Name: "Close Issue", From: []string{StatusResolvedID}, To: StatusClosedID, SubtasksDone: true},
	{ID: TransitionReopenID, Name: "Reopen Issue", From: []string{StatusResolvedID, StatusClosedID}, To: StatusToDoID},
}

// Resolutions are Jira Cloud's default resolutions.
var resolutions = []idName{{"10000", "Done"}, {"10001", "Won't Do"}, {"10002", "Duplicate"}, {"10003", "Cannot Reproduce"}}

// msgSubtasksOpen is the classic Close validator's message.
const msgSubtasksOpen = "All sub-tasks must be done before the issue can be closed."

// available lists the transitions out of the issue's status.
func (s *Server) available(iss *issue) []transition {
	table := simpleTransitions
	if iss.Proj.classic() {
		table = classicTransitions
	}
	var out []transition
	for _, t := range table {
		if t.To == iss.cur.StatusID && t.From == nil {
			continue // a global transition into the status the issue is in
		}
		if t.From == nil || slices.Contains(t.From, iss.cur.StatusID) {
			out = append(out, t)
		}
	}
	return out
}

func resolutionJSON(base string, r idName) map[string]any {
	return map[string]any{"self": base + "/rest/api/3/resolution/" + r.ID, "id": r.ID, "name": r.Name, "description": ""}
}

// screenJSON is the fields of a transition's screen (expand=transitions.fields).
func (t transition) screenJSON(base string) map[string]any {
	out := map[string]any{}
	if t.Resolution {
		allowed := []any{}
		for _, r := range resolutions {
			allowed = append(allowed, resolutionJSON(base, r))
		}
		out["resolution"] = map[string]any{
			"required": true, "schema": map[string]any{"type": "resolution", "system": "resolution"},
			"name": "Resolution", "key": "resolution", "hasDefaultValue": false, "operations": []string{"set"}, "allowedValues": allowed,
		}
	}
	return out
}

func (s *Server) getTransitions(w http.ResponseWriter, r *http.Request, iss *issue) {
	base := s.base(r)
	q := r.URL.Query()
	withFields := strings.Contains(q.Get("expand"), "transitions.fields")
	out := []any{}
	for _, t := range s.available(iss) {
		if id := q.Get("transitionId"); id != "" && id != t.ID {
			continue
		}
		e := map[string]any{
			"id": t.ID, "name": t.Name, "to": s.statusJSON(base, byID(statuses, t.To)),
			"hasScreen": t.Resolution, "isGlobal": t.From == nil, "isInitial": false, "isAvailable": true, "isConditional": false, "looped": false,
		}
		if withFields {
			e["fields"] = t.screenJSON(base)
		}
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"expand": "transitions", "transitions": out})
}

// transitionRequest is IssueUpdateDetails as POST .../transitions reads it.
type transitionRequest struct {
	Transition *struct {
		ID string `json:"id"`
	} `json:"transition"`
	Fields map[string]json.RawMessage `json:"fields"`
	Update map[string]json.RawMessage `json:"update"`
}

func (s *Server) doTransition(w http.ResponseWriter, r *http.Request, iss *issue, in transitionRequest) {
	if in.Transition == nil || in.Transition.ID == "" {
		writeErr(w, http.StatusBadRequest, newErr("Missing 'transition' identifier"))
		return
	}
	var t *transition
	for _, a := range s.available(iss) {
		if a.ID == in.Transition.ID {
			t = &a
		}
	}
	if t == nil {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("Transition id '%s' is not valid for this issue.", in.Transition.ID)))
		return
	}
	e := newErr()
	checkUpdateOps(in.Update, e)
	res := ""
	for k, raw := range in.Fields {
		if k != "resolution" || !t.Resolution {
			e.Errors[k] = fmt.Sprintf(msgCannotSet, k)
			continue
		}
		ref, ok := decodeRef(raw)
		var found *idName
		for i := range resolutions {
			if ok && (ref.ID != "" && resolutions[i].ID == ref.ID || ref.ID == "" && strings.EqualFold(resolutions[i].Name, ref.Name)) {
				found = &resolutions[i]
			}
		}
		if found == nil {
			e.Errors["resolution"] = "Could not find valid 'id' or 'name' in resolution object."
			continue
		}
		res = found.ID
	}
	if t.Resolution && res == "" && e.Errors["resolution"] == "" {
		e.Errors["resolution"] = "Resolution is required."
	}
	if e.empty() && t.SubtasksDone && s.openSubtasks(iss) {
		e.ErrorMessages = append(e.ErrorMessages, msgSubtasksOpen)
	}
	if !e.empty() {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	s.transitionLocked(iss, byID(statuses, t.To), res)
	w.WriteHeader(http.StatusNoContent)
}

// openSubtasks reports whether a sub-task of iss is not done.
func (s *Server) openSubtasks(iss *issue) bool {
	for _, sub := range s.issues {
		if sub.cur.ParentID == iss.ID && byID(issueTypes, sub.cur.TypeID).Subtask && byID(statuses, sub.cur.StatusID).Category != catDone {
			return true
		}
	}
	return false
}

// transitionLocked moves the issue to status to; resolution is the id a
// transition screen set ("" none). Moving out of the done category clears
// the resolution (the classic Reopen's post function).
func (s *Server) transitionLocked(iss *issue, to *status, resolution string) {
	st := iss.cur.clone()
	now := s.now()
	if byID(statuses, st.StatusID).Category != to.Category {
		st.StatusChanged = now
	}
	st.StatusID = to.ID
	if resolution != "" {
		st.Resolution, st.Resolved = resolution, now
	} else if to.Category != catDone {
		st.Resolution, st.Resolved = "", time.Time{}
	}
	st.Updated = now
	s.setState(iss, st)
}

// renderResolution adds resolution and resolutiondate for an issue of a
// classic-workflow project (the simple workflow's issues leave them out,
// as the fake always did).
func (s *Server) renderResolution(base string, iss *issue, st *issueState, fs fieldSel, f map[string]any) {
	if !iss.Proj.classic() {
		return
	}
	if fs.wants("resolution", true) {
		f["resolution"] = nil
		for _, r := range resolutions {
			if r.ID == st.Resolution {
				f["resolution"] = resolutionJSON(base, r)
			}
		}
	}
	if fs.wants("resolutiondate", true) {
		f["resolutiondate"] = nil
		if !st.Resolved.IsZero() {
			f["resolutiondate"] = jiraTime(st.Resolved)
		}
	}
}

// ResolutionOf returns the name of the issue's resolution ("" none).
func (s *Server) ResolutionOf(key string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	iss := s.issueByKeyOrID(key)
	if iss == nil {
		return ""
	}
	for _, r := range resolutions {
		if r.ID == iss.cur.Resolution {
			return r.Name
		}
	}
	return ""
}

// statusInUse: the classic workflow's statuses exist only on a site with
// a classic project.
func (s *Server) statusInUse(st *status) bool {
	return st.TransitionID != "" || slices.ContainsFunc(s.projects, (*project).classic)
}
