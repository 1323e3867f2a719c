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
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Provider is the Jira implementation of core.WorkItemProvider, for Jira
// Cloud and Jira Data Center (datacenter.go). It is
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
	// fieldIDs maps the Jira ids of the managed fields to their keys
	// (fields.go), readable without metaMu (error translation runs under it).
	fieldIDs atomic.Pointer[map[string]string]

	mu       sync.Mutex
	stats    Stats
	created  map[core.Reference]int64 // issue ids this Provider created, for reconcileIssues
	tails    map[string]int           // per document: the newest key number a finished tail read found (0: an empty project; see tail.go)
	floors   map[core.Reference]int   // tails[its document] when each reference was sent to Create (duplicates.go)
	newest   int                      // the newest key number this Provider created or found created (settle.go)
	blocksID string                   // the Blocks link type's id on a site that renamed it (structure.go)
	parents  sync.Map                 // issue key → its parent key as last read ("" for none): Update sends only a changed parent

	account accountCache // account.go

	epicLinkID atomic.Pointer[string] // the Epic Link field on Data Center (datacenter.go)

	paceOnce sync.Once
	pace     *pacer // pacing(); tests may set it before the first request
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
	switch cfg.Deployment {
	case "", DeploymentCloud:
		cfg.Deployment = DeploymentCloud
	case DeploymentDataCenter:
	default:
		return nil, field("jira.deployment", core.CodeConfigInvalid, fmt.Sprintf("%q is not a Jira deployment. Use cloud (Jira Cloud, *.atlassian.net) or datacenter (Jira Data Center or Server that your team hosts).", cfg.Deployment))
	}
	dc := cfg.Deployment == DeploymentDataCenter
	if strings.TrimSpace(cfg.Email) == "" && !dc {
		return nil, field("jira.email", core.CodeConfigMissing, "The Jira account e-mail is not set. Set it to the e-mail you log in to Jira with.")
	}
	if cfg.Token == "" && dc {
		return nil, core.Errorf(core.CodeCredentialsMissing, "The Jira personal access token is empty. Create one in Jira (your profile → Personal Access Tokens) and put it in the environment variable your configuration names.")
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
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
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

// String names the provider by its scope; printing a Provider never shows
// its configuration's token.
func (p *Provider) String() string { return "jira.Provider(" + p.Scope() + ")" }

// GoString is String for %#v.
func (p *Provider) GoString() string { return p.String() }
