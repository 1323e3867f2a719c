package jiratest

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"time"
)

// Fault kinds.
const (
	FaultHTTP500        = "500"              // 500 with a Jira error body; the request is not applied
	FaultHTTP503        = "503"              // 503 with Retry-After; not applied
	FaultRateLimited    = "429"              // 429 with Retry-After and X-RateLimit-* headers; not applied
	FaultReset          = "reset"            // the connection is reset (RST) before any response; not applied
	FaultHang           = "hang"             // no response until the client gives up (or the server closes); not applied
	FaultDropAfterApply = "drop-after-apply" // the request IS applied, then the connection is reset without a response
	// FaultConflict is Jira's 409 to an edit or transition "due to a
	// conflicting update" (another write to the issue at that moment); not
	// applied.
	FaultConflict = "409"
	// FaultTooLarge is Jira's 413 when an issue has reached a per-issue
	// limit (issue links, comments, attachments, worklogs); not applied.
	FaultTooLarge = "413"
)

// RetryAfterNone as Fault.RetryAfter omits the Retry-After header ("-" is
// accepted as a synonym).
const RetryAfterNone = "none"

// Fault scripts a failure for matching requests.
type Fault struct {
	Method string `json:"method,omitempty"` // "" = any method
	Path   string `json:"path"`             // exact path, or a path.Match pattern ("/rest/api/3/issue/*")
	Call   int    `json:"call,omitempty"`   // 1-based count of matching calls; 0 = every call
	Kind   string `json:"kind"`             // one of the Fault* kinds, or any other 5xx status code
	// RetryAfter is the Retry-After header of a 503/429 fault: seconds or an
	// HTTP date (default "1"); RetryAfterNone ("none" or "-") omits the
	// header, as Jira sometimes does.
	RetryAfter string `json:"retry_after,omitempty"`
}

type faultRule struct {
	Fault
	seen int
}

func (f Fault) validate() error {
	switch f.Kind {
	case FaultHTTP500, FaultHTTP503, FaultRateLimited, FaultReset, FaultHang, FaultDropAfterApply, FaultConflict, FaultTooLarge:
	default:
		n, err := strconv.Atoi(f.Kind)
		if err != nil || n < 500 || n > 599 {
			return fmt.Errorf("fault kind %q is unknown; use 500, 503, 429, 409, 413, reset, hang, drop-after-apply or another 5xx code", f.Kind)
		}
	}
	if f.Path == "" {
		return fmt.Errorf("fault needs a path (exact, or a pattern such as /rest/api/3/issue/*)")
	}
	if _, err := path.Match(f.Path, "/"); err != nil {
		return fmt.Errorf("fault path %q is not a valid pattern: %v", f.Path, err)
	}
	if f.Call < 0 {
		return fmt.Errorf("fault call must be 0 (every call) or a 1-based call number, not %d", f.Call)
	}
	return nil
}

// AddFault scripts a fault.
func (s *Server) AddFault(f Fault) error {
	if err := f.validate(); err != nil {
		return err
	}
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.faults = append(s.faults, &faultRule{Fault: f})
	return nil
}

// ClearFaults removes all scripted faults.
func (s *Server) ClearFaults() {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	s.faults = nil
}

// Faults returns the scripted faults.
func (s *Server) Faults() []Fault {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	out := make([]Fault, len(s.faults))
	for i, f := range s.faults {
		out[i] = f.Fault
	}
	return out
}

func (s *Server) matchFault(r *http.Request) *Fault {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	var hit *Fault
	for _, f := range s.faults {
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if ok, _ := path.Match(f.Path, r.URL.Path); !ok && f.Path != r.URL.Path {
			continue
		}
		f.seen++
		if hit == nil && (f.Call == 0 || f.Call == f.seen) {
			c := f.Fault
			hit = &c
		}
	}
	return hit
}

// applyFault performs f; it reports whether the request is finished.
func (s *Server) applyFault(w *statusRecorder, r *http.Request, f *Fault) bool {
	ra := f.RetryAfter
	if ra == "" {
		ra = "1"
	}
	omit := ra == RetryAfterNone || ra == "-"
	switch f.Kind {
	case FaultHTTP503:
		if !omit {
			w.Header().Set("Retry-After", ra)
		}
		writeErr(w, http.StatusServiceUnavailable, newErr("Service Unavailable: the server is temporarily unable to handle the request (mockjira fault)."))
	case FaultRateLimited:
		secs := 0
		if !omit {
			w.Header().Set("Retry-After", ra)
			secs, _ = strconv.Atoi(ra)
		}
		setRateHeaders(w.Header(), time.Duration(secs)*time.Second, 100, 0, s.now())
		writeErr(w, http.StatusTooManyRequests, newErr("Rate limit exceeded."))
	case FaultReset:
		w.logNow()
		resetConn(w)
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.closed:
			resetConn(w)
		}
	case FaultConflict:
		writeErr(w, http.StatusConflict, newErr("The issue could not be updated due to a conflicting update. Please try again."))
	case FaultTooLarge:
		writeErr(w, http.StatusRequestEntityTooLarge, newErr("The per-issue limit has been breached for one of the following fields: issuelinks, comments, attachments, worklogs."))
	case FaultDropAfterApply:
		rec := httptest.NewRecorder()
		s.mux.ServeHTTP(rec, r)
		w.status = rec.Code
		w.logNow()
		resetConn(w)
	default:
		code, _ := strconv.Atoi(f.Kind)
		writeErr(w, code, newErr("Internal server error (mockjira fault)."))
	}
	return true
}

// resetConn closes the connection with an RST and no response.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// tokenBucket is a small token bucket (rate per second, burst).
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	b := &tokenBucket{}
	b.set(rate, burst, now)
	return b
}

func (b *tokenBucket) set(rate float64, burst int, now time.Time) {
	if burst <= 0 {
		burst = int(math.Max(1, math.Ceil(rate)))
	}
	b.rate, b.burst, b.tokens, b.last = rate, float64(burst), float64(burst), now
}

// take takes a token; when none is left it says how long until one is.
func (b *tokenBucket) take(now time.Time) (ok bool, wait time.Duration, remaining int) {
	if b.rate <= 0 {
		return true, 0, 0
	}
	b.tokens = math.Min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, int(b.tokens)
	}
	need := (1 - b.tokens) / b.rate
	return false, time.Duration(need * float64(time.Second)), 0
}

func setRateHeaders(h http.Header, wait time.Duration, limit, remaining int, now time.Time) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", now.Add(wait).UTC().Format(time.RFC3339))
	h.Set("X-RateLimit-NearLimit", "true")
	h.Set("RateLimit-Reason", "jira-burst-based")
}

func matchPath(pattern, p string) bool {
	ok, _ := path.Match(pattern, p)
	return ok
}
