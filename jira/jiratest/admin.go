package jiratest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// RecordedRequest is one entry of the request log (admin endpoints are not
// logged). Fault names the fault or limit that shaped the response, if any
// ("rate-limit", "500", "reset", "drop-after-apply", "client-gone" ...).
type RecordedRequest struct {
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Query  string    `json:"query"`
	Body   string    `json:"body"`
	Status int       `json:"status"` // 0 when no response was sent (reset, hang)
	At     time.Time `json:"at"`
	Fault  string    `json:"fault,omitempty"`
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []RecordedRequest {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// ClearRequests empties the request log.
func (s *Server) ClearRequests() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.requests = nil
}

// CountRequests counts logged requests with this method (""= any) whose
// path matches pattern (exact or path.Match syntax).
func (s *Server) CountRequests(method, pattern string) int {
	n := 0
	for _, r := range s.Requests() {
		if method != "" && r.Method != method {
			continue
		}
		if r.Path == pattern || matchPath(pattern, r.Path) {
			n++
		}
	}
	return n
}

// IsWrite reports whether a logged request is a tracker write.
func (r RecordedRequest) IsWrite() bool { return IsWrite(r.Method, r.Path) }

// IsWrite is the one rule of what a request to the fake changes: every
// PUT and DELETE and every POST under /rest/ except the POSTs that only
// read (searches, the approximate count and bulk fetch). Admin requests
// (/_mockjira/...) are not tracker writes. Whoever counts writes from the
// request log (the e2e harness too) uses this function.
func IsWrite(method, path string) bool {
	if !strings.HasPrefix(path, "/rest/") {
		return false
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	case http.MethodPost:
		// Data Center searches by POST /rest/api/2/search.
		return !strings.HasPrefix(path, "/rest/api/3/search") && path != "/rest/api/2/search" && path != "/rest/api/3/issue/bulkfetch"
	}
	return true
}

// Writes returns the logged write requests (see IsWrite).
func (s *Server) Writes() []RecordedRequest {
	var out []RecordedRequest
	for _, r := range s.Requests() {
		if r.IsWrite() {
			out = append(out, r)
		}
	}
	return out
}

// IssueSnapshot is the admin view of an issue (current state, not the
// search index's).
type IssueSnapshot struct {
	Key            string                     `json:"key"`
	ID             string                     `json:"id"`
	Project        string                     `json:"project"`
	IssueType      string                     `json:"issuetype"`
	Summary        string                     `json:"summary"`
	Reference      string                     `json:"reference"` // RefValue without DevWorkWire's search tokens
	RefValue       string                     `json:"ref_value"` // the reference field's value as stored
	Parent         string                     `json:"parent"`
	Status         string                     `json:"status"`
	StatusCategory string                     `json:"status_category"`
	Description    json.RawMessage            `json:"description"`
	Properties     map[string]json.RawMessage `json:"properties"`
	Labels         []string                   `json:"labels"`
	Fields         map[string][]string        `json:"fields,omitempty"` // fields.go's fields: id → names (account ids for users)
	Comments       []json.RawMessage          `json:"comments"`
	Created        time.Time                  `json:"created"`
	Updated        time.Time                  `json:"updated"`
}

func (s *Server) snapshot(iss *issue) IssueSnapshot {
	st := iss.cur
	sn := IssueSnapshot{
		Key: iss.Key, ID: itoa(iss.ID), Project: iss.Proj.Key, IssueType: issueTypeName(iss.Proj, byID(issueTypes, st.TypeID)),
		Summary: st.Summary, Reference: withoutSearchTokens(st.Custom[s.refField(iss.Proj, st.TypeID)]), RefValue: st.Custom[s.refField(iss.Proj, st.TypeID)], Status: byID(statuses, st.StatusID).Name,
		StatusCategory: byID(statuses, st.StatusID).Category.Key, Description: st.Description,
		Properties: map[string]json.RawMessage{}, Labels: append([]string{}, st.Labels...),
		Comments: []json.RawMessage{}, Created: iss.Created.UTC(), Updated: st.Updated.UTC(),
		Fields: s.modelSnapshot(iss),
	}
	if sn.Description == nil {
		sn.Description = json.RawMessage("null")
	}
	if p := s.byID[st.ParentID]; p != nil {
		sn.Parent = p.Key
	}
	for k, v := range iss.props {
		sn.Properties[k] = v
	}
	for _, c := range iss.comments {
		sn.Comments = append(sn.Comments, c.Body)
	}
	return sn
}

// searchTokenRE matches a search token DevWorkWire stores after the
// reference in the reference field ("dw", 20 hex digits, "0").
var searchTokenRE = regexp.MustCompile(`^dw[0-9a-f]{20}0$`)

// withoutSearchTokens is a reference field value without the search tokens
// that follow the reference, so that tests compare references.
func withoutSearchTokens(v string) string {
	words := strings.Split(v, " ")
	for len(words) > 1 && searchTokenRE.MatchString(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// Issues returns every issue, in creation order.
func (s *Server) Issues() []IssueSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]IssueSnapshot, 0, len(s.issues))
	for _, iss := range s.issues {
		out = append(out, s.snapshot(iss))
	}
	return out
}

// Issue returns one issue by key or id.
func (s *Server) Issue(key string) (IssueSnapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	iss := s.issueByKeyOrID(key)
	if iss == nil {
		return IssueSnapshot{}, false
	}
	return s.snapshot(iss), true
}

// PersonEdit is an edit made by a person in Jira's UI (for drift tests).
type PersonEdit struct {
	Summary                 *string `json:"summary,omitempty"`
	DescriptionMarkdownText *string `json:"description_markdown_text,omitempty"` // plain text → one ADF paragraph
	// Description is a description in ADF as Jira's editor stores it
	// (mentions, status lozenges, panels, ...); it must be valid ADF.
	Description json.RawMessage `json:"description,omitempty"`
	// DescriptionWiki is a description in wiki markup as a person writes it
	// on a Data Center site, kept as written (datacenter.go).
	DescriptionWiki *string `json:"description_wiki,omitempty"`
	Status          *string `json:"status,omitempty"` // status name: moves the issue there
	// Fields sets fields.go's fields (id or name → a value as in an edit
	// request, null clears).
	Fields map[string]json.RawMessage `json:"fields,omitempty"`
}

// TextADF returns an ADF document with one paragraph holding text (no
// paragraph for empty text).
func TextADF(text string) json.RawMessage {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": text}}})
	}
	b, _ := json.Marshal(map[string]any{"type": "doc", "version": 1, "content": content})
	return b
}

// EditAsPerson edits an issue as a person would in Jira (bumps updated).
func (s *Server) EditAsPerson(key string, e PersonEdit) error {
	return s.changeIssue(key, func(iss *issue) error { return s.editAsPersonLocked(iss, e) })
}

// changeIssue is the prologue of the test-side methods that change one
// issue: lock the server, find the issue by key or id (an error naming key
// when it does not exist), then call f.
func (s *Server) changeIssue(key string, f func(iss *issue) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	iss := s.issueByKeyOrID(key)
	if iss == nil {
		return fmt.Errorf("issue %s does not exist", key)
	}
	return f(iss)
}

func (s *Server) editAsPersonLocked(iss *issue, e PersonEdit) error {
	st := iss.cur.clone()
	if e.Summary != nil {
		if *e.Summary == "" || runeLen(*e.Summary) > maxSummary {
			return fmt.Errorf("summary must be 1 to 255 characters")
		}
		st.Summary = *e.Summary
	}
	if e.DescriptionMarkdownText != nil {
		st.Description = TextADF(*e.DescriptionMarkdownText)
	}
	if e.Description != nil {
		if err := validADF(e.Description); err != nil {
			return fmt.Errorf("description: %v", err)
		}
		st.Description = append(json.RawMessage(nil), e.Description...)
	}
	if e.DescriptionWiki != nil {
		st.Description = nil
		if d := wikiToADF(*e.DescriptionWiki); d != nil {
			st.Description, _ = json.Marshal(d)
			s.keepWikiLocked(iss.ID, string(st.Description), *e.DescriptionWiki)
		}
	}
	if err := s.personFields(iss, st, e.Fields); err != nil {
		return err
	}
	if e.Status != nil {
		to := byName(statuses, *e.Status)
		if to == nil || !s.statusInUse(to) {
			return fmt.Errorf("status %q does not exist; use To Do, In Progress or Done", *e.Status)
		}
		if iss.Proj.classic() && to.ID == StatusDoneID {
			to = byID(statuses, StatusResolvedID) // the classic workflow's done status (workflow.go)
			st.Resolution, st.Resolved = resolutions[0].ID, s.now()
		}
		if byID(statuses, st.StatusID).Category != to.Category {
			st.StatusChanged = s.now()
		}
		st.StatusID = to.ID
	}
	st.Updated = s.now()
	s.setState(iss, st)
	return nil
}

// Link adds an "is blocked by" link: blocked is blocked by blocker.
func (s *Server) Link(blocked, blocker string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, b := s.issueByKeyOrID(blocked), s.issueByKeyOrID(blocker)
	if a == nil || b == nil || a == b {
		return fmt.Errorf("link needs two different existing issues, got %q and %q", blocked, blocker)
	}
	s.addLinkLocked(&linkTypes[0], b, a)
	return nil
}

// SeedIssue describes an issue that exists before a test starts.
type SeedIssue struct {
	Project     string         `json:"project,omitempty"` // default: the first project
	IssueType   string         `json:"issuetype"`         // Epic, Story or Task
	Summary     string         `json:"summary"`
	Reference   string         `json:"reference,omitempty"`
	Parent      string         `json:"parent,omitempty"` // key of an epic
	Status      string         `json:"status,omitempty"` // To Do (default), In Progress, Done
	Description string         `json:"description_markdown_text,omitempty"`
	Labels      []string       `json:"labels,omitempty"`
	Properties  map[string]any `json:"properties,omitempty"`
	// Fields sets fields.go's fields as PersonEdit.Fields does.
	Fields map[string]json.RawMessage `json:"fields,omitempty"`
	Extra  map[string]string          `json:"-"`
}

// Seed creates an issue directly (no request is logged). Seeded issues are
// already in the search index. It returns the new key.
func (s *Server) Seed(in SeedIssue) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pk := in.Project
	if pk == "" {
		pk = s.projects[0].Key
	}
	p := s.projectByKeyOrID(pk)
	if p == nil {
		return "", fmt.Errorf("seed: project %q does not exist", pk)
	}
	t := byName(issueTypes, in.IssueType)
	if t == nil {
		return "", fmt.Errorf("seed: issue type %q does not exist; use Epic, Story, Task or Subtask", in.IssueType)
	}
	if in.Summary == "" || runeLen(in.Summary) > maxSummary {
		return "", fmt.Errorf("seed: summary must be 1 to 255 characters")
	}
	pw := &plannedWrite{proj: p, typeID: t.ID, summary: &in.Summary, custom: map[string]*string{}}
	if in.Reference != "" {
		pw.custom[s.refField(p, t.ID)] = &in.Reference
	}
	if in.Description != "" {
		d := TextADF(in.Description)
		pw.description = &d
	}
	if in.Parent != "" {
		par := s.issueByKeyOrID(in.Parent)
		if !seedParentFits(t, par) {
			return "", fmt.Errorf("seed: parent %q must be an existing epic (of a story or task) or story/task (of a sub-task)", in.Parent)
		}
		pw.parent = &par
	} else if t.Subtask {
		return "", fmt.Errorf("seed: a sub-task needs a parent story or task")
	}
	if in.Labels != nil {
		pw.labels = &in.Labels
	}
	for k, v := range in.Properties {
		b, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("seed: property %s: %v", k, err)
		}
		pw.props = append(pw.props, entityProperty{Key: k, Value: b})
	}
	iss := s.applyCreate(pw)
	if len(in.Fields) > 0 {
		st := iss.cur.clone()
		if err := s.personFields(iss, st, in.Fields); err != nil {
			return "", fmt.Errorf("seed: %v", err)
		}
		iss.cur = st
		iss.hist[len(iss.hist)-1].st = st
	}
	if in.Status != "" {
		to := byName(statuses, in.Status)
		if to == nil {
			return "", fmt.Errorf("seed: status %q does not exist; use To Do, In Progress or Done", in.Status)
		}
		st := iss.cur.clone()
		st.StatusID = to.ID
		s.setState(iss, st)
	}
	// Seeded issues are indexed from the beginning of time.
	for i := range iss.hist {
		iss.hist[i].at = time.Time{}
	}
	return iss.Key, nil
}

// Config is the runtime-tunable part of the server (admin POST /_mockjira/config).
type Config struct {
	LatencyMS       *int     `json:"latency_ms,omitempty"`
	SearchLagMS     *int     `json:"search_lag_ms,omitempty"`
	RateLimitPerSec *float64 `json:"rate_limit_per_sec,omitempty"`
	RateBurst       *int     `json:"rate_burst,omitempty"`
	LimitConfig
}

// SetLatency sets the per-request latency.
func (s *Server) SetLatency(d time.Duration) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.latency = d
}

// SetSearchLag sets how long a write stays invisible to search.
func (s *Server) SetSearchLag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lag = d
}

// SetRateLimit sets the token bucket (perSec 0 = off; burst 0 = max(1, perSec)).
func (s *Server) SetRateLimit(perSec float64, burst int) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.bucket.set(perSec, burst, s.now())
	delete(s.limits.penalty, "site")
}

// Apply applies the fields set in c.
func (s *Server) Apply(c Config) {
	if c.LatencyMS != nil {
		s.SetLatency(time.Duration(*c.LatencyMS) * time.Millisecond)
	}
	if c.SearchLagMS != nil {
		s.SetSearchLag(time.Duration(*c.SearchLagMS) * time.Millisecond)
	}
	if c.RateLimitPerSec != nil {
		b := 0
		if c.RateBurst != nil {
			b = *c.RateBurst
		}
		s.SetRateLimit(*c.RateLimitPerSec, b)
	}
	s.applyLimitConfig(c.LimitConfig)
}

// adminCall decodes an admin request's JSON body into in and runs f:
// 400 with f's error, or status with f's result (no body when nil).
type adminCall func(in any, status int, f func() (any, error))

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/_mockjira")
	bad := func(err error) { writeErr(w, http.StatusBadRequest, newErr(err.Error())) }
	decode := func(v any) bool {
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			bad(fmt.Errorf("invalid JSON body: %v", err))
			return false
		}
		return true
	}
	var call adminCall = func(in any, status int, f func() (any, error)) {
		if !decode(in) {
			return
		}
		out, err := f()
		switch {
		case err != nil:
			bad(err)
		case out == nil:
			w.WriteHeader(status)
		default:
			writeJSON(w, status, out)
		}
	}
	switch {
	case p == "/requests" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Requests())
	case p == "/requests" && r.Method == http.MethodDelete:
		s.ClearRequests()
		w.WriteHeader(http.StatusNoContent)
	case p == "/issues" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Issues())
	case p == "/issues" && r.Method == http.MethodPost:
		var in SeedIssue
		call(&in, http.StatusCreated, func() (any, error) {
			key, err := s.Seed(in)
			if err != nil {
				return nil, err
			}
			sn, _ := s.Issue(key)
			return sn, nil
		})
	case strings.HasPrefix(p, "/issues/") && strings.HasSuffix(p, "/edit") && r.Method == http.MethodPost:
		key := strings.TrimSuffix(strings.TrimPrefix(p, "/issues/"), "/edit")
		var e PersonEdit
		call(&e, http.StatusOK, func() (any, error) {
			if err := s.EditAsPerson(key, e); err != nil {
				return nil, err
			}
			sn, _ := s.Issue(key)
			return sn, nil
		})
	case p == "/links" && r.Method == http.MethodPost:
		var in struct{ Blocked, Blocker string }
		call(&in, http.StatusCreated, func() (any, error) { return nil, s.Link(in.Blocked, in.Blocker) })
	case p == "/faults" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Faults())
	case p == "/faults" && r.Method == http.MethodPost:
		var fs []Fault
		call(&fs, http.StatusNoContent, func() (any, error) {
			for _, f := range fs {
				if err := f.validate(); err != nil {
					return nil, err
				}
			}
			for _, f := range fs {
				_ = s.AddFault(f)
			}
			return nil, nil
		})
	case p == "/faults" && r.Method == http.MethodDelete:
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	case p == "/permissions" && r.Method == http.MethodPost:
		// {"project": "DEMO", "browse": true, "create": true, "edit": false, …};
		// a permission left out is not granted.
		var in struct {
			Project                                   string
			Browse, Create, Edit, Transition, Comment bool
		}
		call(&in, http.StatusNoContent, func() (any, error) {
			if in.Project == "" {
				in.Project = s.opts.Project
			}
			if !s.SetPermissions(in.Project, Permissions{Browse: in.Browse, Create: in.Create, Edit: in.Edit, Transition: in.Transition, Comment: in.Comment}) {
				return nil, fmt.Errorf("project %q does not exist", in.Project)
			}
			return nil, nil
		})
	case p == "/fields" && r.Method == http.MethodPost:
		var fs FieldSeed
		call(&fs, http.StatusNoContent, func() (any, error) { return nil, s.ApplyFields(fs) })
	case p == "/site" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Profile())
	case p == "/site" && r.Method == http.MethodPost:
		// {"style": "team-managed", "workflow": "classic", "denied_permissions": […],
		//  "epic_name_required": true, "deployment": "datacenter", "projects": {…}}
		var sp SiteProfile
		call(&sp, http.StatusNoContent, func() (any, error) { return nil, s.SetProfile(sp) })
	case p == "/config" && r.Method == http.MethodPost:
		var c Config
		call(&c, http.StatusNoContent, func() (any, error) {
			s.Apply(c)
			return nil, nil
		})
	default:
		if s.serveStructureAdmin(w, r, p, call) { // links, boards, sprints, backlog (structure_admin.go)
			return
		}
		writeErr(w, http.StatusNotFound, newErr(fmt.Sprintf("unknown admin endpoint %s %s", r.Method, r.URL.Path)))
	}
}
