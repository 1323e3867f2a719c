package jiratest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file models the fields teams plan with: priority, assignee, due
// date, components, fix versions and custom fields of type text, number,
// date, select, multi-select, user and labels, with the users they can
// hold (assignable search) and their metadata (createmeta, editmeta).

// FieldType is the type of a custom field.
type FieldType string

// The custom field types the fake models (Jira's schema.custom in the
// comment).
const (
	FieldText        FieldType = "text"        // customfieldtypes:textfield
	FieldNumber      FieldType = "number"      // customfieldtypes:float
	FieldDate        FieldType = "date"        // customfieldtypes:datepicker
	FieldSelect      FieldType = "select"      // customfieldtypes:select
	FieldMultiSelect FieldType = "multiselect" // customfieldtypes:multiselect
	FieldUser        FieldType = "user"        // customfieldtypes:userpicker
	FieldLabels      FieldType = "labels"      // customfieldtypes:labels
)

// Jira's schema.custom of each custom field type.
var customTypeKeys = map[FieldType]string{
	FieldText:        TextFieldType,
	FieldNumber:      "com.atlassian.jira.plugin.system.customfieldtypes:float",
	FieldDate:        "com.atlassian.jira.plugin.system.customfieldtypes:datepicker",
	FieldSelect:      "com.atlassian.jira.plugin.system.customfieldtypes:select",
	FieldMultiSelect: "com.atlassian.jira.plugin.system.customfieldtypes:multiselect",
	FieldUser:        "com.atlassian.jira.plugin.system.customfieldtypes:userpicker",
	FieldLabels:      "com.atlassian.jira.plugin.system.customfieldtypes:labels",
}

// Defaults of the field model.
const (
	// StoryPointEstimateID is the "Story point estimate" number field a
	// new team-managed Jira Cloud project has.
	StoryPointEstimateID   = "customfield_10016"
	StoryPointEstimateName = "Story point estimate"
	// DemoAccountID is the account id of the configured user (Options.Email).
	DemoAccountID = "557058:00000000-0000-4000-8000-000000000001"
)

// DefaultPriorities is Jira Cloud's default priority scheme (ids 1–5);
// Medium is the default of a new issue.
var DefaultPriorities = []string{"Highest", "High", "Medium", "Low", "Lowest"}

// CustomField declares a custom field (FieldSeed.CustomFields).
type CustomField struct {
	ID      string    `json:"id,omitempty"` // customfield_<n>; default the next free number from 10100
	Name    string    `json:"name"`
	Type    FieldType `json:"type"`
	Options []string  `json:"options,omitempty"` // select and multi-select values
	// IssueTypes puts the field on the screens of these issue types only
	// (names; default every type) in every project.
	IssueTypes []string `json:"issuetypes,omitempty"`
}

// User is a person on the site (FieldSeed.Users).
type User struct {
	AccountID   string `json:"account_id"`
	Email       string `json:"email,omitempty"`
	DisplayName string `json:"display_name"`
	// EmailHidden is the person's privacy setting: the e-mail is not
	// returned and the assignable search does not match it.
	EmailHidden bool `json:"email_hidden,omitempty"`
	Inactive    bool `json:"inactive,omitempty"`
	// Projects lists the projects whose issues the user may be assigned
	// (keys; default every project).
	Projects []string `json:"projects,omitempty"`
}

// Component is a project component (FieldSeed.Components).
type Component struct {
	Project string `json:"project,omitempty"` // default the first project
	Name    string `json:"name"`
}

// Version is a project version (FieldSeed.Versions).
type Version struct {
	Project  string `json:"project,omitempty"`
	Name     string `json:"name"`
	Released bool   `json:"released,omitempty"`
	Archived bool   `json:"archived,omitempty"`
}

// ScreenField names a field on a project's screen of an issue type
// (FieldSeed.Required, FieldSeed.OffScreen). Field is an id or a name.
type ScreenField struct {
	Project   string `json:"project,omitempty"`
	IssueType string `json:"issuetype"`
	Field     string `json:"field"`
}

// FieldSeed configures the field model (seed file, admin POST
// /_mockjira/fields, ApplyFields). Every part is optional and adds to
// what is there; Priorities replaces the scheme.
type FieldSeed struct {
	Priorities   []string      `json:"priorities,omitempty"`
	CustomFields []CustomField `json:"custom_fields,omitempty"`
	Users        []User        `json:"users,omitempty"`
	HideEmails   bool          `json:"hide_emails,omitempty"` // every user's e-mail is hidden (privacy setting)
	Components   []Component   `json:"components,omitempty"`
	Versions     []Version     `json:"versions,omitempty"`
	Required     []ScreenField `json:"required,omitempty"`   // required on create
	OffScreen    []ScreenField `json:"off_screen,omitempty"` // taken off the create and edit screens
	// OffEditScreen takes fields off the edit screen only (a project with
	// a separate edit screen): still set at create, refused in an edit and
	// absent from editmeta.
	OffEditScreen []ScreenField `json:"off_edit_screen,omitempty"`
}

type option struct{ ID, Value string }

type customField struct {
	CustomField
	num     int
	options []option
	types   map[string]bool // issue type ids whose screens hold it; nil = all
}

type idName struct{ ID, Name string }

type version struct {
	idName
	Released, Archived bool
}

// fieldModel is the state of the field model (guarded by Server.mu).
type fieldModel struct {
	priorities []idName
	custom     []*customField
	users      []User
	hideEmails bool
	components map[*project][]idName
	versions   map[*project][]version
	offScreen  map[*project]map[string]map[string]bool // type id → field id
	offEdit    map[*project]map[string]map[string]bool // the same, of the edit screens only
	nextID     int
}

func newFieldModel() *fieldModel {
	m := &fieldModel{components: map[*project][]idName{}, versions: map[*project][]version{}, offScreen: map[*project]map[string]map[string]bool{}, offEdit: map[*project]map[string]map[string]bool{}, nextID: 10000}
	m.setPriorities(DefaultPriorities)
	m.custom = append(m.custom, &customField{CustomField: CustomField{ID: StoryPointEstimateID, Name: StoryPointEstimateName, Type: FieldNumber}, num: 10016})
	return m
}

func (m *fieldModel) setPriorities(names []string) {
	m.priorities = nil
	for i, n := range names {
		m.priorities = append(m.priorities, idName{strconv.Itoa(i + 1), n})
	}
}

func (m *fieldModel) id() string {
	m.nextID++
	return strconv.Itoa(m.nextID)
}

// builtinModelFields are the system fields of the model: id → name.
var builtinModelFields = []struct{ id, name string }{
	{"priority", "Priority"}, {"assignee", "Assignee"}, {"duedate", "Due date"},
	{"components", "Components"}, {"fixVersions", "Fix versions"},
}

// ApplyFields applies a field seed. It refuses (and applies nothing of)
// a seed naming an unknown project, issue type, field or field type.
func (s *Server) ApplyFields(fs FieldSeed) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.fields
	proj := func(k string) (*project, error) {
		if k == "" {
			return s.projects[0], nil
		}
		if p := s.projectByKeyOrID(k); p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("fields: project %q does not exist", k)
	}
	// Check first, so that a bad seed changes nothing.
	for _, c := range fs.CustomFields {
		if _, ok := customTypeKeys[c.Type]; !ok || c.Name == "" {
			return fmt.Errorf("fields: custom field %q needs a name and a type (text, number, date, select, multiselect, user, labels)", c.Name)
		}
		if c.ID != "" && (!strings.HasPrefix(c.ID, "customfield_") || s.fieldByID(c.ID) != "") {
			return fmt.Errorf("fields: custom field id %q must be customfield_<n> and unused", c.ID)
		}
		for _, t := range c.IssueTypes {
			if byName(issueTypes, t) == nil {
				return fmt.Errorf("fields: issue type %q does not exist", t)
			}
		}
	}
	for _, c := range fs.Components {
		if _, err := proj(c.Project); err != nil || c.Name == "" {
			return fmt.Errorf("fields: component %q: a name and an existing project are needed", c.Name)
		}
	}
	for _, v := range fs.Versions {
		if _, err := proj(v.Project); err != nil || v.Name == "" {
			return fmt.Errorf("fields: version %q: a name and an existing project are needed", v.Name)
		}
	}
	for _, u := range fs.Users {
		if u.AccountID == "" || u.DisplayName == "" {
			return fmt.Errorf("fields: user %q needs an account_id and a display_name", u.Email)
		}
	}
	if len(fs.Priorities) > 0 {
		m.setPriorities(fs.Priorities)
	}
	for _, c := range fs.CustomFields {
		cf := &customField{CustomField: c}
		if cf.ID == "" {
			n := 10100
			for s.fieldByID("customfield_"+strconv.Itoa(n)) != "" {
				n++
			}
			cf.ID = "customfield_" + strconv.Itoa(n)
		}
		cf.num, _ = strconv.Atoi(strings.TrimPrefix(cf.ID, "customfield_"))
		for _, o := range c.Options {
			cf.options = append(cf.options, option{m.id(), o})
		}
		if len(c.IssueTypes) > 0 {
			cf.types = map[string]bool{}
			for _, t := range c.IssueTypes {
				cf.types[byName(issueTypes, t).ID] = true
			}
		}
		m.custom = append(m.custom, cf)
	}
	m.users = append(m.users, fs.Users...)
	m.hideEmails = m.hideEmails || fs.HideEmails
	for _, c := range fs.Components {
		p, _ := proj(c.Project)
		m.components[p] = append(m.components[p], idName{m.id(), c.Name})
	}
	for _, v := range fs.Versions {
		p, _ := proj(v.Project)
		m.versions[p] = append(m.versions[p], version{idName{m.id(), v.Name}, v.Released, v.Archived})
	}
	for _, sf := range slices.Concat(fs.Required, fs.OffScreen, fs.OffEditScreen) {
		if _, err := proj(sf.Project); err != nil {
			return err
		}
		if byName(issueTypes, sf.IssueType) == nil {
			return fmt.Errorf("fields: issue type %q does not exist", sf.IssueType)
		}
		if s.resolveFieldName(sf.Field) == "" {
			return fmt.Errorf("fields: field %q does not exist", sf.Field)
		}
	}
	for _, r := range fs.Required {
		p, _ := proj(r.Project)
		t := byName(issueTypes, r.IssueType)
		if p.required[t.ID] == nil {
			p.required[t.ID] = map[string]bool{}
		}
		p.required[t.ID][s.resolveFieldName(r.Field)] = true
	}
	off := func(screens map[*project]map[string]map[string]bool, o ScreenField) {
		p, _ := proj(o.Project)
		t := byName(issueTypes, o.IssueType)
		if screens[p] == nil {
			screens[p] = map[string]map[string]bool{}
		}
		if screens[p][t.ID] == nil {
			screens[p][t.ID] = map[string]bool{}
		}
		id := s.resolveFieldName(o.Field)
		if s.isRefField(id) {
			id = s.refField(p, t.ID) // a team-managed project's type has its own
		}
		screens[p][t.ID][id] = true
	}
	for _, o := range fs.OffScreen {
		off(m.offScreen, o)
	}
	for _, o := range fs.OffEditScreen {
		off(m.offEdit, o)
	}
	return nil
}

// fieldByID returns the name of a field the site has ("" when none).
func (s *Server) fieldByID(id string) string {
	if s.isRefField(id) {
		return s.fieldName
	}
	for _, f := range systemFields {
		if f.id == id {
			return f.name
		}
	}
	for _, f := range builtinModelFields {
		if f.id == id {
			return f.name
		}
	}
	if cf := s.customByID(id); cf != nil {
		return cf.Name
	}
	return ""
}

// resolveFieldName finds a field id by id or name (case-insensitive).
func (s *Server) resolveFieldName(v string) string {
	if s.fieldByID(v) != "" {
		return v
	}
	if strings.EqualFold(v, s.fieldName) {
		return s.fieldID
	}
	for _, f := range systemFields {
		if strings.EqualFold(f.name, v) {
			return f.id
		}
	}
	for _, f := range builtinModelFields {
		if strings.EqualFold(f.name, v) {
			return f.id
		}
	}
	for _, cf := range s.fields.custom {
		if strings.EqualFold(cf.Name, v) {
			return cf.ID
		}
	}
	return ""
}

func (s *Server) customByID(id string) *customField {
	return first(s.fields.custom, func(cf *customField) bool { return cf.ID == id })
}

// isModelField reports whether id is a field of the model.
func (s *Server) isModelField(id string) bool {
	for _, f := range builtinModelFields {
		if f.id == id {
			return true
		}
	}
	return s.customByID(id) != nil
}

// onScreen reports whether a model field is on the create screen of an
// issue type in a project, or with edit on its edit screen.
func (s *Server) onScreen(p *project, typeID, id string, edit bool) bool {
	if !s.refOnScreen(p, typeID, id, edit) {
		return false
	}
	if id == "duedate" && p.denies(PermScheduleIssues) { // the due date needs Schedule issues
		return false
	}
	if cf := s.customByID(id); cf != nil && cf.types != nil {
		return cf.types[typeID]
	}
	return true
}

// refOnScreen reports whether a field is on p's create (or with edit
// edit) screen of the issue type as far as FieldSeed.OffScreen and
// OffEditScreen say.
func (s *Server) refOnScreen(p *project, typeID, id string, edit bool) bool {
	return !s.fields.offScreen[p][typeID][id] && !(edit && s.fields.offEdit[p][typeID][id])
}

// users lists every user: the configured one first.
func (s *Server) users() []User {
	demo := User{AccountID: DemoAccountID, Email: s.opts.Email, DisplayName: s.opts.DisplayName}
	return append([]User{demo}, s.fields.users...)
}

func (s *Server) userByAccount(id string) *User {
	for _, u := range s.users() {
		if u.AccountID == id {
			return &u
		}
	}
	return nil
}

func (u User) assignableIn(p *project) bool {
	return !u.Inactive && (len(u.Projects) == 0 || slices.ContainsFunc(u.Projects, func(k string) bool { return strings.EqualFold(k, p.Key) }))
}

func (s *Server) emailHidden(u User) bool { return u.EmailHidden || s.fields.hideEmails }

func (s *Server) modelUserJSON(base string, u User) map[string]any {
	out := map[string]any{
		"self":        base + "/rest/api/3/user?accountId=" + u.AccountID,
		"accountId":   u.AccountID,
		"displayName": u.DisplayName,
		"active":      !u.Inactive,
		"timeZone":    "Etc/UTC",
		"accountType": "atlassian",
		"avatarUrls":  avatarURLs(base),
	}
	if !s.emailHidden(u) && u.Email != "" {
		out["emailAddress"] = u.Email
	}
	return out
}

// handleAssignableSearch is GET /rest/api/3/user/assignable/search: the
// active users assignable in the project (or the issue's project) whose
// display name has a word starting with query, whose visible e-mail
// starts with it, or whose account id is accountId.
func (s *Server) handleAssignableSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	var p *project
	switch {
	case q.Get("project") != "":
		p = s.visibleProject(q.Get("project"))
	case q.Get("issueKey") != "" || q.Get("issueId") != "":
		k := q.Get("issueKey")
		if k == "" {
			k = q.Get("issueId")
		}
		if iss := s.issueByKeyOrID(k); iss != nil && iss.Proj.perms.Browse {
			p = iss.Proj
		}
	default:
		writeErr(w, http.StatusBadRequest, newErr("One of the following parameters must be provided: project, issueKey, issueId."))
		return
	}
	if p == nil {
		writeErr(w, http.StatusNotFound, newErr("Project or issue not found."))
		return
	}
	start, max, e := paging(r)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(s.usersMatching(r, func(u User) bool { return u.assignableIn(p) }), start, max))
}

// handleUserSearch is GET /rest/api/3/user/search, the search Jira's
// user-picker fields use: every active user (assignable or not) whose
// display name has a word starting with query, whose visible e-mail
// starts with it, or whose account id is accountId; one of the two is
// required.
func (s *Server) handleUserSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if strings.TrimSpace(q.Get("query")) == "" && q.Get("accountId") == "" {
		writeErr(w, http.StatusBadRequest, newErr("The query parameter 'query' or 'accountId' is required."))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start, max, e := paging(r)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	if slices.Contains(s.site.DeniedPermissions, PermUserPicker) {
		// Without the global Browse users and groups permission Jira
		// answers an empty list, not an error.
		writeJSON(w, http.StatusOK, []any{})
		return
	}
	writeJSON(w, http.StatusOK, pageOf(s.usersMatching(r, func(u User) bool { return !u.Inactive }), start, max))
}

// usersMatching are the users (JSON) that pass keep and match r's query
// or accountId, as both user searches match them; a hidden e-mail does
// not match.
func (s *Server) usersMatching(r *http.Request, keep func(User) bool) []any {
	q := r.URL.Query()
	query, acc := strings.ToLower(strings.TrimSpace(q.Get("query"))), q.Get("accountId")
	out := []any{}
	for _, u := range s.users() {
		if !keep(u) {
			continue
		}
		match := acc != "" && u.AccountID == acc
		if acc == "" {
			match = query == ""
			for _, word := range strings.Fields(strings.ToLower(u.DisplayName)) {
				match = match || strings.HasPrefix(word, query)
			}
			match = match || strings.HasPrefix(strings.ToLower(u.DisplayName), query)
			match = match || (!s.emailHidden(u) && u.Email != "" && strings.HasPrefix(strings.ToLower(u.Email), query))
		}
		if match {
			out = append(out, s.modelUserJSON(s.base(r), u))
		}
	}
	return out
}

// modelFieldsJSON lists the model's fields for GET /field.
func (s *Server) modelFieldsJSON() []any {
	var out []any
	sys := map[string]map[string]any{
		"priority":    {"type": "priority", "system": "priority"},
		"assignee":    {"type": "user", "system": "assignee"},
		"duedate":     {"type": "date", "system": "duedate"},
		"components":  {"type": "array", "items": "component", "system": "components"},
		"fixVersions": {"type": "array", "items": "version", "system": "fixVersions"},
	}
	for _, f := range builtinModelFields {
		out = append(out, map[string]any{
			"id": f.id, "key": f.id, "name": f.name, "custom": false, "orderable": true,
			"navigable": true, "searchable": true, "clauseNames": []string{strings.ToLower(f.id)}, "schema": sys[f.id],
		})
	}
	for _, cf := range s.fields.custom {
		n := strconv.Itoa(cf.num)
		out = append(out, map[string]any{
			"id": cf.ID, "key": cf.ID, "name": cf.Name, "custom": true, "orderable": true,
			"navigable": true, "searchable": true, "clauseNames": []string{"cf[" + n + "]", cf.Name},
			"schema": cf.schema(),
		})
	}
	return out
}

func (cf *customField) schema() map[string]any {
	sch := map[string]any{"custom": customTypeKeys[cf.Type], "customId": cf.num}
	if cf.Type == fieldEpicName {
		sch["custom"] = EpicNameFieldType
	}
	switch cf.Type {
	case FieldText, fieldEpicName:
		sch["type"] = "string"
	case FieldNumber:
		sch["type"] = "number"
	case FieldDate:
		sch["type"] = "date"
	case FieldSelect:
		sch["type"] = "option"
	case FieldMultiSelect:
		sch["type"], sch["items"] = "array", "option"
	case FieldUser:
		sch["type"] = "user"
	case FieldLabels:
		sch["type"], sch["items"] = "array", "string"
	}
	return sch
}

// modelFieldMeta is the createmeta (or with edit the editmeta) entry of
// each model field on the screen of an issue type in p, with allowed
// values.
func (s *Server) modelFieldMeta(base string, p *project, typeID string, required map[string]bool, edit bool) []map[string]any {
	var out []map[string]any
	entry := func(id, name string, schema map[string]any, ops []string, allowed []any) {
		if !s.onScreen(p, typeID, id, edit) {
			return
		}
		e := map[string]any{"fieldId": id, "key": id, "name": name, "required": required[id], "hasDefaultValue": id == "priority", "operations": ops, "schema": schema}
		if allowed != nil {
			e["allowedValues"] = allowed
		}
		if id == "priority" {
			e["defaultValue"] = s.priorityJSON(base, s.fields.priorities[min(2, len(s.fields.priorities)-1)])
		}
		if id == "assignee" {
			e["autoCompleteUrl"] = base + "/rest/api/3/user/assignable/search?project=" + p.Key + "&query="
		}
		out = append(out, e)
	}
	prios := []any{}
	for _, pr := range s.fields.priorities {
		prios = append(prios, s.priorityJSON(base, pr))
	}
	entry("priority", "Priority", map[string]any{"type": "priority", "system": "priority"}, []string{"set"}, prios)
	entry("assignee", "Assignee", map[string]any{"type": "user", "system": "assignee"}, []string{"set"}, nil)
	entry("duedate", "Due date", map[string]any{"type": "date", "system": "duedate"}, []string{"set"}, nil)
	comps := []any{}
	for _, c := range s.fields.components[p] {
		comps = append(comps, componentJSON(base, c))
	}
	entry("components", "Components", map[string]any{"type": "array", "items": "component", "system": "components"}, []string{"add", "set", "remove"}, comps)
	vers := []any{}
	for _, v := range s.fields.versions[p] {
		if !v.Archived {
			vers = append(vers, versionJSON(base, p, v))
		}
	}
	entry("fixVersions", "Fix versions", map[string]any{"type": "array", "items": "version", "system": "fixVersions"}, []string{"set", "add", "remove"}, vers)
	for _, cf := range s.fields.custom {
		var allowed []any
		if cf.Type == FieldSelect || cf.Type == FieldMultiSelect {
			allowed = []any{}
			for _, o := range cf.options {
				allowed = append(allowed, optionJSON(base, cf, o))
			}
		}
		ops := []string{"set"}
		if cf.Type == FieldMultiSelect || cf.Type == FieldLabels {
			ops = []string{"add", "set", "remove"}
		}
		entry(cf.ID, cf.Name, cf.schema(), ops, allowed)
	}
	return out
}

func (s *Server) priorityJSON(base string, p idName) map[string]any {
	return map[string]any{"self": base + "/rest/api/3/priority/" + p.ID, "iconUrl": base + "/images/icons/priorities/" + strings.ToLower(p.Name) + ".svg", "name": p.Name, "id": p.ID}
}

func componentJSON(base string, c idName) map[string]any {
	return map[string]any{"self": base + "/rest/api/3/component/" + c.ID, "id": c.ID, "name": c.Name}
}

func versionJSON(base string, p *project, v version) map[string]any {
	return map[string]any{"self": base + "/rest/api/3/version/" + v.ID, "id": v.ID, "name": v.Name, "archived": v.Archived, "released": v.Released, "projectId": p.ID}
}

func optionJSON(base string, cf *customField, o option) map[string]any {
	return map[string]any{"self": base + "/rest/api/3/customFieldOption/" + o.ID, "value": o.Value, "id": o.ID}
}

// editMeta is GET /rest/api/3/issue/{key}/editmeta: the fields of the
// issue's edit screen (its create screen less FieldSeed.OffEditScreen).
func (s *Server) editMeta(w http.ResponseWriter, r *http.Request, iss *issue) {
	base := s.base(r)
	fields := map[string]any{}
	fm := func(id, name string, schema map[string]any) {
		fields[id] = map[string]any{"key": id, "name": name, "required": false, "operations": []string{"set"}, "schema": schema}
	}
	fm("summary", "Summary", map[string]any{"type": "string", "system": "summary"})
	fm("description", "Description", map[string]any{"type": "string", "system": "description"})
	fm("labels", "Labels", map[string]any{"type": "array", "items": "string", "system": "labels"})
	if iss.cur.TypeID != IssueTypeEpicID && s.refOnScreen(iss.Proj, iss.cur.TypeID, "parent", true) {
		fm("parent", "Parent", map[string]any{"type": "issuelink", "system": "parent"})
	}
	if ref := s.refField(iss.Proj, iss.cur.TypeID); s.refOnScreen(iss.Proj, iss.cur.TypeID, ref, true) {
		n, _ := strconv.Atoi(strings.TrimPrefix(ref, "customfield_"))
		fm(ref, s.fieldName, map[string]any{"type": "string", "custom": TextFieldType, "customId": n})
	}
	for _, e := range s.modelFieldMeta(base, iss.Proj, iss.cur.TypeID, map[string]bool{}, true) {
		delete(e, "fieldId")
		delete(e, "hasDefaultValue")
		delete(e, "defaultValue")
		fields[e["key"].(string)] = e
	}
	writeJSON(w, http.StatusOK, map[string]any{"fields": fields})
}

// setModelField validates a model field's value into pw.model (nil =
// clear) and returns Jira's message when it is invalid.
func (s *Server) setModelField(id string, raw json.RawMessage, pw *plannedWrite, create bool) string {
	if pw.proj != nil && pw.typeID != "" && !s.onScreen(pw.proj, pw.typeID, id, !create) {
		return fmt.Sprintf(msgCannotSet, id)
	}
	if pw.model == nil {
		pw.model = map[string][]string{}
	}
	vals, msg := s.modelValue(id, raw, pw.proj)
	if msg == "" {
		pw.model[id] = vals
	}
	return msg
}

// refs decodes a list of {"id"} / {"name"} (or {"value"}) objects.
func refs(raw json.RawMessage) ([]objRef, []string, bool) {
	var list []struct {
		objRef
		Value string `json:"value"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, false
	}
	out := make([]objRef, len(list))
	vals := make([]string, len(list))
	for i, l := range list {
		out[i], vals[i] = l.objRef, l.Value
	}
	return out, vals, true
}

// modelValue reads one model field's value as stored: ids for priority,
// components, versions and options, account ids for users, the text of
// text, number and date values, the labels.
func (s *Server) modelValue(id string, raw json.RawMessage, p *project) ([]string, string) {
	if isNull(raw) {
		return nil, ""
	}
	m := s.fields
	switch id {
	case "priority":
		ref, ok := decodeRef(raw)
		for _, pr := range m.priorities {
			if ok && ((ref.ID != "" && ref.ID == pr.ID) || (ref.ID == "" && ref.Name != "" && strings.EqualFold(ref.Name, pr.Name))) {
				return []string{pr.ID}, ""
			}
		}
		return nil, "Specify a valid 'id' or 'name' for Priority"
	case "assignee":
		return s.userValue(raw, p, "assignee")
	case "duedate":
		return dateValue(raw)
	case "components":
		return listByRef(raw, m.components[p], func(c idName) idName { return c }, "Component")
	case "fixVersions":
		vals, msg := listByRef(raw, m.versions[p], func(v version) idName { return v.idName }, "Version")
		for _, v := range m.versions[p] {
			if msg == "" && v.Archived && slices.Contains(vals, v.ID) {
				msg = fmt.Sprintf("Version '%s' is archived and cannot be set.", v.Name)
			}
		}
		return vals, msg
	}
	cf := s.customByID(id)
	switch cf.Type {
	case FieldText, fieldEpicName:
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, "Operation value must be a string"
		}
		if utf8.RuneCountInString(v) > maxTextField {
			return nil, "Text is too long, please enter less than 255 characters."
		}
		if v == "" {
			return nil, ""
		}
		return []string{v}, ""
	case FieldNumber:
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, fmt.Sprintf("Operation value must be a number. '%s' is invalid.", strings.Trim(string(raw), `"`))
		}
		return []string{strconv.FormatFloat(n, 'f', -1, 64)}, ""
	case FieldDate:
		return dateValue(raw)
	case FieldSelect:
		ref, ok := decodeRef(raw)
		var v struct {
			Value string `json:"value"`
		}
		_ = json.Unmarshal(raw, &v)
		for _, o := range cf.options {
			if ok && ((ref.ID != "" && ref.ID == o.ID) || (ref.ID == "" && v.Value == o.Value)) {
				return []string{o.ID}, ""
			}
		}
		if ref.ID != "" {
			return nil, fmt.Sprintf("Option id '%s' is not valid", ref.ID)
		}
		return nil, fmt.Sprintf("Option value '%s' is not valid", v.Value)
	case FieldMultiSelect:
		rs, values, ok := refs(raw)
		if !ok {
			return nil, "Operation value must be an array of options"
		}
		var out []string
		for i, r := range rs {
			j := slices.IndexFunc(cf.options, func(o option) bool {
				return (r.ID != "" && r.ID == o.ID) || (r.ID == "" && values[i] == o.Value)
			})
			if j < 0 {
				if r.ID != "" {
					return nil, fmt.Sprintf("Option id '%s' is not valid", r.ID)
				}
				return nil, fmt.Sprintf("Option value '%s' is not valid", values[i])
			}
			if !slices.Contains(out, cf.options[j].ID) {
				out = append(out, cf.options[j].ID)
			}
		}
		return out, ""
	case FieldUser:
		return s.userValue(raw, nil, cf.ID)
	case FieldLabels:
		var labels []string
		if err := json.Unmarshal(raw, &labels); err != nil {
			return nil, "Operation value must be an array of strings"
		}
		for _, l := range labels {
			if l == "" || strings.ContainsAny(l, " \t\r\n") {
				return nil, fmt.Sprintf("The label '%s' contains spaces which is invalid.", l)
			}
		}
		return labels, ""
	}
	return nil, fmt.Sprintf(msgCannotSet, id)
}

// userValue reads {"accountId": …}; with p, the user must be assignable
// there.
func (s *Server) userValue(raw json.RawMessage, p *project, field string) ([]string, string) {
	var ref struct {
		AccountID string `json:"accountId"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil || ref.AccountID == "" {
		return nil, fmt.Sprintf("Specify a valid value for %s: an object with an accountId.", field)
	}
	u := s.userByAccount(ref.AccountID)
	switch {
	case u == nil:
		return nil, fmt.Sprintf("User '%s' does not exist.", ref.AccountID)
	case p != nil && !u.assignableIn(p):
		return nil, fmt.Sprintf("User '%s' cannot be assigned issues.", u.DisplayName)
	}
	return []string{u.AccountID}, ""
}

func dateValue(raw json.RawMessage) ([]string, string) {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, "Error parsing date string: " + strings.Trim(string(raw), `"`)
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return nil, "Error parsing date string: " + v
	}
	return []string{v}, ""
}

// listByRef resolves [{"id"}|{"name"}] against a project's table.
func listByRef[T any](raw json.RawMessage, table []T, key func(T) idName, what string) ([]string, string) {
	rs, _, ok := refs(raw)
	if !ok {
		return nil, fmt.Sprintf("Operation value must be an array of %ss", strings.ToLower(what))
	}
	var out []string
	for _, r := range rs {
		j := slices.IndexFunc(table, func(t T) bool {
			k := key(t)
			return (r.ID != "" && r.ID == k.ID) || (r.ID == "" && r.Name != "" && strings.EqualFold(r.Name, k.Name))
		})
		if j < 0 {
			if r.ID != "" {
				return nil, fmt.Sprintf("%s with id '%s' does not exist.", what, r.ID)
			}
			return nil, fmt.Sprintf("%s name '%s' is not valid", what, r.Name)
		}
		if id := key(table[j]).ID; !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, ""
}

// defaultModelFields sets what Jira sets on a new issue: the default
// priority when none was given and priority is on the screen.
func (s *Server) defaultModelFields(pw *plannedWrite, st *issueState) {
	if _, given := pw.model["priority"]; !given && s.onScreen(pw.proj, pw.typeID, "priority", false) && len(s.fields.priorities) > 0 {
		st.Model["priority"] = []string{s.fields.priorities[min(2, len(s.fields.priorities)-1)].ID}
	}
}

// renderModelFields adds the model fields of st to an issue's fields.
func (s *Server) renderModelFields(base string, iss *issue, st *issueState, fs fieldSel, f map[string]any) {
	m := s.fields
	for _, bf := range builtinModelFields {
		if fs.wants(bf.id, true) {
			f[bf.id] = s.renderModelValue(base, iss.Proj, bf.id, st.Model[bf.id])
		}
	}
	for _, cf := range m.custom {
		if fs.wants(cf.ID, true) {
			f[cf.ID] = s.renderModelValue(base, iss.Proj, cf.ID, st.Model[cf.ID])
		}
	}
}

func (s *Server) renderModelValue(base string, p *project, id string, vals []string) any {
	m := s.fields
	find := func(table []idName, v string) idName {
		for _, t := range table {
			if t.ID == v {
				return t
			}
		}
		return idName{v, v}
	}
	user := func() any {
		if len(vals) == 0 {
			return nil
		}
		if u := s.userByAccount(vals[0]); u != nil {
			return s.modelUserJSON(base, *u)
		}
		return nil
	}
	switch id {
	case "priority":
		if len(vals) == 0 {
			return nil
		}
		return s.priorityJSON(base, find(m.priorities, vals[0]))
	case "assignee":
		return user()
	case "duedate":
		if len(vals) == 0 {
			return nil
		}
		return vals[0]
	case "components":
		out := []any{}
		for _, v := range vals {
			out = append(out, componentJSON(base, find(m.components[p], v)))
		}
		return out
	case "fixVersions":
		out := []any{}
		for _, v := range vals {
			for _, ver := range m.versions[p] {
				if ver.ID == v {
					out = append(out, versionJSON(base, p, ver))
				}
			}
		}
		return out
	}
	cf := s.customByID(id)
	if len(vals) == 0 {
		return nil // Jira returns null for an empty custom field, a multi-value one too
	}
	switch cf.Type {
	case FieldNumber:
		n, _ := strconv.ParseFloat(vals[0], 64)
		return n
	case FieldSelect, FieldMultiSelect:
		out := []any{}
		for _, v := range vals {
			for _, o := range cf.options {
				if o.ID == v {
					out = append(out, optionJSON(base, cf, o))
				}
			}
		}
		if cf.Type == FieldSelect {
			if len(out) == 0 {
				return nil
			}
			return out[0]
		}
		return out
	case FieldUser:
		return user()
	case FieldLabels:
		return vals
	}
	return vals[0]
}

// modelSnapshot is the admin view of an issue's model fields: names for
// priorities, components, versions and options, account ids for users.
func (s *Server) modelSnapshot(iss *issue) map[string][]string {
	out := map[string][]string{}
	for id, vals := range iss.cur.Model {
		if len(vals) == 0 {
			continue
		}
		var names []string
		for _, v := range vals {
			names = append(names, s.valueName(iss.Proj, id, v))
		}
		out[id] = names
	}
	return out
}

func (s *Server) valueName(p *project, id, v string) string {
	m := s.fields
	table := map[string][]idName{"priority": m.priorities, "components": m.components[p]}[id]
	if id == "fixVersions" {
		for _, ver := range m.versions[p] {
			table = append(table, ver.idName)
		}
	}
	if cf := s.customByID(id); cf != nil {
		for _, o := range cf.options {
			table = append(table, idName{o.ID, o.Value})
		}
	}
	for _, t := range table {
		if t.ID == v {
			return t.Name
		}
	}
	return v
}

// personFields applies field values a person sets in Jira's UI (the same
// checks as an edit, but no screen check: the value must only be valid).
func (s *Server) personFields(iss *issue, st *issueState, fields map[string]json.RawMessage) error {
	for id, raw := range fields {
		fid := s.resolveFieldName(id)
		if !s.isModelField(fid) {
			return fmt.Errorf("field %q is not a field the person can set here (priority, assignee, duedate, components, fixVersions or a custom field)", id)
		}
		vals, msg := s.modelValue(fid, raw, iss.Proj)
		if msg != "" {
			return fmt.Errorf("%s: %s", id, msg)
		}
		st.setModel(fid, vals)
	}
	return nil
}

// setModel sets (or, with no values, clears) a model field of st.
func (st *issueState) setModel(id string, vals []string) {
	if st.Model == nil {
		st.Model = map[string][]string{}
	}
	if len(vals) == 0 {
		delete(st.Model, id)
	} else {
		st.Model[id] = vals
	}
}
