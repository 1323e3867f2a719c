package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/hbollon/go-edlib"
)

// This file maps the managed fields (core.FieldValue, keys core.Field*)
// to Jira's: discovery (with the field list discoverSite reads anyway and
// the create metadata checkCreatable reads anyway), checks and resolution
// at preview (ResolveFields), the JSON of create and edit requests, and
// reading them back.

// fieldKind says how a field's values are written and read.
type fieldKind int

const (
	kindLabels   fieldKind = iota // ["a","b"]
	kindPriority                  // {"name"}
	kindUser                      // {"accountId"}
	kindDate                      // "2027-03-01"
	kindNumber                    // 5
	kindNamed                     // [{"name"}] (components, versions)
	kindText                      // "text" (single-line)
	kindSelect                    // {"value"}
	kindMulti                     // [{"value"}]
)

// Jira's schema.custom of the custom field types DevWorkWire writes.
var customKinds = map[string]fieldKind{
	textFieldType: kindText,
	"com.atlassian.jira.plugin.system.customfieldtypes:float":           kindNumber,
	"com.atlassian.jira.plugin.system.customfieldtypes:datepicker":      kindDate,
	"com.atlassian.jira.plugin.system.customfieldtypes:select":          kindSelect,
	"com.atlassian.jira.plugin.system.customfieldtypes:radiobuttons":    kindSelect,
	"com.atlassian.jira.plugin.system.customfieldtypes:multiselect":     kindMulti,
	"com.atlassian.jira.plugin.system.customfieldtypes:multicheckboxes": kindMulti,
	"com.atlassian.jira.plugin.system.customfieldtypes:userpicker":      kindUser,
	"com.atlassian.jira.plugin.system.customfieldtypes:labels":          kindLabels,
}

// The names of the estimation field Jira creates: team-managed projects
// have "Story point estimate", company-managed ones "Story Points".
var estimateNames = []string{"Story point estimate", "Story Points"}

// jfield is the Jira side of a managed field.
type jfield struct {
	key  string // core key: priority, fields.Team …
	id   string // Jira field id: priority, customfield_10070 …
	name string // Jira's name
	kind fieldKind
}

// createField is one field of an issue type's create metadata.
type createField struct {
	required bool
	allowed  []string // allowed names/values (priorities, components, versions, options); nil = any
}

// fieldsOf are the managed-field parts of meta.
type fieldsOf struct {
	byKey  map[string]*jfield
	byID   map[string]*jfield
	create map[string]map[string]createField // issue type id → field id → metadata
}

// mapFields maps the built-in fields, the estimate and the configured
// custom fields to Jira's, from the site's field list.
func (p *Provider) mapFields(m *meta, fields []fieldDetails) error {
	m.fieldsOf = fieldsOf{byKey: map[string]*jfield{}, byID: map[string]*jfield{}, create: map[string]map[string]createField{}}
	add := func(key string, f fieldDetails, kind fieldKind) {
		jf := &jfield{key: key, id: f.ID, name: f.Name, kind: kind}
		m.byKey[key], m.byID[f.ID] = jf, jf
	}
	for _, b := range []struct {
		key, id string
		kind    fieldKind
	}{{core.FieldLabels, "labels", kindLabels}, {core.FieldPriority, "priority", kindPriority}, {core.FieldAssignee, "assignee", kindUser},
		{core.FieldDue, "duedate", kindDate}, {core.FieldComponents, "components", kindNamed}, {core.FieldFixVersions, "fixVersions", kindNamed}} {
		if i := slices.IndexFunc(fields, func(f fieldDetails) bool { return f.ID == b.id }); i >= 0 {
			add(b.key, fields[i], b.kind)
		}
	}
	est, err := estimateField(fields, p.cfg.EstimateField)
	if err != nil {
		return err
	}
	if est != nil {
		add(core.FieldEstimate, *est, kindNumber)
	}
	for _, name := range slices.Sorted(maps.Keys(p.cfg.CustomFields)) {
		want := p.cfg.CustomFields[name]
		setting := "fields." + name
		var found []fieldDetails
		for _, f := range fields {
			if f.ID == want {
				found = []fieldDetails{f}
				break
			}
			if strings.EqualFold(strings.TrimSpace(f.Name), strings.TrimSpace(want)) {
				found = append(found, f)
			}
		}
		switch {
		case len(found) == 0:
			return field(setting, core.CodeConfigInvalid, fmt.Sprintf("Jira has no field %q for the document field %s. Set fields.%s to the id (customfield_NNNNN) or the exact name of an existing custom field.", want, name, name))
		case len(found) > 1:
			ids := make([]string, len(found))
			for i, f := range found {
				ids[i] = f.ID
			}
			return field(setting, core.CodeConfigInvalid, fmt.Sprintf("Jira has %d fields named %q (%s). Set fields.%s to the id of the one documents should write.", len(found), want, strings.Join(ids, ", "), name))
		}
		kind, ok := customKinds[found[0].Schema.Custom]
		if !ok {
			return field(setting, core.CodeConfigInvalid, fmt.Sprintf("The field %q (%s) behind the document field %s has a type DevWorkWire does not write (%s). Use a short-text, number, date, select, multi-select, user-picker or labels field.", found[0].Name, found[0].ID, name, orUnknown(found[0].Schema.Custom)))
		}
		add(core.FieldCustomPrefix+name, found[0], kind)
	}
	ids := make(map[string]string, len(m.byID))
	for id, f := range m.byID {
		ids[id] = f.key
	}
	p.fieldIDs.Store(&ids)
	return nil
}

// estimateField finds the estimation field: the configured one (id or
// name), else "Story point estimate", else "Story Points"; nil when the
// site has none.
func estimateField(fields []fieldDetails, want string) (*fieldDetails, error) {
	isNumber := func(f fieldDetails) bool { return f.Schema.Type == "number" }
	if want != "" {
		for _, f := range fields {
			if f.ID == want || strings.EqualFold(f.Name, want) {
				if !isNumber(f) {
					return nil, field("jira.estimate_field", core.CodeConfigInvalid, fmt.Sprintf("The estimate field %q (%s) is not a number field. Set jira.estimate_field to a number field, or leave it empty to use %q or %q.", f.Name, f.ID, estimateNames[0], estimateNames[1]))
				}
				return &f, nil
			}
		}
		return nil, field("jira.estimate_field", core.CodeConfigInvalid, fmt.Sprintf("Jira has no field %q for estimates. Set jira.estimate_field to the id or name of a number field.", want))
	}
	for _, name := range estimateNames {
		for _, f := range fields {
			if strings.EqualFold(f.Name, name) && isNumber(f) {
				return &f, nil
			}
		}
	}
	return nil, nil
}

// recordCreateField keeps one field of an issue type's create metadata.
func (m *meta) recordCreateField(typeID, id string, required bool, allowed []json.RawMessage) {
	if m.byID[id] == nil {
		return
	}
	if m.create[typeID] == nil {
		m.create[typeID] = map[string]createField{}
	}
	m.create[typeID][id] = screenField(required, allowed)
}

// screenField is a field of a create or edit screen with its allowed
// values' names.
func screenField(required bool, allowed []json.RawMessage) createField {
	cf := createField{required: required}
	for _, raw := range allowed {
		var v struct{ Name, Value string }
		if json.Unmarshal(raw, &v) == nil {
			cf.allowed = append(cf.allowed, cmpOr(v.Name, v.Value))
		}
	}
	return cf
}

// hasKey reports whether m has the key k.
func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// editScreens reads the edit metadata of the items the requests update,
// once per kind (issue type): from the first such item in the requests'
// order, as the representative of its project and issue type — Jira
// derives an issue's edit screen from the project's screen scheme for the
// issue type, so every issue of one type shares it. It returns kind →
// managed field id → metadata. A kind is left out (its updates are checked
// against the create metadata, as before) when its representative's edit
// metadata lists no summary: Jira answers so for an issue its workflow
// status makes read-only, which says nothing of the others. One request
// per kind, never per item.
func (p *Provider) editScreens(ctx context.Context, m *meta, reqs []core.FieldRequest) (map[core.Kind]map[string]createField, error) {
	out := map[core.Kind]map[string]createField{}
	tried := map[core.Kind]bool{}
	for _, r := range reqs {
		if r.Create || r.Key == "" || len(r.Fields) == 0 || tried[r.Kind] {
			continue
		}
		tried[r.Kind] = true
		var em struct {
			Fields map[string]struct {
				Required      bool              `json:"required"`
				AllowedValues []json.RawMessage `json:"allowedValues"`
			} `json:"fields"`
		}
		if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/issue/" + url.PathEscape(r.Key) + "/editmeta", endpoint: "GET /rest/api/3/issue/{key}/editmeta",
			action: fmt.Sprintf("read the edit screen of %s (for the %s issues of project %s)", r.Key, r.Kind, p.cfg.Project)}, &em); err != nil {
			return nil, err
		}
		if _, ok := em.Fields["summary"]; !ok {
			continue
		}
		if ref := m.refFieldOf(r.Kind); ref != "" && !hasKey(em.Fields, ref) {
			// Every update sends the reference: Jira would refuse each one.
			return nil, refMissing(fmt.Sprintf("The reference field %q (%s) is not on the edit screen of the %s issues of project %s (checked on %s), so Jira would refuse every update of them. In Jira, add the field to that issue type's edit screen (Project settings → Issue types → the type → Fields, or the project's screen scheme), then preview again.", m.refName, ref, r.Kind, p.cfg.Project, r.Key))
		}
		screen := map[string]createField{}
		for id, f := range em.Fields {
			if m.byID[id] != nil {
				screen[id] = screenField(f.Required, f.AllowedValues)
			}
		}
		out[r.Kind] = screen
	}
	return out, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// managedIDs are the Jira ids of every mapped field (read with every issue).
func (m *meta) managedIDs() []string {
	return slices.Sorted(maps.Keys(m.byID))
}

// listed reports whether the field's allowed values are a fixed list.
func (f *jfield) listed() bool {
	return f.kind == kindPriority || f.kind == kindNamed || f.kind == kindSelect || f.kind == kindMulti
}

// ResolveFields implements core.FieldResolver: every value of a create is
// checked against the create metadata of the item's issue type, and of an
// update against the edit metadata (editScreens: one request per issue
// type among the updated items), and
// people are resolved with the assignable-user search (the assignee) or
// the user search (user-picker custom fields: Jira lets them hold anyone),
// one request per distinct person and search the configuration's users:
// does not map. Requests: none beyond discovery (the field list, the two
// issue types' create metadata), the edit metadata and those searches.
func (p *Provider) ResolveFields(ctx context.Context, reqs []core.FieldRequest) ([]map[string]core.FieldValue, error) {
	m, err := p.creatableMeta(ctx)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(reqs, func(r core.FieldRequest) bool { return r.Kind == core.KindSubtask }) && m.structure.subtaskTypeID != "" {
		if err := p.ensureSubtaskCreatable(ctx, m); err != nil {
			return nil, err
		}
	}
	edit, err := p.editScreens(ctx, m, reqs)
	if err != nil {
		return nil, err
	}
	users, err := p.resolveUsers(ctx, m, reqs)
	if err != nil {
		return nil, err
	}
	var details []core.Detail
	out := make([]map[string]core.FieldValue, len(reqs))
	for i, r := range reqs {
		typeID, typeName := m.storyTypeID, p.cfg.StoryType
		switch {
		case r.Kind == core.KindEpic:
			typeID, typeName = m.epicTypeID, p.cfg.EpicType
		case r.Kind == core.KindSubtask && m.structure.subtaskTypeID != "":
			typeID, typeName = m.structure.subtaskTypeID, m.structure.subtaskTypeName // structure.go
		}
		bad := func(key, msg string) {
			details = append(details, core.Detail{Item: string(r.Reference), Field: key, Message: msg})
		}
		res := map[string]core.FieldValue{}
		for _, key := range slices.Sorted(maps.Keys(r.Fields)) {
			v := r.Fields[key]
			f := m.byKey[key]
			name := core.FieldName(key)
			if f == nil {
				why := fmt.Sprintf("Jira has no field for %s", name)
				if key == core.FieldEstimate {
					why = fmt.Sprintf("Jira has no estimation field (%q or %q); set jira.estimate_field to the number field that holds estimates", estimateNames[0], estimateNames[1])
				}
				bad(key, why+".")
				continue
			}
			screen, which := m.create[typeID], "screen"
			if es, ok := edit[r.Kind]; ok && !r.Create {
				screen, which = es, "edit screen"
			}
			cm, onScreen := screen[f.id]
			if !onScreen {
				bad(key, fmt.Sprintf("%s (%s) is not on the %s of %s issues in project %s, so Jira would refuse to set it; add it to that screen in Jira, or remove it from the item and its defaults.", name, f.id, which, typeName, p.cfg.Project))
				continue
			}
			vals, msg := resolveValues(f, cm, v.Values, func(who string) userMatch { return users[personKey{f.key == core.FieldAssignee, strings.ToLower(who)}] })
			if msg != "" {
				bad(key, name+": "+msg)
				continue
			}
			res[key] = core.FieldValue{Values: vals, Source: v.Source}
		}
		if r.Create {
			for _, id := range slices.Sorted(maps.Keys(m.create[typeID])) {
				f := m.byID[id]
				if !m.create[typeID][id].required || f == nil {
					continue
				}
				if v, ok := r.Fields[f.key]; !ok || len(v.Values) == 0 {
					bad(f.key, fmt.Sprintf("%s is required for %s issues in project %s; set %s: on the item or as a default.", core.FieldName(f.key), typeName, p.cfg.Project, docFieldName(f.key)))
				}
			}
		}
		out[i] = res
	}
	if len(details) > 0 {
		return nil, core.Errorf(core.CodeValidationFailed, "%s would be refused by Jira (see details); nothing was stored.", core.Plural(len(details), "field value", "field values")).WithDetails(details...)
	}
	return out, nil
}

// docFieldName is how a document writes the field's name.
func docFieldName(key string) string {
	n := core.FieldName(key)
	return "`" + n + "`"
}

// resolveValues checks and canonicalises one field's values. A list-valued
// custom field arrives as the document's text: split at commas.
func resolveValues(f *jfield, cm createField, in []string, person func(who string) userMatch) ([]string, string) {
	if len(in) == 0 {
		return nil, ""
	}
	if strings.HasPrefix(f.key, core.FieldCustomPrefix) && (f.kind == kindMulti || f.kind == kindLabels) {
		var split []string
		for _, v := range in {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" && !slices.Contains(split, part) {
					split = append(split, part)
				}
			}
		}
		in = split
	}
	if (f.kind == kindPriority || f.kind == kindUser || f.kind == kindDate || f.kind == kindNumber || f.kind == kindText || f.kind == kindSelect) && len(in) > 1 {
		return nil, fmt.Sprintf("takes one value, not %d", len(in))
	}
	out := make([]string, 0, len(in))
	for _, v := range in {
		switch {
		case f.listed():
			i := slices.IndexFunc(cm.allowed, func(a string) bool { return strings.EqualFold(a, v) })
			if i < 0 {
				return nil, fmt.Sprintf("%q is not allowed in Jira%s; allowed: %s", v, closestAllowed(v, cm.allowed), allowedList(cm.allowed))
			}
			out = append(out, cm.allowed[i])
		case f.kind == kindUser:
			u := person(v)
			if u.problem != "" {
				return nil, u.problem
			}
			out = append(out, u.accountID)
		case f.kind == kindNumber:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || n < 0 {
				return nil, fmt.Sprintf("%q is not a number of 0 or more", v)
			}
			out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
		case f.kind == kindDate:
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return nil, fmt.Sprintf("%q is not a date written YYYY-MM-DD", v)
			}
			out = append(out, v)
		case f.kind == kindText:
			if n := utf8.RuneCountInString(v); n > 255 {
				return nil, fmt.Sprintf("%d characters; Jira's short-text fields hold at most 255", n)
			}
			out = append(out, v)
		case f.kind == kindLabels:
			if strings.ContainsAny(v, " \t") || utf8.RuneCountInString(v) > 255 {
				return nil, fmt.Sprintf("the label %q has spaces or is over 255 characters", v)
			}
			out = append(out, v)
		}
	}
	return out, ""
}

// closestAllowed is " (did you mean "High"?)" for the allowed value v
// looks like a misspelling of ("Hihg"), or "": the one value closest to v
// (case-insensitive) by at most one edit for short values, two for values
// over 4 letters (a swap of neighbours counts as one: go-edlib's optimal
// string alignment distance).
func closestAllowed(v string, allowed []string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	best, bestD, ties := "", 3, 0
	for _, a := range allowed {
		limit := 2
		if len([]rune(a)) <= 4 {
			limit = 1
		}
		d := edlib.OSADamerauLevenshteinDistance(v, strings.ToLower(a))
		switch {
		case d > limit || d > bestD:
		case d < bestD:
			best, bestD, ties = a, d, 0
		default:
			ties++
		}
	}
	if best == "" || ties > 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// allowedList lists allowed values for a message (at most 20).
func allowedList(a []string) string {
	switch {
	case len(a) == 0:
		return "none (the project has no values for this field yet; add them in Jira)"
	case len(a) > 20:
		return strings.Join(a[:20], ", ") + fmt.Sprintf(" and %d more", len(a)-20)
	}
	return strings.Join(a, ", ")
}

// userMatch is a person resolved to an account, or why not.
type userMatch struct{ accountID, problem string }

// personKey is a person as one field names them (lower case): the
// assignee is looked up among the project's assignable users, a
// user-picker custom field among every user.
type personKey struct {
	assignable bool
	who        string
}

// resolveUsers resolves every distinct person the requests name, per
// search: the configuration's users: map first, else the assignable-user
// search of the project for the assignee and the user search (what
// Jira's user pickers use) for a user-picker custom field; either must
// find exactly one account whose e-mail, display name or account id is
// the value. One request per distinct person and search, never per item.
func (p *Provider) resolveUsers(ctx context.Context, m *meta, reqs []core.FieldRequest) (map[personKey]userMatch, error) {
	out := map[personKey]userMatch{}
	cfgUsers := map[string]string{}
	for k, v := range p.cfg.Users {
		cfgUsers[strings.ToLower(strings.TrimSpace(k))] = v
	}
	for _, r := range reqs {
		for _, key := range slices.Sorted(maps.Keys(r.Fields)) {
			if f := m.byKey[key]; f == nil || f.kind != kindUser {
				continue
			}
			for _, who := range r.Fields[key].Values {
				pk := personKey{key == core.FieldAssignee, strings.ToLower(who)}
				if _, done := out[pk]; done {
					continue
				}
				if acc, ok := cfgUsers[pk.who]; ok {
					out[pk] = userMatch{accountID: acc}
					continue
				}
				u, err := p.searchUser(ctx, who, pk.assignable)
				if err != nil {
					return nil, err
				}
				out[pk] = u
			}
		}
	}
	return out, nil
}

type userJSON struct {
	AccountID   string `json:"accountId"`
	Email       string `json:"emailAddress"`
	DisplayName string `json:"displayName"`
	Active      bool   `json:"active"`
}

// searchUser finds who with the assignable-user search of the project
// (assignable) or the user search.
func (p *Provider) searchUser(ctx context.Context, who string, assignable bool) (userMatch, error) {
	var found []userJSON
	c := p.userSearch(assignable, url.Values{"query": {who}, "maxResults": {"50"}}, "find the users named "+who)
	if _, err := p.do(ctx, c, &found); err != nil {
		return userMatch{}, err
	}
	var exact []userJSON
	for _, u := range found {
		if u.AccountID == who || strings.EqualFold(u.Email, who) || strings.EqualFold(u.DisplayName, who) {
			exact = append(exact, u)
		}
	}
	if len(exact) == 0 && !strings.ContainsAny(who, "@ \t") {
		// Jira's query matches names and e-mails only: an account id (as
		// a pull or an export writes a person Jira shows no e-mail for)
		// is looked up by itself.
		u, ok, err := p.userByAccount(ctx, who, assignable)
		if err != nil {
			return userMatch{}, err
		}
		if ok {
			return userMatch{accountID: u.AccountID}, nil
		}
	}
	switch len(exact) {
	case 1:
		return userMatch{accountID: exact[0].AccountID}, nil
	case 0:
		hidden := "if the person's e-mail is hidden by their privacy settings, map it to their account id under users: in the configuration"
		if assignable {
			return userMatch{problem: fmt.Sprintf("no user %q can be assigned issues in project %s. Check the spelling; %s", who, p.cfg.Project, hidden)}, nil
		}
		// Without the global Browse users and groups permission Jira's
		// user search answers no one: say so rather than "no user".
		if err := p.checkPermissions(ctx, []permission{browseUsers}); err != nil {
			return userMatch{}, err
		}
		return userMatch{problem: fmt.Sprintf("no active user %q exists in Jira. Check the spelling; %s", who, hidden)}, nil
	}
	var names []string
	for _, u := range exact {
		names = append(names, fmt.Sprintf("%s (%s)", u.DisplayName, u.AccountID))
	}
	return userMatch{problem: fmt.Sprintf("%q matches %d people: %s. Write the e-mail, or map the name to one account id under users: in the configuration", who, len(exact), strings.Join(names, ", "))}, nil
}

// userSearch is a user search by q: among the project's assignable users
// (GET user/assignable/search), else among all active users (GET
// user/search, action says what for).
func (p *Provider) userSearch(assignable bool, q url.Values, action string) call {
	if assignable {
		q.Set("project", p.cfg.Project)
		return call{method: "GET", path: "/rest/api/3/user/assignable/search", query: q,
			endpoint: "GET /rest/api/3/user/assignable/search", action: "find the assignable users of project " + p.cfg.Project}
	}
	return call{method: "GET", path: "/rest/api/3/user/search", query: q, endpoint: "GET /rest/api/3/user/search", action: action}
}

// userByAccount finds the account acc with the assignable-user search of
// the project (assignable) or the user search, by account id: false when
// it finds none (not assignable, inactive, or no such account).
func (p *Provider) userByAccount(ctx context.Context, acc string, assignable bool) (userJSON, bool, error) {
	var found []userJSON
	c := p.userSearch(assignable, url.Values{"accountId": {acc}}, "find the user with account id "+acc)
	if _, err := p.do(ctx, c, &found); err != nil {
		return userJSON{}, false, err
	}
	for _, u := range found {
		if u.AccountID == acc {
			return u, true, nil
		}
	}
	return userJSON{}, false, nil
}

// addFieldValues puts a spec's fields into a create or edit request.
func (m *meta) addFieldValues(fields map[string]any, spec core.ItemSpec) error {
	for _, key := range slices.Sorted(maps.Keys(spec.Fields)) {
		f := m.byKey[key]
		if f == nil {
			return core.Errorf(core.CodeValidationFailed, "%s sets %s, which Jira has no field for. Run the preview again.", spec.Reference, core.FieldName(key)).WithDetails(core.Detail{Item: string(spec.Reference), Field: key, Message: "no such field in Jira"})
		}
		fields[f.id] = f.jsonValue(spec.Fields[key].Values)
	}
	return nil
}

// jsonValue is the request JSON of a field's canonical values (empty:
// cleared).
func (f *jfield) jsonValue(vals []string) any {
	objs := func(k string) []map[string]string {
		out := []map[string]string{}
		for _, v := range vals {
			out = append(out, map[string]string{k: v})
		}
		return out
	}
	switch f.kind {
	case kindLabels:
		return append([]string{}, vals...)
	case kindNamed:
		return objs("name")
	case kindMulti:
		return objs("value")
	}
	if len(vals) == 0 {
		return nil
	}
	switch f.kind {
	case kindPriority:
		return map[string]string{"name": vals[0]}
	case kindUser:
		return map[string]string{"accountId": vals[0]}
	case kindSelect:
		return map[string]string{"value": vals[0]}
	case kindNumber:
		n, _ := strconv.ParseFloat(vals[0], 64)
		return n
	}
	return vals[0]
}

// readFields reads every mapped field of an issue (canonical values;
// empty fields left out).
func (m *meta) readFields(fields map[string]json.RawMessage) map[string][]string {
	out := map[string][]string{}
	for id, f := range m.byID {
		raw, ok := fields[id]
		if !ok || len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if vals := f.readValue(raw); len(vals) > 0 {
			out[f.key] = vals
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readPeople are the display names Jira gave for the people the managed
// person fields name (account id → name; Data Center's user name as the
// id, datacenter.go), or nil: the same answer, no read.
func (m *meta) readPeople(fields map[string]json.RawMessage) map[string]string {
	var out map[string]string
	for id, f := range m.byID {
		raw, ok := fields[id]
		if f.kind != kindUser || !ok {
			continue
		}
		var u userJSON
		if json.Unmarshal(raw, &u) != nil || u.AccountID == "" || u.DisplayName == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[u.AccountID] = u.DisplayName
	}
	return out
}

func (f *jfield) readValue(raw json.RawMessage) []string {
	type obj struct{ Name, Value, AccountID string }
	one := func(o obj) string {
		switch f.kind {
		case kindUser:
			return o.AccountID
		case kindSelect, kindMulti:
			return o.Value
		}
		return o.Name
	}
	switch f.kind {
	case kindLabels:
		var v []string
		_ = json.Unmarshal(raw, &v)
		return v
	case kindNamed, kindMulti:
		var list []obj
		_ = json.Unmarshal(raw, &list)
		var out []string
		for _, o := range list {
			out = append(out, one(o))
		}
		return out
	case kindPriority, kindUser, kindSelect:
		var o obj
		if json.Unmarshal(raw, &o) != nil || one(o) == "" {
			return nil
		}
		return []string{one(o)}
	case kindNumber:
		var n float64
		if json.Unmarshal(raw, &n) != nil {
			return nil
		}
		return []string{strconv.FormatFloat(n, 'f', -1, 64)}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" {
		return nil
	}
	return []string{s}
}

// fieldKeyOf maps a Jira field id in an error back to the managed field's
// key ("" when it is not one), for the details of a refused write.
func (p *Provider) fieldKeyOf(id string) string {
	if ids := p.fieldIDs.Load(); ids != nil {
		return (*ids)[id]
	}
	return ""
}

// epicNameFieldType is the Epic Name field of older company-managed
// projects, where it is required on the epic type.
const epicNameFieldType = "com.pyxis.greenhopper.jira:gh-epic-label"

// maxEpicName is Jira's limit of a short-text value such as Epic Name.
const maxEpicName = 255

// addEpicName fills the Epic Name of a new epic from its summary, cut to
// Jira's 255 characters, on a site that has the field (meta.epicName):
// there Jira refuses an epic without it.
func (m *meta) addEpicName(fields map[string]any, spec core.ItemSpec) {
	if spec.Kind != core.KindEpic || !m.fillsEpicName() {
		return
	}
	if _, set := fields[m.epicName]; set {
		return
	}
	fields[m.epicName] = EpicName(spec.Title)
}

// fillsEpicName reports whether a new epic gets an Epic Name: the site has
// the field and the epic type's create screen holds it (a site keeps the
// field for its older projects, and a project whose screen lacks it
// refuses it). Before the create screen was read: whether the site has it.
// The caller holds metaMu or runs after ensureCreatable.
func (m *meta) fillsEpicName() bool {
	if m.epicName == "" {
		return false
	}
	fs, read := m.createMeta[m.epicTypeID]
	return !read || slices.ContainsFunc(fs, func(f createMetaField) bool { return f.id() == m.epicName })
}

// CreateFills is the core.CreateFiller capability: the Epic Name each new
// epic gets where the site has the field on the epic's create screen
// (older company-managed projects, Data Center), filled from its title —
// what Create writes, so the preview can show it. It reads the create
// screens only where the site has the field (and the creates read them
// anyway).
func (p *Provider) CreateFills(ctx context.Context, specs []core.ItemSpec) (map[core.Reference][]core.FilledField, error) {
	if !slices.ContainsFunc(specs, func(s core.ItemSpec) bool { return s.Kind == core.KindEpic }) {
		return nil, nil
	}
	m, err := p.ensureMeta(ctx)
	if err != nil || m.epicName == "" {
		return nil, err
	}
	if err := p.ensureCreatable(ctx, m); err != nil {
		return nil, err
	}
	p.metaMu.Lock()
	fills := m.fillsEpicName()
	required := slices.ContainsFunc(m.createMeta[m.epicTypeID], func(f createMetaField) bool { return f.id() == m.epicName && f.Required })
	p.metaMu.Unlock()
	if !fills {
		return nil, nil
	}
	why := fmt.Sprintf("on the epic's create screen in %s; filled from the title (at most %d characters)", p.cfg.Project, maxEpicName)
	if required {
		why = fmt.Sprintf("Jira requires it on epics in %s; filled from the title (at most %d characters)", p.cfg.Project, maxEpicName)
	}
	out := map[core.Reference][]core.FilledField{}
	for _, s := range specs {
		if s.Kind == core.KindEpic {
			out[s.Reference] = []core.FilledField{{Field: "Epic Name", Value: EpicName(s.Title), Why: why}}
		}
	}
	return out, nil
}

// EpicName is the Epic Name DevWorkWire gives an epic with this summary:
// the summary, cut to 255 characters.
func EpicName(summary string) string {
	s := strings.TrimSpace(summary)
	if r := []rune(s); len(r) > maxEpicName {
		s = strings.TrimSpace(string(r[:maxEpicName]))
	}
	return s
}
