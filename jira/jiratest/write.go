package jiratest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/jira/internal/adfschema"
)

// issueUpdate is IssueUpdateDetails as far as it is modelled.
type issueUpdate struct {
	Fields     map[string]json.RawMessage `json:"fields"`
	Update     map[string]json.RawMessage `json:"update"`
	Properties []entityProperty           `json:"properties"`
}

type entityProperty struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

const (
	msgCannotSet   = "Field '%s' cannot be set. It is not on the appropriate screen, or unknown."
	msgADF         = "Operation value must be an Atlassian Document (see the Atlassian Document Format)"
	msgParentFind  = "Could not find issue by id or key."
	msgHierarchy   = "Given parent work item does not belong to appropriate hierarchy."
	maxSummary     = 255
	maxTextField   = 255
	maxPropValue   = 32768
	maxPropKey     = 255
	maxBulkIssues  = 50
	maxTextLength  = 32767 // Jira's limit for a multi-line text value (the stored ADF JSON)
	msgTooLong     = "The entered text is too long. It exceeds the allowed limit of 32,767 characters."
	msgNoPermIssue = "Issue does not exist or you do not have permission to see it."
)

// plannedWrite is a validated create or edit, ready to apply.
type plannedWrite struct {
	proj        *project
	typeID      string
	summary     *string
	description *json.RawMessage // set (possibly to JSON null)
	parent      **issue          // set (possibly to nil = remove)
	custom      map[string]*string
	labels      *[]string
	model       map[string][]string // fields.go: id → values (nil = clear)
	props       []entityProperty
}

type objRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

func decodeRef(raw json.RawMessage) (objRef, bool) {
	var ref objRef
	if err := json.Unmarshal(raw, &ref); err != nil {
		return ref, false
	}
	return ref, true
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// validateWrite checks fields, update and properties of a create (iss == nil)
// or an edit of iss. Call with s.mu held. status is 400 or 403 on error.
// Like Jira it reports every field error at once (400), except a missing
// Create or Edit permission (403, alone).
func (s *Server) validateWrite(in issueUpdate, iss *issue) (*plannedWrite, int, *jiraError) {
	e := newErr()
	pw := &plannedWrite{custom: map[string]*string{}, props: in.Properties}
	checkUpdateOps(in.Update, e)
	// project and issue type first: other checks depend on them.
	if iss == nil {
		if denied := s.createTarget(in.Fields, pw, e); denied != nil {
			return nil, http.StatusForbidden, denied
		}
	} else {
		if !iss.Proj.perms.Edit {
			return nil, http.StatusForbidden, newErr("You do not have permission to edit issues in this project.")
		}
		pw.proj, pw.typeID = iss.Proj, iss.cur.TypeID
	}
	for k, raw := range in.Fields {
		s.checkField(k, raw, iss == nil, pw, e)
	}
	if iss == nil {
		s.checkRequired(in.Fields, pw, e)
	}
	checkHierarchy(pw, iss, e)
	s.checkSubtask(pw, iss, e)
	checkProperties(in.Properties, e)
	if !e.empty() {
		return nil, http.StatusBadRequest, e
	}
	return pw, 0, nil
}

// checkUpdateOps refuses the 'update' operations form, which the fake does
// not model (an empty list of operations is fine).
func checkUpdateOps(update map[string]json.RawMessage, e *jiraError) {
	for k, v := range update {
		if len(v) > 0 && !isNull(v) && string(bytes.TrimSpace(v)) != "[]" {
			e.Errors[k] = fmt.Sprintf("mockjira does not model the 'update' operations form for field '%s'; set it with 'fields'.", k)
		}
	}
}

// createTarget resolves the project and issue type of a create into pw.
// It returns Jira's 403 when the project is browsable but the user may not
// create in it; other problems are field errors in e.
func (s *Server) createTarget(fields map[string]json.RawMessage, pw *plannedWrite, e *jiraError) *jiraError {
	raw, ok := fields["project"]
	ref, okRef := decodeRef(raw)
	switch {
	case !ok || isNull(raw) || !okRef || (ref.ID == "" && ref.Key == ""):
		e.Errors["project"] = "Specify a valid project ID or key"
	default:
		k := ref.Key
		if k == "" {
			k = ref.ID
		}
		p := s.projectByKeyOrID(k)
		switch {
		case p == nil || !p.perms.Browse:
			e.Errors["project"] = "valid project is required"
		case !p.perms.Create:
			return newErr("You do not have permission to create issues in this project.")
		default:
			pw.proj = p
		}
	}
	raw, ok = fields["issuetype"]
	ref, okRef = decodeRef(raw)
	if !ok || isNull(raw) || !okRef || (ref.ID == "" && ref.Name == "") {
		e.Errors["issuetype"] = "Specify an issue type"
		return nil
	}
	var t *issueType
	if ref.ID != "" {
		t = byID(issueTypes, ref.ID)
	} else {
		t = byName(issueTypes, ref.Name)
	}
	switch {
	case t == nil:
		e.Errors["issuetype"] = "Specify a valid issue type"
	case pw.proj != nil && !pw.proj.types[t.ID]:
		e.Errors["issuetype"] = "The issue type selected is invalid."
	default:
		pw.typeID = t.ID
	}
	return nil
}

// checkField validates one entry of 'fields' into pw, or adds its error
// to e.
func (s *Server) checkField(k string, raw json.RawMessage, create bool, pw *plannedWrite, e *jiraError) {
	var msg string
	switch k {
	case "project", "issuetype":
		if !create {
			msg = fmt.Sprintf(msgCannotSet, k)
		}
	case "summary":
		msg = pw.setSummary(raw)
	case "description":
		msg = pw.setDescription(raw)
	case "parent":
		// Off an edit screen (FieldSeed.OffEditScreen) Jira refuses the
		// field in an edit, even as null.
		if !create && pw.proj != nil && !s.refOnScreen(pw.proj, pw.typeID, k, true) {
			msg = fmt.Sprintf(msgCannotSet, k)
		} else {
			msg = s.setParent(pw, raw)
		}
	case "labels":
		msg = pw.setLabels(raw)
	default:
		if s.isModelField(k) {
			msg = s.setModelField(k, raw, pw, create)
		} else if k != s.refField(pw.proj, pw.typeID) || (pw.proj != nil && !s.refOnScreen(pw.proj, pw.typeID, k, !create)) {
			msg = fmt.Sprintf(msgCannotSet, k)
		} else {
			msg = pw.setCustom(k, raw)
		}
	}
	if msg != "" {
		e.Errors[k] = msg
	}
}

// The setters below validate one field's value into pw and return Jira's
// message for the field when it is invalid ("" when it is fine).

func (pw *plannedWrite) setSummary(raw json.RawMessage) string {
	var sum string
	if err := json.Unmarshal(raw, &sum); err != nil && !isNull(raw) {
		return "Operation value must be a string"
	}
	switch {
	case strings.TrimSpace(sum) == "":
		return "You must specify a summary of the issue."
	case utf8.RuneCountInString(sum) > maxSummary:
		return "Summary must be less than 255 characters."
	case strings.ContainsAny(sum, "\r\n"):
		return "The summary is invalid because it contains newline characters."
	}
	pw.summary = &sum
	return ""
}

func (pw *plannedWrite) setDescription(raw json.RawMessage) string {
	if isNull(raw) {
		n := json.RawMessage("null")
		pw.description = &n
		return ""
	}
	if err := validADF(raw); err != nil {
		return msgADF
	}
	d := compact(raw)
	if utf8.RuneCount(d) > maxTextLength {
		return msgTooLong
	}
	pw.description = &d
	return ""
}

func (s *Server) setParent(pw *plannedWrite, raw json.RawMessage) string {
	if isNull(raw) {
		var none *issue
		pw.parent = &none
		return ""
	}
	ref, ok := decodeRef(raw)
	var p *issue
	if ok {
		if ref.Key != "" {
			p = s.issueByKeyOrID(ref.Key)
		} else if ref.ID != "" {
			p = s.issueByKeyOrID(ref.ID)
		}
	}
	if p == nil || !p.Proj.perms.Browse {
		return msgParentFind
	}
	pw.parent = &p
	return ""
}

func (pw *plannedWrite) setLabels(raw json.RawMessage) string {
	var labels []string
	if err := json.Unmarshal(raw, &labels); err != nil {
		return "Operation value must be an array of strings"
	}
	msg := ""
	for _, l := range labels {
		if strings.ContainsAny(l, " \t\r\n") || l == "" {
			msg = fmt.Sprintf("The label '%s' contains spaces which is invalid.", l)
		} else if utf8.RuneCountInString(l) > 255 {
			msg = "The label must not exceed 255 characters."
		}
	}
	pw.labels = &labels
	return msg
}

func (pw *plannedWrite) setCustom(k string, raw json.RawMessage) string {
	if isNull(raw) {
		pw.custom[k] = nil
		return ""
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "Operation value must be a string"
	}
	if utf8.RuneCountInString(v) > maxTextField {
		return "Text is too long, please enter less than 255 characters."
	}
	pw.custom[k] = &v
	return ""
}

// checkRequired reports the fields a create must have: the summary and
// the fields the project requires for the issue type.
func (s *Server) checkRequired(fields map[string]json.RawMessage, pw *plannedWrite, e *jiraError) {
	if _, ok := fields["summary"]; !ok && e.Errors["summary"] == "" {
		e.Errors["summary"] = "You must specify a summary of the issue."
	}
	if pw.proj == nil || pw.typeID == "" {
		return
	}
	for f := range pw.proj.required[pw.typeID] {
		raw, ok := fields[f]
		if !ok || isNull(raw) || string(raw) == `""` || string(raw) == "[]" {
			e.Errors[f] = s.fieldDisplayName(f) + " is required."
		}
	}
}

// checkHierarchy: epics have no parent; stories and tasks may have an
// epic (not themselves).
func checkHierarchy(pw *plannedWrite, iss *issue, e *jiraError) {
	if pw.parent == nil || *pw.parent == nil || pw.typeID == "" || pw.typeID == IssueTypeSubtaskID || e.Errors["parent"] != "" {
		return // a sub-task's parent: checkSubtask
	}
	p := *pw.parent
	if pw.typeID == IssueTypeEpicID || p.cur.TypeID != IssueTypeEpicID || (iss != nil && p == iss) {
		e.Errors["parent"] = msgHierarchy
	}
}

// checkProperties checks the entity properties sent with a write.
func checkProperties(props []entityProperty, e *jiraError) {
	for _, p := range props {
		switch {
		case p.Key == "":
			e.ErrorMessages = append(e.ErrorMessages, "Property key must not be empty.")
		case utf8.RuneCountInString(p.Key) > maxPropKey:
			e.ErrorMessages = append(e.ErrorMessages, "The property key cannot be longer than 255 characters.")
		case len(p.Value) == 0 || isNull(p.Value):
			e.ErrorMessages = append(e.ErrorMessages, fmt.Sprintf("The property '%s' has no value.", p.Key))
		case len(p.Value) > maxPropValue:
			e.ErrorMessages = append(e.ErrorMessages, fmt.Sprintf("The property '%s' exceeds the maximum length of 32768 bytes.", p.Key))
		}
	}
}

func (s *Server) fieldDisplayName(id string) string {
	if n := s.fieldByID(id); n != "" {
		return n
	}
	return id
}

func validADF(raw json.RawMessage) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return err
	}
	return adfschema.Validate(raw)
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// applyCreate creates the issue. Call with s.mu held.
func (s *Server) applyCreate(pw *plannedWrite) *issue {
	now := s.now()
	p := pw.proj
	p.nextNum++
	s.nextID++
	iss := &issue{ID: s.nextID, Num: p.nextNum, Key: fmt.Sprintf("%s-%d", p.Key, p.nextNum), Proj: p, Created: now, props: map[string]json.RawMessage{}}
	st := &issueState{TypeID: pw.typeID, StatusID: StatusToDoID, Custom: map[string]string{}, Model: map[string][]string{}, Updated: now, StatusChanged: now}
	s.defaultModelFields(pw, st)
	pw.applyTo(st)
	for _, pr := range pw.props {
		iss.props[pr.Key] = compact(pr.Value)
	}
	s.issues = append(s.issues, iss)
	s.byKey[iss.Key] = iss
	s.byID[iss.ID] = iss
	iss.rank = s.nextRankLocked()
	s.setState(iss, st)
	return iss
}

func (pw *plannedWrite) applyTo(st *issueState) {
	if pw.summary != nil {
		st.Summary = *pw.summary
	}
	if pw.description != nil {
		if isNull(*pw.description) {
			st.Description = nil
		} else {
			st.Description = *pw.description
		}
	}
	if pw.parent != nil {
		st.ParentID = 0
		if *pw.parent != nil {
			st.ParentID = (*pw.parent).ID
		}
	}
	for k, v := range pw.custom {
		if v == nil || *v == "" {
			delete(st.Custom, k)
		} else {
			st.Custom[k] = *v
		}
	}
	if pw.labels != nil {
		st.Labels = *pw.labels
	}
	for k, v := range pw.model {
		st.setModel(k, v)
	}
}

// applyEdit applies an edit; updated moves only if a field changed.
// Call with s.mu held.
func (s *Server) applyEdit(iss *issue, pw *plannedWrite) {
	st := iss.cur.clone()
	pw.applyTo(st)
	for _, pr := range pw.props {
		iss.props[pr.Key] = compact(pr.Value)
	}
	if stateEqual(st, iss.cur) {
		return
	}
	st.Updated = s.now()
	s.setState(iss, st)
}

func stateEqual(a, b *issueState) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
