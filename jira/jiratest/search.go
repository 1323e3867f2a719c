package jiratest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// searchRequest is SearchAndReconcileRequestBean.
type searchRequest struct {
	JQL             string   `json:"jql"`
	NextPageToken   string   `json:"nextPageToken,omitempty"`
	MaxResults      *int     `json:"maxResults,omitempty"`
	Fields          []string `json:"fields,omitempty"`
	Properties      []string `json:"properties,omitempty"`
	ReconcileIssues []int64  `json:"reconcileIssues,omitempty"`
	Expand          string   `json:"expand,omitempty"`
	FieldsByKeys    bool     `json:"fieldsByKeys,omitempty"`
	FailFast        bool     `json:"failFast,omitempty"`
}

const (
	defaultMaxResults = 50
	maxResultsFull    = 100
	maxResultsIDs     = 5000
	maxReconcile      = 50
	maxSearchProps    = 5
)

func (s *Server) handleSearchGet(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := searchRequest{JQL: q.Get("jql"), NextPageToken: q.Get("nextPageToken"), Fields: q["fields"], Properties: q["properties"]}
	var e *jiraError
	if req.MaxResults, e = intParam(q, "maxResults"); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	for _, p := range listEntries(q["reconcileIssues"]) {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The value '%s' is not valid for parameter 'reconcileIssues': issue ids are numbers.", p)))
			return
		}
		req.ReconcileIssues = append(req.ReconcileIssues, n)
	}
	s.search(w, r, req)
}

func (s *Server) handleSearchPost(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if e := decodeStrict(r, &req); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	s.search(w, r, req)
}

// intParam is an integer query parameter (nil when absent); a value that
// is not a number is Jira's 400.
func intParam(q url.Values, name string) (*int, *jiraError) {
	v := q.Get(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, newErr(fmt.Sprintf("The value '%s' is not valid for parameter '%s'.", v, name))
	}
	return &n, nil
}

type pageToken struct {
	Offset int    `json:"o"`
	Query  string `json:"q"`
}

func queryHash(req searchRequest) string {
	h := sha256.Sum256([]byte(req.JQL))
	return hex.EncodeToString(h[:8])
}

func (s *Server) search(w http.ResponseWriter, r *http.Request, req searchRequest) {
	fs := parseFieldSel(req.Fields, "id")
	ps := parsePropSel(req.Properties)
	max := defaultMaxResults
	if req.MaxResults != nil {
		if *req.MaxResults < 0 {
			writeErr(w, http.StatusBadRequest, newErr("The value of 'maxResults' must not be negative."))
			return
		}
		if *req.MaxResults > 0 {
			max = *req.MaxResults
		}
	}
	limit := maxResultsFull
	if fs.onlyID() && !ps.any() {
		limit = maxResultsIDs
	}
	max = min(max, limit)
	if n := len(ps.incl); n > maxSearchProps {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("You can request at most %d issue properties; you requested %d.", maxSearchProps, n)))
		return
	}
	if len(req.ReconcileIssues) > maxReconcile {
		writeErr(w, http.StatusBadRequest, newErr(fmt.Sprintf("The number of issues to reconcile exceeds the limit of %d.", maxReconcile)))
		return
	}
	offset := 0
	if req.NextPageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(req.NextPageToken)
		var tok pageToken
		if err == nil {
			err = json.Unmarshal(raw, &tok)
		}
		if err != nil || tok.Query != queryHash(req) || tok.Offset < 0 {
			writeErr(w, http.StatusBadRequest, newErr("The provided next page token is invalid or expired, or was issued for a different query."))
			return
		}
		offset = tok.Offset
	}
	reconcile := map[int64]bool{}
	for _, id := range req.ReconcileIssues {
		reconcile[id] = true
	}
	s.withSearch(w, req.JQL, reconcile, func(hits []*issue, states []*issueState) answer {
		return s.page(r, req, hits, states, offset, max, fs, ps)
	})
}

// page renders one page of search results. Call with s.mu held.
func (s *Server) page(r *http.Request, req searchRequest, hits []*issue, states []*issueState, offset, max int, fs fieldSel, ps propSel) answer {
	base := s.base(r)
	out := []any{}
	end := min(offset+max, len(hits))
	for i := min(offset, len(hits)); i < end; i++ {
		out = append(out, s.renderIssue(base, hits[i], states[i], fs, ps))
	}
	resp := map[string]any{"issues": out, "isLast": end >= len(hits)}
	if end < len(hits) {
		b, _ := json.Marshal(pageToken{Offset: end, Query: queryHash(req)})
		resp["nextPageToken"] = base64.RawURLEncoding.EncodeToString(b)
	}
	return encodeJSON(http.StatusOK, resp)
}

func (s *Server) handleCount(w http.ResponseWriter, r *http.Request) {
	var req struct {
		JQL string `json:"jql"`
	}
	if e := decodeStrict(r, &req); e != nil {
		writeErr(w, http.StatusBadRequest, e)
		return
	}
	s.withSearch(w, req.JQL, nil, func(hits []*issue, _ []*issueState) answer {
		return encodeJSON(http.StatusOK, map[string]any{"count": len(hits)})
	})
}

// withSearch runs jql over the search index and answers with what h
// encodes from the hits (400 with Jira's message when the JQL is refused).
// It holds s.mu for reading (readAnswer): searches are evaluated and
// rendered at the same time, and a write waits until those in progress
// have encoded their answers, so none sees half a write.
func (s *Server) withSearch(w http.ResponseWriter, jql string, reconcile map[int64]bool, h func(hits []*issue, states []*issueState) answer) {
	s.readAnswer(w, func() answer {
		hits, states, e := s.run(jql, reconcile)
		if e != nil {
			return encodeJSON(http.StatusBadRequest, e)
		}
		s.found()
		return h(hits, states)
	})
}
