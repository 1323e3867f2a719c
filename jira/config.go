package jira

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Config configures a Provider. BaseURL, Email, Token and Project are
// required; everything else has a default.
type Config struct {
	// BaseURL is the REST base: https://site.atlassian.net, or
	// https://api.atlassian.com/ex/jira/{cloudId} for scoped tokens.
	BaseURL string
	// SiteURL is the site used for issue links and the scope (default BaseURL).
	SiteURL string
	// Email and Token authenticate with Basic auth. The token never appears
	// in an error, a log line or a panic.
	Email, Token string
	// Project is the project key.
	Project string
	// ReferenceField is the custom field holding an item's reference: its id
	// (customfield_10050) or its name (default "DevWorkWire Reference").
	ReferenceField string
	// EpicType and StoryType are issue type names (defaults "Epic", "Story").
	EpicType, StoryType string
	// AcceptanceCriteriaField is an optional custom field id or name; when
	// empty, acceptance criteria live in the description under an
	// "Acceptance criteria" heading.
	AcceptanceCriteriaField string
	// HTTPClient is used for every request (default: a client with explicit
	// connect, TLS and response-header timeouts). One client per Provider.
	HTTPClient *http.Client
	// Logger receives request, retry and count logs (default: discard).
	Logger *slog.Logger
	// MaxAttempts bounds the attempts of a retryable request (default 5).
	MaxAttempts int
	// MaxRetryWait bounds the time spent retrying one request (default
	// 30s): no retry starts, and no wait is begun, that would end after it.
	// One request thus takes at most MaxRetryWait + RequestTimeout.
	MaxRetryWait time.Duration
	// RequestTimeout bounds one attempt of one request, from sending to the
	// end of the response body (default 30s). A hung request fails after it.
	RequestTimeout time.Duration
	// SingleCreate sends one POST /issue per item instead of bulk creates.
	// It exists only as the benchmark baseline.
	SingleCreate bool
}

// Defaults of Config.
const (
	DefaultReferenceField = "DevWorkWire Reference"
	DefaultEpicType       = "Epic"
	DefaultStoryType      = "Story"
	DefaultMaxAttempts    = 5
	DefaultMaxRetryWait   = 30 * time.Second
	DefaultRequestTimeout = 30 * time.Second
)

// PropertyKey is the issue entity property holding what DevWorkWire last
// wrote: {"digest": <core.ContentDigest>, "jira_digest": <digest of the
// Jira-side content as written>}.
const PropertyKey = "devworkwire"

// Provider is the Jira Cloud implementation of core.WorkItemProvider. It is
// safe for concurrent use. Field and issue-type discovery happens once,
// lazily, and is cached.
type Provider struct {
	cfg      Config
	base     *url.URL
	site     string
	client   *http.Client
	log      *slog.Logger
	backoff  time.Duration // first backoff step
	maxSleep time.Duration // cap of one backoff step
	minSleep time.Duration // floor of any wait (Retry-After: 0 must not spin)
	sleep    func(context.Context, time.Duration) error

	metaMu sync.Mutex
	meta   *meta

	mu      sync.Mutex
	stats   Stats
	created map[core.Reference]int64 // issue ids this Provider created, for reconcileIssues
}

var _ core.WorkItemProvider = (*Provider)(nil)

// Stats counts the requests a Provider sent.
type Stats struct {
	// Requests is the number of HTTP requests sent (every attempt counts).
	Requests int
	// ByEndpoint counts requests by "METHOD /path/template".
	ByEndpoint map[string]int
	// Retries is the number of attempts that were retries.
	Retries int
	// Created is the number of issues this Provider created.
	Created int
	// Unknown is the number of creates whose outcome stayed unknown.
	Unknown int
}

// New validates cfg and returns a Provider. It does no I/O; Check verifies
// the configuration against Jira.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, field("jira.site", core.CodeConfigMissing, "The Jira site URL is not set. Set it to your site, e.g. https://your-team.atlassian.net.")
	}
	baseField := "jira.site"
	if cfg.SiteURL != "" && strings.TrimRight(cfg.SiteURL, "/") != strings.TrimRight(cfg.BaseURL, "/") {
		baseField = "jira.api_url"
	}
	base, err := parseBase(cfg.BaseURL, baseField)
	if err != nil {
		return nil, err
	}
	site := base.String()
	if cfg.SiteURL != "" {
		su, err := parseBase(cfg.SiteURL, "jira.site")
		if err != nil {
			return nil, err
		}
		site = su.String()
	}
	if strings.TrimSpace(cfg.Email) == "" {
		return nil, field("jira.email", core.CodeConfigMissing, "The Jira account e-mail is not set. Set it to the e-mail you log in to Jira with.")
	}
	if cfg.Token == "" {
		return nil, core.Errorf(core.CodeCredentialsMissing, "The Jira API token is empty. Create one at https://id.atlassian.com/manage-profile/security/api-tokens and put it in the environment variable your configuration names.")
	}
	if strings.ContainsAny(cfg.Token, "\r\n") {
		return nil, core.Errorf(core.CodeConfigInvalid, "The Jira API token contains a line break. Copy the token again without the trailing newline.")
	}
	cfg.Project = strings.TrimSpace(cfg.Project)
	if cfg.Project == "" {
		return nil, field("jira.project", core.CodeConfigMissing, "The Jira project key is not set. Set it to the key shown in your project's issue keys (e.g. PROJ for PROJ-1).")
	}
	if !validProjectKey(cfg.Project) {
		return nil, field("jira.project", core.CodeConfigInvalid, fmt.Sprintf("%q is not a Jira project key. Use the key shown in the project's issue keys (letters, digits and underscores, starting with a letter).", cfg.Project))
	}
	if cfg.ReferenceField == "" {
		cfg.ReferenceField = DefaultReferenceField
	}
	if cfg.EpicType == "" {
		cfg.EpicType = DefaultEpicType
	}
	if cfg.StoryType == "" {
		cfg.StoryType = DefaultStoryType
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	client := cfg.HTTPClient
	if client == nil {
		client = newHTTPClient(cfg.RequestTimeout)
	}
	return &Provider{
		cfg:      cfg,
		base:     base,
		site:     site,
		client:   client,
		log:      log.With("component", "jira"),
		backoff:  500 * time.Millisecond,
		maxSleep: 8 * time.Second,
		minSleep: 100 * time.Millisecond,
		sleep:    sleepCtx,
		stats:    Stats{ByEndpoint: map[string]int{}},
		created:  map[core.Reference]int64{},
	}, nil
}

// newHTTPClient returns the default client: explicit connect, TLS and
// response-header timeouts, pooled keep-alive connections.
func newHTTPClient(requestTimeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: requestTimeout,
			ExpectContinueTimeout: time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConns:          16,
			MaxIdleConnsPerHost:   8,
			ForceAttemptHTTP2:     true,
		},
		// Jira never redirects API calls; following one could send the
		// credentials elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func parseBase(raw, name string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(raw), "/"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, field(name, core.CodeConfigInvalid, fmt.Sprintf("%q is not a Jira site URL. Use https://your-team.atlassian.net or https://api.atlassian.com/ex/jira/<cloud id>.", redactURL(raw)))
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, field(name, core.CodeConfigInvalid, fmt.Sprintf("%s uses http://; Jira Cloud needs https:// (plain http is accepted only for a local test server on 127.0.0.1).", u.Redacted()))
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL drops any user info from a URL-looking string before it is
// shown.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	if i := strings.Index(raw, "@"); i >= 0 {
		return "…" + raw[i:]
	}
	return raw
}

func validProjectKey(k string) bool {
	for i, r := range k {
		switch {
		case r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '_'):
		default:
			return false
		}
	}
	return k != ""
}

func field(name string, code core.Code, msg string) *core.Error {
	return core.Errorf(code, "%s", msg).WithDetails(core.Detail{Field: name, Message: msg})
}

// Scope returns the site and project this Provider writes to, e.g.
// "https://example.atlassian.net/PROJ".
func (p *Provider) Scope() string { return p.site + "/" + p.cfg.Project }

// Stats returns a copy of the request counts so far.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.ByEndpoint = make(map[string]int, len(p.stats.ByEndpoint))
	for k, v := range p.stats.ByEndpoint {
		s.ByEndpoint[k] = v
	}
	return s
}

// String describes the configuration without its token, so that printing
// a Config (%v, %+v) never shows the secret.
func (c Config) String() string {
	tok := "(empty)"
	if c.Token != "" {
		tok = "[redacted]"
	}
	return fmt.Sprintf("jira.Config{BaseURL:%q SiteURL:%q Email:%q Token:%s Project:%q ReferenceField:%q EpicType:%q StoryType:%q AcceptanceCriteriaField:%q SingleCreate:%v}",
		c.BaseURL, c.SiteURL, c.Email, tok, c.Project, c.ReferenceField, c.EpicType, c.StoryType, c.AcceptanceCriteriaField, c.SingleCreate)
}

// GoString is String for %#v.
func (c Config) GoString() string { return c.String() }

// LogValue logs the configuration without its token.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String names the provider by its scope; printing a Provider never shows
// its configuration's token.
func (p *Provider) String() string { return "jira.Provider(" + p.Scope() + ")" }

// GoString is String for %#v.
func (p *Provider) GoString() string { return p.String() }
