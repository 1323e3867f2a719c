package jira

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

const testToken = "test-token-not-secret"

// scripted is an HTTP handler answering from a list of statuses (the last
// one repeats), counting requests.
type scripted struct {
	mu      sync.Mutex
	steps   []func(w http.ResponseWriter)
	calls   atomic.Int32
	methods []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1)) - 1
	s.mu.Lock()
	s.methods = append(s.methods, r.Method+" "+r.URL.Path)
	step := s.steps[min(n, len(s.steps)-1)]
	s.mu.Unlock()
	step(w)
}

func status(code int, retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"errorMessages":["secret-ish raw body ` + testToken + `"],"errors":{}}`))
	}
}

func ok(body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

// newTestProvider returns a provider for url whose sleeps are recorded,
// not slept, and whose logs go to buf.
func newTestProvider(t *testing.T, url string, buf *bytes.Buffer, mod func(*Config)) (*Provider, *[]time.Duration) {
	t.Helper()
	cfg := Config{BaseURL: url, Email: "dev@example.com", Token: testToken, Project: "DEMO",
		Logger: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), MaxAttempts: 4, MaxRetryWait: 5 * time.Second, RequestTimeout: 2 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	var mu sync.Mutex
	p.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return p, &waits
}

func getField(p *Provider) error {
	_, err := p.do(context.Background(), call{method: "GET", path: "/rest/api/3/field", endpoint: "GET /rest/api/3/field", action: "list the Jira fields"}, nil)
	return err
}

// getFieldAnsweredWith is getField against a server that answers every
// request with HTTP code (and Retry-After retryAfter, when set). It returns
// the server's handler (its calls), the provider's waits, its logs and the
// error.
func getFieldAnsweredWith(t *testing.T, code int, retryAfter string) (*scripted, *[]time.Duration, string, error) {
	t.Helper()
	h := &scripted{steps: []func(http.ResponseWriter){status(code, retryAfter)}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var logs bytes.Buffer
	p, waits := newTestProvider(t, srv.URL, &logs, nil)
	err := getField(p)
	return h, waits, logs.String(), err
}

func noSecrets(t *testing.T, texts ...string) {
	t.Helper()
	auth := base64.StdEncoding.EncodeToString([]byte("dev@example.com:" + testToken))
	for _, s := range texts {
		if strings.Contains(s, testToken) || strings.Contains(s, auth) || strings.Contains(s, "errorMessages") {
			t.Errorf("secret or raw body leaked: %q", s)
		}
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"2", 2 * time.Second, true},
		{"0", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-3", 0, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.v != "" {
			h.Set("Retry-After", c.v)
		}
		got, ok := retryAfter(h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestRetriesHonourRetryAfterAndFloor(t *testing.T) {
	for _, tc := range []struct {
		name string
		step func(http.ResponseWriter)
		want time.Duration // each wait; 0 = check backoff bounds instead
	}{
		{"429 Retry-After 2", status(429, "2"), 2 * time.Second},
		{"429 Retry-After 0 uses the floor", status(429, "0"), 100 * time.Millisecond},
		{"503 Retry-After date", status(503, time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat)), 0},
		{"429 without Retry-After", status(429, ""), 0},
		{"500", status(500, ""), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &scripted{steps: []func(http.ResponseWriter){tc.step, tc.step, ok(`[]`)}}
			srv := httptest.NewServer(h)
			defer srv.Close()
			var logs bytes.Buffer
			p, waits := newTestProvider(t, srv.URL, &logs, nil)
			if err := getField(p); err != nil {
				t.Fatalf("after two failures and a success: %v", err)
			}
			if h.calls.Load() != 3 || len(*waits) != 2 {
				t.Fatalf("calls=%d waits=%v; want 3 calls, 2 waits", h.calls.Load(), *waits)
			}
			for i, w := range *waits {
				switch {
				case tc.want != 0 && w != tc.want:
					t.Errorf("wait %d = %v; want %v", i, w, tc.want)
				case tc.want == 0 && (w < p.minSleep || w > p.maxSleep+4*time.Second):
					t.Errorf("wait %d = %v; out of [%v, %v]", i, w, p.minSleep, p.maxSleep)
				}
			}
			if st := p.Stats(); st.Requests != 3 || st.Retries != 2 || st.ByEndpoint["GET /rest/api/3/field"] != 3 {
				t.Errorf("stats = %+v", st)
			}
			noSecrets(t, logs.String())
		})
	}
}

func TestRetryGivesUpWithCode(t *testing.T) {
	for _, tc := range []struct {
		code int
		want core.Code
	}{{429, core.CodeJiraRateLimited}, {500, core.CodeJiraUnavailable}, {503, core.CodeJiraUnavailable}, {502, core.CodeJiraUnavailable}} {
		h, _, logs, err := getFieldAnsweredWith(t, tc.code, "1")
		if core.ErrorCode(err) != tc.want {
			t.Errorf("HTTP %d forever: %v; want %s", tc.code, err, tc.want)
		}
		if got := h.calls.Load(); got != 4 {
			t.Errorf("HTTP %d forever: %d attempts; want MaxAttempts=4", tc.code, got)
		}
		if !core.AsError(err).Retryable {
			t.Errorf("HTTP %d: error not retryable", tc.code)
		}
		noSecrets(t, err.Error(), logs)
	}
}

func TestRetryStopsWhenRetryAfterExceedsBudget(t *testing.T) {
	h, waits, _, err := getFieldAnsweredWith(t, 429, "3600")
	if core.ErrorCode(err) != core.CodeJiraRateLimited || h.calls.Load() != 1 || len(*waits) != 0 {
		t.Fatalf("err=%v calls=%d waits=%v; want RATE_LIMITED after 1 call without waiting an hour", err, h.calls.Load(), *waits)
	}
}

func TestStatusTranslation(t *testing.T) {
	for _, tc := range []struct {
		code int
		want core.Code
		has  string
	}{
		{401, core.CodeJiraUnauthorized, "API token"},
		{403, core.CodeJiraPermissionDenied, "project DEMO"},
		{404, core.CodeConfigInvalid, "project DEMO"},
		{400, core.CodeValidationFailed, "Jira refused"},
		{418, core.CodeInternal, "HTTP 418"},
	} {
		h, waits, logs, err := getFieldAnsweredWith(t, tc.code, "")
		if core.ErrorCode(err) != tc.want || !strings.Contains(err.Error(), tc.has) {
			t.Errorf("HTTP %d: %v; want %s mentioning %q", tc.code, err, tc.want, tc.has)
		}
		if h.calls.Load() != 1 || len(*waits) != 0 {
			t.Errorf("HTTP %d was retried (%d calls)", tc.code, h.calls.Load())
		}
		noSecrets(t, err.Error(), logs)
	}
}

func TestNonIdempotentWritesAreNotResent(t *testing.T) {
	for _, tc := range []struct {
		class    retryClass
		step     func(http.ResponseWriter)
		calls    int32
		unknown  bool
		wantCode core.Code
	}{
		{retryNever, status(500, ""), 1, true, core.CodeJiraUnavailable},
		{retryNever, status(429, "1"), 1, false, core.CodeJiraRateLimited},
		{retryRejected, status(503, "1"), 1, true, core.CodeJiraUnavailable},
		{retryRejected, status(429, "1"), 4, false, core.CodeJiraRateLimited},
	} {
		h := &scripted{steps: []func(http.ResponseWriter){tc.step}}
		srv := httptest.NewServer(h)
		var logs bytes.Buffer
		p, _ := newTestProvider(t, srv.URL, &logs, nil)
		_, err := p.do(context.Background(), call{method: "POST", path: "/rest/api/3/issue/bulk", body: map[string]any{}, class: tc.class, endpoint: "POST x", action: "create"}, nil)
		srv.Close()
		if h.calls.Load() != tc.calls || isUncertain(err) != tc.unknown || core.ErrorCode(err) != tc.wantCode {
			t.Errorf("class %d: calls=%d uncertain=%v err=%v; want %d calls, uncertain=%v, %s", tc.class, h.calls.Load(), isUncertain(err), err, tc.calls, tc.unknown, tc.wantCode)
		}
	}
}

func TestHangIsBoundedByRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	var logs bytes.Buffer
	p, _ := newTestProvider(t, srv.URL, &logs, func(c *Config) { c.RequestTimeout = 200 * time.Millisecond; c.MaxAttempts = 2 })
	start := time.Now()
	err := getField(p)
	if core.ErrorCode(err) != core.CodeJiraUnavailable {
		t.Fatalf("hang: %v; want JIRA_UNAVAILABLE", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("hang took %v; want bounded by attempts × RequestTimeout", el)
	}
	if !strings.Contains(err.Error(), "timed out") {
		t.Errorf("hang error %q does not say it timed out", err)
	}
	noSecrets(t, err.Error(), logs.String())
}

func TestNewValidatesConfig(t *testing.T) {
	base := Config{BaseURL: "https://x.atlassian.net", Email: "a@b.c", Token: testToken, Project: "DEMO"}
	for _, tc := range []struct {
		mod  func(*Config)
		want core.Code
	}{
		{func(c *Config) { c.BaseURL = "" }, core.CodeConfigMissing},
		{func(c *Config) { c.BaseURL = "ftp://x" }, core.CodeConfigInvalid},
		{func(c *Config) { c.BaseURL = "http://jira.example.com" }, core.CodeConfigInvalid},
		{func(c *Config) { c.BaseURL = "https://user:" + testToken + "@x.atlassian.net" }, core.CodeConfigInvalid},
		{func(c *Config) { c.Token = "" }, core.CodeCredentialsMissing},
		{func(c *Config) { c.Email = "" }, core.CodeConfigMissing},
		{func(c *Config) { c.Project = "" }, core.CodeConfigMissing},
		{func(c *Config) { c.Project = `DEMO" OR 1=1` }, core.CodeConfigInvalid},
	} {
		c := base
		tc.mod(&c)
		_, err := New(c)
		if core.ErrorCode(err) != tc.want {
			t.Errorf("New(%+v) = %v; want %s", c.BaseURL, err, tc.want)
		}
		if err != nil {
			noSecrets(t, err.Error())
		}
	}
	p, err := New(Config{BaseURL: "https://api.atlassian.com/ex/jira/abc/", SiteURL: "https://x.atlassian.net/", Email: "a@b.c", Token: testToken, Project: "DEMO"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Scope() != "https://x.atlassian.net/DEMO" {
		t.Errorf("Scope = %q", p.Scope())
	}
}

// TestCreate429WithoutRetryAfter: the fake always sends Retry-After, so
// this scripted Jira covers a 429 without it on a bulk create: backoff
// (not a spin), a search for the references, then one more send.
func TestCreate429WithoutRetryAfter(t *testing.T) {
	var bulk, search atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/rest/api/3/issue/bulk":
			if bulk.Add(1) == 1 {
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"errorMessages":["Rate limit exceeded."],"errors":{}}`))
				return
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"issues":[{"id":"10001","key":"DEMO-1"}],"errors":[]}`))
		case "/rest/api/3/search/jql":
			search.Add(1)
			_, _ = w.Write([]byte(`{"issues":[],"isLast":true}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	var logs bytes.Buffer
	p, waits := newTestProvider(t, srv.URL, &logs, nil)
	p.meta = &meta{refIDs: []string{"customfield_10050"}, refClauses: []string{"cf[10050]"}, epicTypeID: "10000", storyTypeID: "10001", typeNames: []string{"Epic", "Story"}}
	out, err := p.Create(context.Background(), []core.ItemSpec{{Reference: "d/s-1", Kind: core.KindStory, Title: "T", Digest: "sha256:x"}})
	if err != nil || len(out) != 1 || out[0].Key != "DEMO-1" {
		t.Fatalf("Create = %+v, %v; want DEMO-1", out, err)
	}
	if bulk.Load() != 2 || search.Load() != 1 {
		t.Errorf("bulk sends %d, searches %d; want 2 and 1 (search before resending)", bulk.Load(), search.Load())
	}
	if len(*waits) != 1 || (*waits)[0] < p.minSleep {
		t.Errorf("waits %v; want one backoff of at least %v", *waits, p.minSleep)
	}
	noSecrets(t, logs.String())
}

func TestConfigNeverPrintsToken(t *testing.T) {
	c := Config{BaseURL: "https://x.atlassian.net", Email: "a@b.c", Token: testToken, Project: "DEMO"}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "cfg", c)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", c)
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", p, p, p, p); strings.Contains(s, testToken) {
		t.Errorf("token printed with the provider: %s", s)
	}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", &c), logs.String()} {
		if strings.Contains(s, testToken) {
			t.Errorf("token printed: %s", s)
		}
		if !strings.Contains(s, "redacted") {
			t.Errorf("no redaction marker in %s", s)
		}
	}
}

func TestConnectionsAreReused(t *testing.T) {
	h := &scripted{steps: []func(http.ResponseWriter){ok(`[]`)}}
	srv := httptest.NewUnstartedServer(h)
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	var logs bytes.Buffer
	p, _ := newTestProvider(t, srv.URL, &logs, nil)
	for i := 0; i < 10; i++ {
		if err := getField(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("10 sequential requests opened %d connections; want 1 (keep-alive)", n)
	}
}

// TestRequestSaysWhenItLeft: a request whose context carries
// core.WithSent reports that it left once the pacer admitted it, before
// Jira answers — a commit starts the writes waiting for that send (the
// other story batches after the rank heads' batch) without waiting for
// the answer.
func TestRequestSaysWhenItLeft(t *testing.T) {
	var said atomic.Int32
	var before atomic.Bool // Sent was called before the request reached Jira
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		before.Store(said.Load() > 0)
		_, _ = w.Write([]byte("[]"))
	}))
	defer srv.Close()
	var logs bytes.Buffer
	p, _ := newTestProvider(t, srv.URL, &logs, nil)
	ctx := core.WithSent(t.Context(), func() { said.Add(1) })
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/field", endpoint: "GET /rest/api/3/field", action: "list the Jira fields"}, nil); err != nil {
		t.Fatal(err)
	}
	if !before.Load() {
		t.Errorf("the request reached Jira before it said it left (said %d times)", said.Load())
	}
}
