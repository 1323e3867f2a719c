package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
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
	refField    string // customfield_10050
	refName     string
	refClause   string // cf[10050]
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
	// createPending is set while the create fields of both issue types
	// have not been checked yet (guarded by Provider.metaMu). The check
	// costs a request per type and matters only for creates, so a Provider
	// that only reads and updates (an unchanged re-import) skips it.
	createPending bool
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
	Fields []struct {
		FieldID         string            `json:"fieldId"`
		Key             string            `json:"key"`
		Name            string            `json:"name"`
		Required        bool              `json:"required"`
		HasDefaultValue bool              `json:"hasDefaultValue"`
		AllowedValues   []json.RawMessage `json:"allowedValues"`
	} `json:"fields"`
	StartAt    int `json:"startAt"`
	MaxResults int `json:"maxResults"`
	Total      int `json:"total"`
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
	p.logFor(ctx).Info("jira discovery", "reference_field", m.refField, "ac_field", m.acField, "epic_type", m.epicTypeID, "story_type", m.storyTypeID)
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
	ref, err := p.findRefField(fields)
	if err != nil {
		return nil, err
	}
	if ref.Searchable != nil && !*ref.Searchable {
		return nil, refMissing(fmt.Sprintf("The reference field %q (%s) is not searchable, so DevWorkWire cannot find the work items it made (every lookup would fail). In Jira: Settings (cog) → Work items (Issues) → Custom fields → %q → Edit details → Search template: \"Free text searcher\", then run `dwire doctor` again.", ref.Name, ref.ID, ref.Name))
	}
	m.refField, m.refName, m.refClause = ref.ID, ref.Name, jql.CustomField(ref.ID)
	for _, f := range fields {
		if f.Schema.Custom == epicNameFieldType {
			m.epicName = f.ID
		}
	}
	if err := p.mapFields(m, fields); err != nil {
		return nil, err
	}
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
	return m, nil
}

func (p *Provider) findRefField(fields []fieldDetails) (fieldDetails, error) {
	want := p.cfg.ReferenceField
	// The field to create carries the configured name (an id cannot be
	// chosen, so then the default name).
	name := want
	if name == "" || strings.HasPrefix(name, "customfield_") {
		name = DefaultReferenceField
	}
	howTo := fmt.Sprintf("Create it in Jira. A company-managed project: Settings (cog) → Work items (Issues) → Custom fields → Create custom field → \"Short text (plain text only)\", name it %q, and add it to the create and edit screens of project %s's Epic, Story and Sub-task types. A team-managed project: Project settings → Issue types → Epic → add a \"Short text\" field named %q, then add that same field to Story and Subtask from the fields of the project's other issue types. Or set jira.reference_field to the id (customfield_NNNNN) of an existing short-text field.", name, p.cfg.Project, name)
	for _, f := range fields {
		if f.ID == want {
			if f.Schema.Custom != textFieldType {
				return f, refMissing(fmt.Sprintf("The reference field %s (%q) is not a single-line text field (its type is %s). %s", f.ID, f.Name, orUnknown(f.Schema.Custom), howTo))
			}
			return f, nil
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
	case len(text) == 1:
		return text[0], nil
	case len(text) > 1:
		ids := make([]string, len(text))
		for i, f := range text {
			ids[i] = f.ID
		}
		if text[0].Scope != nil && text[0].Scope.Type == "PROJECT" {
			// A team-managed project where each issue type got its own
			// field of that name.
			return fieldDetails{}, field("jira.reference_field", core.CodeConfigInvalid, fmt.Sprintf("Jira has %d single-line text fields named %q (%s), as a team-managed project has when each issue type got a new field. DevWorkWire needs one field on every issue type it writes: in Project settings → Issue types, keep the Epic's field and, on Story and Subtask, replace their own field by that same field (added from the fields of the project's other issue types); then run `dwire doctor` again.", len(text), want, strings.Join(ids, ", ")))
		}
		return fieldDetails{}, field("jira.reference_field", core.CodeConfigInvalid, fmt.Sprintf("Jira has %d single-line text fields named %q (%s). Set jira.reference_field to the id of the one DevWorkWire should use.", len(text), want, strings.Join(ids, ", ")))
	case len(named) > 0:
		return fieldDetails{}, refMissing(fmt.Sprintf("Jira has a field named %q, but it is not a single-line text field (its type is %s). %s", want, orUnknown(named[0].Schema.Custom), howTo))
	}
	return fieldDetails{}, refMissing(fmt.Sprintf("Jira has no field %q to hold DevWorkWire references. %s", want, howTo))
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

// checkCreateFields reads the create fields of one issue type: the
// reference field must be settable, and no field DevWorkWire does not fill
// may be required without a default.
func (p *Provider) checkCreateFields(ctx context.Context, m *meta, typeID, typeName string) error {
	path := "/rest/api/3/issue/createmeta/" + url.PathEscape(p.cfg.Project) + "/issuetypes/" + url.PathEscape(typeID)
	fills := map[string]bool{"summary": true, "issuetype": true, "project": true, "reporter": true, "description": true, "parent": true, m.refField: true}
	if m.acField != "" {
		fills[m.acField] = true
	}
	if m.epicName != "" && typeID == m.epicTypeID {
		fills[m.epicName] = true // filled from the summary (fields.go)
	}
	seenRef := false
	var missing []string
	for start, pages := 0, 0; pages < 50; pages++ {
		var page createMetaFields
		q := url.Values{"startAt": {strconv.Itoa(start)}, "maxResults": {"200"}}
		if _, err := p.do(ctx, call{method: "GET", path: path, query: q, endpoint: "GET /rest/api/3/issue/createmeta/{project}/issuetypes/{id}", action: fmt.Sprintf("read the fields of issue type %s in project %s", typeName, p.cfg.Project)}, &page); err != nil {
			return err
		}
		for _, f := range page.Fields {
			id := f.FieldID
			if id == "" {
				id = f.Key
			}
			if id == m.refField {
				seenRef = true
			}
			m.recordCreateField(typeID, id, f.Required && !f.HasDefaultValue, f.AllowedValues)
			if f.Required && !f.HasDefaultValue && !fills[id] && m.byID[id] == nil {
				missing = append(missing, fmt.Sprintf("%s (%s)", f.Name, id))
			}
		}
		start += len(page.Fields)
		if len(page.Fields) == 0 || start >= page.Total {
			break
		}
	}
	if !seenRef {
		return refMissing(fmt.Sprintf("The reference field %q (%s) exists but cannot be set on %s issues in project %s. In Jira, add the field to the create and edit screens of that issue type (Project settings → Issue types → %s → Fields).", m.refName, m.refField, typeName, p.cfg.Project, typeName))
	}
	if len(missing) > 0 {
		return core.Errorf(core.CodeConfigInvalid, "Issue type %s in project %s requires fields DevWorkWire does not fill: %s. Make them optional or give them a default value in the project's field configuration, or declare them under fields: in the configuration and set them in the document (or as a default).", typeName, p.cfg.Project, strings.Join(missing, ", "))
	}
	return nil
}
