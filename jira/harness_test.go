package jira

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/core/streamtest"
	"github.com/devworkwire/devworkwire/jira/internal/jiraspec"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// fixture is a fake Jira and a Provider talking HTTP to it.
type fixture struct {
	srv  *jiratest.Server
	p    *Provider
	logs *streamtest.Buffer
	ctx  context.Context
}

// fresh is a new Provider with f's configuration: another process,
// knowing nothing of the site yet.
func (f *fixture) fresh(t *testing.T) *Provider {
	t.Helper()
	p, err := New(f.p.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// detailLines are err's details, one "item field: message" each.
func detailLines(err error) []string {
	var out []string
	for _, d := range core.AsError(err).Details {
		out = append(out, d.Item+" "+d.Field+": "+d.Message)
	}
	return out
}

// newService is the service over p and a fresh in-memory store; o gives
// its other options.
func newService(p core.WorkItemProvider, o service.ServiceOptions) *service.WorkItemService {
	o.Provider, o.Store = p, memstore.New(memstore.Options{})
	return service.NewWorkItemService(o)
}

// startJira starts a fake Jira (options o) and a Provider for it (mod may
// adjust the config). Every request the Provider sent is checked against
// Jira's API description when the test ends.
func startJira(t *testing.T, o jiratest.Options, mod func(*Config)) *fixture {
	t.Helper()
	srv := jiratest.Start(t, o)
	logs := &streamtest.Buffer{}
	cfg := Config{
		BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey(),
		Logger:      slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MaxAttempts: 3, MaxRetryWait: 3 * time.Second, RequestTimeout: 2 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	// Every request the Provider sends (and every answer it reads) is
	// checked against Jira's OpenAPI description.
	spec := &jiraspec.Log{}
	client := newHTTPClient(cfg.RequestTimeout)
	client.Transport = &jiraspec.Transport{Base: client.Transport, Log: spec}
	if cfg.Deployment == DeploymentDataCenter && os.Getenv(jiraspec.DataCenterSpecEnv) != "" {
		// Data Center's requests and answers against Atlassian's Data
		// Center description, where one is at hand.
		dc, err := jiraspec.LoadDataCenter()
		if err != nil {
			t.Fatal(err)
		}
		client.Transport = &jiraspec.Transport{Base: client.Transport, Log: spec, Spec: dc}
	}
	cfg.HTTPClient = client
	t.Cleanup(func() { checkSpec(t, spec) })
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.backoff = 20 * time.Millisecond
	p.minSleep = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	f := &fixture{srv: srv, p: p, logs: logs, ctx: ctx}
	t.Cleanup(func() { checkRequests(t, srv) })
	return f
}

// startBehind starts a fake Jira (options o) behind the handler front
// makes, which sees every request before (or instead of) the fake, and a
// Provider for it (mod may adjust the config). Both are closed when the
// test ends.
func startBehind(t *testing.T, o jiratest.Options, front func(fake *jiratest.Server) http.Handler, mod func(*Config)) (*jiratest.Server, *Provider) {
	t.Helper()
	fake := jiratest.New(o)
	ts := httptest.NewServer(front(fake))
	fake.URL = ts.URL
	t.Cleanup(func() {
		fake.Close()
		ts.Close()
	})
	cfg := Config{BaseURL: ts.URL, Email: fake.Email(), Token: fake.Token(), Project: fake.ProjectKey()}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return fake, p
}

// secrets are the strings that must never appear in errors or logs.
func (f *fixture) secrets() []string {
	return []string{f.srv.Token(), base64.StdEncoding.EncodeToString([]byte(f.srv.Email() + ":" + f.srv.Token())), f.srv.AuthHeader()}
}

// assertNoSecrets fails when the token or the Authorization value appear in
// any of texts or in the Provider's logs.
func (f *fixture) assertNoSecrets(t *testing.T, texts ...string) {
	t.Helper()
	texts = append(texts, f.logs.String())
	for _, s := range texts {
		for _, secret := range f.secrets() {
			if secret != "" && strings.Contains(s, secret) {
				t.Errorf("a secret leaked into %q", s)
			}
		}
		if strings.Contains(s, "errorMessages") {
			t.Errorf("a raw Jira body leaked into %q", s)
		}
	}
}

// assertNoDuplicates fails when two issues in the fake hold one reference.
func assertNoDuplicates(t *testing.T, srv *jiratest.Server) {
	t.Helper()
	seen := map[string]string{}
	for _, is := range srv.Issues() {
		if is.Reference == "" {
			continue
		}
		if k, dup := seen[is.Reference]; dup {
			t.Errorf("duplicate issues for reference %s: %s and %s", is.Reference, k, is.Key)
		}
		seen[is.Reference] = is.Key
	}
}

func (f *fixture) specs(doc string, n int) []core.ItemSpec {
	out := make([]core.ItemSpec, n)
	for i := range out {
		ref := core.NewReference(doc, "s-"+itoa(i+1))
		title := "Story " + itoa(i+1)
		desc := "Description of story " + itoa(i+1) + "."
		ac := []string{"It works", "It is tested"}
		out[i] = core.ItemSpec{Reference: ref, Kind: core.KindStory, Title: title, Description: desc, AcceptanceCriteria: ac, Digest: core.ContentDigest(core.KindStory, title, desc, ac, "")}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// checkRequests checks every request the Provider sent to srv.
func checkRequests(t *testing.T, srv *jiratest.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		if r.Path == "/rest/api/3/search" {
			t.Errorf("request to the removed endpoint %s %s", r.Method, r.Path)
		}
	}
}

var (
	specMu          sync.Mutex
	specChecked     int
	specRespReports = map[string]bool{}
)

// checkSpec fails t for every request the Provider sent that does not
// match the OpenAPI description. Answers of the fake that do not match it
// are the fake's business (its own contract test covers them); they are
// logged once each.
func checkSpec(t *testing.T, log *jiraspec.Log) {
	t.Helper()
	n, _ := log.Checked()
	specMu.Lock()
	specChecked += n
	specMu.Unlock()
	for _, v := range log.Violations() {
		if v.Status == 0 {
			t.Errorf("request violates the Jira OpenAPI description: %s", v)
			continue
		}
		key := v.Method + " " + v.Path
		specMu.Lock()
		seen := specRespReports[key]
		specRespReports[key] = true
		specMu.Unlock()
		if !seen {
			t.Logf("note: the fake's answer does not match the OpenAPI description: %.300s", v.String())
		}
	}
}

// TestSpecCheckCatchesBadRequests proves the request check is live: a
// search body with a field Jira does not know is flagged, a real one is not.
func TestSpecCheckCatchesBadRequests(t *testing.T) {
	srv := jiratest.Start(t, jiratest.Options{})
	log := &jiraspec.Log{}
	cfg := Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey(),
		HTTPClient: &http.Client{Transport: &jiraspec.Transport{Log: log}}}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.Lookup(ctx, []core.Reference{"doc/s-1"}, nil); err != nil {
		t.Fatal(err)
	}
	requestViolations := func() int {
		n := 0
		for _, v := range log.Violations() {
			if v.Status == 0 {
				n++
			}
		}
		return n
	}
	if n, _ := log.Checked(); n < 3 || requestViolations() != 0 {
		t.Fatalf("checked %d exchanges, %d request violations; want ≥ 3 (field, createmeta, search) and none", n, requestViolations())
	}
	_, _ = p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: map[string]any{"jql": "project = DEMO", "bogus": true}, endpoint: searchEndpoint, action: "test"}, nil)
	if bad := requestViolations(); bad != 1 {
		t.Errorf("a search body with an unknown property gave %d request violations; want 1", bad)
	}
}
