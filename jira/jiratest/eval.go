package jiratest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JQL evaluation over the search index: the fields a clause may name,
// compiling a parsed query against them (errors as Jira words them), and
// evaluating it on an issue state. Lexing and parsing are in jql.go, the
// text analyser and phrase matching too; the HTTP endpoints in search.go.

// fieldKind is the kind of field a JQL clause names.
type fieldKind int

const (
	fkProject fieldKind = iota
	fkKey
	fkIssueType
	fkStatus
	fkStatusCategory
	fkParent
	fkText // summary, description, comment, reference, text
	fkLabels
	fkDate
	fkRank // Rank: ORDER BY only (no operators)
)

type jqlField struct {
	kind fieldKind
	name string // canonical id: summary, description, comment, text, customfield_N, created, updated ...
}

func (s *Server) resolveField(name string) *jqlField {
	l := strings.ToLower(name)
	switch l {
	case "project":
		return &jqlField{fkProject, "project"}
	case "key", "issuekey", "issue", "id":
		return &jqlField{fkKey, "key"}
	case "issuetype", "type":
		return &jqlField{fkIssueType, "issuetype"}
	case "status":
		return &jqlField{fkStatus, "status"}
	case "statuscategory":
		return &jqlField{fkStatusCategory, "statusCategory"}
	case "parent":
		return &jqlField{fkParent, "parent"}
	case "cf[10008]", "epic link":
		// Data Center's Epic Link (a story's epic); Cloud has no such
		// field (its stories' epic is parent).
		if s.site.dataCenter() {
			return &jqlField{fkParent, epicLinkClause}
		}
	case "summary", "description", "comment", "text":
		return &jqlField{fkText, l}
	case "labels", "label":
		return &jqlField{fkLabels, "labels"}
	case "created", "createddate":
		return &jqlField{fkDate, "created"}
	case "updated", "updateddate":
		return &jqlField{fkDate, "updated"}
	case "rank", "cf[10019]":
		return &jqlField{fkRank, "rank"} // ORDER BY only (agile.go)
	}
	if s.refUnsearchable { // SetReferenceSearchable(false): Jira does not know the clause
		return nil
	}
	n := strings.TrimPrefix(s.fieldID, "customfield_")
	if l == "cf["+n+"]" && s.globalRefListed() {
		return &jqlField{fkText, s.fieldID}
	}
	if strings.EqualFold(name, s.fieldName) {
		if !s.globalRefListed() || slices.ContainsFunc(s.projects, (*project).teamManaged) {
			// Several fields have the name: the clause reads each issue's
			// own reference field (site.go).
			return &jqlField{fkText, refAnyField}
		}
		return &jqlField{fkText, s.fieldID}
	}
	if id, ok := strings.CutPrefix(l, "cf["); ok {
		id = "customfield_" + strings.TrimSuffix(id, "]")
		if p, _ := s.teamRef(id); p != nil {
			return &jqlField{fkText, id}
		}
	}
	return nil
}

var operatorsFor = map[fieldKind][]string{
	fkProject:        {"=", "!=", "in", "not in"},
	fkKey:            {"=", "!=", "in", "not in"},
	fkIssueType:      {"=", "!=", "in", "not in"},
	fkStatus:         {"=", "!=", "in", "not in"},
	fkStatusCategory: {"=", "!=", "in", "not in"},
	fkParent:         {"=", "!=", "in", "not in", "is", "is not"},
	fkText:           {"~", "!~", "is", "is not"},
	fkLabels:         {"=", "!=", "in", "not in", "is", "is not"},
	fkDate:           {"=", "!=", "<", ">", "<=", ">=", "is", "is not"},
}

var keyRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)-([0-9]+)$`)

// compiled clause values after validation.
type resolved struct {
	ids   map[string]bool // project ids, type ids, status ids, category keys, issue ids, labels
	empty bool
	terms [][]textTerm
	times []time.Time
}

// compile resolves fields and values in the query, collecting every error
// (Jira reports them all). Call with s.mu held.
func (s *Server) compile(q *jqlQuery) []string {
	var errs []string
	var walk func(e expr)
	walk = func(e expr) {
		switch x := e.(type) {
		case andExpr:
			walk(x.l)
			walk(x.r)
		case orExpr:
			walk(x.l)
			walk(x.r)
		case notExpr:
			walk(x.e)
		case *clause:
			errs = append(errs, s.compileClause(x)...)
		}
	}
	if q.where != nil {
		walk(q.where)
	}
	for _, o := range q.order {
		f := s.resolveField(o.field)
		if f == nil {
			errs = append(errs, fmt.Sprintf("Field '%s' does not exist or you do not have permission to view it.", o.field))
		} else if f.kind == fkText && f.name != "summary" || f.kind == fkLabels {
			errs = append(errs, fmt.Sprintf("Field '%s' does not support sorting.", o.field))
		}
	}
	return errs
}

func (s *Server) compileClause(c *clause) []string {
	f := s.resolveField(c.field)
	if f == nil {
		return []string{fmt.Sprintf("Field '%s' does not exist or you do not have permission to view it.", c.field)}
	}
	c.f = f
	if !slices.Contains(operatorsFor[f.kind], c.op) {
		return []string{fmt.Sprintf("The operator '%s' is not supported by the '%s' field.", c.op, c.field)}
	}
	if (f.name == "text" || f.name == "comment") && strings.HasPrefix(c.op, "is") {
		return []string{fmt.Sprintf("The operator '%s' is not supported by the '%s' field.", c.op, c.field)}
	}
	r := &resolved{ids: map[string]bool{}}
	c.f2 = r
	var errs []string
	notExist := func(v jqlValue) {
		errs = append(errs, fmt.Sprintf("The value '%s' does not exist for the field '%s'.", v.text, c.field))
	}
	for _, v := range c.values {
		if v.empty {
			if c.op == "=" || c.op == "!=" {
				if f.kind != fkParent && f.kind != fkLabels && f.kind != fkText && f.kind != fkDate {
					errs = append(errs, fmt.Sprintf("The field '%s' does not support searching for EMPTY values.", c.field))
				}
			}
			r.empty = true
			continue
		}
		switch f.kind {
		case fkProject:
			if p := s.projectByAny(v.text); p != nil && p.perms.Browse {
				r.ids[itoa(p.ID)] = true
			} else {
				notExist(v)
			}
		case fkIssueType:
			if t := byNameOrID(issueTypes, v.text); t != nil {
				r.ids[t.ID] = true
			} else {
				notExist(v)
			}
		case fkStatus:
			if st := byNameOrID(statuses, v.text); st != nil && s.statusInUse(st) {
				r.ids[st.ID] = true
			} else {
				notExist(v)
			}
		case fkStatusCategory:
			found := false
			for _, cat := range []statusCategory{catNew, catIndeterminate, catDone} {
				if strings.EqualFold(v.text, cat.Name) || strings.EqualFold(v.text, cat.Key) || v.text == strconv.Itoa(cat.ID) {
					r.ids[cat.Key] = true
					found = true
				}
			}
			if !found {
				notExist(v)
			}
		case fkKey, fkParent:
			iss := s.issueByKeyOrID(v.text)
			switch {
			case iss != nil && iss.Proj.perms.Browse:
				r.ids[itoa(iss.ID)] = true
			case keyRE.MatchString(v.text) || isDigits(v.text):
				errs = append(errs, fmt.Sprintf("An issue with key '%s' does not exist for field '%s'.", v.text, c.field))
			default:
				errs = append(errs, fmt.Sprintf("The issue key '%s' for field '%s' is invalid.", v.text, c.field))
			}
		case fkLabels:
			r.ids[v.text] = true
		case fkText:
			terms, err := parseTextQuery(c.field, v.text)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			r.terms = append(r.terms, terms)
		case fkDate:
			t, ok := parseJQLDate(v.text, s.now())
			if !ok {
				errs = append(errs, fmt.Sprintf("Date value '%s' for field '%s' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.", v.text, c.field))
				continue
			}
			r.times = append(r.times, t)
		}
	}
	return errs
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var periodRE = regexp.MustCompile(`^([-+]?)(\d+)([mhdw])$`)

func parseJQLDate(v string, now time.Time) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04", "2006/01/02 15:04", "2006-01-02", "2006/01/02"} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return t, true
		}
	}
	if m := periodRE.FindStringSubmatch(strings.TrimSpace(v)); m != nil {
		n, _ := strconv.Atoi(m[2])
		unit := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[3]]
		d := time.Duration(n) * unit
		if m[1] == "-" {
			d = -d
		}
		return now.Add(d), true
	}
	return time.Time{}, false
}

// eval evaluates e for issue iss as the search index sees it (st).
func (s *Server) eval(e expr, iss *issue, st *issueState) bool {
	switch x := e.(type) {
	case andExpr:
		return s.eval(x.l, iss, st) && s.eval(x.r, iss, st)
	case orExpr:
		return s.eval(x.l, iss, st) || s.eval(x.r, iss, st)
	case notExpr:
		return !s.eval(x.e, iss, st)
	case *clause:
		return s.evalClause(x, iss, st)
	}
	return false
}

func (s *Server) evalClause(c *clause, iss *issue, st *issueState) bool {
	r := c.f2
	in := func(id string) bool { return r.ids[id] }
	member := func(id string, isEmpty bool) bool {
		switch c.op {
		case "=", "in":
			return (r.empty && isEmpty) || (!isEmpty && in(id))
		case "!=", "not in":
			// Jira: != and NOT IN never match issues where the field is empty.
			if r.empty {
				return !isEmpty
			}
			return !isEmpty && !in(id)
		case "is":
			return isEmpty
		case "is not":
			return !isEmpty
		}
		return false
	}
	switch c.f.kind {
	case fkProject:
		return member(itoa(iss.Proj.ID), false)
	case fkKey:
		return member(itoa(iss.ID), false)
	case fkIssueType:
		return member(st.TypeID, false)
	case fkStatus:
		return member(st.StatusID, false)
	case fkStatusCategory:
		return member(byID(statuses, st.StatusID).Category.Key, false)
	case fkParent:
		pid := st.ParentID
		if s.site.dataCenter() && (c.f.name == epicLinkClause) == (st.TypeID == IssueTypeSubtaskID) {
			// Data Center: parent is a sub-task's parent only, the Epic
			// Link a story's epic only.
			pid = 0
		}
		return member(itoa(pid), pid == 0)
	case fkLabels:
		if c.op == "is" || c.op == "is not" || r.empty {
			return member("", len(st.Labels) == 0)
		}
		hit := false
		for _, l := range st.Labels {
			if in(l) {
				hit = true
			}
		}
		if c.op == "=" || c.op == "in" {
			return hit
		}
		return len(st.Labels) > 0 && !hit
	case fkDate:
		t := iss.Created
		if c.f.name == "updated" {
			t = st.Updated
		}
		if c.op == "is" || c.op == "is not" || r.empty {
			return c.op == "is not" || c.op == "!="
		}
		v := r.times[0]
		switch c.op {
		case "=":
			return t.Equal(v)
		case "!=":
			return !t.Equal(v)
		case "<":
			return t.Before(v)
		case ">":
			return t.After(v)
		case "<=":
			return !t.After(v)
		case ">=":
			return !t.Before(v)
		}
	case fkText:
		docs := s.textDocs(c.f.name, st)
		if c.op == "is" || c.op == "is not" {
			empty := len(docs) == 0 || (len(docs) == 1 && len(docs[0]) == 0)
			return empty == (c.op == "is")
		}
		match := false
		for _, terms := range r.terms {
			for _, d := range docs {
				if textMatch(d, terms) {
					match = true
				}
			}
		}
		if c.op == "!~" {
			return !match
		}
		return match
	}
	return false
}

// textDocs returns the analysed token lists a text clause searches, cached
// on the (immutable) state. Searches run at once under the read lock, so
// the cache has its own lock (s.docsMu); a field two searches analyse at
// the same moment is analysed twice, to the same result.
func (s *Server) textDocs(field string, st *issueState) [][]string {
	s.docsMu.Lock()
	d, ok := st.docs[field]
	s.docsMu.Unlock()
	if ok {
		return d
	}
	d = s.analyzeDocs(field, st)
	s.docsMu.Lock()
	defer s.docsMu.Unlock()
	if st.docs == nil {
		st.docs = map[string][][]string{}
	}
	st.docs[field] = d
	return d
}

func (s *Server) analyzeDocs(field string, st *issueState) [][]string {
	var out [][]string
	add := func(text string) {
		if text != "" {
			out = append(out, analyze(text))
		}
	}
	switch field {
	case "summary":
		add(st.Summary)
	case "description":
		add(adfText(st.Description))
	case "comment":
		for _, c := range st.CommentText {
			add(c)
		}
	case "text":
		add(st.Summary)
		add(adfText(st.Description))
		for _, c := range st.CommentText {
			add(c)
		}
		for _, v := range st.Custom {
			add(v)
		}
	case refAnyField: // an issue holds the reference field of its type only
		for _, v := range st.Custom {
			add(v)
		}
	default:
		add(st.Custom[field])
	}
	return out
}

// adfText extracts the plain text of an ADF document.
func adfText(doc json.RawMessage) string {
	if len(doc) == 0 {
		return ""
	}
	var n any
	if err := json.Unmarshal(doc, &n); err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch v := x.(type) {
		case map[string]any:
			if t, ok := v["text"].(string); ok {
				b.WriteString(t)
			}
			if c, ok := v["content"]; ok {
				walk(c)
				b.WriteString(" ")
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

func sortStrings(s []string) { sort.Strings(s) }

// run parses, compiles and evaluates jql over the search index. Call with
// s.mu held.
func (s *Server) run(jql string, reconcile map[int64]bool) ([]*issue, []*issueState, *jiraError) {
	hits, states, _, e := s.runWarn(jql, reconcile, false)
	return hits, states, e
}

// runWarn is run; lax (Data Center's validateQuery=false) reports a key
// that does not exist as a warning, not an error: its clause matches
// nothing.
func (s *Server) runWarn(jql string, reconcile map[int64]bool, lax bool) ([]*issue, []*issueState, []string, *jiraError) {
	q, err := parseJQL(jql)
	if err != nil {
		return nil, nil, nil, newErr(err.Error())
	}
	var warnings []string
	if errs := s.compile(q); len(errs) > 0 {
		if lax {
			errs, warnings = slices.DeleteFunc(slices.Clone(errs), missingKey), slices.DeleteFunc(errs, func(e string) bool { return !missingKey(e) })
		}
		if len(errs) > 0 {
			return nil, nil, nil, newErr(errs...)
		}
	}
	if q.where == nil {
		return nil, nil, nil, newErr("Unbounded JQL queries are not allowed here. Please add a search restriction to your query.")
	}
	now := s.now()
	var hits []*issue
	var states []*issueState
	pool := s.issues
	if cand, ok := s.candidates(q.where); ok && !s.noIndex {
		pool = cand
	}
	for _, iss := range pool {
		if !iss.Proj.perms.Browse {
			continue
		}
		st := s.indexed(iss, now, reconcile[iss.ID])
		if st == nil || !s.eval(q.where, iss, st) {
			continue
		}
		hits = append(hits, iss)
		states = append(states, st)
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	order := q.order
	if len(order) == 0 {
		order = []sortKey{{field: "created", desc: true}}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := hits[idx[a]], hits[idx[b]]
		sa, sb := states[idx[a]], states[idx[b]]
		for _, o := range order {
			c := compareBy(s.resolveField(o.field), ia, ib, sa, sb)
			if c != 0 {
				return (c < 0) != o.desc
			}
		}
		if ia.ID != ib.ID {
			return (ia.ID < ib.ID) != order[len(order)-1].desc
		}
		return false
	})
	outI := make([]*issue, len(idx))
	outS := make([]*issueState, len(idx))
	for i, j := range idx {
		outI[i], outS[i] = hits[j], states[j]
	}
	return outI, outS, warnings, nil
}

// missingKey reports whether a compile error is an issue key that does not
// exist (a warning under Data Center's validateQuery=false).
func missingKey(e string) bool { return strings.HasPrefix(e, "An issue with key '") }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareBy(f *jqlField, a, b *issue, sa, sb *issueState) int {
	switch f.kind {
	case fkKey:
		if c := strings.Compare(a.Proj.Key, b.Proj.Key); c != 0 {
			return c
		}
		return cmpInt(int64(a.Num), int64(b.Num))
	case fkDate:
		if f.name == "updated" {
			return sa.Updated.Compare(sb.Updated)
		}
		return a.Created.Compare(b.Created)
	case fkProject:
		return strings.Compare(a.Proj.Key, b.Proj.Key)
	case fkIssueType:
		return strings.Compare(sa.TypeID, sb.TypeID)
	case fkStatus:
		return strings.Compare(sa.StatusID, sb.StatusID)
	case fkStatusCategory:
		return cmpInt(int64(byID(statuses, sa.StatusID).Category.ID), int64(byID(statuses, sb.StatusID).Category.ID))
	case fkParent:
		return cmpInt(sa.ParentID, sb.ParentID)
	case fkText:
		return strings.Compare(strings.ToLower(sa.Summary), strings.ToLower(sb.Summary))
	case fkRank:
		return cmpInt(a.rank, b.rank)
	}
	return 0
}
