package jira

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// acProxy puts a multi-line "Acceptance Criteria" custom field in front of
// the fake Jira (which models only the reference field): it lists the
// field, keeps its values itself and injects them into issue reads.
type acProxy struct {
	inner http.Handler
	mu    sync.Mutex
	vals  map[string]json.RawMessage // issue key → field value
}

const acFieldID = "customfield_10070"

var acSchema = map[string]any{"type": "string", "custom": jiratest.TextAreaFieldType, "customId": 10070}

func (p *acProxy) forward(r *http.Request, body []byte) *httptest.ResponseRecorder {
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	rec := httptest.NewRecorder()
	p.inner.ServeHTTP(rec, r2)
	return rec
}

func reply(w http.ResponseWriter, rec *httptest.ResponseRecorder, body []byte) {
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// strip removes the AC field from a create/edit element and returns it.
func strip(el map[string]any) (json.RawMessage, bool) {
	fields, _ := el["fields"].(map[string]any)
	v, ok := fields[acFieldID]
	if !ok {
		return nil, false
	}
	delete(fields, acFieldID)
	b, _ := json.Marshal(v)
	return b, true
}

func (p *acProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == "GET" && path == "/rest/api/3/field":
		rec := p.forward(r, body)
		var fs []map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &fs)
		fs = append(fs, map[string]any{"id": acFieldID, "key": acFieldID, "name": "Acceptance Criteria", "custom": true, "orderable": true, "navigable": true, "searchable": true, "clauseNames": []string{"cf[10070]"}, "schema": acSchema})
		b, _ := json.Marshal(fs)
		reply(w, rec, b)
	case r.Method == "GET" && strings.HasPrefix(path, "/rest/api/3/issue/createmeta/") && strings.Count(path, "/") == 8:
		rec := p.forward(r, body)
		var page map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &page)
		fields, _ := page["fields"].([]any)
		page["fields"] = append(fields, map[string]any{"fieldId": acFieldID, "key": acFieldID, "name": "Acceptance Criteria", "required": false, "hasDefaultValue": false, "operations": []string{"set"}, "schema": acSchema})
		if t, ok := page["total"].(float64); ok {
			page["total"] = t + 1
		}
		b, _ := json.Marshal(page)
		reply(w, rec, b)
	case r.Method == "POST" && path == "/rest/api/3/issue/bulk":
		var req struct {
			IssueUpdates []map[string]any `json:"issueUpdates"`
		}
		_ = json.Unmarshal(body, &req)
		vals := make([]json.RawMessage, len(req.IssueUpdates))
		for i, el := range req.IssueUpdates {
			vals[i], _ = strip(el)
		}
		nb, _ := json.Marshal(req)
		rec := p.forward(r, nb)
		var resp struct {
			Issues []struct{ Key string } `json:"issues"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &resp)
		p.mu.Lock()
		for i, is := range resp.Issues { // the test sends no failing element
			p.vals[is.Key] = vals[i]
		}
		p.mu.Unlock()
		reply(w, rec, rec.Body.Bytes())
	case r.Method == "PUT" && strings.HasPrefix(path, "/rest/api/3/issue/"):
		var el map[string]any
		_ = json.Unmarshal(body, &el)
		v, ok := strip(el)
		nb, _ := json.Marshal(el)
		rec := p.forward(r, nb)
		if ok && rec.Code < 300 {
			p.mu.Lock()
			p.vals[strings.TrimPrefix(path, "/rest/api/3/issue/")] = v
			p.mu.Unlock()
		}
		reply(w, rec, rec.Body.Bytes())
	case (r.Method == "GET" && strings.HasPrefix(path, "/rest/api/3/issue/") && strings.Count(path, "/") == 5) || (r.Method == "POST" && path == "/rest/api/3/search/jql"):
		// Ask the fake without the AC field, then add it.
		if r.Method == "GET" {
			q := r.URL.Query()
			q.Set("fields", strings.ReplaceAll(q.Get("fields"), ","+acFieldID, ""))
			r = r.Clone(r.Context())
			r.URL.RawQuery = q.Encode()
		} else {
			var req map[string]any
			_ = json.Unmarshal(body, &req)
			if fs, ok := req["fields"].([]any); ok {
				req["fields"] = slices.DeleteFunc(fs, func(f any) bool { return f == acFieldID })
			}
			body, _ = json.Marshal(req)
		}
		rec := p.forward(r, body)
		var out map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &out) != nil || rec.Code >= 300 {
			reply(w, rec, rec.Body.Bytes())
			return
		}
		issues := []any{out}
		if is, ok := out["issues"].([]any); ok {
			issues = is
		}
		p.mu.Lock()
		for _, x := range issues {
			is, _ := x.(map[string]any)
			if f, ok := is["fields"].(map[string]any); ok {
				if v, ok := p.vals[is["key"].(string)]; ok {
					f[acFieldID] = v
				} else {
					f[acFieldID] = nil
				}
			}
		}
		p.mu.Unlock()
		b, _ := json.Marshal(out)
		reply(w, rec, b)
	default:
		rec := p.forward(r, body)
		reply(w, rec, rec.Body.Bytes())
	}
}

// TestAcceptanceCriteriaField: with AcceptanceCriteriaField set, criteria
// go to that (multi-line, ADF) field, not the description, and read back
// as a list without drift.
func TestAcceptanceCriteriaField(t *testing.T) {
	var proxy *acProxy
	srv, p := startBehind(t, jiratest.Options{}, func(fake *jiratest.Server) http.Handler {
		proxy = &acProxy{inner: fake, vals: map[string]json.RawMessage{}}
		return proxy
	}, func(c *Config) { c.AcceptanceCriteriaField = "Acceptance Criteria" })
	ctx := t.Context()
	spec := core.ItemSpec{Reference: "ac/s-1", Kind: core.KindStory, Title: "With criteria", Description: "Just the description.", AcceptanceCriteria: []string{"First", "Second one"}, Digest: "sha256:a"}
	out, err := p.Create(ctx, []core.ItemSpec{spec})
	if err != nil || out[0].Err != nil {
		t.Fatalf("Create: %v %+v", err, out)
	}
	key := out[0].Key
	is, _ := srv.Issue(key)
	if strings.Contains(string(is.Description), "Acceptance criteria") {
		t.Errorf("criteria written into the description: %s", is.Description)
	}
	var adfDoc map[string]any
	if err := json.Unmarshal(proxy.vals[key], &adfDoc); err != nil || adfDoc["type"] != "doc" {
		t.Fatalf("AC field value %s; want an ADF document", proxy.vals[key])
	}
	w, err := p.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if w.Description != spec.Description || !slices.Equal(w.AcceptanceCriteria, spec.AcceptanceCriteria) || w.EditedOutside {
		t.Errorf("read back: description %q, criteria %q, edited outside %v", w.Description, w.AcceptanceCriteria, w.EditedOutside)
	}
	spec.AcceptanceCriteria = []string{"Only"}
	if err := p.Update(ctx, key, spec); err != nil {
		t.Fatal(err)
	}
	got, err := p.Lookup(ctx, []core.Reference{spec.Reference}, nil)
	if err != nil || !slices.Equal(got[spec.Reference].AcceptanceCriteria, []string{"Only"}) || got[spec.Reference].EditedOutside {
		t.Errorf("after update, lookup = %+v, %v", got[spec.Reference], err)
	}
}
