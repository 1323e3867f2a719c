package jira

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/jira/internal/jql"
	"github.com/devworkwire/devworkwire/jira/wiki"
)

// Jira Data Center.
//
// The Provider serves Jira Cloud and Jira Data Center (10 and 11) with the
// same code. Every request is built in Cloud's terms; the Data Center
// dialect is one seam at the transport (Provider.dialect, called by do)
// that rewrites a call for Data Center's REST API v2 and reads the answer
// back in Cloud's terms:
//
//   - /rest/api/3/… is /rest/api/2/… (the Agile API is the same on both);
//   - the personal access token goes as "Authorization: Bearer" (Jira 11
//     turns basic auth off by default), never with an e-mail;
//   - POST search/jql (nextPageToken) is POST search with startAt: the
//     page token is the next startAt, the last page is the one that
//     reaches the total; reconcileIssues is dropped (Data Center indexes
//     an issue on the node that wrote it before answering the write);
//   - POST issue/bulkfetch (which Data Center does not have) is POST
//     search for "key in (…)" with validateQuery false, so that a key that
//     does not exist (the tail read, the duplicate check) is a warning and
//     not a refusal of the whole page;
//   - createmeta pages carry "values" where Cloud's carry "issueTypes"
//     and "fields";
//   - people are named by user name: a user's "name" reads as its
//     accountId, a write's {"accountId": x} goes as {"name": x}, and the
//     user searches take username where Cloud's take query or accountId;
//   - a story's epic is the Epic Link field (parent is for sub-tasks
//     only): read back as the parent, written by epicLinkOut.
//
// Where the difference is about meaning rather than shape, the code asks
// at that one point: the text codec (richText writes wiki markup, readADF
// reads it; jira/wiki), the Epic Link on a write (epicLinkOut) and in JQL
// (epicClause), and the credentials' wording in messages.

// Deployments (Config.Deployment).
const (
	DeploymentCloud      = "cloud"
	DeploymentDataCenter = "datacenter"
)

// epicLinkFieldType is the Epic Link field of Jira Software on Data
// Center: a story's epic.
const epicLinkFieldType = "com.pyxis.greenhopper.jira:gh-epic-link"

// Data Center's search: the endpoint every search and bulk fetch becomes.
const (
	dcSearchPath     = "/rest/api/2/search"
	dcSearchEndpoint = "POST /rest/api/2/search"
)

// dataCenter reports whether the Provider talks to Jira Data Center.
func (p *Provider) dataCenter() bool { return p.cfg.Deployment == DeploymentDataCenter }

// dcMeta is what discovery learns that only a Data Center site uses.
type dcMeta struct {
	epicLink string // the Epic Link field's id ("" on Cloud)
}

// learnDeployment notes the fields a Data Center site needs from its field
// list: the Epic Link (Cloud's company-managed sites have one too, but
// Cloud writes a story's epic as its parent, so it is not used there).
func (p *Provider) learnDeployment(m *meta, fields []fieldDetails) {
	if !p.dataCenter() {
		return
	}
	for _, f := range fields {
		if f.Schema.Custom == epicLinkFieldType {
			m.epicLink = f.ID
			id := f.ID
			p.epicLinkID.Store(&id)
		}
	}
}

// authorize sets the request's credentials: the API token with the
// account's e-mail (basic auth) on Cloud, the personal access token as a
// bearer token on Data Center.
func (p *Provider) authorize(req *http.Request) {
	if p.dataCenter() {
		req.Header.Set("Authorization", "Bearer "+p.cfg.Token)
		return
	}
	req.SetBasicAuth(p.cfg.Email, p.cfg.Token)
}

// whose names the Jira account the credentials belong to, for messages.
func (p *Provider) whose() string {
	if p.dataCenter() {
		return "the owner of the personal access token"
	}
	return p.cfg.Email
}

// renewCredentials says how to fix credentials Jira rejected.
func (p *Provider) renewCredentials() string {
	if p.dataCenter() {
		return "Create a new personal access token in Jira (your profile → Personal Access Tokens) if the old one expired or was revoked, and export it in the environment variable your configuration names."
	}
	return "Check the e-mail and create a new API token at https://id.atlassian.com/manage-profile/security/api-tokens if the old one expired or was revoked."
}

// richText is Markdown as the site's text fields take it: an ADF document
// on Cloud, wiki markup (a JSON string) on Data Center; nil for empty
// Markdown. readADF reads either back.
func (p *Provider) richText(md string) (json.RawMessage, error) {
	if !p.dataCenter() {
		return toADF(md)
	}
	if strings.TrimSpace(md) == "" {
		return nil, nil
	}
	w, err := wiki.FromMarkdown(md)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// epicLinkOut moves a story's epic from parent, where the Cloud code puts
// it, to the Epic Link field on Data Center; a sub-task keeps its parent.
func (p *Provider) epicLinkOut(m *meta, sub bool, fields map[string]any) {
	v, ok := fields["parent"]
	if !p.dataCenter() || !ok || sub || m.epicLink == "" {
		return
	}
	delete(fields, "parent")
	if ref, ok := v.(map[string]string); ok {
		fields[m.epicLink] = ref["key"]
		return
	}
	fields[m.epicLink] = nil
}

// epicClause is the JQL of the stories of an epic: parent on Cloud, the
// Epic Link on Data Center (whose parent clause finds only sub-tasks).
func (p *Provider) epicClause(m *meta, key string) string {
	if p.dataCenter() && m.epicLink != "" {
		return jql.CustomField(m.epicLink) + " = " + jql.String(key)
	}
	return "parent = " + jql.String(key)
}

// dcSearchRequest is the body of Data Center's POST /rest/api/2/search.
type dcSearchRequest struct {
	JQL           string   `json:"jql"`
	StartAt       int      `json:"startAt"`
	MaxResults    int      `json:"maxResults"`
	Fields        []string `json:"fields"`
	Properties    []string `json:"properties"`
	ValidateQuery *bool    `json:"validateQuery,omitempty"`
}

// dialect rewrites a call built in Cloud's terms for the site's deployment
// and returns how to read its answer (a 2xx body) back in Cloud's terms;
// on Cloud it returns the call as it is and no reader.
func (p *Provider) dialect(c call) (call, func([]byte) []byte) {
	if !p.dataCenter() {
		return c, nil
	}
	cloud := c.endpoint
	c.path = strings.Replace(c.path, "/rest/api/3/", "/rest/api/2/", 1)
	c.endpoint = strings.Replace(c.endpoint, "/rest/api/3/", "/rest/api/2/", 1)
	switch cloud {
	case searchEndpoint:
		if req, ok := c.body.(searchRequest); ok {
			start, _ := strconv.Atoi(req.NextPageToken)
			c.body = dcSearchRequest{JQL: req.JQL, StartAt: start, MaxResults: req.MaxResults, Fields: req.Fields, Properties: req.Properties}
			c.path, c.endpoint = dcSearchPath, dcSearchEndpoint
		}
		return c, p.dcSearchAnswer
	case bulkFetchEndpoint:
		req, ok := c.body.(bulkFetchRequest)
		if !ok {
			return c, p.dcAnswer
		}
		lax := false
		c.body = dcSearchRequest{JQL: "key in " + jql.List(req.IssueIdsOrKeys), MaxResults: len(req.IssueIdsOrKeys), Fields: req.Fields, Properties: req.Properties, ValidateQuery: &lax}
		c.path, c.endpoint = dcSearchPath, dcSearchEndpoint
		return c, func(body []byte) []byte { return p.dcFetchAnswer(body, req.IssueIdsOrKeys) }
	case "POST /rest/api/3/issue/bulk", "POST /rest/api/3/issue", "PUT /rest/api/3/issue/{key}":
		c.body = dcPeople(c.body)
	case "GET /rest/api/3/issue/createmeta/{project}/issuetypes":
		return c, valuesAs("issueTypes")
	case "GET /rest/api/3/issue/createmeta/{project}/issuetypes/{id}":
		return c, valuesAs("fields")
	case "GET /rest/api/3/user/assignable/search", "GET /rest/api/3/user/search":
		q := url.Values{}
		for k, v := range c.query {
			if k == "query" || k == "accountId" {
				k = "username"
			}
			q[k] = v
		}
		c.query = q
	}
	return c, p.dcAnswer
}

// valuesAs renames a Data Center page's "values" to Cloud's name for them.
func valuesAs(name string) func([]byte) []byte {
	return func(body []byte) []byte {
		return editObject(body, func(page map[string]json.RawMessage) {
			if v, ok := page["values"]; ok {
				page[name] = v
				delete(page, "values")
			}
		})
	}
}

// editObject is body, a JSON object, as edit changes it (body itself when
// it is not an object).
func editObject(body []byte, edit func(map[string]json.RawMessage)) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	edit(obj)
	b, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return b
}

// dcSearchAnswer reads a Data Center search page as search/jql's (and bulk
// fetch's): the next page's token is its startAt, the page that reaches
// the total is the last.
func (p *Provider) dcSearchAnswer(body []byte) []byte {
	v, ok := decodeAny(body)
	page, isMap := v.(map[string]any)
	if !ok || !isMap {
		return body
	}
	num := func(k string) int {
		n, _ := page[k].(json.Number).Int64()
		return int(n)
	}
	issues, _ := page["issues"].([]any)
	next := num("startAt") + len(issues)
	last := len(issues) == 0 || next >= num("total")
	out := map[string]any{"issues": p.dcWalk(page["issues"]), "isLast": last}
	if !last {
		out["nextPageToken"] = strconv.Itoa(next)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return body
	}
	return b
}

// dcFetchAnswer reads a search for keys as bulk fetch's answer: a key the
// search did not return is in issueErrors, as bulk fetch reports a key it
// cannot read, so that a known key is read again by itself (GET issue reads
// the issue, not the search index, which on a Data Center cluster may be a
// moment behind on another node); a key past the project's newest (the
// tail, the duplicate check) is simply not there.
func (p *Provider) dcFetchAnswer(body []byte, keys []string) []byte {
	var page struct {
		Issues []struct {
			Key string `json:"key"`
		} `json:"issues"`
	}
	if json.Unmarshal(body, &page) != nil {
		return body
	}
	got := map[string]bool{}
	for _, is := range page.Issues {
		got[strings.ToUpper(is.Key)] = true
	}
	type issueError struct {
		ID           string `json:"id"`
		ErrorMessage string `json:"errorMessage"`
	}
	var missing []issueError
	for _, k := range keys {
		if !got[strings.ToUpper(k)] {
			missing = append(missing, issueError{ID: k, ErrorMessage: "not returned by the search"})
		}
	}
	return editObject(p.dcSearchAnswer(body), func(out map[string]json.RawMessage) {
		out["issueErrors"], _ = json.Marshal(missing)
	})
}

// dcAnswer reads any other Data Center answer in Cloud's terms (dcWalk).
func (p *Provider) dcAnswer(body []byte) []byte {
	v, ok := decodeAny(body)
	if !ok {
		return body
	}
	b, err := json.Marshal(p.dcWalk(v))
	if err != nil {
		return body
	}
	return b
}

func decodeAny(body []byte) (any, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// dcWalk rewrites, in place, what Data Center says differently: a user
// (name, key, no accountId) gets its name as accountId; an issue whose
// Epic Link holds an epic and that has no parent gets the epic as parent.
func (p *Provider) dcWalk(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if name, ok := v["name"].(string); ok && v["accountId"] == nil && v["key"] != nil && (v["displayName"] != nil || v["emailAddress"] != nil) {
			v["accountId"] = name
		}
		for k, x := range v {
			v[k] = p.dcWalk(x)
		}
		if f, ok := v["fields"].(map[string]any); ok {
			if id := p.epicLinkID.Load(); id != nil {
				if epic, ok := f[*id].(string); ok && epic != "" && f["parent"] == nil {
					f["parent"] = map[string]any{"key": epic}
				}
			}
		}
	case []any:
		for i := range v {
			v[i] = p.dcWalk(v[i])
		}
	}
	return v
}

// dcPeople names people by user name in a write: Cloud's {"accountId": x}
// is Data Center's {"name": x} (the Provider reads a user's name as its
// account id, dcWalk).
func dcPeople(body any) any {
	b, err := json.Marshal(body)
	if err != nil {
		return body
	}
	v, ok := decodeAny(b)
	if !ok {
		return body
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if id, ok := v["accountId"].(string); ok && len(v) == 1 {
				return map[string]any{"name": id}
			}
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		}
		return v
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return body
	}
	return json.RawMessage(out)
}
