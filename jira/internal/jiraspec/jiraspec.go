// Package jiraspec checks HTTP requests and responses against the trimmed
// Jira Cloud platform REST v3 OpenAPI description in
// jira/testdata/openapi/jira-platform-v3-subset.json (Atlassian,
// Apache-2.0), with github.com/getkin/kin-openapi's openapi3filter; and,
// where it is at hand, a Data Center site's /rest/api/2 and
// /rest/agile/1.0 answers against Atlassian's Jira Software Data Center
// OpenAPI description (LoadDataCenter, DataCenterMiddleware).
//
// The fake Jira's contract test wraps the fake in Middleware and demands
// zero violations; the Jira client's tests wrap their transport in
// Transport so every request the client sends (and every response it
// reads) is checked too.
//
// Beyond the spec, every JSON error response (status ≥ 400) must be Jira's
// ErrorCollection, and a status the operation does not document is a
// violation unless it is one Jira Cloud returns for any operation (401,
// 403, 404, 415, 429, 5xx), whose body must then also be an ErrorCollection.
// Paths outside /rest/api/3 (the fake's /_mockjira/ admin endpoints) are
// not checked.
package jiraspec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// SpecFile is the trimmed spec's path relative to the jira module root.
const SpecFile = "testdata/openapi/jira-platform-v3-subset.json"

// Spec is a loaded spec with its router.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
	errCol *openapi3.Schema
	server *url.URL
	scope  func(path string) bool
}

var (
	once    sync.Once
	loaded  *Spec
	loadErr error

	dcOnce    sync.Once
	dcLoaded  *Spec
	dcLoadErr error
)

// Load returns the trimmed spec (loaded once). The file is found next to
// this package's source (../../testdata/openapi), else by walking up from
// the working directory, else at $JIRASPEC_FILE.
func Load() (*Spec, error) {
	once.Do(func() {
		p, err := specPath()
		if err != nil {
			loadErr = err
			return
		}
		loaded, loadErr = load(p, "", nil, inScope)
	})
	return loaded, loadErr
}

// DataCenterSpecEnv names the file of Atlassian's Jira Software Data
// Center OpenAPI description (as Atlassian publishes it, for example
// jira_software_dc_11003_swagger.v3.json). The description states no
// open licence (its terms of service are Atlassian's software licence
// agreement), so the repository does not hold a copy: a check against it
// runs where a person or CI points this variable at one.
const DataCenterSpecEnv = "JIRASPEC_DC_FILE"

// ErrNoDataCenterSpec is returned by LoadDataCenter when no file is named.
var ErrNoDataCenterSpec = errors.New("jiraspec: no Data Center OpenAPI description: set " + DataCenterSpecEnv + " to Atlassian's jira_software_dc_*_swagger.v3.json")

// LoadDataCenter returns Atlassian's Jira Software Data Center OpenAPI
// description from $JIRASPEC_DC_FILE (loaded once). Its paths are
// relative to /rest (/api/2/…, /agile/1.0/…); requests are routed by
// their /rest/api/2 and /rest/agile/1.0 paths.
func LoadDataCenter() (*Spec, error) {
	dcOnce.Do(func() {
		p := os.Getenv(DataCenterSpecEnv)
		if p == "" {
			dcLoadErr = ErrNoDataCenterSpec
			return
		}
		dcLoaded, dcLoadErr = load(p, "http://localhost/rest", dataCenterOperations, inDataCenterScope)
	})
	return dcLoaded, dcLoadErr
}

// dataCenterOperations are the operations of the Data Center description
// the fake serves and the adapter calls (the Cloud subset's, in v2, and
// the Agile API's). The rest of the description is dropped before it is
// used: it is not ours to check, and some of it does not validate
// (11.3.8: DELETE /api/2/filter/{id}/permission/{permission-id} names its
// path parameter permissionId). The kept operations' security
// requirements are dropped too: they name an "OAuth2" scheme the
// description does not define, and credentials are not checked here.
var dataCenterOperations = map[string][]string{
	"/api/2/myself":                                                     {"get"},
	"/api/2/serverInfo":                                                 {"get"},
	"/api/2/project/{projectIdOrKey}":                                   {"get"},
	"/api/2/field":                                                      {"get"},
	"/api/2/issue":                                                      {"post"},
	"/api/2/issue/bulk":                                                 {"post"},
	"/api/2/issue/{issueIdOrKey}":                                       {"get", "put"},
	"/api/2/issue/{issueIdOrKey}/editmeta":                              {"get"},
	"/api/2/issue/{issueIdOrKey}/transitions":                           {"get", "post"},
	"/api/2/issue/{issueIdOrKey}/comment":                               {"get", "post"},
	"/api/2/issue/{issueIdOrKey}/properties":                            {"get"},
	"/api/2/issue/{issueIdOrKey}/properties/{propertyKey}":              {"get", "put", "delete"},
	"/api/2/issue/createmeta/{projectIdOrKey}/issuetypes":               {"get"},
	"/api/2/issue/createmeta/{projectIdOrKey}/issuetypes/{issueTypeId}": {"get"},
	"/api/2/search":                                                     {"get", "post"},
	"/api/2/mypermissions":                                              {"get"},
	"/api/2/issueLink":                                                  {"post"},
	"/api/2/issueLink/{linkId}":                                         {"get", "delete"},
	"/api/2/issueLinkType":                                              {"get"},
	"/api/2/issueLinkType/{issueLinkTypeId}":                            {"get"},
	"/api/2/user/assignable/search":                                     {"get"},
	"/api/2/user/search":                                                {"get"},
	"/agile/1.0/board":                                                  {"get"},
	"/agile/1.0/board/{boardId}":                                        {"get"},
	"/agile/1.0/board/{boardId}/sprint":                                 {"get"},
	"/agile/1.0/sprint/{sprintId}":                                      {"get"},
	"/agile/1.0/sprint/{sprintId}/issue":                                {"post"},
	"/agile/1.0/issue/rank":                                             {"put"},
}

// patchDataCenter corrects what Atlassian's Data Center description says
// wrongly of the kept operations (it is generated from the Java resources'
// annotations), each as Jira Data Center answers and as Atlassian's own
// REST reference shows it:
//   - a value of Java type Object is described as {"type": "object"}, so
//     an issue's fields (IssueBean.fields, IssueUpdateBean.fields: maps of
//     Object) could hold no string, number, list or null — "description":
//     "text", "assignee": null. Such a schema (an object with no
//     properties of its own) is read as any JSON value;
//   - an entity property's value is any JSON (the Java bean's String is
//     written raw: "The value of the property must be a valid, non-empty
//     JSON"), described as a string, in EntityPropertyBean and in the body
//     of PUT …/properties/{propertyKey};
//   - GET /api/2/field, /api/2/user/search and
//     /api/2/user/assignable/search answer a list ("Returns a list of
//     …"), described as one FieldBean or UserBean.
func patchDataCenter(doc *openapi3.T) {
	if ep := doc.Components.Schemas["EntityPropertyBean"]; ep != nil && ep.Value != nil && ep.Value.Properties["value"] != nil {
		ep.Value.Properties["value"] = &openapi3.SchemaRef{Value: &openapi3.Schema{Nullable: true}}
	}
	if item := doc.Paths.Value("/api/2/issue/{issueIdOrKey}/properties/{propertyKey}"); item != nil && item.Put != nil &&
		item.Put.RequestBody != nil && item.Put.RequestBody.Value != nil {
		for _, mt := range item.Put.RequestBody.Value.Content {
			mt.Schema = &openapi3.SchemaRef{Value: &openapi3.Schema{}}
		}
	}
	eachSchemaDeep(doc, func(sc *openapi3.Schema) {
		if sc.Type.Is(openapi3.TypeObject) && len(sc.Properties) == 0 && sc.AdditionalProperties.Schema == nil &&
			sc.AdditionalProperties.Has == nil && len(sc.AllOf)+len(sc.AnyOf)+len(sc.OneOf) == 0 {
			sc.Type, sc.Nullable = nil, true
		}
	})
	for _, p := range []string{"/api/2/field", "/api/2/user/search", "/api/2/user/assignable/search"} {
		item := doc.Paths.Value(p)
		if item == nil || item.Get == nil {
			continue
		}
		if ok := item.Get.Responses.Status(http.StatusOK); ok != nil && ok.Value != nil {
			for _, mt := range ok.Value.Content {
				if mt.Schema != nil {
					mt.Schema = openapi3.NewArraySchema().WithItems(mt.Schema.Value).NewRef()
				}
			}
		}
	}
}

// keepOperations drops every operation of doc not in keep, and the
// security requirements of those it keeps.
func keepOperations(doc *openapi3.T, keep map[string][]string) {
	for p, item := range doc.Paths.Map() {
		methods, ok := keep[p]
		if !ok {
			doc.Paths.Delete(p)
			continue
		}
		for m, op := range item.Operations() {
			if !slices.Contains(methods, strings.ToLower(m)) {
				item.SetOperation(m, nil)
				continue
			}
			op.Security = nil
		}
	}
}

func specPath() (string, error) {
	if p := os.Getenv("JIRASPEC_FILE"); p != "" {
		return p, nil
	}
	var cands []string
	if _, file, _, ok := runtime.Caller(0); ok {
		cands = append(cands, filepath.Join(filepath.Dir(file), "..", "..", SpecFile))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			cands = append(cands, filepath.Join(d, SpecFile), filepath.Join(d, "jira", SpecFile))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("jiraspec: %s not found (looked in %d places); set JIRASPEC_FILE", SpecFile, len(cands))
}

// load reads the description at p; server, when set, replaces its servers
// (Data Center's is http://{baseurl}/rest).
func load(p, server string, keep map[string][]string, scope func(string) bool) (*Spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(p)
	if err != nil {
		return nil, fmt.Errorf("jiraspec: load %s: %w", p, err)
	}
	if server != "" {
		doc.Servers = openapi3.Servers{{URL: server}}
	}
	if keep != nil {
		keepOperations(doc, keep)
		patchDataCenter(doc)
	}
	relaxUntyped(doc)
	router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	if err != nil {
		return nil, fmt.Errorf("jiraspec: router: %w", err)
	}
	srv, err := url.Parse(doc.Servers[0].URL)
	if err != nil {
		return nil, fmt.Errorf("jiraspec: server URL: %w", err)
	}
	ref := doc.Components.Schemas["ErrorCollection"]
	if ref == nil || ref.Value == nil {
		return nil, errors.New("jiraspec: the spec has no ErrorCollection schema")
	}
	return &Spec{doc: doc, router: router, errCol: ref.Value, server: srv, scope: scope}, nil
}

// relaxUntyped makes schemas without a type accept null. OpenAPI 3.0.3
// says nullable only matters when type is given, so an untyped schema ({})
// allows null — Jira returns "description": null in IssueBean.fields, which
// is additionalProperties: {} — but kin-openapi rejects null unless
// nullable is set.
func relaxUntyped(doc *openapi3.T) {
	eachSchemaDeep(doc, func(sc *openapi3.Schema) {
		if sc.Type == nil || len(*sc.Type) == 0 {
			sc.Nullable = true
		}
	})
}

// eachSchemaDeep calls visit once with every schema of doc: the
// components' and the operations' bodies', and every schema inside them.
func eachSchemaDeep(doc *openapi3.T, visit func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(r *openapi3.SchemaRef)
	walk = func(r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil || seen[r.Value] {
			return
		}
		sc := r.Value
		seen[sc] = true
		visit(sc)
		for _, p := range sc.Properties {
			walk(p)
		}
		walk(sc.Items)
		walk(sc.AdditionalProperties.Schema)
		walk(sc.Not)
		for _, l := range []openapi3.SchemaRefs{sc.AllOf, sc.AnyOf, sc.OneOf} {
			for _, x := range l {
				walk(x)
			}
		}
	}
	for _, r := range doc.Components.Schemas {
		walk(r)
	}
	eachSchema(doc, walk)
}

// eachSchema calls f with every request and response body schema of doc.
func eachSchema(doc *openapi3.T, f func(*openapi3.SchemaRef)) {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					f(mt.Schema)
				}
			}
			for _, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for _, mt := range resp.Value.Content {
					f(mt.Schema)
				}
			}
		}
	}
}

// ErrNotInSpec is returned (wrapped) for a request whose path and method
// the trimmed spec does not describe.
var ErrNotInSpec = errors.New("operation not in the trimmed spec")

func (s *Spec) route(req *http.Request) (*routers.Route, map[string]string, *http.Request, error) {
	r2 := req.Clone(req.Context())
	u := *req.URL
	u.Scheme, u.Host = s.server.Scheme, s.server.Host
	// A scoped-token base URL (/ex/jira/{cloudId}) is the same API.
	if strings.HasPrefix(u.Path, "/ex/jira/") {
		rest := strings.TrimPrefix(u.Path, "/ex/jira/")
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			u.Path, u.RawPath = rest[i:], ""
		}
	}
	r2.URL = &u
	r2.Host = u.Host
	route, params, err := s.router.FindRoute(r2)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s %s: %w (%v)", req.Method, req.URL.Path, ErrNotInSpec, err)
	}
	return route, params, r2, nil
}

// jiraDateTime accepts RFC 3339 and the form Jira Cloud actually sends for
// format: date-time (2026-01-15T14:30:00.000+0000, no colon in the
// offset). Rejecting Jira's own format would make the fake send something
// Jira never sends.
var jiraDateTime = openapi3.NewCallbackValidator(func(v string) error {
	if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return nil
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000-0700", v); err == nil {
		return nil
	}
	return fmt.Errorf("%q is neither RFC 3339 nor Jira's yyyy-MM-ddTHH:mm:ss.SSSZ", v)
})

func schemaOpts() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidator("date-time", jiraDateTime)}
}

func opts() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
		MultiError:              true,
		SchemaValidationOptions: schemaOpts(),
	}
}

// emptyAllowed reports whether an empty body is acceptable for a documented
// response: no content, or JSON content whose schema is untyped ({}), which
// Jira answers with no body (e.g. 201 to PUT .../properties/{key}).
func emptyAllowed(resp *openapi3.Response) bool {
	if len(resp.Content) == 0 {
		return true
	}
	for _, mt := range resp.Content {
		if mt.Schema == nil || mt.Schema.Value == nil {
			return true
		}
		if t := mt.Schema.Value.Type; t == nil || len(*t) == 0 {
			if len(mt.Schema.Value.Properties) == 0 {
				return true
			}
		}
	}
	return false
}

// CheckRequest validates a request (body given separately; req.Body is
// not read).
func (s *Spec) CheckRequest(req *http.Request, body []byte) error {
	route, params, r2, err := s.route(req)
	if err != nil {
		return err
	}
	r2.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route, Options: opts()}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("request %s %s: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// genericStatuses are statuses Jira Cloud may return from any operation.
func genericStatus(code int) bool {
	return code == 401 || code == 403 || code == 404 || code == 415 || code == 429 || code >= 500
}

// CheckResponse validates a response to req.
func (s *Spec) CheckResponse(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	route, params, r2, err := s.route(req)
	if err != nil {
		return err
	}
	r2.Body = io.NopCloser(bytes.NewReader(reqBody))
	doc := route.Operation.Responses.Status(status)
	documented := doc != nil
	if !documented && !genericStatus(status) {
		return fmt.Errorf("response %s %s: status %d is not documented for this operation", req.Method, req.URL.Path, status)
	}
	// 204 No Content has no body (and so no Content-Type), whatever the
	// spec's content map says.
	if documented && !(len(body) == 0 && (status == http.StatusNoContent || emptyAllowed(doc.Value))) {
		o := opts()
		o.IncludeResponseStatus = true
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route, Options: o},
			Status:                 status,
			Header:                 header,
			Body:                   io.NopCloser(bytes.NewReader(body)),
			Options:                o,
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			return fmt.Errorf("response %d to %s %s: %w", status, req.Method, req.URL.Path, err)
		}
	}
	if status >= 400 && len(bytes.TrimSpace(body)) > 0 {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return fmt.Errorf("response %d to %s %s: error body is not JSON: %v", status, req.Method, req.URL.Path, err)
		}
		m, ok := v.(map[string]any)
		if !ok || m["errorMessages"] == nil && m["errors"] == nil && m["issues"] == nil {
			return fmt.Errorf("response %d to %s %s: error body is not an ErrorCollection: %s", status, req.Method, req.URL.Path, body)
		}
		if _, bulk := m["issues"]; !bulk {
			if err := s.errCol.VisitJSON(v, append(schemaOpts(), openapi3.MultiErrors())...); err != nil {
				return fmt.Errorf("response %d to %s %s: error body is not an ErrorCollection: %w", status, req.Method, req.URL.Path, err)
			}
		}
	}
	return nil
}

// Violation is one request or response that does not match the spec.
type Violation struct {
	Method, Path string
	Status       int // 0 for a request violation
	Err          error
}

func (v Violation) String() string {
	return fmt.Sprintf("%s %s (%d): %v", v.Method, v.Path, v.Status, v.Err)
}

// Log collects violations and counts checked exchanges; safe for
// concurrent use.
type Log struct {
	mu         sync.Mutex
	violations []Violation
	checked    int
	skipped    int
}

func (l *Log) add(v Violation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.violations = append(l.violations, v)
}

// Violations returns what was recorded.
func (l *Log) Violations() []Violation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Violation(nil), l.violations...)
}

// Checked returns how many responses were validated, and how many were
// skipped (admin paths, no response sent).
func (l *Log) Checked() (checked, skipped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checked, l.skipped
}

func (l *Log) count(checked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if checked {
		l.checked++
	} else {
		l.skipped++
	}
}

// TB is the part of testing.TB used here.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// AssertNone fails t with every recorded violation.
func (l *Log) AssertNone(t TB) {
	t.Helper()
	for _, v := range l.Violations() {
		t.Errorf("OpenAPI contract violation: %s", v)
	}
}

func inScope(p string) bool {
	if strings.HasPrefix(p, "/ex/jira/") {
		rest := strings.TrimPrefix(p, "/ex/jira/")
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p = rest[i:]
		}
	}
	return strings.HasPrefix(p, "/rest/api/3/")
}

// inDataCenterScope: Data Center's REST API v2 and its Agile API.
func inDataCenterScope(p string) bool {
	return strings.HasPrefix(p, "/rest/api/2/") || strings.HasPrefix(p, "/rest/agile/1.0/")
}

// capture is a ResponseWriter that passes through and keeps a copy.
type capture struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.buf.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Middleware validates every request and response passing through next
// (server side) and records violations in log. Requests outside
// /rest/api/3 and requests answered without a response (connection reset,
// hang) are skipped. Request violations are recorded only when
// checkRequests is true (a fake must also answer bad requests).
func Middleware(next http.Handler, log *Log, checkRequests bool) (http.Handler, error) {
	s, err := Load()
	if err != nil {
		return nil, err
	}
	return s.Middleware(next, log, checkRequests), nil
}

// DataCenterMiddleware is Middleware for a Data Center site: its
// /rest/api/2 and /rest/agile/1.0 answers checked against Atlassian's
// Data Center description (LoadDataCenter).
func DataCenterMiddleware(next http.Handler, log *Log, checkRequests bool) (http.Handler, error) {
	s, err := LoadDataCenter()
	if err != nil {
		return nil, err
	}
	return s.Middleware(next, log, checkRequests), nil
}

// Middleware validates what passes through next against s (see the
// package function Middleware).
func (s *Spec) Middleware(next http.Handler, log *Log, checkRequests bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.scope(r.URL.Path) {
			log.count(false)
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		orig := r.Clone(r.Context())
		if _, _, _, err := s.route(orig); err != nil {
			// No contract for an operation the spec does not describe.
			log.count(false)
			next.ServeHTTP(w, r)
			return
		}
		if checkRequests {
			if err := s.CheckRequest(orig, body); err != nil {
				log.add(Violation{Method: r.Method, Path: r.URL.Path, Err: err})
			}
		}
		c := &capture{ResponseWriter: w}
		next.ServeHTTP(c, r)
		if c.status == 0 {
			log.count(false)
			return
		}
		log.count(true)
		if err := s.CheckResponse(orig, body, c.status, w.Header(), c.buf.Bytes()); err != nil {
			log.add(Violation{Method: r.Method, Path: r.URL.Path, Status: c.status, Err: err})
		}
	})
}

// Transport is an http.RoundTripper that validates every request sent
// through it and every response received (client side).
type Transport struct {
	Base http.RoundTripper // nil = http.DefaultTransport
	Log  *Log
	Spec *Spec // nil = the Cloud description (Load)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	s := t.Spec
	if s == nil {
		var err error
		if s, err = Load(); err != nil {
			return nil, err
		}
	}
	if !s.scope(req.URL.Path) {
		return base.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	if err := s.CheckRequest(req, body); err != nil {
		t.Log.add(Violation{Method: req.Method, Path: req.URL.Path, Err: err})
	}
	res, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	rb, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(rb))
	if err != nil {
		return res, nil
	}
	t.Log.count(true)
	if err := s.CheckResponse(req, body, res.StatusCode, res.Header, rb); err != nil {
		t.Log.add(Violation{Method: req.Method, Path: req.URL.Path, Status: res.StatusCode, Err: err})
	}
	return res, nil
}
