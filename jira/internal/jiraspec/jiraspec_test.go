package jiraspec

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func req(t *testing.T, method, target, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}

func TestCheckRequest(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	good := []struct{ method, target, body string }{
		{"GET", "http://127.0.0.1:1/rest/api/3/myself", ""},
		{"POST", "http://127.0.0.1:1/rest/api/3/search/jql", `{"jql":"project = DEMO","fields":["summary"],"maxResults":10,"reconcileIssues":[10001]}`},
		{"GET", "http://127.0.0.1:1/rest/api/3/search/jql?jql=project%3DDEMO&reconcileIssues=10001&reconcileIssues=10002", ""},
		{"POST", "http://127.0.0.1:1/rest/api/3/issue/bulk", `{"issueUpdates":[{"fields":{"summary":"x"},"properties":[{"key":"devworkwire","value":{"digest":"d"}}]}]}`},
		{"PUT", "http://127.0.0.1:1/rest/api/3/issue/DEMO-1", `{"fields":{"summary":"x"}}`},
		{"GET", "http://127.0.0.1:1/ex/jira/abc/rest/api/3/issue/DEMO-1?fields=summary,status", ""},
	}
	for _, g := range good {
		if err := s.CheckRequest(req(t, g.method, g.target, g.body), []byte(g.body)); err != nil {
			t.Errorf("%s %s: %v", g.method, g.target, err)
		}
	}
	bad := []struct{ method, target, body string }{
		{"POST", "http://127.0.0.1:1/rest/api/3/search/jql", `{"jql":"x","nextPagetoken":"typo"}`},
		{"POST", "http://127.0.0.1:1/rest/api/3/search/jql", `{"jql":"x","maxResults":"ten"}`},
		{"GET", "http://127.0.0.1:1/rest/api/3/search/jql?reconcileIssues=10001,10002", ""},
		{"POST", "http://127.0.0.1:1/rest/api/3/search", `{"jql":"x"}`},
		{"DELETE", "http://127.0.0.1:1/rest/api/3/myself", ""},
		{"POST", "http://127.0.0.1:1/rest/api/3/issue/bulk", `{"issueUpdates":[{"properties":[{"key":"k","valu":1}]}]}`},
	}
	for _, b := range bad {
		if err := s.CheckRequest(req(t, b.method, b.target, b.body), []byte(b.body)); err == nil {
			t.Errorf("%s %s %s: accepted", b.method, b.target, b.body)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json;charset=UTF-8"}}
	cases := []struct {
		name   string
		method string
		target string
		status int
		body   string
		ok     bool
	}{
		{"search page", "POST", "/rest/api/3/search/jql", 200, `{"issues":[{"id":"1","key":"D-1","fields":{"summary":"s","description":null}}],"isLast":true}`, true},
		{"search with unknown property", "POST", "/rest/api/3/search/jql", 200, `{"issues":[],"isLast":true,"total":0}`, false},
		{"search with wrong type", "POST", "/rest/api/3/search/jql", 200, `{"issues":[],"isLast":"yes"}`, false},
		{"jira date-time", "POST", "/rest/api/3/issue/D-1/comment", 201, `{"id":"1","created":"2026-01-15T14:30:00.000+0000"}`, true},
		{"bad date-time", "POST", "/rest/api/3/issue/D-1/comment", 201, `{"id":"1","created":"yesterday"}`, false},
		{"error collection", "GET", "/rest/api/3/issue/D-1", 404, `{"errorMessages":["no"],"errors":{}}`, true},
		{"generic 503", "GET", "/rest/api/3/myself", 503, `{"errorMessages":["down"],"errors":{}}`, true},
		{"generic 429 bad body", "GET", "/rest/api/3/myself", 429, `{"message":"slow down"}`, false},
		{"non-JSON error", "GET", "/rest/api/3/myself", 500, `<html>oops</html>`, false},
		{"undocumented status", "GET", "/rest/api/3/myself", 418, `{"errorMessages":[],"errors":{}}`, false},
		{"204 no body", "PUT", "/rest/api/3/issue/D-1", 204, ``, true},
		{"property created, no body", "PUT", "/rest/api/3/issue/D-1/properties/p", 201, ``, true},
		{"bulk partial", "POST", "/rest/api/3/issue/bulk", 201, `{"issues":[{"id":"1","key":"D-1","self":"x"}],"errors":[{"status":400,"failedElementNumber":1,"elementErrors":{"errorMessages":[],"errors":{"summary":"x"}}}]}`, true},
	}
	for _, c := range cases {
		h := json
		if c.body == "" {
			h = http.Header{}
		}
		err := s.CheckResponse(req(t, c.method, "http://127.0.0.1:1"+c.target, ""), nil, c.status, h, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestMiddlewareAndTransport(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rest/api/3/myself":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"accountId":"a","emailAddress":"e@example.com"}`)
		case "/rest/api/3/serverInfo":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"version":7}`) // wrong type
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	srvLog := &Log{}
	mw, err := Middleware(h, srvLog, true)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mw)
	defer ts.Close()
	cliLog := &Log{}
	hc := &http.Client{Transport: &Transport{Log: cliLog}}
	for _, p := range []string{"/rest/api/3/myself", "/rest/api/3/serverInfo", "/_mockjira/requests", "/rest/api/3/nosuch"} {
		res, err := hc.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if p == "/rest/api/3/myself" && !bytes.Contains(b, []byte("accountId")) {
			t.Errorf("transport lost the body: %s", b)
		}
	}
	if v := srvLog.Violations(); len(v) != 1 || v[0].Path != "/rest/api/3/serverInfo" {
		t.Errorf("server-side violations: %v", v)
	}
	if checked, skipped := srvLog.Checked(); checked != 2 || skipped != 2 {
		t.Errorf("server-side checked %d skipped %d", checked, skipped)
	}
	// Client side: the bad serverInfo response and the request to an
	// operation the spec does not have.
	v := cliLog.Violations()
	if len(v) != 3 {
		t.Errorf("client-side violations: %v", v)
	}
	rec := &fakeTB{}
	cliLog.AssertNone(rec)
	if rec.errors != len(v) {
		t.Errorf("AssertNone reported %d of %d", rec.errors, len(v))
	}
}

type fakeTB struct{ errors int }

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Errorf(string, ...any)          { f.errors++ }
func (f *fakeTB) Fatalf(format string, a ...any) { f.errors++ }

// TestDataCenterCheck proves the Data Center check is live where
// Atlassian's Data Center description is at hand ($JIRASPEC_DC_FILE):
// Data Center's answers pass (the corrections in patchDataCenter
// included) and answers of shapes it does not allow are flagged. The
// repository holds no copy of that description (it states no open
// licence), so without the variable there is nothing to check.
func TestDataCenterCheck(t *testing.T) {
	s, err := LoadDataCenter()
	if errors.Is(err, ErrNoDataCenterSpec) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json;charset=UTF-8"}}
	cases := []struct {
		name, method, target string
		status               int
		body                 string
		ok                   bool
	}{
		{"search page", "POST", "/rest/api/2/search", 200, `{"startAt":0,"maxResults":50,"total":1,"issues":[{"id":"1","key":"D-1","fields":{"summary":"s","description":"h1. Title","assignee":null}}]}`, true},
		{"search total not a number", "POST", "/rest/api/2/search", 200, `{"startAt":0,"maxResults":50,"total":"one","issues":[]}`, false},
		{"issue key not a string", "GET", "/rest/api/2/issue/D-1", 200, `{"id":"1","key":1,"fields":{}}`, false},
		{"issue property value as JSON", "GET", "/rest/api/2/issue/D-1/properties/devworkwire", 200, `{"key":"devworkwire","value":{"digest":"d"}}`, true},
		{"field list", "GET", "/rest/api/2/field", 200, `[{"id":"summary","name":"Summary","custom":false,"clauseNames":["summary"]}]`, true},
		{"field list entry with a wrong type", "GET", "/rest/api/2/field", 200, `[{"id":"summary","custom":"no"}]`, false},
		{"user list", "GET", "/rest/api/2/user/search?username=ana", 200, `[{"name":"ana","key":"JIRAUSER10100","displayName":"Ana","active":true}]`, true},
		{"user active not a boolean", "GET", "/rest/api/2/user/search?username=ana", 200, `[{"name":"ana","active":"yes"}]`, false},
		{"server info", "GET", "/rest/api/2/serverInfo", 200, `{"baseUrl":"http://x","version":"11.3.0","deploymentType":"Server","buildNumber":11003}`, true},
		{"sprint state not a string", "GET", "/rest/agile/1.0/sprint/1", 200, `{"id":1,"state":7}`, false},
		{"undocumented status", "GET", "/rest/api/2/myself", 418, `{"errorMessages":[],"errors":{}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := req(t, c.method, c.target, "")
			err := s.CheckResponse(r, nil, c.status, json, []byte(c.body))
			if c.ok && err != nil {
				t.Errorf("flagged: %v", err)
			}
			if !c.ok && err == nil {
				t.Errorf("accepted %s", c.body)
			}
		})
	}
	bad := req(t, "POST", "http://127.0.0.1:1/rest/api/2/search", `{"jql":"x","startAt":"first"}`)
	if err := s.CheckRequest(bad, []byte(`{"jql":"x","startAt":"first"}`)); err == nil {
		t.Error("a search request with startAt as text was accepted")
	}
}
