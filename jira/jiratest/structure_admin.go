package jiratest

import (
	"net/http"
	"strings"
)

// serveStructureAdmin serves the admin endpoints of links, boards, sprints
// and the backlog order; it reports whether p was one of them.
//
//	GET  /_mockjira/links                      every link (LinkSnapshot)
//	POST /_mockjira/links/typed                {"type":"Relates","from":"DEMO-1","to":"DEMO-2"}
//	GET  /_mockjira/backlog?project=DEMO       keys in rank order, each with its sprint
//	POST /_mockjira/boards                     {"project":"DEMO","name":"B","type":"scrum"} → {"id":N}
//	POST /_mockjira/sprints                    {"board":1,"name":"S","state":"future"} → {"id":N}
//	POST /_mockjira/sprints/state              {"sprint":1,"state":"closed"}
//	POST /_mockjira/rank-failures              {"key":"DEMO-1","message":"..."} ("" clears)
func (s *Server) serveStructureAdmin(w http.ResponseWriter, r *http.Request, p string, call adminCall) bool {
	idOf := func(id int64, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": id}, nil
	}
	switch {
	case p == "/links" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Links())
	case p == "/links/typed" && r.Method == http.MethodPost:
		var in struct{ Type, From, To string }
		call(&in, http.StatusCreated, func() (any, error) { return nil, s.LinkTyped(in.Type, in.From, in.To) })
	case p == "/backlog" && r.Method == http.MethodGet:
		proj := r.URL.Query().Get("project")
		if proj == "" {
			proj = s.opts.Project
		}
		type row struct {
			Key    string `json:"key"`
			Sprint string `json:"sprint,omitempty"`
		}
		out := []row{}
		for _, k := range s.Backlog(proj) {
			out = append(out, row{k, s.SprintOf(k)})
		}
		writeJSON(w, http.StatusOK, out)
	case p == "/boards" && r.Method == http.MethodPost:
		var in struct{ Project, Name, Type string }
		call(&in, http.StatusCreated, func() (any, error) {
			if in.Project == "" {
				in.Project = s.opts.Project
			}
			return idOf(s.AddBoard(in.Project, in.Name, strings.ToLower(in.Type)))
		})
	case p == "/sprints" && r.Method == http.MethodPost:
		var in struct {
			Board       int64
			Name, State string
		}
		call(&in, http.StatusCreated, func() (any, error) { return idOf(s.AddSprint(in.Board, in.Name, in.State)) })
	case p == "/sprints/state" && r.Method == http.MethodPost:
		var in struct {
			Sprint int64
			State  string
		}
		call(&in, http.StatusNoContent, func() (any, error) { return nil, s.SetSprintState(in.Sprint, in.State) })
	case p == "/rank-failures" && r.Method == http.MethodPost:
		var in struct{ Key, Message string }
		call(&in, http.StatusNoContent, func() (any, error) { return nil, s.FailRank(in.Key, in.Message) })
	default:
		return false
	}
	return true
}
