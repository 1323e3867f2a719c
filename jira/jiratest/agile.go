package jiratest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The parts of the Jira Software (Agile) REST API 1.0 that DevWorkWire
// uses: boards of a project, their sprints, moving issues to a sprint,
// ranking issues; plus the Sprint and Rank fields on issues. Checked
// against Atlassian's documentation of the Jira Software Cloud REST API
// (developer.atlassian.com/cloud/jira/software/rest/, groups board,
// sprint, issue); no OpenAPI description of it is available offline, so
// the contract middleware does not check these responses (doc.go).

// Field ids of the Sprint and Rank fields (Jira Cloud's usual ids).
const (
	SprintFieldID = "customfield_10020"
	RankFieldID   = "customfield_10019"
	// SprintFieldType and RankFieldType are their schema.custom values.
	SprintFieldType = "com.pyxis.greenhopper.jira:gh-sprint"
	RankFieldType   = "com.pyxis.greenhopper.jira:gh-lexo-rank"

	maxAgileIssues = 50 // issues per move-to-sprint or rank request
	maxAgilePage   = 50 // maxResults cap of the board and sprint lists
	rankGap        = 1 << 20
)

// Sprint states.
const (
	SprintActive = "active"
	SprintFuture = "future"
	SprintClosed = "closed"
)

type board struct {
	ID         int64
	Name, Type string // type: scrum | kanban | simple (a team-managed project's; sprints on)
	Proj       *project
}

type sprint struct {
	ID          int64
	Name, State string
	Board       *board
	Start, End  time.Time
	Goal        string
}

type agileState struct {
	boards     []*board
	sprints    []*sprint
	nextBoard  int64
	nextSprint int64
	nextRank   int64
	rankFail   map[int64]string // issue id → scripted rank error (FailRank)
}

// addDefaultBoardLocked gives a new project one Scrum board with an active
// and a future sprint. Call with s.mu held.
func (s *Server) addDefaultBoardLocked(p *project) {
	typ := "scrum"
	if p.teamManaged() {
		typ = "simple" // a team-managed project's board, sprints on
	}
	b := s.addBoardLocked(p, p.Key+" board", typ)
	if p.companyManaged() {
		s.addBoardLocked(p, p.Key+" Kanban board", "kanban")
	}
	now := s.now()
	s.addSprintLocked(b, p.Key+" Sprint 1", SprintActive, now.Add(-7*24*time.Hour), now.Add(7*24*time.Hour))
	s.addSprintLocked(b, p.Key+" Sprint 2", SprintFuture, time.Time{}, time.Time{})
}

func (s *Server) addBoardLocked(p *project, name, typ string) *board {
	s.agile.nextBoard++
	b := &board{ID: s.agile.nextBoard, Name: name, Type: typ, Proj: p}
	s.agile.boards = append(s.agile.boards, b)
	return b
}

func (s *Server) addSprintLocked(b *board, name, state string, start, end time.Time) *sprint {
	s.agile.nextSprint++
	sp := &sprint{ID: s.agile.nextSprint, Name: name, State: state, Board: b, Start: start, End: end}
	s.agile.sprints = append(s.agile.sprints, sp)
	return sp
}

// nextRankLocked is the rank of a new issue: after every other.
func (s *Server) nextRankLocked() int64 {
	s.agile.nextRank += rankGap
	return s.agile.nextRank
}

// AddBoard adds a board (type scrum or kanban) to a project and returns
// its id.
func (s *Server) AddBoard(projectKey, name, typ string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projectByKeyOrID(projectKey)
	if p == nil {
		return 0, fmt.Errorf("project %q does not exist", projectKey)
	}
	if typ != "scrum" && typ != "kanban" && typ != "simple" {
		return 0, fmt.Errorf("board type %q: use scrum, kanban or simple", typ)
	}
	return s.addBoardLocked(p, name, typ).ID, nil
}

// AddSprint adds a sprint (state active, future or closed) to a Scrum
// board and returns its id.
func (s *Server) AddSprint(boardID int64, name, state string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.boardLocked(boardID)
	switch {
	case b == nil:
		return 0, fmt.Errorf("board %d does not exist", boardID)
	case !b.hasSprints():
		return 0, fmt.Errorf("board %d is a %s board: only Scrum and simple boards have sprints", boardID, b.Type)
	case state != SprintActive && state != SprintFuture && state != SprintClosed:
		return 0, fmt.Errorf("sprint state %q: use active, future or closed", state)
	}
	var start, end time.Time
	if state != SprintFuture {
		start, end = s.now().Add(-14*24*time.Hour), s.now()
	}
	return s.addSprintLocked(b, name, state, start, end).ID, nil
}

// SetSprintState changes a sprint's state (e.g. closes it).
func (s *Server) SetSprintState(sprintID int64, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sprintLocked(sprintID)
	if sp == nil {
		return fmt.Errorf("sprint %d does not exist", sprintID)
	}
	if state != SprintActive && state != SprintFuture && state != SprintClosed {
		return fmt.Errorf("sprint state %q: use active, future or closed", state)
	}
	sp.State = state
	return nil
}

// FailRank makes every later rank request fail for this issue with msg,
// in Jira's partial-success answer (207): the rest of the request is
// applied. An empty msg clears it.
func (s *Server) FailRank(key, msg string) error {
	return s.changeIssue(key, func(iss *issue) error {
		if s.agile.rankFail == nil {
			s.agile.rankFail = map[int64]string{}
		}
		if msg == "" {
			delete(s.agile.rankFail, iss.ID)
		} else {
			s.agile.rankFail[iss.ID] = msg
		}
		return nil
	})
}

// Backlog returns the keys of a project's issues in rank order (the
// backlog order), and SprintOf the name of the sprint an issue is in ("" =
// none).
func (s *Server) Backlog(projectKey string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, iss := range s.byRankLocked() {
		if strings.EqualFold(iss.Proj.Key, projectKey) {
			out = append(out, iss.Key)
		}
	}
	return out
}

// SprintOf returns the name of the sprint the issue is in ("" = none).
func (s *Server) SprintOf(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	iss := s.issueByKeyOrID(key)
	if iss == nil {
		return ""
	}
	if sp := s.sprintLocked(iss.cur.Sprint); sp != nil {
		return sp.Name
	}
	return ""
}

func (s *Server) boardLocked(id int64) *board {
	return first(s.agile.boards, func(b *board) bool { return b.ID == id })
}

func (s *Server) sprintLocked(id int64) *sprint {
	return first(s.agile.sprints, func(sp *sprint) bool { return sp.ID == id })
}

func (s *Server) byRankLocked() []*issue {
	out := slices.Clone(s.issues)
	slices.SortStableFunc(out, func(a, b *issue) int { return cmpInt(a.rank, b.rank) })
	return out
}

// agilePage parses startAt/maxResults of the Agile lists (maxResults
// capped at 50, as Jira Software does).
func agilePage(r *http.Request) (start, max int, e *jiraError) {
	return pageParams(r, maxAgilePage, false)
}

func (s *Server) boardJSON(base string, b *board) map[string]any {
	p := b.Proj
	return map[string]any{
		"id": b.ID, "self": base + "/rest/agile/1.0/board/" + itoa(b.ID), "name": b.Name, "type": b.Type,
		"location": map[string]any{
			"projectId": p.ID, "projectKey": p.Key, "projectName": p.Name, "projectTypeKey": "software",
			"displayName": p.Name + " (" + p.Key + ")", "name": p.Name + " (" + p.Key + ")",
			"avatarURI": base + "/secure/projectavatar?size=small&avatarId=10400",
		},
	}
}

func sprintJSON(base string, sp *sprint) map[string]any {
	out := map[string]any{
		"id": sp.ID, "self": base + "/rest/agile/1.0/sprint/" + itoa(sp.ID), "state": sp.State, "name": sp.Name,
		"originBoardId": sp.Board.ID, "goal": sp.Goal,
	}
	if !sp.Start.IsZero() {
		out["startDate"] = sp.Start.UTC().Format("2006-01-02T15:04:05.000Z")
		out["endDate"] = sp.End.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if sp.State == SprintClosed && !sp.End.IsZero() {
		out["completeDate"] = sp.End.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return out
}

func (s *Server) handleBoards(w http.ResponseWriter, r *http.Request) {
	start, max, e := agilePage(r)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	var proj *project
	if k := q.Get("projectKeyOrId"); k != "" {
		if proj = s.visibleProject(k); proj == nil {
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("No project could be found with key '%s'.", k)))
			return
		}
	}
	typ, name := q.Get("type"), strings.ToLower(q.Get("name"))
	var all []any
	base := s.base(r)
	for _, b := range s.agile.boards {
		if !b.Proj.perms.Browse || (proj != nil && b.Proj != proj) || (typ != "" && b.Type != typ) || (name != "" && !strings.Contains(strings.ToLower(b.Name), name)) {
			continue
		}
		all = append(all, s.boardJSON(base, b))
	}
	page := pageOf(all, start, max)
	if page == nil {
		page = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"maxResults": max, "startAt": start, "total": len(all), "isLast": start+len(page) >= len(all), "values": page})
}

// visibleBoard finds the {boardId} board (404 unless its project is
// browsable). Call with s.mu held.
func (s *Server) visibleBoard(w http.ResponseWriter, r *http.Request) *board {
	return byPathID(w, r, "boardId", s.boardLocked, func(b *board) bool { return b.Proj.perms.Browse },
		"Board does not exist or you do not have permission to see it.")
}

// byPathID finds what the numeric path value names (find), if visible;
// otherwise it answers 404 with msg and returns nil.
func byPathID[T any](w http.ResponseWriter, r *http.Request, name string, find func(int64) *T, visible func(*T) bool, msg string) *T {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	var x *T
	if err == nil {
		x = find(id)
	}
	if x == nil || !visible(x) {
		writeErr(w, http.StatusNotFound, newErr(msg))
		return nil
	}
	return x
}

// serveFound is a GET of one thing: with s.mu held, find it (find answers
// when it is missing) and render it.
func serveFound[T any](s *Server, find func(http.ResponseWriter, *http.Request) *T, render func(base string, x *T) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if x := find(w, r); x != nil {
			writeJSON(w, http.StatusOK, render(s.base(r), x))
		}
	}
}

func (s *Server) handleBoardSprints(w http.ResponseWriter, r *http.Request) {
	start, max, e := agilePage(r)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	states := map[string]bool{}
	for _, v := range listEntries([]string{r.URL.Query().Get("state")}) {
		if v != SprintActive && v != SprintFuture && v != SprintClosed {
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The sprint state '%s' is not valid; use future, active or closed.", v)))
			return
		}
		states[v] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.visibleBoard(w, r)
	if b == nil {
		return
	}
	if !b.hasSprints() {
		writeErr(w, http.StatusBadRequest, newErr("The board does not support sprints"))
		return
	}
	var all []any
	base := s.base(r)
	for _, sp := range s.agile.sprints {
		if sp.Board == b && (len(states) == 0 || states[sp.State]) {
			all = append(all, sprintJSON(base, sp))
		}
	}
	page := pageOf(all, start, max)
	if page == nil {
		page = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"maxResults": max, "startAt": start, "isLast": start+len(page) >= len(all), "values": page})
}

func (s *Server) visibleSprint(w http.ResponseWriter, r *http.Request) *sprint {
	return byPathID(w, r, "sprintId", s.sprintLocked, func(sp *sprint) bool { return sp.Board.Proj.perms.Browse },
		"The sprint does not exist or you do not have permission to see it.")
}

type agileIssuesRequest struct {
	Issues            []string `json:"issues"`
	RankBeforeIssue   string   `json:"rankBeforeIssue"`
	RankAfterIssue    string   `json:"rankAfterIssue"`
	RankCustomFieldID int64    `json:"rankCustomFieldId"`
}

// agileIssues resolves the issues of a move or rank request: at most 50,
// each existing and browsable; unknown ones are reported by name.
func (s *Server) agileIssues(keys []string) ([]*issue, *jiraError) {
	if len(keys) == 0 {
		return nil, newErr("No issues given: list at least one issue in 'issues'.")
	}
	if len(keys) > maxAgileIssues {
		return nil, newErr(fmt.Sprintf("Too many issues: at most %d issues can be moved or ranked in one request, got %d.", maxAgileIssues, len(keys)))
	}
	var out []*issue
	var missing []string
	for _, k := range keys {
		iss := s.issueByKeyOrID(k)
		if iss == nil || !iss.Proj.perms.Browse {
			missing = append(missing, k)
			continue
		}
		if !slices.Contains(out, iss) {
			out = append(out, iss)
		}
	}
	if len(missing) > 0 {
		return nil, newErr(fmt.Sprintf("Issue does not exist or you do not have permission to see it: %s.", strings.Join(missing, ", ")))
	}
	return out, nil
}

// handleMoveToSprint runs locked (withLockedBody).
func (s *Server) handleMoveToSprint(w http.ResponseWriter, r *http.Request, in agileIssuesRequest) {
	sp := s.visibleSprint(w, r)
	if sp == nil {
		return
	}
	if sp.State == SprintClosed {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("Issues cannot be moved to sprint '%s': it is closed.", sp.Name)))
		return
	}
	issues, e := s.agileIssues(in.Issues)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	if in.RankBeforeIssue != "" || in.RankAfterIssue != "" {
		writeErr(w, http.StatusBadRequest, newErr("mockjira does not model ranking while moving issues to a sprint; rank with PUT /rest/agile/1.0/issue/rank."))
		return
	}
	for _, iss := range issues {
		switch {
		case !iss.Proj.perms.Edit || iss.Proj.denies(PermScheduleIssues):
			writeErr(w, http.StatusForbidden, newErr("You do not have permission to schedule issues in this project."))
			return
		case iss.Proj != sp.Board.Proj:
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("Issue %s is not on the board of sprint '%s'.", iss.Key, sp.Name)))
			return
		case byID(issueTypes, iss.cur.TypeID).Subtask:
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("Issue %s is a sub-task: it is in its parent's sprint and cannot be moved on its own.", iss.Key)))
			return
		}
	}
	for _, iss := range issues {
		s.setSprintLocked(iss, sp.ID)
		for _, sub := range s.issues { // sub-tasks follow their parent
			if sub.cur.ParentID == iss.ID && byID(issueTypes, sub.cur.TypeID).Subtask {
				s.setSprintLocked(sub, sp.ID)
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) setSprintLocked(iss *issue, id int64) {
	if iss.cur.Sprint == id {
		return
	}
	st := iss.cur.clone()
	st.Sprint, st.Updated = id, s.now()
	s.setState(iss, st)
}

func (s *Server) handleRank(w http.ResponseWriter, r *http.Request) {
	var in agileIssuesRequest
	if e := decodeBody(r, &in); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	if (in.RankBeforeIssue == "") == (in.RankAfterIssue == "") {
		writeErr(w, http.StatusBadRequest, newErr("Give exactly one of 'rankBeforeIssue' and 'rankAfterIssue'."))
		return
	}
	if in.RankCustomFieldID != 0 && "customfield_"+strconv.FormatInt(in.RankCustomFieldID, 10) != RankFieldID {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The custom field %d is not a rank field.", in.RankCustomFieldID)))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	issues, e := s.agileIssues(in.Issues)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	anchorKey, before := in.RankAfterIssue, false
	if in.RankBeforeIssue != "" {
		anchorKey, before = in.RankBeforeIssue, true
	}
	anchor := s.issueByKeyOrID(anchorKey)
	if anchor == nil || !anchor.Proj.perms.Browse {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("Issue does not exist or you do not have permission to see it: %s.", anchorKey)))
		return
	}
	var moving []*issue
	entries := make([]any, 0, len(issues))
	failed := false
	for _, iss := range issues {
		entry := map[string]any{"issueId": iss.ID, "issueKey": iss.Key, "status": http.StatusOK}
		var msg string
		switch {
		case iss == anchor:
			msg = "An issue cannot be ranked relative to itself."
		case !iss.Proj.perms.Edit || iss.Proj.denies(PermScheduleIssues):
			msg = "You do not have permission to rank this issue."
		default:
			msg = s.agile.rankFail[iss.ID]
		}
		if msg != "" {
			entry["status"], entry["errors"] = http.StatusBadRequest, []string{msg}
			failed = true
		} else {
			moving = append(moving, iss)
		}
		entries = append(entries, entry)
	}
	s.rankLocked(moving, anchor, before)
	if failed {
		writeJSON(w, http.StatusMultiStatus, map[string]any{"entries": entries})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// rankLocked places moving, in their order, right before (or after)
// anchor, rebalancing every rank when there is no room between two
// neighbours (as LexoRank does). Moved issues' updated moves.
func (s *Server) rankLocked(moving []*issue, anchor *issue, before bool) {
	if len(moving) == 0 {
		return
	}
	order := s.byRankLocked()
	var rest []*issue
	for _, iss := range order {
		if !slices.Contains(moving, iss) {
			rest = append(rest, iss)
		}
	}
	at := slices.Index(rest, anchor)
	if !before {
		at++
	}
	lo, hi := int64(0), s.agile.nextRank+rankGap
	if at > 0 {
		lo = rest[at-1].rank
	}
	if at < len(rest) {
		hi = rest[at].rank
	}
	step := (hi - lo) / int64(len(moving)+1)
	if step == 0 {
		all := slices.Concat(rest[:at], moving, rest[at:])
		for i, iss := range all {
			iss.rank = int64(i+1) * rankGap
		}
		s.agile.nextRank = int64(len(all)) * rankGap
	} else {
		for i, iss := range moving {
			iss.rank = lo + step*int64(i+1)
		}
	}
	s.touchLocked(moving...)
}

// rankValue renders a rank like Jira's LexoRank strings (sortable as text).
func rankValue(r int64) string { return fmt.Sprintf("0|i%012x:", r) }

// renderAgile adds the Sprint and Rank fields and the sub-tasks (of a
// standard issue) to a rendered issue.
func (s *Server) renderAgile(base string, iss *issue, st *issueState, fs fieldSel, f map[string]any) {
	if fs.wants("subtasks", true) && !byID(issueTypes, st.TypeID).Subtask {
		subs := []any{}
		for _, c := range s.issues {
			if c.cur.ParentID == iss.ID && byID(issueTypes, c.cur.TypeID).Subtask && c.Proj.perms.Browse {
				subs = append(subs, s.issueRefJSON(base, c))
			}
		}
		f["subtasks"] = subs
	}
	if fs.wants(SprintFieldID, true) {
		var v any
		if sp := s.sprintLocked(st.Sprint); sp != nil {
			j := sprintJSON(base, sp)
			delete(j, "self")
			delete(j, "originBoardId")
			j["boardId"] = sp.Board.ID
			v = []any{j}
		}
		f[SprintFieldID] = v
	}
	if fs.wants(RankFieldID, true) {
		f[RankFieldID] = rankValue(iss.rank)
	}
}

// agileFieldsJSON are the Sprint and Rank fields of GET field.
func agileFieldsJSON() []any {
	field := func(id, name, typ, items, custom string, clauses ...string) map[string]any {
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "customfield_"))
		sch := map[string]any{"type": typ, "custom": custom, "customId": n}
		if items != "" {
			sch["items"] = items
		}
		return map[string]any{"id": id, "key": id, "name": name, "custom": true, "orderable": true, "navigable": true, "searchable": true,
			"clauseNames": append([]string{"cf[" + strconv.Itoa(n) + "]"}, clauses...), "schema": sch}
	}
	return []any{
		field(SprintFieldID, "Sprint", "array", "json", SprintFieldType, "Sprint"),
		field(RankFieldID, "Rank", "any", "", RankFieldType, "Rank"),
	}
}

// hasSprints: Scrum boards and team-managed (simple) boards have sprints;
// Kanban boards do not.
func (b *board) hasSprints() bool { return b.Type == "scrum" || b.Type == "simple" }

// SetBoards replaces a project's boards with one board of each type given
// (scrum, kanban or simple; named "<KEY> board", "<KEY> board 2", …),
// each scrum or simple board with the default sprints "<KEY> Sprint 1"
// (active) and "<KEY> Sprint 2" (future), as a project whose admin set up
// other boards. It returns the new boards' ids.
func (s *Server) SetBoards(projectKey string, types ...string) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projectByKeyOrID(projectKey)
	if p == nil {
		return nil, fmt.Errorf("project %q does not exist", projectKey)
	}
	for _, typ := range types {
		if typ != "scrum" && typ != "kanban" && typ != "simple" {
			return nil, fmt.Errorf("board type %q: use scrum, kanban or simple", typ)
		}
	}
	s.agile.boards = slices.DeleteFunc(s.agile.boards, func(b *board) bool { return b.Proj == p })
	s.agile.sprints = slices.DeleteFunc(s.agile.sprints, func(sp *sprint) bool { return sp.Board.Proj == p })
	var ids []int64
	now := s.now()
	for i, typ := range types {
		name := p.Key + " board"
		if i > 0 {
			name += fmt.Sprintf(" %d", i+1)
		}
		b := s.addBoardLocked(p, name, typ)
		if b.hasSprints() {
			s.addSprintLocked(b, p.Key+" Sprint 1", SprintActive, now.Add(-7*24*time.Hour), now.Add(7*24*time.Hour))
			s.addSprintLocked(b, p.Key+" Sprint 2", SprintFuture, time.Time{}, time.Time{})
		}
		ids = append(ids, b.ID)
	}
	return ids, nil
}
