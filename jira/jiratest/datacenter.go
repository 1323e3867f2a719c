package jiratest

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/jira/adf"
	"github.com/devworkwire/devworkwire/jira/wiki"
)

// EpicLinkFieldID is the Epic Link field of a Data Center site
// (com.pyxis.greenhopper.jira:gh-epic-link): a story's epic there, where
// Cloud uses parent (Data Center keeps parent for sub-tasks).
const EpicLinkFieldID = "customfield_10008"

// Data Center's search pages (jira.search.views.default.max).
const (
	dcDefaultMaxResults = 50
	dcMaxResults        = 1000
)

// serveDataCenter answers a Data Center site's /rest/api/2 requests (REST
// API v2 as Jira Data Center 10 and 11 serve it) by translating them to the
// Cloud handlers and their answers back: a personal access token as
// "Authorization: Bearer" (Jira 11 turns basic auth off by default), text
// (description, comments) as wiki markup (jira/wiki; the site keeps ADF
// inside), a story's epic in the Epic Link field (parent only for
// sub-tasks), createmeta pages as "values", people with name and key
// (no accountId), search by /rest/api/2/search with startAt/maxResults and
// a total (no nextPageToken), and no search/jql, bulkfetch or
// approximate-count. It reports whether it answered.
func (s *Server) serveDataCenter(w http.ResponseWriter, r *http.Request) bool {
	s.mu.RLock()
	dc := s.site.dataCenter()
	s.mu.RUnlock()
	agile := strings.HasPrefix(r.URL.Path, "/rest/agile/1.0/")
	if r.URL.Path == "/rest/api/2/serverInfo" {
		// Anonymous, or with a token that is not the site's: as on Cloud.
		if !dc || !s.bearerOK(r) {
			return false
		}
		in := r.Clone(r.Context())
		in.Header.Set("Authorization", s.AuthHeader())
		s.mux.ServeHTTP(w, in) // names the account as Data Center does (nameAccount)
		return true
	}
	if !dc || !agile && !strings.HasPrefix(r.URL.Path, "/rest/api/2/") {
		return false
	}
	if !s.bearerOK(r) {
		w.Header().Set("WWW-Authenticate", `OAuth realm="`+s.base(r)+`"`)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"errorMessages": []string{"You are not authenticated. Authentication required to perform this operation."}, "errors": map[string]any{}})
		return true
	}
	s.nameAccount(w)
	if agile { // the Agile API is Cloud's, with Data Center's credentials and text
		in := r.Clone(r.Context())
		in.Header.Set("Authorization", s.AuthHeader())
		rec := httptest.NewRecorder()
		s.mux.ServeHTTP(rec, in)
		s.dcAnswer(w, r, rec, "")
		return true
	}
	rest := strings.TrimPrefix(r.URL.Path, "/rest/api/2")
	switch {
	case rest == "/search/jql" || rest == "/issue/bulkfetch" || rest == "/search/approximate-count":
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "null for uri: " + s.base(r) + r.URL.Path, "status-code": http.StatusNotFound})
		return true
	case rest == "/search":
		s.dcSearch(w, r)
		return true
	}
	in, texts, e := s.dcRequest(r, rest)
	if e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return true
	}
	rec := httptest.NewRecorder()
	s.mux.ServeHTTP(rec, in)
	if rec.Code/100 == 2 && len(texts) > 0 {
		s.keepWiki(rest, rec.Body.Bytes(), texts)
	}
	s.dcAnswer(w, r, rec, rest)
	return true
}

// wikiText is a text a Data Center request sent as wiki markup: the
// element of a bulk create it belongs to (0 otherwise), the text, and the
// document the site keeps for it (canonical JSON).
type wikiText struct {
	elem      int
	text, doc string
}

// keepWiki remembers texts, sent in a write that succeeded, under the
// issue each belongs to: the created issue (a bulk create's elements that
// did not fail, in order), or the issue of the path (an edit, a comment).
func (s *Server) keepWiki(rest string, answer []byte, texts []wikiText) {
	var keys []string // by element
	var a struct {
		Key    string `json:"key"`
		Issues []struct {
			Key string `json:"key"`
		} `json:"issues"`
		Errors []struct {
			Failed int `json:"failedElementNumber"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(answer, &a)
	switch {
	case rest == "/issue":
		keys = []string{a.Key}
	case rest == "/issue/bulk":
		failed := map[int]bool{}
		for _, e := range a.Errors {
			failed[e.Failed] = true
		}
		next := 0
		for i := 0; next < len(a.Issues); i++ {
			if failed[i] {
				keys = append(keys, "")
				continue
			}
			keys = append(keys, a.Issues[next].Key)
			next++
		}
	case strings.HasPrefix(rest, "/issue/"):
		key, _, _ := strings.Cut(strings.TrimPrefix(rest, "/issue/"), "/")
		keys = []string{key}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range texts {
		if t.elem >= len(keys) {
			continue
		}
		if iss := s.issueByKeyOrID(keys[t.elem]); iss != nil {
			s.keepWikiLocked(iss.ID, t.doc, t.text)
		}
	}
}

// keepWikiLocked remembers text, written for doc (canonical JSON) on the
// issue with that id. The caller holds s.mu.
func (s *Server) keepWikiLocked(id int64, doc, text string) {
	if s.dcWiki == nil {
		s.dcWiki = map[int64]map[string]string{}
	}
	if s.dcWiki[id] == nil {
		s.dcWiki[id] = map[string]string{}
	}
	s.dcWiki[id][doc] = text
}

// wikiAsWritten is the text written for doc on the issue with that id, if
// the site was sent it as wiki markup.
func (s *Server) wikiAsWritten(issueID string, doc map[string]any) (string, bool) {
	id, err := strconv.ParseInt(issueID, 10, 64)
	if err != nil {
		return "", false
	}
	b, _ := json.Marshal(doc)
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.dcWiki[id][string(b)]
	return t, ok
}

// bearerOK checks "Authorization: Bearer <personal access token>".
func (s *Server) bearerOK(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.opts.Token)) == 1
}

// dcRequest is r as the Cloud handlers take it: /rest/api/3, Cloud's
// credentials, wiki text as ADF, Epic Link as parent; and the wiki texts
// it sent.
func (s *Server) dcRequest(r *http.Request, rest string) (*http.Request, []wikiText, *jiraError) {
	in := r.Clone(r.Context())
	in.URL.Path = "/rest/api/3" + rest
	in.URL.RawPath = ""
	in.Header.Set("Authorization", s.AuthHeader())
	if strings.HasPrefix(rest, "/user/") && strings.HasSuffix(rest, "/search") || rest == "/user/search" {
		// Data Center's user searches take username (matched against
		// user name, display name and e-mail), Cloud's query.
		q := in.URL.Query()
		if u := q.Get("username"); u != "" {
			q.Del("username")
			q.Set("query", u)
		}
		if u := q.Get("username"); u == "" && q.Get("query") != "" && s.userByDCName(q.Get("query")) != nil {
			q.Set("accountId", s.userByDCName(q.Get("query")).AccountID)
			q.Del("query")
		}
		in.URL.RawQuery = q.Encode()
	}
	if r.Body == nil || r.ContentLength == 0 || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
		return in, nil, nil
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, nil, newErr("mockjira could not read the request body.")
	}
	var body any
	var texts []wikiText
	if json.Unmarshal(raw, &body) == nil {
		if m, ok := body.(map[string]any); ok {
			if e := s.dcBodyToCloud(m, 0, &texts); e != nil {
				return nil, nil, e
			}
			raw, _ = json.Marshal(m)
		}
	}
	in.Body = io.NopCloser(bytes.NewReader(raw))
	in.ContentLength = int64(len(raw))
	return in, texts, nil
}

// dcBodyToCloud rewrites a create, edit, bulk create or comment body:
// wiki text becomes ADF (each text, as written, added to texts under
// elem, the element of a bulk create), the Epic Link becomes parent, a
// person named by {"name": ...} is named by account id.
func (s *Server) dcBodyToCloud(m map[string]any, elem int, texts *[]wikiText) *jiraError {
	if ups, ok := m["issueUpdates"].([]any); ok {
		for i, u := range ups {
			if um, ok := u.(map[string]any); ok {
				if e := s.dcBodyToCloud(um, i, texts); e != nil {
					return e
				}
			}
		}
		return nil
	}
	if b, ok := m["body"].(string); ok { // a comment
		m["body"] = keptWiki(b, elem, texts)
	}
	f, ok := m["fields"].(map[string]any)
	if !ok {
		return nil
	}
	for k, v := range f {
		if ref, ok := v.(map[string]any); ok && len(ref) == 1 {
			if name, ok := ref["name"].(string); ok {
				if u := s.userByDCName(name); u != nil {
					f[k] = map[string]any{"accountId": u.AccountID}
				}
			}
		}
	}
	if d, ok := f["description"]; ok {
		switch d := d.(type) {
		case nil:
		case string:
			f["description"] = keptWiki(d, elem, texts)
		default:
			return newErr("Field 'description': Data Center takes text (wiki markup), not a document.")
		}
	}
	if v, ok := f[EpicLinkFieldID]; ok {
		delete(f, EpicLinkFieldID)
		switch v := v.(type) {
		case nil:
			f["parent"] = nil
		case string:
			f["parent"] = map[string]any{"key": v}
		default:
			return newErr("Field 'Epic Link': give the epic's issue key.")
		}
	}
	return nil
}

// keptWiki is wikiToADF(w), w added to texts.
func keptWiki(w string, elem int, texts *[]wikiText) any {
	d := wikiToADF(w)
	if d != nil {
		b, _ := json.Marshal(d)
		*texts = append(*texts, wikiText{elem: elem, text: w, doc: string(b)})
	}
	return d
}

// wikiToADF is the document the site keeps for wiki text ("" is none).
func wikiToADF(w string) any {
	if strings.TrimSpace(w) == "" {
		return nil
	}
	d, _ := wiki.Parse(w)
	b, _ := json.Marshal(d)
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// dcAnswer writes a Cloud handler's answer as Data Center's.
func (s *Server) dcAnswer(w http.ResponseWriter, r *http.Request, rec *httptest.ResponseRecorder, rest string) {
	for k, vs := range rec.Header() {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
	body := rec.Body.Bytes()
	var v any
	if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &v) == nil {
		if m, ok := v.(map[string]any); ok && strings.HasPrefix(rest, "/issue/createmeta/") {
			for _, k := range []string{"issueTypes", "fields"} {
				if x, ok := m[k]; ok {
					delete(m, k)
					m["values"] = x
				}
			}
		}
		if rest == "/field" && r.Method == http.MethodGet {
			if list, ok := v.([]any); ok {
				v = append(list, map[string]any{
					"id": EpicLinkFieldID, "key": EpicLinkFieldID, "name": "Epic Link", "custom": true, "orderable": true, "navigable": true, "searchable": true,
					"clauseNames": []string{"cf[10008]", "Epic Link"},
					"schema":      map[string]any{"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link", "customId": 10008},
				})
			}
		}
		issue := ""
		if k, _, ok := strings.Cut(strings.TrimPrefix(rest, "/issue/"), "/"); ok && strings.HasPrefix(rest, "/issue/") {
			s.mu.RLock()
			if iss := s.issueByKeyOrID(k); iss != nil {
				issue = itoa(iss.ID)
			}
			s.mu.RUnlock()
		}
		v = s.dcJSON(v, issue)
		body, _ = json.Marshal(v)
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// dcJSON rewrites a Cloud answer as Data Center's, in place: documents as
// wiki markup (as written, when the site was sent that text for the issue
// whose id is issue), v3 addresses as v2, people by name and key, a
// story's epic in Epic Link.
func (s *Server) dcJSON(v any, issue string) any {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "doc" && v["content"] != nil {
			if w, ok := s.wikiAsWritten(issue, v); ok {
				return w
			}
			return adfToWiki(v)
		}
		if id, ok := v["id"].(string); ok && v["key"] != nil && v["fields"] != nil {
			issue = id // an issue: its texts
		}
		if id, ok := v["accountId"].(string); ok {
			name := s.dcUserName(id)
			v["name"], v["key"] = name, "JIRAUSER"+strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(id))%90000+10000), 10)
			delete(v, "accountId")
			delete(v, "accountType")
		}
		for k, x := range v {
			if self, ok := x.(string); ok && k == "self" {
				v[k] = strings.Replace(self, "/rest/api/3/", "/rest/api/2/", 1)
				continue
			}
			if u, ok := x.(string); ok && k == "autoCompleteUrl" {
				// A user picker's search, in Data Center's terms.
				v[k] = strings.Replace(strings.Replace(u, "/rest/api/3/", "/rest/api/2/", 1), "query=", "username=", 1)
				continue
			}
			v[k] = s.dcJSON(x, issue)
		}
		if f, ok := v["fields"].(map[string]any); ok {
			s.dcEpicLink(f)
		}
		return v
	case []any:
		for i := range v {
			v[i] = s.dcJSON(v[i], issue)
		}
		return v
	}
	return v
}

// dcUserName is the user name Data Center shows for a person: the
// e-mail's local part, else the account id.
func (s *Server) dcUserName(accountID string) string {
	s.mu.RLock()
	u := s.userByAccount(accountID)
	s.mu.RUnlock()
	if u == nil || u.Email == "" {
		return accountID
	}
	name, _, _ := strings.Cut(u.Email, "@")
	return name
}

// userByDCName is the person with that Data Center user name (ignoring
// case), or nil.
func (s *Server) userByDCName(name string) *User {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, u := range s.users() {
		local, _, _ := strings.Cut(u.Email, "@")
		if u.Email != "" && strings.EqualFold(local, name) || strings.EqualFold(u.AccountID, name) {
			return &u
		}
	}
	return nil
}

// dcEpicLink moves a story's parent (an epic) to Epic Link; a sub-task
// keeps its parent.
func (s *Server) dcEpicLink(f map[string]any) {
	p, ok := f["parent"].(map[string]any)
	if !ok {
		return
	}
	key, _ := p["key"].(string)
	s.mu.RLock()
	par := s.issueByKeyOrID(key)
	epic := par != nil && par.cur != nil && par.cur.TypeID == IssueTypeEpicID
	s.mu.RUnlock()
	if epic {
		delete(f, "parent")
		f[EpicLinkFieldID] = key
	}
}

// adfToWiki is a document as the wiki markup Data Center keeps.
func adfToWiki(doc map[string]any) string {
	b, _ := json.Marshal(doc)
	var d adf.Doc
	if json.Unmarshal(b, &d) != nil {
		return ""
	}
	w, _ := wiki.FromADF(d)
	return w
}

// epicLinkClause names the Epic Link in a Data Center site's JQL
// (cf[10008] or "Epic Link"): the site keeps a story's epic as its parent
// inside, and parent in JQL there finds only sub-tasks (eval.go).
const epicLinkClause = "Epic Link"

// dcSearch is GET and POST /rest/api/2/search: startAt, maxResults
// (default 50, at most 1,000), total; fields and properties as on Cloud.
func (s *Server) dcSearch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		JQL        string   `json:"jql"`
		StartAt    int      `json:"startAt"`
		MaxResults *int     `json:"maxResults"`
		Fields     []string `json:"fields"`
		Properties []string `json:"properties"`
		Expand     any      `json:"expand"`
		Validate   any      `json:"validateQuery"`
	}
	if r.Method == http.MethodPost {
		if e := decodeStrict(r, &req); e != nil {
			writeErr(w, http.StatusBadRequest, e)
			return
		}
	} else {
		q := r.URL.Query()
		req.JQL = q.Get("jql")
		start, e := intParam(q, "startAt")
		if e == nil {
			req.MaxResults, e = intParam(q, "maxResults")
		}
		if e != nil {
			writeErr(w, http.StatusBadRequest, e)
			return
		}
		if start != nil {
			req.StartAt = *start
		}
		for _, f := range q["fields"] {
			req.Fields = append(req.Fields, strings.Split(f, ",")...)
		}
		for _, p := range q["properties"] {
			req.Properties = append(req.Properties, strings.Split(p, ",")...)
		}
	}
	limit := dcDefaultMaxResults
	if req.MaxResults != nil && *req.MaxResults >= 0 {
		limit = *req.MaxResults
	}
	limit = min(limit, dcMaxResults)
	start := max(req.StartAt, 0)
	fs := parseFieldSel(req.Fields, "*navigable")
	ps := parsePropSel(req.Properties)
	// validateQuery false: a key that does not exist is a warning
	// (warningMessages), the query runs.
	lax := req.Validate == false || req.Validate == "false" || r.URL.Query().Get("validateQuery") == "false"
	rec := httptest.NewRecorder()
	s.readAnswer(rec, func() answer {
		hits, states, warnings, e := s.runWarn(req.JQL, nil, lax)
		if e != nil {
			return encodeJSON(http.StatusBadRequest, e)
		}
		s.found()
		base := s.base(r)
		out := []any{}
		end := min(start+limit, len(hits))
		for i := min(start, len(hits)); i < end; i++ {
			out = append(out, s.renderIssue(base, hits[i], states[i], fs, ps))
		}
		page := map[string]any{"expand": "schema,names", "startAt": start, "maxResults": limit, "total": len(hits), "issues": out}
		if len(warnings) > 0 {
			page["warningMessages"] = warnings
		}
		return encodeJSON(http.StatusOK, page)
	})
	s.dcAnswer(w, r, rec, "/search")
}
