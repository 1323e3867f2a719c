package jira

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	// Email and Token authenticate with Basic auth on Cloud; on Data
	// Center Token is a personal access token sent as a bearer token and
	// Email is not used. The token never appears in an error, a log line
	// or a panic.
	Email, Token string
	// Deployment is DeploymentCloud (default) or DeploymentDataCenter.
	Deployment string
	// Project is the project key.
	Project string
	// ReferenceField is the custom field holding an item's reference: its id
	// (customfield_10050) or its name (default "DevWorkWire Reference").
	ReferenceField string
	// EpicType and StoryType are issue type names (defaults "Epic", "Story").
	EpicType, StoryType string
	// SubtaskType is the sub-task issue type's name (default: the
	// project's first sub-task type; structure.go).
	SubtaskType string
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
	// MaxInFlight caps the requests in flight to Jira at once (default
	// DefaultMaxInFlight; 1 = one request at a time). Below the cap the
	// pacer (pacer.go) starts small and follows Jira's rate-limit signals.
	MaxInFlight int
	// CustomFields maps the custom field names documents use (the
	// configuration's `fields:`) to a Jira field id or name.
	CustomFields map[string]string
	// EstimateField is the number field Estimate writes (id or name);
	// default "Story point estimate", else "Story Points".
	EstimateField string
	// Users maps what documents write for a person (an e-mail or a name)
	// to an account id, for people the assignable-user search cannot
	// find by it (e-mail hidden by privacy settings) or finds several of.
	Users map[string]string
	// TransitionFields names the value to give a required field of a
	// workflow transition's screen, by the field's name or id (Resolution:
	// Won't Do); a required field without an entry gets its first allowed
	// value (Resolution: Done on a classic workflow's Resolve Issue).
	TransitionFields map[string]string
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
	DefaultMaxInFlight    = 16
)

// PropertyKey is the issue entity property holding what DevWorkWire last
// wrote: {"digest": <core.ContentDigest>, "jira_digest": <digest of the
// Jira-side content as written>}.
const PropertyKey = "devworkwire"

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

// LogValue logs the configuration without its token.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String describes the configuration without its token, so that printing
// a Config (%v, %+v) never shows the secret.
func (c Config) String() string {
	tok := "(empty)"
	if c.Token != "" {
		tok = "[redacted]"
	}
	return fmt.Sprintf("jira.Config{Deployment:%q BaseURL:%q SiteURL:%q Email:%q Token:%s Project:%q ReferenceField:%q EpicType:%q StoryType:%q AcceptanceCriteriaField:%q SingleCreate:%v}",
		c.Deployment, c.BaseURL, c.SiteURL, c.Email, tok, c.Project, c.ReferenceField, c.EpicType, c.StoryType, c.AcceptanceCriteriaField, c.SingleCreate)
}

// GoString is String for %#v.
func (c Config) GoString() string { return c.String() }
