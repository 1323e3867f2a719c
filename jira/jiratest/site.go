package jiratest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// This file models how the sites teams run differ from the kind default:
// the project style (team-managed or company-managed), the classic
// workflow (workflow.go), permissions a scheme withholds, a required Epic
// Name, and a Data Center deployment. A Profile is chosen for the whole
// site (seed file top level, Options, POST /_mockjira/site) and may be
// overridden per project.

// Project styles (Profile.Style). "" keeps the fake's historic default: a
// project with global fields, a scrum board and the "Subtask" type.
const (
	StyleTeamManaged    = "team-managed"
	StyleCompanyManaged = "company-managed"
)

// Workflows (Profile.Workflow). "" or "simple" is To Do → In Progress →
// Done with global transitions; "classic" is workflow.go's.
const (
	WorkflowSimple  = "simple"
	WorkflowClassic = "classic"
)

// Deployments (SiteProfile.Deployment). "" is Cloud.
const (
	DeploymentCloud      = "cloud"
	DeploymentDataCenter = "datacenter"
)

// Permission keys a profile can deny (Profile.DeniedPermissions), besides
// the five of Permissions (BROWSE_PROJECTS, CREATE_ISSUES, EDIT_ISSUES,
// TRANSITION_ISSUES, ADD_COMMENTS).
const (
	PermLinkIssues     = "LINK_ISSUES"     // POST issueLink: 404 "No Link Issue Permission…"
	PermScheduleIssues = "SCHEDULE_ISSUES" // sprint, rank and due date
	PermUserPicker     = "USER_PICKER"     // global "Browse users and groups": GET user/search answers []
)

// EpicNameFieldID is the Epic Name field of a company-managed site
// (Profile.EpicNameRequired): Jira's usual id, type gh-epic-label.
const (
	EpicNameFieldID   = "customfield_10011"
	EpicNameFieldName = "Epic Name"
	EpicNameFieldType = "com.pyxis.greenhopper.jira:gh-epic-label"
)

// Profile is how one project is set up. The zero value is the fake's
// historic default.
type Profile struct {
	// Style is "team-managed" (fields per issue type: the reference field
	// is one field per issue type, all named like Options.FieldName; a
	// "simple" board with sprints on; "Subtask") or "company-managed"
	// (global fields on screens; a scrum and a kanban board; "Sub-task").
	Style string `json:"style,omitempty"`
	// Workflow is "simple" (default) or "classic" (workflow.go).
	Workflow string `json:"workflow,omitempty"`
	// DeniedPermissions are permission keys the user lacks in the project
	// (LINK_ISSUES, SCHEDULE_ISSUES, USER_PICKER or one of the five of
	// Permissions).
	DeniedPermissions []string `json:"denied_permissions,omitempty"`
	// EpicNameRequired adds the Epic Name field (EpicNameFieldID),
	// required on the Epic type's create screen.
	EpicNameRequired bool `json:"epic_name_required,omitempty"`
}

// SiteProfile is the site-wide Profile, its Deployment and per-project
// overrides (the seed file's top level, POST /_mockjira/site).
type SiteProfile struct {
	Profile
	// Deployment "datacenter" makes the site a Jira Data Center: every
	// /rest/api/3 path answers 404, /rest/api/2/serverInfo says
	// deploymentType "Server" and /rest/api/2 serves Data Center's REST API
	// v2 (datacenter.go; what is and is not modelled: the package comment).
	Deployment string `json:"deployment,omitempty"`
	// Projects overrides the profile per project key: the keys an entry
	// sets replace the site's (EpicNameRequired adds); a project named
	// here that does not exist is created.
	Projects map[string]Profile `json:"projects,omitempty"`
}

func (sp SiteProfile) validate() error {
	check := func(where string, p Profile) error {
		switch p.Style {
		case "", StyleTeamManaged, StyleCompanyManaged:
		default:
			return fmt.Errorf("%sstyle %q: use %q or %q", where, p.Style, StyleTeamManaged, StyleCompanyManaged)
		}
		switch p.Workflow {
		case "", WorkflowSimple, WorkflowClassic:
		default:
			return fmt.Errorf("%sworkflow %q: use %q or %q", where, p.Workflow, WorkflowSimple, WorkflowClassic)
		}
		for _, k := range p.DeniedPermissions {
			if permissionByKey(k) == nil {
				return fmt.Errorf("%sdenied permission %q: mockjira models %s", where, k, modelledPermissionKeys())
			}
		}
		return nil
	}
	if err := check("", sp.Profile); err != nil {
		return err
	}
	switch sp.Deployment {
	case "", DeploymentCloud, DeploymentDataCenter:
	default:
		return fmt.Errorf("deployment %q: use %q or %q", sp.Deployment, DeploymentCloud, DeploymentDataCenter)
	}
	for k, p := range sp.Projects {
		if err := check("project "+k+": ", p); err != nil {
			return err
		}
	}
	return nil
}

// profileFor is the effective profile of the project key.
func (sp SiteProfile) profileFor(key string) Profile {
	p := sp.Profile
	p.DeniedPermissions = slices.Clone(p.DeniedPermissions)
	for k, o := range sp.Projects {
		if !strings.EqualFold(k, key) {
			continue
		}
		if o.Style != "" {
			p.Style = o.Style
		}
		if o.Workflow != "" {
			p.Workflow = o.Workflow
		}
		if o.DeniedPermissions != nil {
			p.DeniedPermissions = slices.Clone(o.DeniedPermissions)
		}
		p.EpicNameRequired = p.EpicNameRequired || o.EpicNameRequired
	}
	// Jira Software on Data Center requires Epic Name on the Epic type.
	p.EpicNameRequired = p.EpicNameRequired || sp.dataCenter()
	return p
}

func (sp SiteProfile) dataCenter() bool { return sp.Deployment == DeploymentDataCenter }

// siteProfile is the profile Options set.
func (o Options) siteProfile() SiteProfile {
	return SiteProfile{
		Profile: Profile{
			Style: o.Style, Workflow: o.Workflow, DeniedPermissions: o.DeniedPermissions, EpicNameRequired: o.EpicNameRequired,
		},
		Deployment: o.Deployment, Projects: o.ProjectProfiles,
	}
}

func (p *project) teamManaged() bool    { return p.prof.Style == StyleTeamManaged }
func (p *project) companyManaged() bool { return p.prof.Style == StyleCompanyManaged }
func (p *project) classic() bool        { return p.prof.Workflow == WorkflowClassic }

// denies reports whether the profile withholds the permission key.
func (p *project) denies(key string) bool { return slices.Contains(p.prof.DeniedPermissions, key) }

// applyProfileLocked gives p its profile: permissions, the reference
// fields of a team-managed project, boards, Epic Name. Call with s.mu held,
// on a project without issues.
func (s *Server) applyProfileLocked(p *project, prof Profile) {
	p.prof = prof
	p.perms = AllPermissions
	for _, k := range prof.DeniedPermissions {
		if pi := permissionByKey(k); pi != nil && pi.deny != nil {
			pi.deny(&p.perms)
		}
	}
	// Boards: drop the project's, add the style's.
	s.agile.boards = slices.DeleteFunc(s.agile.boards, func(b *board) bool { return b.Proj == p })
	s.agile.sprints = slices.DeleteFunc(s.agile.sprints, func(sp *sprint) bool { return sp.Board.Proj == p })
	s.addDefaultBoardLocked(p)
	// Reference fields per issue type (team-managed).
	p.refFields = nil
	if p.teamManaged() {
		p.refFields = map[string]string{}
		idx := slices.Index(s.projects, p)
		for i, t := range issueTypes {
			p.refFields[t.ID] = "customfield_" + strconv.Itoa(teamRefBase+10*idx+i)
		}
	}
	if prof.EpicNameRequired {
		s.ensureEpicNameLocked()
		if p.required[IssueTypeEpicID] == nil {
			p.required[IssueTypeEpicID] = map[string]bool{}
		}
		p.required[IssueTypeEpicID][EpicNameFieldID] = true
	} else if p.required[IssueTypeEpicID] != nil {
		delete(p.required[IssueTypeEpicID], EpicNameFieldID)
	}
}

// teamRefBase numbers the reference fields of team-managed projects:
// customfield_(teamRefBase + 10 × project index + issue type index).
const teamRefBase = 10300

// ensureEpicNameLocked adds the Epic Name field (on the Epic type only).
func (s *Server) ensureEpicNameLocked() {
	if s.customByID(EpicNameFieldID) != nil {
		return
	}
	s.fields.custom = append(s.fields.custom, &customField{
		CustomField: CustomField{ID: EpicNameFieldID, Name: EpicNameFieldName, Type: fieldEpicName},
		num:         10011, types: map[string]bool{IssueTypeEpicID: true},
	})
}

// fieldEpicName is the Epic Name field's type: text, ≤ 255 characters.
const fieldEpicName FieldType = "epicname"

// refField is the reference field of issues of typeID in p: the site's
// (Options.FieldID), or in a team-managed project the issue type's own.
func (s *Server) refField(p *project, typeID string) string {
	if p != nil && p.refFields != nil {
		if id := p.refFields[typeID]; id != "" {
			return id
		}
	}
	return s.fieldID
}

// teamRef finds the team-managed project and issue type whose reference
// field id is, or nil.
func (s *Server) teamRef(id string) (*project, string) {
	for _, p := range s.projects {
		for t, f := range p.refFields {
			if f == id {
				return p, t
			}
		}
	}
	return nil, ""
}

// isRefField reports whether id is a reference field of any project.
func (s *Server) isRefField(id string) bool {
	if id == s.fieldID {
		return true
	}
	p, _ := s.teamRef(id)
	return p != nil
}

// globalRefListed: the site's global reference field exists unless every
// project is team-managed (their fields belong to them).
func (s *Server) globalRefListed() bool {
	for _, p := range s.projects {
		if !p.teamManaged() {
			return true
		}
	}
	return false
}

// teamRefFieldsJSON lists the team-managed reference fields for GET field:
// one per project and issue type, each with the project's scope.
func (s *Server) teamRefFieldsJSON(base string) []any {
	var out []any
	for _, p := range s.projects {
		for _, t := range p.projectTypes() {
			id := p.refFields[t.ID]
			if id == "" {
				continue
			}
			n := strings.TrimPrefix(id, "customfield_")
			num, _ := strconv.Atoi(n)
			out = append(out, map[string]any{
				"id": id, "key": id, "name": s.fieldName, "custom": true, "orderable": true, "navigable": true,
				"searchable": !s.refUnsearchable, "clauseNames": []string{"cf[" + n + "]", s.fieldName + "[Short text]"},
				"schema": map[string]any{"type": "string", "custom": TextFieldType, "customId": num},
				"scope":  map[string]any{"type": "PROJECT", "project": projectRefJSON(base, p)},
			})
		}
	}
	return out
}

// SetProfile re-profiles the site: every project takes its profile from
// sp (the deployment too). A project whose style changes must have no
// issues yet (its fields and boards are rebuilt).
func (s *Server) SetProfile(sp SiteProfile) error {
	if err := sp.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range sortedKeys(sp.Projects) {
		if s.projectByKeyOrID(k) == nil {
			s.addProjectLocked(strings.ToUpper(k), strings.ToUpper(k))
		}
	}
	for _, p := range s.projects {
		np := sp.profileFor(p.Key)
		if np.Style != p.prof.Style && s.hasIssuesLocked(p) {
			return fmt.Errorf("project %s has issues: its style cannot change", p.Key)
		}
	}
	s.site = sp
	for _, p := range s.projects {
		s.applyProfileLocked(p, sp.profileFor(p.Key))
	}
	return nil
}

// Profile returns the site's profile as set.
func (s *Server) Profile() SiteProfile {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.site
}

func (s *Server) hasIssuesLocked(p *project) bool {
	return slices.ContainsFunc(s.issues, func(iss *issue) bool { return iss.Proj == p })
}

// SetBulkCreateReversed makes bulk create list the created issues newest
// first: the API description does not say in which order issues[] comes
// (on the sites seen so far, request order).
func (s *Server) SetBulkCreateReversed(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bulkReversed = on
}

// SetReferenceSearchable makes the reference fields searchable (the
// default) or not, as an admin can by changing the field's search
// template: GET field says "searchable": false and a JQL clause on it
// answers 400.
func (s *Server) SetReferenceSearchable(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refUnsearchable = !on
}

// dataCenterGate answers a Data Center site's /rest/api/3 requests: 404
// as Jira Data Center's REST layer does for a path it does not have. It
// reports whether it answered.
func (s *Server) dataCenterGate(w http.ResponseWriter, r *http.Request) bool {
	s.mu.RLock()
	dc := s.site.dataCenter()
	s.mu.RUnlock()
	if !dc || !strings.HasPrefix(r.URL.Path, "/rest/api/3/") && r.URL.Path != "/rest/api/3" {
		return false
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "null for uri: " + s.base(r) + r.URL.Path, "status-code": http.StatusNotFound})
	return true
}

// serverInfoJSON is serverInfo: Cloud, or a Data Center site's (Jira Data
// Center says deploymentType "Server").
func (s *Server) serverInfoJSON(r *http.Request) map[string]any {
	s.mu.RLock()
	dc := s.site.dataCenter()
	s.mu.RUnlock()
	if dc {
		return map[string]any{
			"baseUrl": s.base(r), "version": "10.3.13", "versionNumbers": []int{10, 3, 13}, "deploymentType": "Server",
			"buildNumber": 10030013, "buildDate": "2025-10-01T00:00:00.000+0000", "serverTime": jiraTime(s.now()),
			"scmInfo": "mockjira", "serverTitle": "Jira (mockjira Data Center)",
		}
	}
	return map[string]any{
		"baseUrl":        s.base(r),
		"displayUrl":     s.base(r),
		"version":        "1001.0.0-SNAPSHOT",
		"versionNumbers": []int{1001, 0, 0},
		"deploymentType": "Cloud",
		"buildNumber":    100289,
		"buildDate":      "2026-01-01T00:00:00.000+0000",
		"serverTime":     jiraTime(s.now()),
		"scmInfo":        "mockjira",
		"serverTitle":    "Jira (mockjira)",
	}
}

// projectStyleJSON sets a project's style fields (Project.style,
// simplified): "next-gen" and true for team-managed, else "classic".
func projectStyleJSON(p *project, out map[string]any) {
	out["style"], out["simplified"] = "classic", false
	if p.teamManaged() {
		out["style"], out["simplified"] = "next-gen", true
	}
}

// issueTypeName is the type's name in p: the sub-task type is "Sub-task"
// in a company-managed project.
func issueTypeName(p *project, t *issueType) string {
	if n := p.translated(t.ID); n != "" {
		return n
	}
	if t.Subtask && p != nil && p.companyManaged() {
		return "Sub-task"
	}
	return t.Name
}

// refAnyField is the JQL field of a clause that names the reference field
// by name on a site where several fields have that name: each issue's own.
const refAnyField = "reference"
