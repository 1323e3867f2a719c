package jiratest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Defaults of a new Server (shared with the mockjira binary).
const (
	DefaultProject     = "DEMO"
	DefaultProjectName = "Demo project"
	DefaultEmail       = "demo@example.com"
	DefaultToken       = "mockjira-token-not-secret"
	DefaultFieldName   = "DevWorkWire Reference"
	DefaultFieldID     = "customfield_10050"
	// DecoyFieldID is the same-named multi-line field (Options.DuplicateFieldName).
	DecoyFieldID = "customfield_10051"
	// TextAreaFieldType is the schema.custom of a multi-line text custom field.
	TextAreaFieldType = "com.atlassian.jira.plugin.system.customfieldtypes:textarea"
	// TextFieldType is the schema.custom of a single-line text custom field.
	TextFieldType = "com.atlassian.jira.plugin.system.customfieldtypes:textfield"

	IssueTypeEpicID  = "10000"
	IssueTypeStoryID = "10001"
	IssueTypeTaskID  = "10002"
	// IssueTypeSubtaskID is the sub-task type (subtask: true, subtask.go).
	IssueTypeSubtaskID = "10003"

	StatusToDoID       = "10000"
	StatusInProgressID = "3"
	StatusDoneID       = "10001"
	// StatusResolvedID and StatusClosedID are the classic workflow's
	// done statuses (workflow.go; Jira's usual ids).
	StatusResolvedID = "5"
	StatusClosedID   = "6"

	// TransitionToDoID etc. are the ids of the global transitions into each
	// status (Jira's usual 11/21/31 numbering).
	TransitionToDoID       = "11"
	TransitionInProgressID = "21"
	TransitionDoneID       = "31"
)

// Options configure a Server. The zero value gives the documented defaults.
type Options struct {
	// Project is the project key, default DEMO; "DEMO,OTHER" makes several
	// projects (same issue types, all permissions), the first the default
	// (ProjectKey, seed issues without a project).
	Project     string
	ProjectName string
	Email       string // the one user; default demo@example.com
	Token       string // its API token; default DefaultToken
	DisplayName string
	FieldName   string // reference field name; default "DevWorkWire Reference"
	FieldID     string // reference field id; default customfield_10050 (must be customfield_<n>)
	Latency     time.Duration
	SearchLag   time.Duration
	RateLimit   float64 // requests per second (token bucket); 0 = off
	RateBurst   int     // bucket size; default max(1, RateLimit)
	Limits      Limits  // Jira's burst and per-issue write limits (ratelimit.go); zero = off
	BaseURL     string  // used in "self" links; default http://<Host of the request>
	// DuplicateFieldName also lists a multi-line text field (DecoyFieldID)
	// with the reference field's name, as real sites often have: a client
	// must match the reference field by name and type, not name alone.
	// The decoy is not on any create/edit screen.
	DuplicateFieldName bool
	Now                func() time.Time
	Logger             *slog.Logger // nil → discard

	// How the site's projects are set up (site.go); the zero values keep
	// the historic default. Style: "team-managed" | "company-managed";
	// Workflow: "simple" | "classic"; DeniedPermissions: permission keys
	// the user lacks (LINK_ISSUES, SCHEDULE_ISSUES, USER_PICKER, …);
	// EpicNameRequired: a required Epic Name on the epic type;
	// Deployment: "cloud" | "datacenter"; ProjectProfiles: per-project
	// overrides (a key named there that does not exist is created).
	Style             string
	Workflow          string
	DeniedPermissions []string
	EpicNameRequired  bool
	Deployment        string
	ProjectProfiles   map[string]Profile
}

// Server is a fake Jira Cloud site. It is an http.Handler; Start runs it
// on a loopback httptest server. All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL when started with Start (e.g. http://127.0.0.1:PORT).
	URL string

	opts   Options
	log    *slog.Logger
	now    func() time.Time
	mux    http.Handler
	closed chan struct{}
	once   sync.Once

	// linkNames are the link types' names a site admin gave them (id →
	// name and descriptions; linkrename.go), guarded by mu.
	linkNames map[string]string

	pending  atomic.Int64
	logMu    sync.Mutex // guards requests (handlers log while holding mu)
	requests []RecordedRequest

	// gateMu guards what every request passes before its handler
	// (ServeHTTP): the latency, the token bucket, Jira's limits and the
	// scripted faults. It is not mu, so a request on its way in never
	// waits for a search or a write in progress. Never take mu while
	// holding it.
	gateMu  sync.Mutex
	latency time.Duration
	bucket  *tokenBucket
	limits  *limiter
	faults  []*faultRule

	// mu guards the site's data. Writes hold it; searches and bulk
	// fetches hold it for reading (readAnswer), so they are evaluated
	// and rendered at the same time, as Jira answers them.
	mu     sync.RWMutex
	docsMu sync.Mutex // guards every issueState's docs cache (filled by searches under the read lock)
	// dcWiki is the wiki markup a Data Center site was sent, as written
	// (datacenter.go): per issue id, the document it was read as
	// (canonical JSON) → the text.
	dcWiki    map[int64]map[string]string
	projects  []*project
	issues    []*issue
	byKey     map[string]*issue
	byID      map[int64]*issue
	links     []*link
	nextID    int64
	nextLink  int64
	nextCmt   int64
	lag       time.Duration
	fieldID   string
	fieldName string
	refIndex  map[string]map[*issue]struct{} // reference-field token → issues (index.go)
	noIndex   bool                           // tests: always scan every issue
	// searchHook, when set (tests), is called by every search and bulk
	// fetch when it has found its issues and before it renders them, with
	// mu held for reading.
	searchHook func()
	agile      agileState  // boards, sprints, rank (agile.go)
	fields     *fieldModel // priorities, users, custom fields… (fields.go)
	site       SiteProfile // style, workflow, permissions, deployment (site.go)
	// refUnsearchable: the reference fields are not searchable
	// (SetReferenceSearchable).
	refUnsearchable bool
	// bulkReversed: bulk create lists issues[] newest first
	// (SetBulkCreateReversed).
	bulkReversed bool
}

// New returns a Server with one project (Options.Project) whose user has
// every permission.
func New(o Options) *Server {
	projects := listEntries([]string{o.Project}) // keys separated by commas
	if len(projects) == 0 {
		projects = []string{DefaultProject}
	}
	o.Project = projects[0]
	if o.ProjectName == "" {
		o.ProjectName = DefaultProjectName
	}
	if o.Email == "" {
		o.Email = DefaultEmail
	}
	if o.Token == "" {
		o.Token = DefaultToken
	}
	if o.DisplayName == "" {
		o.DisplayName = "Demo User"
	}
	if o.FieldName == "" {
		o.FieldName = DefaultFieldName
	}
	if o.FieldID == "" || !strings.HasPrefix(o.FieldID, "customfield_") {
		o.FieldID = DefaultFieldID
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		opts:      o,
		log:       o.Logger,
		now:       o.Now,
		closed:    make(chan struct{}),
		byKey:     map[string]*issue{},
		byID:      map[int64]*issue{},
		nextID:    10000,
		nextLink:  10000,
		nextCmt:   10000,
		latency:   o.Latency,
		lag:       o.SearchLag,
		fieldID:   o.FieldID,
		fieldName: o.FieldName,
		fields:    newFieldModel(),
		site:      o.siteProfile(),
	}
	s.bucket = newTokenBucket(o.RateLimit, o.RateBurst, s.now())
	s.limits = newLimiter(o.Limits)
	s.addProjectLocked(o.Project, o.ProjectName)
	for _, k := range projects[1:] {
		if s.projectByKeyOrID(k) == nil {
			s.addProjectLocked(k, k)
		}
	}
	for _, k := range sortedKeys(o.ProjectProfiles) {
		if s.projectByKeyOrID(k) == nil {
			s.addProjectLocked(strings.ToUpper(k), strings.ToUpper(k))
		}
	}
	s.routes()
	return s
}

// Start runs a new Server on a loopback httptest server, sets URL and
// closes it when the test ends.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	s := New(o)
	ts := httptest.NewServer(s)
	s.URL = ts.URL
	tb.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s
}

// Close releases requests held by "hang" faults. It does not stop a
// listener (the caller owns that).
func (s *Server) Close() { s.once.Do(func() { close(s.closed) }) }

// Pending returns how many API requests are being handled right now
// (including ones held by latency or a hang fault).
func (s *Server) Pending() int { return int(s.pending.Load()) }

// AuthHeader returns the Authorization header value for the configured user.
func (s *Server) AuthHeader() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(s.opts.Email+":"+s.opts.Token))
}

// Email returns the configured user's e-mail; Token its API token;
// ProjectKey the first project's key; FieldID/FieldName the reference field.
func (s *Server) Email() string      { return s.opts.Email }
func (s *Server) Token() string      { return s.opts.Token }
func (s *Server) ProjectKey() string { return s.opts.Project }

// ProjectKeys returns the keys of every project, the default first.
func (s *Server) ProjectKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.projects))
	for i, p := range s.projects {
		out[i] = p.Key
	}
	return out
}
func (s *Server) FieldID() string   { return s.fieldID }
func (s *Server) FieldName() string { return s.fieldName }

// CloudID is the fake site's cloud id (GET /_edge/tenant_info), the one
// the scoped-token gateway path /ex/jira/{cloudId} accepts.
const CloudID = "3d2c1b0a-5e4f-4a7b-9c8d-0f1e2d3c4b5a"

// ServeHTTP implements http.Handler: admin endpoints, then latency, rate
// limit, scripted faults, auth and the Jira REST API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The site's cloud id, as Atlassian's edge answers it for any site
	// without credentials: what a scoped token's gateway URL is built from.
	if r.URL.Path == "/_edge/tenant_info" && r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, map[string]string{"cloudId": CloudID})
		return
	}
	// Scoped-token base URL: https://api.atlassian.com/ex/jira/{cloudId}/rest/...
	// (the gateway knows no other cloud id: 404).
	if strings.HasPrefix(r.URL.Path, "/ex/jira/") {
		rest := strings.TrimPrefix(r.URL.Path, "/ex/jira/")
		id, path, _ := strings.Cut(rest, "/")
		if id != CloudID {
			writeErr(w, http.StatusNotFound, newErr("No site with cloud id '"+id+"' exists."))
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + path
		r2.URL.RawPath = ""
		r = r2
	}
	if strings.HasPrefix(r.URL.Path, "/_mockjira/") {
		s.serveAdmin(w, r)
		return
	}
	s.pending.Add(1)
	defer s.pending.Add(-1)
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &statusRecorder{ResponseWriter: w}
	entry := RecordedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), At: s.now().UTC()}
	// The entry is logged before the first response byte leaves (so a
	// client that has its response can count it), or when the handler
	// ends without a response (reset, hang, client gone).
	logged := false
	rec.logNow = func() {
		if logged {
			return
		}
		logged = true
		entry.Status = rec.status
		s.logMu.Lock()
		s.requests = append(s.requests, entry)
		s.logMu.Unlock()
		s.log.Debug("mockjira request", "method", r.Method, "path", r.URL.Path, "status", entry.Status, "fault", entry.Fault)
	}
	defer rec.logNow()

	s.gateMu.Lock()
	lat := s.latency
	s.gateMu.Unlock()
	if lat > 0 {
		t := time.NewTimer(lat)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			entry.Fault = "client-gone"
			return
		}
	}
	if f := s.admitSite(); f != nil { // the older site-wide bucket
		entry.Fault = "rate-limit"
		f.write(rec)
		return
	}
	if f := s.admit(rec, r); f != nil { // Jira's burst and per-issue limits (ratelimit.go)
		entry.Fault = "rate-limit"
		f.write(rec)
		return
	}
	if f := s.matchFault(r); f != nil {
		entry.Fault = f.Kind
		if s.applyFault(rec, r, f) {
			return
		}
	}
	if s.serveDataCenter(rec, r) { // a Data Center site's REST API v2 (datacenter.go)
		return
	}
	if s.dataCenterGate(rec, r) { // a Data Center site has no /rest/api/3 (site.go)
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// statusRecorder remembers the status written through it and logs the
// request just before the status goes out.
type statusRecorder struct {
	http.ResponseWriter
	status int
	logNow func()
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.logNow()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// jiraError is Jira's ErrorCollection.
type jiraError struct {
	ErrorMessages []string          `json:"errorMessages"`
	Errors        map[string]string `json:"errors"`
}

func newErr(msgs ...string) *jiraError {
	if msgs == nil {
		msgs = []string{}
	}
	return &jiraError{ErrorMessages: msgs, Errors: map[string]string{}}
}

func fieldErr(field, msg string) *jiraError {
	e := newErr()
	e.Errors[field] = msg
	return e
}

func (e *jiraError) empty() bool { return len(e.ErrorMessages) == 0 && len(e.Errors) == 0 }

func writeJSON(w http.ResponseWriter, status int, v any) { encodeJSON(status, v).write(w) }

// answer is a JSON response encoded and not yet written: a handler that
// reads under mu encodes its answer there (the values it renders point
// into the site's data) and writes it after releasing the lock, so a slow
// client never holds the lock.
type answer struct {
	status int
	body   []byte
}

func encodeJSON(status int, v any) answer {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"errorMessages":["mockjira: cannot encode response"],"errors":{}}`)
		status = http.StatusInternalServerError
	}
	return answer{status, b}
}

func (a answer) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// readAnswer answers with what read encodes while holding mu for reading
// (any number of reads at once; writes wait), written after the lock is
// released.
func (s *Server) readAnswer(w http.ResponseWriter, read func() answer) {
	a := func() answer {
		s.mu.RLock()
		defer s.mu.RUnlock()
		return read()
	}()
	a.write(w)
}

// found calls searchHook (tests). Call with s.mu held for reading.
func (s *Server) found() {
	if s.searchHook != nil {
		s.searchHook()
	}
}

func writeErr(w http.ResponseWriter, status int, e *jiraError) { writeJSON(w, status, e) }

func (s *Server) base(r *http.Request) string {
	if s.opts.BaseURL != "" {
		return strings.TrimRight(s.opts.BaseURL, "/")
	}
	if s.URL != "" {
		return s.URL
	}
	return "http://" + r.Host
}

// jiraTime formats t like Jira: 2026-01-15T14:30:00.000+0000.
func jiraTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000-0700") }

func itoa(n int64) string { return fmt.Sprintf("%d", n) }

// listEntries is the entries of a list parameter (comma-separated and/or
// repeated), trimmed, empty ones left out.
func listEntries(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}
