package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

// Custom field types DevWorkWire understands.
const (
	textFieldType     = "com.atlassian.jira.plugin.system.customfieldtypes:textfield"
	textAreaFieldType = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"
)

// meta is what discovery learnt about the site and project.
type meta struct {
	// refIDs are the reference fields (customfield_10050): one shared by
	// every issue type, or, in a team-managed project, one per issue type
	// (all of one name). refByType says which type has which (nil when
	// one field serves them all); refClauses are their JQL names
	// (cf[10050]), in refIDs' order.
	refIDs      []string
	refByType   map[string]string
	refName     string
	refClauses  []string
	acField     string // "" → acceptance criteria in the description
	acADF       bool   // the AC field is a rich-text field (ADF in API v3)
	acShort     bool   // the AC field is a short-text field: at most ShortTextLimit characters (size.go)
	epicTypeID  string
	storyTypeID string
	// epicName is the Epic Name field (gh-epic-label) of an older
	// company-managed site, "" when the site has none: a create of an
	// epic fills it from the summary (fields.go).
	epicName  string
	typeNames []string      // the two types' names as Jira spells them, and the sub-task type's
	typeIDs   []string      // their ids, in the same order: JQL names types by id (names are translated on localised sites)
	structure structureMeta // sub-task type, Sprint and Rank fields (structure.go)
	fieldsOf                // the managed fields (fields.go)
	dcMeta                  // what a Data Center site needs (datacenter.go)
	// createPending is set while the create fields of both issue types
	// have not been checked yet (guarded by Provider.metaMu). The check
	// costs a request per type and matters only for creates, so a Provider
	// that only reads and updates (an unchanged re-import) skips it.
	createPending bool
	// createMeta keeps each issue type's create fields once read.
	createMeta map[string][]createMetaField
}

type fieldDetails struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Custom bool   `json:"custom"`
	// Searchable is false for a field without a search template: JQL
	// cannot name it (nil: not said).
	Searchable *bool `json:"searchable"`
	// Scope is set for a team-managed project's field (type PROJECT).
	Scope *struct {
		Type string `json:"type"`
	} `json:"scope"`
	Schema struct {
		Type   string `json:"type"`
		Custom string `json:"custom"`
	} `json:"schema"`
}

type createMetaTypes struct {
	IssueTypes []struct {
		ID             string `json:"id"`
		Name           string `json:"name"`
		Subtask        bool   `json:"subtask"`
		HierarchyLevel int    `json:"hierarchyLevel"`
	} `json:"issueTypes"`
	StartAt    int `json:"startAt"`
	MaxResults int `json:"maxResults"`
	Total      int `json:"total"`
}

type createMetaFields struct {
	Fields     []createMetaField `json:"fields"`
	StartAt    int               `json:"startAt"`
	MaxResults int               `json:"maxResults"`
	Total      int               `json:"total"`
}

// ensureMeta discovers fields and issue types once per Provider. A failed
// discovery is not cached.
func (p *Provider) ensureMeta(ctx context.Context) (*meta, error) {
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	if p.meta != nil {
		return p.meta, nil
	}
	m, err := p.discoverSite(ctx)
	if err != nil {
		return nil, err
	}
	p.meta = m
	p.logFor(ctx).Info("jira discovery", "reference_field", strings.Join(m.refIDs, ","), "ac_field", m.acField, "epic_type", m.epicTypeID, "story_type", m.storyTypeID)
	return m, nil
}

// discover learns everything, the create fields of both issue types
// included (Check).
func (p *Provider) discover(ctx context.Context) (*meta, error) {
	m, err := p.discoverSite(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.checkCreatable(ctx, m); err != nil {
		return nil, err
	}
	m.createPending = false
	return m, nil
}

// ensureCreatable checks the create fields of both issue types once per
// discovery: before the first create, and when a lookup finds a reference
// missing (so a preview that will plan a create reports a create screen
// DevWorkWire cannot fill before anything is committed).
func (p *Provider) ensureCreatable(ctx context.Context, m *meta) error {
	return p.checkOnce(&m.createPending, func() error { return p.checkCreatable(ctx, m) })
}

// creatableMeta is the discovered metadata with the create fields of both
// issue types checked (ensureMeta, then ensureCreatable): what a create,
// or a preview that plans one, needs (m is not to be used with an error).
func (p *Provider) creatableMeta(ctx context.Context) (m *meta, err error) {
	if m, err = p.ensureMeta(ctx); err != nil {
		return nil, err
	}
	return m, p.ensureCreatable(ctx, m)
}

// checkOnce runs check under metaMu while *pending is set, and clears it
// once check passes (a failed check runs again next time).
func (p *Provider) checkOnce(pending *bool, check func() error) error {
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	if !*pending {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	*pending = false
	return nil
}

func (p *Provider) checkCreatable(ctx context.Context, m *meta) error {
	for _, t := range []struct{ id, name string }{{m.epicTypeID, p.cfg.EpicType}, {m.storyTypeID, p.cfg.StoryType}} {
		if err := p.checkCreateFields(ctx, m, t.id, t.name); err != nil {
			return err
		}
	}
	return nil
}

// discoverSite finds the reference and acceptance-criteria fields and the
// issue types.
func (p *Provider) discoverSite(ctx context.Context) (*meta, error) {
	var fields []fieldDetails
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/field", endpoint: "GET /rest/api/3/field", action: "list the Jira fields"}, &fields); err != nil {
		return nil, p.notCloud(ctx, err)
	}
	m := &meta{createPending: true}
	refs, err := p.findRefField(fields)
	if err != nil {
		return nil, err
	}
	m.refName = refs[0].Name
	for _, f := range fields {
		if f.Schema.Custom == epicNameFieldType {
			m.epicName = f.ID
		}
	}
	if err := p.mapFields(m, fields); err != nil {
		return nil, err
	}
	p.learnDeployment(m, fields)
	if p.cfg.AcceptanceCriteriaField != "" {
		ac, err := findField(fields, p.cfg.AcceptanceCriteriaField)
		if err != nil {
			return nil, err
		}
		switch {
		case ac.Schema.Custom == textAreaFieldType:
			m.acField, m.acADF = ac.ID, true
		case ac.Schema.Custom == textFieldType || ac.Schema.Type == "string":
			m.acField, m.acShort = ac.ID, ac.Schema.Custom == textFieldType
		default:
			return nil, field("jira.acceptance_criteria_field", core.CodeConfigInvalid, fmt.Sprintf("The acceptance-criteria field %q (%s) is not a text field. Use a paragraph (multi-line text) custom field, or leave the setting empty to keep acceptance criteria in the description.", ac.Name, ac.ID))
		}
	}

	types, err := p.issueTypes(ctx)
	if err != nil {
		return nil, err
	}
	for _, want := range []struct {
		name string
		dst  *string
		cfg  string
	}{{p.cfg.EpicType, &m.epicTypeID, "jira.issue_types.epic"}, {p.cfg.StoryType, &m.storyTypeID, "jira.issue_types.story"}} {
		for _, t := range types.IssueTypes {
			if strings.EqualFold(t.Name, want.name) {
				*want.dst = t.ID
				m.typeNames, m.typeIDs = append(m.typeNames, t.Name), append(m.typeIDs, t.ID)
				break
			}
		}
		if *want.dst == "" && want.dst == &m.epicTypeID && strings.EqualFold(want.name, DefaultEpicType) {
			// A localised site spells "Epic" in its language ("Epos",
			// "Épica"): the epic type is the one level above stories.
			for _, t := range types.IssueTypes {
				if t.HierarchyLevel == 1 && !t.Subtask {
					*want.dst = t.ID
					m.typeNames, m.typeIDs = append(m.typeNames, t.Name), append(m.typeIDs, t.ID)
					break
				}
			}
		}
		if *want.dst == "" {
			names := make([]string, 0, len(types.IssueTypes))
			for _, t := range types.IssueTypes {
				names = append(names, t.Name)
			}
			return nil, field(want.cfg, core.CodeConfigInvalid, fmt.Sprintf("Project %s has no issue type %q. Available types: %s. Set %s to one of them, or add the type to the project's issue type scheme in Jira.", p.cfg.Project, want.name, strings.Join(names, ", "), want.cfg))
		}
	}
	p.discoverStructure(m, fields, types)
	if err := p.placeRefFields(ctx, m, refs); err != nil {
		return nil, err
	}
	for _, id := range m.refIDs {
		ref := refs[slices.IndexFunc(refs, func(f fieldDetails) bool { return f.ID == id })]
		if ref.Searchable != nil && !*ref.Searchable {
			return nil, refMissing(fmt.Sprintf("The reference field %q (%s) is not searchable, so DevWorkWire cannot find the work items it made (every lookup would fail). In Jira: Settings (cog) → Work items (Issues) → Custom fields → %q → Edit details → Search template: \"Free text searcher\", then run `dwire doctor` again.", ref.Name, ref.ID, ref.Name))
		}
		m.refClauses = append(m.refClauses, jql.CustomField(id))
	}
	return m, nil
}

// placeRefFields settles which reference field each issue type uses. One
// candidate serves every type. Several of one name, some of them a
// project's own (a team-managed project's fields belong to it and are
// added per issue type): the create metadata of each of the project's
// types says which one is on its screen. These are the requests the
// create check makes anyway (kept, so that check then costs nothing).
func (p *Provider) placeRefFields(ctx context.Context, m *meta, refs []fieldDetails) error {
	if len(refs) == 1 {
		m.refIDs = []string{refs[0].ID}
		return nil
	}
	m.refByType = map[string]string{}
	for i, tid := range m.typeIDs {
		fs, err := p.createMetaFields(ctx, m, tid, m.typeNames[i])
		if err != nil {
			return err
		}
		var on []string
		for _, f := range fs {
			if slices.ContainsFunc(refs, func(r fieldDetails) bool { return r.ID == f.id() }) {
				on = append(on, f.id())
			}
		}
		switch {
		case len(on) > 1:
			return field("jira.reference_field", core.CodeConfigInvalid, fmt.Sprintf("Issue type %s in project %s has %d single-line text fields named %q (%s). Keep one of them on that issue type (Project settings → Issue types → %s), or set jira.reference_field to the id of the one DevWorkWire should use.", m.typeNames[i], p.cfg.Project, len(on), m.refName, strings.Join(on, ", "), m.typeNames[i]))
		case len(on) == 1:
			m.refByType[tid] = on[0]
			if !slices.Contains(m.refIDs, on[0]) {
				m.refIDs = append(m.refIDs, on[0])
			}
		}
	}
	if len(m.refIDs) == 0 {
		return p.refFieldMissing(fmt.Sprintf("Jira has %d fields named %q, but none of them is on the create screen of project %s's issue types.", len(refs), m.refName, p.cfg.Project))
	}
	return nil
}

// refFieldFor is the reference field of issues of the type ("" when a
// team-managed project's type has none).
func (m *meta) refFieldFor(typeID string) string {
	if m.refByType == nil {
		return m.refIDs[0]
	}
	return m.refByType[typeID]
}

// refFieldOf is the reference field of a work item of the kind.
func (m *meta) refFieldOf(k core.Kind) string {
	switch k {
	case core.KindEpic:
		return m.refFieldFor(m.epicTypeID)
	case core.KindSubtask:
		return m.refFieldFor(m.structure.subtaskTypeID)
	}
	return m.refFieldFor(m.storyTypeID)
}

// refValueIn is the reference value an issue's fields hold, in whichever
// reference field its type has.
func (m *meta) refValueIn(fields map[string]json.RawMessage) string {
	for _, id := range m.refIDs {
		var v string
		if json.Unmarshal(fields[id], &v) == nil && v != "" {
			return v
		}
	}
	return ""
}

// findRefField finds the reference field: the configured id, or the
// single-line text fields of the configured name — one, or several when
// some belong to a project (a team-managed project has one per issue
// type; placeRefFields settles which type has which).
func (p *Provider) findRefField(fields []fieldDetails) ([]fieldDetails, error) {
	want := p.cfg.ReferenceField
	for _, f := range fields {
		if f.ID == want {
			if f.Schema.Custom != textFieldType {
				return nil, p.refFieldMissing(fmt.Sprintf("The reference field %s (%q) is not a single-line text field (its type is %s).", f.ID, f.Name, orUnknown(f.Schema.Custom)))
			}
			return []fieldDetails{f}, nil
		}
	}
	var named []fieldDetails
	for _, f := range fields {
		if strings.EqualFold(strings.TrimSpace(f.Name), strings.TrimSpace(want)) {
			named = append(named, f)
		}
	}
	var text []fieldDetails
	for _, f := range named {
		if f.Schema.Custom == textFieldType {
			text = append(text, f)
		}
	}
	switch {
	case len(text) == 1 || len(text) > 1 && slices.ContainsFunc(text, fieldDetails.projects):
		return text, nil
	case len(text) > 1:
		ids := make([]string, len(text))
		for i, f := range text {
			ids[i] = f.ID
		}
		return nil, field("jira.reference_field", core.CodeConfigInvalid, fmt.Sprintf("Jira has %d single-line text fields named %q (%s). Set jira.reference_field to the id of the one DevWorkWire should use.", len(text), want, strings.Join(ids, ", ")))
	case len(named) > 0:
		return nil, p.refFieldMissing(fmt.Sprintf("Jira has a field named %q, but it is not a single-line text field (its type is %s).", want, orUnknown(named[0].Schema.Custom)))
	}
	return nil, p.refFieldMissing(fmt.Sprintf("Jira has no field %q to hold DevWorkWire references.", want))
}

// projects reports whether the field belongs to one project (a
// team-managed project's own field).
func (f fieldDetails) projects() bool { return f.Scope != nil && f.Scope.Type == "PROJECT" }

// refFieldMissing is REFERENCE_FIELD_MISSING: what is wrong, then how to
// set the field up in either project style.
func (p *Provider) refFieldMissing(what string) error {
	return refMissing(what + " " + p.refFieldHowTo())
}

// refFieldHowTo says how to set up the reference field in a
// company-managed and in a team-managed project.
func (p *Provider) refFieldHowTo() string {
	// The field to create carries the configured name (an id cannot be
	// chosen, so then the default name).
	name := p.cfg.ReferenceField
	if name == "" || strings.HasPrefix(name, "customfield_") {
		name = DefaultReferenceField
	}
	return fmt.Sprintf("Create it in Jira. A company-managed project: Settings (cog) → Work items (Issues) → Custom fields → Create custom field → \"Short text (plain text only)\", name it %q, and add it to the create and edit screens of project %s's Epic, Story and Sub-task types. A team-managed project: Project settings → Issue types → Epic → drag a \"Short text\" field onto it and name it %q; do the same for Story and Subtask (one field of that name per issue type, or the Epic's field reused). Or set jira.reference_field to the id (customfield_NNNNN) of an existing short-text field.", name, p.cfg.Project, name)
}

func refMissing(msg string) *core.Error {
	return core.Errorf(core.CodeReferenceFieldMissing, "%s", msg).WithDetails(core.Detail{Field: "jira.reference_field", Message: msg})
}

func orUnknown(s string) string {
	if s == "" {
		return "a system field"
	}
	return s
}

func findField(fields []fieldDetails, want string) (fieldDetails, error) {
	for _, f := range fields {
		if f.ID == want {
			return f, nil
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.Name, want) {
			return f, nil
		}
	}
	return fieldDetails{}, field("jira.acceptance_criteria_field", core.CodeConfigInvalid, fmt.Sprintf("Jira has no field %q for acceptance criteria. Create a paragraph (multi-line text) custom field of that name, set the id of an existing one, or leave the setting empty to keep acceptance criteria in the description.", want))
}

// issueTypes lists the project's issue types from createmeta, all pages.
func (p *Provider) issueTypes(ctx context.Context) (createMetaTypes, error) {
	var all createMetaTypes
	path := "/rest/api/3/issue/createmeta/" + url.PathEscape(p.cfg.Project) + "/issuetypes"
	for start, pages := 0, 0; pages < 50; pages++ {
		var page createMetaTypes
		q := url.Values{"startAt": {strconv.Itoa(start)}, "maxResults": {"50"}}
		_, err := p.do(ctx, call{method: "GET", path: path, query: q, endpoint: "GET /rest/api/3/issue/createmeta/{project}/issuetypes", action: "read the issue types of project " + p.cfg.Project}, &page)
		if err != nil {
			if core.ErrorCode(err) == core.CodeConfigInvalid {
				return all, field("jira.project", core.CodeConfigInvalid, fmt.Sprintf("Project %s was not found at %s, or your account cannot create issues in it. Check the project key and your permissions.", p.cfg.Project, p.site))
			}
			return all, err
		}
		all.IssueTypes = append(all.IssueTypes, page.IssueTypes...)
		start += len(page.IssueTypes)
		if len(page.IssueTypes) == 0 || start >= page.Total {
			break
		}
	}
	return all, nil
}

// createMetaField is one field of an issue type's create metadata.
type createMetaField struct {
	FieldID         string            `json:"fieldId"`
	Key             string            `json:"key"`
	Name            string            `json:"name"`
	Required        bool              `json:"required"`
	HasDefaultValue bool              `json:"hasDefaultValue"`
	AllowedValues   []json.RawMessage `json:"allowedValues"`
}

func (f createMetaField) id() string { return cmpOr(f.FieldID, f.Key) }

// createMetaFields reads the create fields of one issue type, all pages,
// once per discovery (kept in m.createMeta).
func (p *Provider) createMetaFields(ctx context.Context, m *meta, typeID, typeName string) ([]createMetaField, error) {
	if fs, ok := m.createMeta[typeID]; ok {
		return fs, nil
	}
	path := "/rest/api/3/issue/createmeta/" + url.PathEscape(p.cfg.Project) + "/issuetypes/" + url.PathEscape(typeID)
	var all []createMetaField
	for start, pages := 0, 0; pages < 50; pages++ {
		var page createMetaFields
		q := url.Values{"startAt": {strconv.Itoa(start)}, "maxResults": {"200"}}
		if _, err := p.do(ctx, call{method: "GET", path: path, query: q, endpoint: "GET /rest/api/3/issue/createmeta/{project}/issuetypes/{id}", action: fmt.Sprintf("read the fields of issue type %s in project %s", typeName, p.cfg.Project)}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Fields...)
		start += len(page.Fields)
		if len(page.Fields) == 0 || start >= page.Total {
			break
		}
	}
	if m.createMeta == nil {
		m.createMeta = map[string][]createMetaField{}
	}
	m.createMeta[typeID] = all
	return all, nil
}

// checkCreateFields reads the create fields of one issue type: the
// reference field must be settable, and no field DevWorkWire does not fill
// may be required without a default.
func (p *Provider) checkCreateFields(ctx context.Context, m *meta, typeID, typeName string) error {
	ref := m.refFieldFor(typeID)
	fills := map[string]bool{"summary": true, "issuetype": true, "project": true, "reporter": true, "description": true, "parent": true}
	if ref != "" {
		fills[ref] = true
	}
	if m.acField != "" {
		fills[m.acField] = true
	}
	if m.epicName != "" && typeID == m.epicTypeID {
		fills[m.epicName] = true // filled from the summary (fields.go)
	}
	fs, err := p.createMetaFields(ctx, m, typeID, typeName)
	if err != nil {
		return err
	}
	if err := p.checkCreateScreen(m, fs, typeID, typeName, ref, fills); err != nil {
		delete(m.createMeta, typeID) // read again next time: the person may fix the screen meanwhile
		return err
	}
	return nil
}

// checkCreateScreen checks one issue type's create fields (see
// checkCreateFields) and records them.
func (p *Provider) checkCreateScreen(m *meta, fs []createMetaField, typeID, typeName, ref string, fills map[string]bool) error {
	seenRef := false
	var missing []string
	for _, f := range fs {
		id := f.id()
		if id == ref {
			seenRef = true
		}
		m.recordCreateField(typeID, id, f.Required && !f.HasDefaultValue, f.AllowedValues)
		if f.Required && !f.HasDefaultValue && !fills[id] && m.byID[id] == nil {
			missing = append(missing, fmt.Sprintf("%s (%s)", f.Name, id))
		}
	}
	switch {
	case ref == "":
		return refMissing(fmt.Sprintf("Issue type %s in project %s has no field %q, so DevWorkWire cannot record which work item it made. In Jira: Project settings → Issue types → %s → add a \"Short text\" field named %q (or the one the project's other issue types have), then run `dwire doctor` again.", typeName, p.cfg.Project, m.refName, typeName, m.refName))
	case !seenRef:
		return refMissing(fmt.Sprintf("The reference field %q (%s) exists but cannot be set on %s issues in project %s. In Jira, add the field to the create and edit screens of that issue type (Project settings → Issue types → %s → Fields).", m.refName, ref, typeName, p.cfg.Project, typeName))
	}
	if len(missing) > 0 {
		return core.Errorf(core.CodeConfigInvalid, "Issue type %s in project %s requires fields DevWorkWire does not fill: %s. Make them optional or give them a default value in the project's field configuration, or declare them under fields: in the configuration and set them in the document (or as a default).", typeName, p.cfg.Project, strings.Join(missing, ", "))
	}
	return nil
}

// ReferenceFields says which reference field each issue type uses, once
// discovery has run (Check): "customfield_10050", or in a team-managed
// project "one per issue type: Epic customfield_10300, Story
// customfield_10301, …" ("" before discovery).
func (p *Provider) ReferenceFields() string {
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	m := p.meta
	if m == nil {
		return ""
	}
	if m.refByType == nil {
		return m.refIDs[0]
	}
	var each []string
	for i, tid := range m.typeIDs {
		if f := m.refByType[tid]; f != "" {
			each = append(each, m.typeNames[i]+" "+f)
		}
	}
	return "one per issue type: " + strings.Join(each, ", ")
}
