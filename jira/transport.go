package jira

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// retryClass says what the retry layer may do with a request. Creates are
// retryNever: nothing below the create logic can resend them.
type retryClass int

const (
	// retryIdempotent: GET, PUT and search POST. Retried on 429, 5xx and
	// transport errors.
	retryIdempotent retryClass = iota
	// retryRejected: non-idempotent writes other than creates (transition,
	// comment). Retried only on 429, which Jira answers before doing
	// anything; a 5xx or a dropped connection may have applied them.
	retryRejected
	// retryNever: creates. A create is sent exactly once per call; its
	// outcome, when unknown, is established by searching.
	retryNever
)

// call is one logical request.
type call struct {
	method   string
	path     string // under the base URL, e.g. /rest/api/3/field
	query    url.Values
	body     any
	class    retryClass
	endpoint string // stats key, e.g. "GET /rest/api/3/issue/{key}"
	action   string // what the request does, for messages: "read issue DEMO-1"
	key      string // the issue key the request is about, for 404 messages
}

// response is a finished HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// maxBody bounds how much of a response is read.
const maxBody = 32 << 20

// uncertainError marks a write that was sent and may or may not have been
// applied: a transport error after sending, a timeout, or a 5xx.
type uncertainError struct {
	err    *core.Error
	reason string // short: "Jira answered HTTP 503", "connection reset", …
}

func (e *uncertainError) Error() string { return e.err.Error() }
func (e *uncertainError) Unwrap() error { return e.err }

// uncertainReason is the short reason of an uncertain write, or "".
func uncertainReason(err error) string {
	var u *uncertainError
	if errors.As(err, &u) {
		return u.reason
	}
	return ""
}

// isUncertain reports whether err says a write may have been applied.
func isUncertain(err error) bool {
	var u *uncertainError
	return errors.As(err, &u)
}

// do sends c, retrying as its class allows, and decodes a 2xx JSON body
// into out (when out is non-nil). Other statuses become *core.Error; a
// write whose outcome is unknown is wrapped in *uncertainError.
func (p *Provider) do(ctx context.Context, c call, out any) (*response, error) {
	c, back := p.dialect(c) // Data Center's terms (datacenter.go)
	var payload []byte
	if c.body != nil {
		b, err := json.Marshal(c.body)
		if err != nil {
			return nil, core.Wrap(err, core.CodeInternal, "Could not encode the request to %s.", c.action)
		}
		payload = b
	}
	u := *p.base
	u.Path = strings.TrimRight(p.base.Path, "/") + c.path
	u.RawPath = ""
	if c.path != "" && strings.Contains(c.path, "%") {
		u.RawPath = strings.TrimRight(p.base.EscapedPath(), "/") + c.path
	}
	u.RawQuery = c.query.Encode()
	target := u.String()

	start := time.Now()
	deadline := start.Add(p.cfg.MaxRetryWait) // no retry starts after it
	log := p.logFor(ctx)
	attempts, waited := 0, time.Duration(0)
	defer func() { tallyFrom(ctx).record(c.endpoint, attempts, waited) }()
	for attempt := 1; ; attempt++ {
		attempts = attempt
		if err := ctx.Err(); err != nil {
			return nil, ctxError(err, c)
		}
		tk, err := p.pacing().acquire(ctx, c) // pacer.go: Jira's rate-limit signals
		if err != nil {
			return nil, ctxError(err, c)
		}
		core.Sent(ctx) // the commit may start what waits for this request to leave
		resp, err := p.attempt(ctx, c, target, payload)
		p.pacing().release(tk, resp)
		p.count(c.endpoint, attempt > 1)
		var (
			final    error
			wait     time.Duration
			hint     bool // wait came from Retry-After
			canRetry bool
		)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				// The caller gave up. A write may still have been applied.
				if c.class != retryIdempotent {
					return nil, &uncertainError{ctxError(ctx.Err(), c), "the request was cancelled"}
				}
				return nil, ctxError(ctx.Err(), c)
			}
			log.Warn("jira request failed", "endpoint", c.endpoint, "attempt", attempt, "error_kind", transportKind(err))
			e := core.Wrap(err, core.CodeJiraUnavailable, "Jira at %s did not answer the request to %s (%s). Check the site URL and your network connection%s, then try again.", p.base.Host, c.action, transportKind(err), p.statusPage(" and "))
			if c.class != retryIdempotent {
				log.Warn("jira write outcome unknown", "endpoint", c.endpoint, "error_kind", transportKind(err))
				return nil, &uncertainError{e, transportKind(err)}
			}
			final, canRetry = e, true
		case resp.status >= 200 && resp.status < 300:
			log.Debug("jira request", "endpoint", c.endpoint, "status", resp.status, "attempt", attempt, "duration_ms", time.Since(start).Milliseconds())
			p.noteAccount(resp.header) // account.go
			if back != nil {
				resp.body = back(resp.body)
			}
			if out != nil && len(resp.body) > 0 {
				if err := json.Unmarshal(resp.body, out); err != nil {
					return resp, core.Wrap(err, core.CodeInternal, "Jira's answer to the request to %s was not the JSON expected. Check that the site URL points at Jira Cloud.", c.action)
				}
			}
			return resp, nil
		case resp.status == http.StatusConflict && c.class == retryIdempotent:
			// "Could not be updated due to a conflicting update" (PUT
			// /issue): another write to the issue at that moment, nothing
			// applied; an idempotent request is simply sent again.
			final, canRetry = p.statusError(resp, c), true
		case resp.status == http.StatusTooManyRequests:
			wait, hint = retryAfter(resp.header, time.Now())
			final = core.Errorf(core.CodeJiraRateLimited, "Jira is rate-limiting requests (while trying to %s). Wait a minute and try again; for a large import, commit in smaller documents.", c.action)
			canRetry = c.class != retryNever
		case resp.status >= 500:
			wait, hint = retryAfter(resp.header, time.Now())
			e := core.Errorf(core.CodeJiraUnavailable, "Jira at %s answered HTTP %d to the request to %s. It is probably having trouble: %stry again later.", p.base.Host, resp.status, c.action, p.statusPage("check ", ", then "))
			if c.class != retryIdempotent {
				log.Warn("jira write outcome unknown", "endpoint", c.endpoint, "status", resp.status)
				return resp, &uncertainError{e, fmt.Sprintf("Jira answered HTTP %d", resp.status)}
			}
			final, canRetry = e, true
		default:
			log.Debug("jira request", "endpoint", c.endpoint, "status", resp.status, "attempt", attempt)
			return resp, p.statusError(resp, c)
		}
		if !canRetry || attempt >= p.cfg.MaxAttempts {
			log.Warn("jira request gave up", "endpoint", c.endpoint, "attempts", attempt, "code", core.ErrorCode(final))
			return resp, final
		}
		if !hint {
			wait = p.backoffStep(attempt)
		}
		wait = max(wait, p.minSleep)
		if time.Now().Add(wait).After(deadline) {
			log.Warn("jira request gave up", "endpoint", c.endpoint, "attempts", attempt, "code", core.ErrorCode(final), "reason", "retry time budget exhausted", "wanted_wait_ms", wait.Milliseconds())
			return resp, final
		}
		status := 0
		if resp != nil {
			status = resp.status
		}
		log.Info("jira request retry", "endpoint", c.endpoint, "attempt", attempt, "status", status, "wait_ms", wait.Milliseconds(), "retry_after", hint)
		waited += wait
		if err := p.sleep(ctx, wait); err != nil {
			return nil, ctxError(err, c)
		}
	}
}

// attempt sends one HTTP request and reads the whole response.
func (p *Provider) attempt(ctx context.Context, c call, target string, payload []byte) (*response, error) {
	// Each attempt gets the full request timeout: the retry budget decides
	// whether an attempt starts, never how long it may take.
	actx, cancel := context.WithTimeout(ctx, p.cfg.RequestTimeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, c.method, target, body)
	if err != nil {
		return nil, err
	}
	p.authorize(req) // datacenter.go
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "devworkwire-jira")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// No Idempotency-Key header is ever set: net/http would then treat a
	// POST as replayable and could resend a create on a reused connection.
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// backoffStep is exponential backoff with full jitter: a random wait in
// [0, min(maxSleep, backoff·2^(attempt-1))].
func (p *Provider) backoffStep(attempt int) time.Duration {
	ceil := p.backoff << min(attempt-1, 20)
	if ceil <= 0 || ceil > p.maxSleep {
		ceil = p.maxSleep
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// retryAfter reads Retry-After as seconds or an HTTP date. ok is false
// when the header is absent or unreadable.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 || n != n {
			return 0, true
		}
		if n > 86400 {
			n = 86400
		}
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// transportKind names a transport failure without its text (which may hold
// URLs or addresses, never credentials, but is noise to a user).
func transportKind(err error) string {
	var ne interface{ Timeout() bool }
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the answer"
	case strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	default:
		return "connection failed"
	}
}

// statusPage points to Atlassian's status page, between before and after,
// for a site Atlassian hosts (*.atlassian.net, api.atlassian.com); for any
// other host (a local fake, a proxy) it says nothing.
func (p *Provider) statusPage(before string, after ...string) string {
	h := strings.ToLower(p.base.Hostname())
	if !strings.HasSuffix(h, ".atlassian.net") && h != "api.atlassian.com" {
		return ""
	}
	return before + "https://status.atlassian.com" + strings.Join(after, "")
}

func ctxError(err error, c call) *core.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return core.Wrap(err, core.CodeJiraUnavailable, "The request to %s did not finish before the deadline. Try again; if Jira is slow, try again later.", c.action)
	}
	return core.Wrap(err, core.CodeInternal, "The request to %s was cancelled.", c.action)
}

func (p *Provider) count(endpoint string, retry bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Requests++
	p.stats.ByEndpoint[endpoint]++
	if retry {
		p.stats.Retries++
	}
}

// jiraErrorBody is Jira's error shape.
type jiraErrorBody struct {
	ErrorMessages []string          `json:"errorMessages"`
	Errors        map[string]string `json:"errors"`
}

// statusError translates a non-2xx, non-retryable answer into the taxonomy.
// The raw body never surfaces; field names and Jira's short messages do,
// cleaned.
func (p *Provider) statusError(resp *response, c call) *core.Error {
	switch resp.status {
	case http.StatusUnauthorized:
		return core.Errorf(core.CodeJiraUnauthorized, "Jira rejected the credentials of %s at %s. %s", p.whose(), p.site, p.renewCredentials())
	case http.StatusForbidden:
		what := c.action
		if !strings.Contains(what, p.cfg.Project) {
			what += " in project " + p.cfg.Project
		}
		return core.Errorf(core.CodeJiraPermissionDenied, "Your Jira account (%s) is not allowed to %s. Ask a Jira administrator of project %s for that permission.", p.whose(), what, p.cfg.Project)
	case http.StatusNotFound:
		if c.key != "" {
			return core.Errorf(core.CodeWorkItemNotFound, "Issue %s was not found in Jira (or your account cannot see it). Check the key.", c.key).WithDetails(core.Detail{Key: c.key, Message: "not found"})
		}
		return core.Errorf(core.CodeConfigInvalid, "Jira could not find what the request to %s needs. Check that project %s exists at %s and that your account can browse it.", c.action, p.cfg.Project, p.site)
	case http.StatusRequestEntityTooLarge:
		// Jira's per-issue limits (issue links, comments, attachments,
		// worklogs: thousands each) or a request body over its size limit.
		what := "the work item"
		if c.key != "" {
			what = c.key
		}
		return core.Errorf(core.CodeValidationFailed, "Jira refused the request to %s as too large: %s has reached one of Jira's per-issue limits (issue links, comments, attachments) or the request is over Jira's size limit. Remove old links or comments from it in Jira, or leave this change out of the document.", c.action, what).WithDetails(core.Detail{Key: c.key, Message: "over a per-issue limit"})
	case http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity:
		msg, details := p.translateBody(resp.body)
		e := core.Errorf(core.CodeValidationFailed, "Jira refused the request to %s: %s", c.action, msg)
		return e.WithDetails(details...)
	default:
		return core.Errorf(core.CodeInternal, "Jira answered HTTP %d to the request to %s, which DevWorkWire does not expect. Try again; report it with the run id if it persists.", resp.status, c.action)
	}
}

// translateBody turns Jira's {"errorMessages","errors"} into a one-line
// message and details. Messages are shortened and stripped of line breaks.
func (p *Provider) translateBody(body []byte) (string, []core.Detail) {
	var jb jiraErrorBody
	if err := json.Unmarshal(body, &jb); err != nil {
		return "the request was not accepted (no readable reason was given).", nil
	}
	return p.translateErrors(jb)
}

func (p *Provider) translateErrors(jb jiraErrorBody) (string, []core.Detail) {
	var parts []string
	var details []core.Detail
	for _, m := range jb.ErrorMessages {
		m = p.clean(m)
		if m != "" {
			parts = append(parts, m)
		}
	}
	keys := make([]string, 0, len(jb.Errors))
	for k := range jb.Errors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		m := p.clean(jb.Errors[k])
		parts = append(parts, fmt.Sprintf("field %s: %s", k, m))
		d := core.Detail{Field: k, Message: m}
		if key := p.fieldKeyOf(k); key != "" {
			d.Field, d.Message = key, fmt.Sprintf("%s (%s): %s", core.FieldName(key), k, m)
		}
		details = append(details, d)
	}
	if len(parts) == 0 {
		return "the request was not accepted (no reason was given).", details
	}
	return strings.Join(parts, "; "), details
}

// clean makes a Jira message safe to show: one line, bounded length, and
// never the credentials (should a message ever echo them).
func (p *Provider) clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, secret := range []string{p.cfg.Token, base64.StdEncoding.EncodeToString([]byte(p.cfg.Email + ":" + p.cfg.Token))} {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
