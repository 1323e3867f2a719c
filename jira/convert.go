package jira

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/adf"
	"github.com/devworkwire/devworkwire/jira/wiki"
)

// acHeading is the heading under which acceptance criteria live in the
// description when no acceptance-criteria field is configured.
const acHeading = "Acceptance criteria"

// toADF converts Markdown to ADF JSON. Empty Markdown gives nil (no
// description).
func toADF(md string) (json.RawMessage, error) {
	if strings.TrimSpace(md) == "" {
		return nil, nil
	}
	d, err := adf.FromMarkdown(md)
	if err != nil {
		return nil, err
	}
	// Doc's own encoding, not json.Marshal(d), which would read the whole
	// encoding once more to compact what is already compact.
	return d.MarshalJSON()
}

// fromADF converts ADF JSON (or null) to Markdown.
func fromADF(raw json.RawMessage) string {
	md, _ := readADF(raw)
	return md
}

// readADF converts ADF JSON (or null) to Markdown, and names what of it
// Markdown cannot carry ("" when nothing: adf.Unrepresentable).
func readADF(raw json.RawMessage) (md, loss string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", ""
	}
	if raw[0] == '"' { // wiki markup: Data Center's text (datacenter.go)
		var w string
		_ = json.Unmarshal(raw, &w)
		d, lost := wiki.Parse(w)
		if len(lost) > 0 {
			return strings.TrimSpace(adf.ToMarkdown(d)), lost[0]
		}
		return strings.TrimSpace(adf.ToMarkdown(d)), adf.Unrepresentable(d)
	}
	var d adf.Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		return "", ""
	}
	return strings.TrimSpace(adf.ToMarkdown(d)), adf.Unrepresentable(d)
}

// acMarkdown renders acceptance criteria as a Markdown bullet list.
func acMarkdown(ac []string) string {
	var b strings.Builder
	for _, a := range ac {
		lines := strings.Split(strings.TrimSpace(a), "\n")
		b.WriteString("- ")
		b.WriteString(lines[0])
		for _, l := range lines[1:] {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// descriptionMarkdown is the description DevWorkWire writes: the item's
// description, plus its acceptance criteria under a heading when they live
// in the description.
func descriptionMarkdown(desc string, ac []string, acInDescription bool) string {
	desc = strings.TrimSpace(desc)
	if !acInDescription || len(ac) == 0 {
		return desc
	}
	var b strings.Builder
	if desc != "" {
		b.WriteString(desc)
		b.WriteString("\n\n")
	}
	b.WriteString("## " + acHeading + "\n\n")
	b.WriteString(acMarkdown(ac))
	return b.String()
}

// splitAC separates an "Acceptance criteria" section (the last heading of
// that name, any level) from a Markdown description and parses its list.
func splitAC(md string) (string, []string) {
	lines := strings.Split(md, "\n")
	at := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			h = strings.TrimSuffix(h, ":")
			if strings.EqualFold(h, acHeading) {
				at = i
			}
		}
	}
	if at < 0 {
		return md, nil
	}
	return strings.TrimSpace(strings.Join(lines[:at], "\n")), parseList(strings.Join(lines[at+1:], "\n"))
}

// parseList reads the items of a Markdown bullet or ordered list; indented
// continuation lines join their item.
func parseList(md string) []string {
	var items []string
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if item, ok := listItem(l); ok {
			items = append(items, item)
			continue
		}
		if len(items) > 0 && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			items[len(items)-1] += "\n" + t
			continue
		}
		items = append(items, t)
	}
	return items
}

func listItem(l string) (string, bool) {
	if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
		return "", false
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		if s, ok := strings.CutPrefix(l, m); ok {
			return strings.TrimSpace(s), true
		}
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l)-1 && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' {
		return strings.TrimSpace(l[i+2:]), true
	}
	return "", false
}

// jiraContent is the Jira-side content of an issue that DevWorkWire owns,
// in canonical form: what the drift digest covers.
type jiraContent struct {
	Summary     string `json:"s"`
	Description string `json:"d"` // Markdown of the description ADF (canonicalises the ADF)
	AC          string `json:"a"` // Markdown or text of the acceptance-criteria field
	Parent      string `json:"p"`
	Reference   string `json:"r"`
	// loss: the content keys whose field holds what Markdown cannot
	// carry (core.WorkItem.Unrepresentable); not part of the digest.
	loss map[string]string
}

func (c jiraContent) digest() string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// property is the value of the devworkwire issue property.
type property struct {
	Digest     string `json:"digest"`
	JiraDigest string `json:"jira_digest"`
	// Fields are the per-field bases (core.ItemSpec.FieldBases): what
	// DevWorkWire last wrote to each managed field. Absent on items
	// written before per-field bases.
	Fields map[string]string `json:"fields,omitempty"`
	// Content are the Jira-side digests of the title, the description and
	// the acceptance criteria as written (contentDigests), so a read can
	// tell which of them a person changed. Absent on items written before.
	Content map[string]string `json:"content,omitempty"`
	// Values are the values behind Fields (core.ItemSpec.BaseValues, at
	// most core.MaxBaseValue each): a content part DevWorkWire writes in
	// the form a read gives it back, so that a conflict can show what
	// each side changed. Absent on items written before.
	Values map[string][]string `json:"values,omitempty"`
}

// maxPropertyValue is the most an issue property's value may hold (Jira:
// 32,768; counted here in bytes of its JSON, which is never fewer than its
// characters).
const maxPropertyValue = 32768

// capProperty keeps the property's value under maxPropertyValue: each base
// value is capped (core.MaxBaseValue) but their total is not, so the
// largest values are left out until it fits — as a value too long to keep
// is (the next read has no base value for it, only its digest).
func capProperty(pr property) property {
	size := func() int { b, _ := json.Marshal(pr); return len(b) }
	if size() <= maxPropertyValue {
		return pr
	}
	pr.Values = maps.Clone(pr.Values)
	keys := slices.Collect(maps.Keys(pr.Values))
	weight := func(k string) int { b, _ := json.Marshal(pr.Values[k]); return len(b) }
	slices.SortFunc(keys, func(a, b string) int {
		if d := weight(b) - weight(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, k := range keys {
		if size() <= maxPropertyValue {
			break
		}
		delete(pr.Values, k)
	}
	return pr
}

// contentDigests are the per-part digests of c's title, description and
// acceptance criteria (core's content keys), as a read splits them.
func (m *meta) contentDigests(c jiraContent) map[string]string {
	title, desc, ac := m.contentParts(c)
	return core.ContentDigests(title, desc, ac)
}

// contentParts are c's title, description and acceptance criteria, as a
// read splits them.
func (m *meta) contentParts(c jiraContent) (string, string, []string) {
	desc, ac := c.Description, parseList(c.AC)
	if m.acField == "" {
		desc, ac = splitAC(c.Description)
	}
	return c.Summary, desc, ac
}

// baseValues are the base values to keep in the property: the spec's,
// with each content part DevWorkWire writes (not held) in the form a read
// gives it back, when short enough (core.MaxBaseValue).
func (m *meta) baseValues(spec core.ItemSpec, c jiraContent) map[string][]string {
	out := maps.Clone(spec.BaseValues)
	title, desc, ac := m.contentParts(c)
	for k, v := range map[string][]string{core.ContentTitle: {title}, core.ContentDescription: {strings.TrimSpace(desc)}, core.ContentCriteria: ac} {
		if _, given := spec.BaseValues[k]; !given || slices.Contains(spec.HeldContent, k) {
			continue // not kept by core (too long), or the base stays the one given
		}
		if b, _ := json.Marshal(v); len(b) > core.MaxBaseValue {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// issue is an issue as the search and issue endpoints return it.
type issue struct {
	ID         string                     `json:"id"`
	Key        string                     `json:"key"`
	Fields     map[string]json.RawMessage `json:"fields"`
	Properties map[string]json.RawMessage `json:"properties"`
}

type statusJSON struct {
	Name           string `json:"name"`
	StatusCategory struct {
		Key string `json:"key"`
	} `json:"statusCategory"`
}

type issueRef struct {
	ID     string `json:"id"`
	Key    string `json:"key"`
	Fields struct {
		Summary string     `json:"summary"` // Jira embeds it in a link's and a sub-task's issue
		Status  statusJSON `json:"status"`
	} `json:"fields"`
}

type linkJSON struct {
	ID   string `json:"id"`
	Type struct {
		Name    string `json:"name"`
		Inward  string `json:"inward"`
		Outward string `json:"outward"`
	} `json:"type"`
	InwardIssue  *issueRef `json:"inwardIssue"`
	OutwardIssue *issueRef `json:"outwardIssue"`
}

func (is issue) str(name string) string {
	var s string
	_ = json.Unmarshal(is.Fields[name], &s)
	return s
}

func (is issue) parentKey() string {
	var r issueRef
	if raw := is.Fields["parent"]; len(raw) > 0 && string(raw) != "null" {
		_ = json.Unmarshal(raw, &r)
	}
	return r.Key
}

func (is issue) typeID() string {
	var t struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(is.Fields["issuetype"], &t)
	return t.ID
}

func (is issue) status() statusJSON {
	var s statusJSON
	_ = json.Unmarshal(is.Fields["status"], &s)
	return s
}

func (is issue) property() (property, bool) {
	raw, ok := is.Properties[PropertyKey]
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return property{}, false
	}
	var pr property
	if err := json.Unmarshal(raw, &pr); err != nil {
		return property{}, false
	}
	return pr, pr.Digest != "" || pr.JiraDigest != ""
}

// mapCategory maps a Jira status category key to a domain status.
func mapCategory(key string) core.Status {
	switch key {
	case "done":
		return core.StatusDone
	case "indeterminate":
		return core.StatusInProgress
	default:
		return core.StatusTodo
	}
}

// content reads the canonical Jira-side content of an issue's fields.
func (m *meta) content(fields map[string]json.RawMessage, parentKey string) jiraContent {
	c := jiraContent{Parent: parentKey}
	_ = json.Unmarshal(fields["summary"], &c.Summary)
	c.Reference = string(parseRefValue(m.refValueIn(fields)))
	var loss, acLoss string
	c.Description, loss = readADF(fields["description"])
	if m.acField != "" {
		c.AC, acLoss = m.acText(fields[m.acField])
	}
	for k, what := range map[string]string{core.ContentDescription: loss, core.ContentCriteria: acLoss} {
		if what == "" {
			continue
		}
		if c.loss == nil {
			c.loss = map[string]string{}
		}
		c.loss[k] = what
		if k == core.ContentDescription && m.acField == "" {
			c.loss[core.ContentCriteria] = what // the criteria live in the description
		}
	}
	return c
}

func (m *meta) acText(raw json.RawMessage) (string, string) {
	if m.acADF {
		return readADF(raw)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return strings.TrimSpace(s), ""
}

// fieldsRequested are the issue fields every read asks for.
func (m *meta) fieldsRequested() []string {
	f := []string{"summary", "description", "issuetype", "parent", "status", "updated", "issuelinks"}
	f = append(f, m.refIDs...)
	if m.acField != "" {
		f = append(f, m.acField)
	}
	if m.epicLink != "" {
		f = append(f, m.epicLink) // a story's epic on Data Center (datacenter.go)
	}
	return append(append(f, m.structureFields()...), m.managedIDs()...)
}

// workItem translates an issue into the domain.
func (p *Provider) workItem(m *meta, is issue) core.WorkItem {
	st := is.status()
	parent := is.parentKey()
	p.parents.Store(strings.ToUpper(is.Key), parent)
	epic := is.typeID() == m.epicTypeID
	// An epic's parent (an initiative, on some plans) is not DevWorkWire's:
	// it neither writes it nor counts it as drift.
	digestParent := parent
	if epic {
		digestParent = ""
	}
	c := m.content(is.Fields, digestParent)
	w := core.WorkItem{
		Key:        is.Key,
		Reference:  core.Reference(c.Reference),
		Kind:       core.KindStory,
		Title:      c.Summary,
		ParentKey:  parent,
		Status:     mapCategory(st.StatusCategory.Key),
		StatusName: st.Name,
		URL:        p.site + "/browse/" + is.Key,
	}
	if epic {
		w.Kind = core.KindEpic
	}
	if m.acField != "" {
		w.Description = c.Description
		w.AcceptanceCriteria = parseList(c.AC)
	} else {
		w.Description, w.AcceptanceCriteria = splitAC(c.Description)
	}
	if t, ok := parseJiraTime(is.str("updated")); ok {
		w.Updated = t
	}
	structure := m.readStructure(is, &w) // sub-task kind, dependencies, sub-tasks, sprint, rank (structure.go)
	jd := c.digest()
	pr, ok := is.property()
	if ok {
		w.LastWritten = pr.Digest
	}
	w.Fields, w.FieldBases, w.BaseValues = m.readFields(is.Fields), pr.Fields, pr.Values
	w.People = m.readPeople(is.Fields) // fields.go
	w.Unrepresentable = c.loss
	w.EditedOutside = !ok || pr.JiraDigest != jd
	if pr.Content != nil {
		w.ContentChanged = map[string]bool{}
		for k, d := range m.contentDigests(c) {
			w.ContentChanged[k] = pr.Content[k] != d
		}
	}
	fp := sha256.Sum256([]byte(strings.Join([]string{is.Key, is.str("updated"), st.Name, st.StatusCategory.Key, jd, pr.Digest, pr.JiraDigest, structure}, "\x00")))
	w.Fingerprint = hex.EncodeToString(fp[:16])
	return w
}

// writeFields builds the fields and property of a create or edit from a
// spec, and the Jira-side digest of what they will hold.
func (p *Provider) writeFields(m *meta, spec core.ItemSpec, create bool) (map[string]any, []map[string]any, error) {
	fields, err := p.contentFields(m, spec, create)
	if err != nil {
		return nil, nil, err
	}
	if err := m.checkTextSizes(spec, fields); err != nil {
		return nil, nil, err
	}
	if err := m.addFieldValues(fields, spec); err != nil {
		return nil, nil, err
	}
	if create {
		m.addEpicName(fields, spec)
		fields["project"] = map[string]string{"key": p.cfg.Project}
		tid := m.storyTypeID
		switch spec.Kind {
		case core.KindEpic:
			tid = m.epicTypeID
		case core.KindSubtask:
			if tid = m.structure.subtaskTypeID; tid == "" {
				return nil, nil, core.Errorf(core.CodeConfigInvalid, "Project %s has no sub-task issue type, so %s cannot be created.", p.cfg.Project, spec.Reference).WithDetails(core.Detail{Item: string(spec.Reference), Field: "kind"})
			}
		}
		fields["issuetype"] = map[string]string{"id": tid}
	}
	switch {
	case spec.ParentKey != "":
		fields["parent"] = map[string]string{"key": spec.ParentKey}
	case !create && spec.Kind != core.KindEpic:
		// The document says the story has no epic: clear it. An epic's
		// parent is left alone.
		fields["parent"] = nil
	}
	// The Jira-side digest is computed from exactly what is sent, through
	// the same canonicalisation as a read.
	raw := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, core.Wrap(err, core.CodeInternal, "Could not encode the fields of %s.", spec.Reference)
		}
		raw[k] = b
	}
	c := m.content(raw, spec.ParentKey)
	content := m.contentDigests(c)
	for _, k := range spec.HeldContent {
		content[k] = "" // the tracker's (a person's) value: still changed on the next read
	}
	props := []map[string]any{{"key": PropertyKey, "value": capProperty(property{Digest: spec.Digest, JiraDigest: c.digest(), Fields: spec.FieldBases, Content: content, Values: m.baseValues(spec, c)})}}
	return fields, props, nil
}

// contentFields are the fields holding the item's content: summary,
// reference, description and acceptance criteria (create: empty ones are
// left out; edit: cleared).
func (p *Provider) contentFields(m *meta, spec core.ItemSpec, create bool) (map[string]any, error) {
	return p.contentFieldsWith(m, spec, create, p.richTextValue)
}

// richTextValue is richText as a field's value: nil (no value) for
// empty Markdown.
func (p *Provider) richTextValue(md string) (any, error) {
	r, err := p.richText(md)
	if r == nil {
		return nil, err
	}
	return r, err
}

// contentFieldsWith is contentFields with text making the value of a
// rich-text field from its Markdown (nil: no text): richTextValue, or
// measuredText to measure it.
func (p *Provider) contentFieldsWith(m *meta, spec core.ItemSpec, create bool, text func(md string) (any, error)) (map[string]any, error) {
	ref := m.refFieldOf(spec.Kind)
	if ref == "" {
		return nil, refMissing(fmt.Sprintf("The %s issue type of project %s has no field %q, so %s cannot be written. In Jira: Project settings → Issue types → that type → add a \"Short text\" field named %q, then run `dwire doctor` again.", spec.Kind, p.cfg.Project, m.refName, spec.Reference, m.refName)).WithDetails(core.Detail{Item: string(spec.Reference), Field: "jira.reference_field"})
	}
	fields := map[string]any{
		"summary": spec.Title,
		ref:       refValue(spec.Reference),
	}
	descMD := descriptionMarkdown(spec.Description, spec.AcceptanceCriteria, m.acField == "")
	desc, err := text(descMD)
	if err != nil {
		return nil, core.Wrap(err, core.CodeValidationFailed, "The description of %s could not be converted to Jira's document format. Simplify its Markdown.", spec.Reference).WithDetails(core.Detail{Item: string(spec.Reference), Field: "description"})
	}
	if desc != nil {
		fields["description"] = desc
	} else if !create {
		fields["description"] = nil
	}
	if m.acField != "" {
		switch {
		case len(spec.AcceptanceCriteria) == 0:
			if !create {
				fields[m.acField] = nil
			}
		case m.acADF:
			a, err := text(acMarkdown(spec.AcceptanceCriteria))
			if err != nil {
				return nil, core.Wrap(err, core.CodeValidationFailed, "The acceptance criteria of %s could not be converted to Jira's document format.", spec.Reference).WithDetails(core.Detail{Item: string(spec.Reference), Field: "acceptance_criteria"})
			}
			fields[m.acField] = a
		default:
			fields[m.acField] = strings.TrimSpace(acMarkdown(spec.AcceptanceCriteria))
		}
	}
	return fields, nil
}

// parseJiraTime reads Jira's timestamp format (2006-01-02T15:04:05.000-0700).
func parseJiraTime(v string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04:05.000-0700", time.RFC3339Nano, "2006-01-02T15:04:05-0700"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
