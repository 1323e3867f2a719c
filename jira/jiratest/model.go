package jiratest

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

type issueType struct {
	ID, Name, Description string
	HierarchyLevel        int
	Subtask               bool // a sub-task type: its issues need a parent story or task (subtask.go)
}

var issueTypes = []issueType{
	{IssueTypeEpicID, "Epic", "A big user story that needs to be broken down.", 1, false},
	{IssueTypeStoryID, "Story", "Functionality or a feature expressed as a user goal.", 0, false},
	{IssueTypeTaskID, "Task", "A small, distinct piece of work.", 0, false},
	{IssueTypeSubtaskID, "Subtask", "A small piece of work that's part of a larger task.", -1, true},
}

func (t issueType) id() string   { return t.ID }
func (t issueType) name() string { return t.Name }

// named is an entry of a fixed table (issue types, statuses), found by
// its id or, ignoring case, its name.
type named interface {
	id() string
	name() string
}

func byID[T named](table []T, id string) *T {
	for i := range table {
		if table[i].id() == id {
			return &table[i]
		}
	}
	return nil
}

func byName[T named](table []T, name string) *T {
	for i := range table {
		if strings.EqualFold(table[i].name(), name) {
			return &table[i]
		}
		// The sub-task type is "Sub-task" in company-managed projects.
		if a, ok := any(table[i]).(issueType); ok && a.Subtask && strings.EqualFold(name, "Sub-task") {
			return &table[i]
		}
	}
	return nil
}

// first is the first element of xs that match holds for, or nil.
func first[T any](xs []*T, match func(*T) bool) *T {
	if i := slices.IndexFunc(xs, match); i >= 0 {
		return xs[i]
	}
	return nil
}

// byNameOrID is how JQL names an issue type or a status: by name, else by id.
func byNameOrID[T named](table []T, v string) *T {
	if e := byName(table, v); e != nil {
		return e
	}
	return byID(table, v)
}

type statusCategory struct {
	ID                   int
	Key, Name, ColorName string
}

var (
	catNew           = statusCategory{2, "new", "To Do", "blue-gray"}
	catIndeterminate = statusCategory{4, "indeterminate", "In Progress", "yellow"}
	catDone          = statusCategory{3, "done", "Done", "green"}
)

type status struct {
	ID, Name     string
	Category     statusCategory
	TransitionID string
}

var statuses = []status{
	{StatusToDoID, "To Do", catNew, TransitionToDoID},
	{StatusInProgressID, "In Progress", catIndeterminate, TransitionInProgressID},
	{StatusDoneID, "Done", catDone, TransitionDoneID},
	// The classic workflow's (workflow.go); its transitions are its own.
	{StatusResolvedID, "Resolved", catDone, ""},
	{StatusClosedID, "Closed", catDone, ""},
}

func (s status) id() string   { return s.ID }
func (s status) name() string { return s.Name }

// Permissions are one user's project permissions.
type Permissions struct {
	Browse, Create, Edit, Transition, Comment bool
}

// AllPermissions grants everything.
var AllPermissions = Permissions{Browse: true, Create: true, Edit: true, Transition: true, Comment: true}

type project struct {
	types    map[string]bool // issue type ids available in the project
	ID       int64
	Key      string
	Name     string
	perms    Permissions
	nextNum  int
	required map[string]map[string]bool // issue type id → extra required field ids
	prof     Profile                    // how the project is set up (site.go)
	// refFields is a team-managed project's reference field per issue
	// type id (nil: the site's reference field, site.go).
	refFields map[string]string
	// typeNames are the issue types' names on a localised site (type id
	// → name; locale.go).
	typeNames map[string]string
}

type comment struct {
	ID      int64
	Body    json.RawMessage
	Created time.Time
}

// link is an issue link of type TypeID ("" = Blocks, links.go): Blocker
// is its source (the outward description, "blocks", is shown on it),
// Blocked its destination ("is blocked by").
type link struct {
	ID               int64
	Blocked, Blocker *issue
	TypeID           string
}

// issueState is an immutable snapshot of an issue's searchable fields.
type issueState struct {
	Summary       string
	Description   json.RawMessage // nil = null
	TypeID        string
	StatusID      string
	ParentID      int64
	Custom        map[string]string
	Labels        []string
	Sprint        int64               // the sprint the issue is in (agile.go); 0 = backlog
	Resolution    string              // resolution id (classic workflow, workflow.go); "" = none
	Resolved      time.Time           // when it was set
	Model         map[string][]string // the fields of fields.go: id → values as stored
	CommentText   []string
	Updated       time.Time
	StatusChanged time.Time

	// docs caches textDocs per field: the state is immutable once recorded,
	// so the cache never goes stale (clone starts an empty one). Unexported,
	// so stateEqual's JSON comparison ignores it.
	docs map[string][][]string
}

func (st *issueState) clone() *issueState {
	c := *st
	c.docs = nil
	c.Custom = maps.Clone(st.Custom)
	c.Labels = slices.Clone(st.Labels)
	c.Model = maps.Clone(st.Model)
	c.CommentText = slices.Clone(st.CommentText)
	return &c
}

type stamped struct {
	at time.Time
	st *issueState
}

type issue struct {
	ID       int64
	Key      string
	Num      int
	Proj     *project
	Created  time.Time
	cur      *issueState
	hist     []stamped // what the search index saw, oldest first
	props    map[string]json.RawMessage
	comments []comment
	rank     int64 // backlog order, lowest first (agile.go)
}

// setState records a new current state (and its time for the search index).
func (s *Server) setState(iss *issue, st *issueState) {
	iss.cur = st
	iss.hist = append(iss.hist, stamped{s.now(), st})
	s.indexRef(iss, st)
	if len(iss.hist) > 32 {
		iss.hist = slices.Clone(iss.hist[len(iss.hist)-32:])
	}
}

// indexed returns the state the search index sees now: the newest state at
// least lag old, or nil when the issue is not yet indexed.
func (s *Server) indexed(iss *issue, now time.Time, reconcile bool) *issueState {
	if reconcile || s.lag <= 0 {
		return iss.cur
	}
	cutoff := now.Add(-s.lag)
	var st *issueState
	for _, h := range iss.hist {
		if !h.at.After(cutoff) {
			st = h.st
		}
	}
	return st
}

func (s *Server) addProjectLocked(key, name string) *project {
	p := &project{ID: int64(10000 + len(s.projects)), Key: key, Name: name, perms: AllPermissions, required: map[string]map[string]bool{}, types: map[string]bool{}}
	for _, t := range issueTypes {
		p.types[t.ID] = true
	}
	s.projects = append(s.projects, p)
	s.applyProfileLocked(p, s.site.profileFor(key)) // permissions, boards, fields (site.go)
	return p
}

func (s *Server) projectByKeyOrID(k string) *project {
	for _, p := range s.projects {
		if strings.EqualFold(p.Key, k) || strconv.FormatInt(p.ID, 10) == k {
			return p
		}
	}
	return nil
}

func (s *Server) projectByAny(k string) *project {
	if p := s.projectByKeyOrID(k); p != nil {
		return p
	}
	for _, p := range s.projects {
		if strings.EqualFold(p.Name, k) {
			return p
		}
	}
	return nil
}

// issueByKeyOrID finds an issue by key (case-insensitive) or numeric id.
func (s *Server) issueByKeyOrID(k string) *issue {
	if iss := s.byKey[strings.ToUpper(k)]; iss != nil {
		return iss
	}
	if n, err := strconv.ParseInt(k, 10, 64); err == nil {
		return s.byID[n]
	}
	return nil
}

// AddProject adds another project (all permissions) and reports whether it
// was added (false if the key exists).
func (s *Server) AddProject(key, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.projectByKeyOrID(key) != nil {
		return false
	}
	if name == "" {
		name = key
	}
	s.addProjectLocked(strings.ToUpper(key), name)
	return true
}

// SetPermissions sets the user's permissions in a project; it reports
// whether the project exists.
func (s *Server) SetPermissions(projectKey string, p Permissions) bool {
	return s.setProject(projectKey, func(pr *project) bool {
		pr.perms = p
		return true
	})
}

// setProject calls set, under the lock, with the project projectKey names
// (key or id). It reports false for an unknown project, else what set
// reports.
func (s *Server) setProject(projectKey string, set func(p *project) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projectByKeyOrID(projectKey)
	return p != nil && set(p)
}

// RequireField makes fieldID (e.g. "labels" or the reference field id)
// required when creating issues of issueTypeID in the project, as a Jira
// admin can via the field configuration.
func (s *Server) RequireField(projectKey, issueTypeID, fieldID string) bool {
	return s.setProject(projectKey, func(pr *project) bool {
		if pr.required[issueTypeID] == nil {
			pr.required[issueTypeID] = map[string]bool{}
		}
		pr.required[issueTypeID][fieldID] = true
		return true
	})
}

// projectTypes returns the issue types available in p, in id order.
func (p *project) projectTypes() []*issueType {
	var out []*issueType
	for i := range issueTypes {
		if p.types[issueTypes[i].ID] {
			out = append(out, &issueTypes[i])
		}
	}
	return out
}

// SetIssueTypes limits the issue types available in a project (by name:
// Epic, Story, Task), as a Jira admin can with an issue type scheme. It
// reports false for an unknown project or type.
func (s *Server) SetIssueTypes(projectKey string, names ...string) bool {
	return s.setProjectTypes(projectKey, names, func(p *project, ids []string) {
		p.types = make(map[string]bool, len(ids))
		for _, id := range ids {
			p.types[id] = true
		}
	})
}

// setProjectTypes calls set, under the lock, with the project projectKey
// names (key or id) and the ids of the issue types named (English names,
// in names' order). It reports false, and calls nothing, for an unknown
// project or type.
func (s *Server) setProjectTypes(projectKey string, names []string, set func(p *project, ids []string)) bool {
	ids := make([]string, len(names))
	for i, n := range names {
		t := byName(issueTypes, n)
		if t == nil {
			return false
		}
		ids[i] = t.ID
	}
	return s.setProject(projectKey, func(p *project) bool {
		set(p, ids)
		return true
	})
}
