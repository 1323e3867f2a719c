package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/e2e/harness"
)

// Helpers of the fault, crash and team scenarios.

// scCommit is the part of an import_commit / progress_commit result the
// scenarios read.
type scCommit struct {
	ResultType     string `json:"result_type"`
	PreviewHandle  string `json:"preview_handle"`
	IdempotencyKey string `json:"idempotency_key"`
	Replayed       bool   `json:"replayed"`
	Counts         struct {
		Created, Updated, Unchanged, Drift int
	} `json:"counts"`
	Transitioned bool `json:"transitioned"`
	CommentAdded bool `json:"comment_added"`
}

// scOutcome is what one tool call returned: a result, a tool error (the
// JSON-RPC error's data), or a transport failure (the server died).
type scOutcome struct {
	result    scCommit
	errData   map[string]any
	transport error
	elapsed   time.Duration
}

func (o scOutcome) code() string {
	if o.errData == nil {
		return ""
	}
	return fmt.Sprint(o.errData["code"])
}

// scCall calls a tool like e.call, but a transport failure (a killed
// server) is returned instead of failing the test. Everything the server
// said is recorded for the secret scan.
func (e *env) scCall(ctx context.Context, cs *mcp.ClientSession, name string, args any) scOutcome {
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	o := scOutcome{elapsed: time.Since(start)}
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			e.record(err.Error())
			o.transport = err
			return o
		}
		e.record(we.Message + string(we.Data))
		if err := json.Unmarshal(we.Data, &o.errData); err != nil || o.errData["code"] == nil {
			e.t.Errorf("%s: error data is not a {code, ...} object: %v (%s)", name, err, we.Data)
			o.errData = map[string]any{"code": "?"}
		}
		return o
	}
	if res.IsError {
		e.t.Errorf("%s: a failure came back as a success result (isError): %+v", name, res.Content)
		o.errData = map[string]any{"code": "isError"}
		return o
	}
	b, _ := json.Marshal(res.StructuredContent)
	e.record(string(b))
	if err := json.Unmarshal(b, &o.result); err != nil {
		e.t.Errorf("%s: decode result: %v\n%s", name, err, b)
	}
	return o
}

// scCommitImport calls import_commit with confirmed: true.
func (e *env) scCommitImport(cs *mcp.ClientSession, handle, key string) scOutcome {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := map[string]any{"preview_handle": handle, "confirmed": true}
	if key != "" {
		args["idempotency_key"] = key
	}
	o := e.scCall(ctx, cs, "import_commit", args)
	if o.transport != nil {
		e.t.Fatalf("import_commit: %v", o.transport)
	}
	return o
}

// scPreviewResult is the part of an import_preview result the scenarios
// read, including creates held back after an unknown outcome.
type scPreviewResult struct {
	PreviewHandle string `json:"preview_handle"`
	Counts        struct {
		Create, Update, Unchanged, Drift, Blocked int
	} `json:"counts"`
	Items []struct {
		Reference     string `json:"reference"`
		Action        string `json:"action"`
		BlockedReason string `json:"blocked_reason"`
	} `json:"items"`
}

// held returns the references the preview holds back (not created: an
// earlier create of them had an unknown outcome).
func (p scPreviewResult) held() map[string]bool {
	h := map[string]bool{}
	for _, i := range p.Items {
		if i.BlockedReason != "" {
			h[i.Reference] = true
		}
	}
	return h
}

// scPreview calls import_preview and fails the test on an error.
func (e *env) scPreview(cs *mcp.ClientSession, path string) scPreviewResult {
	e.t.Helper()
	var pv scPreviewResult
	if d := e.call(cs, "import_preview", map[string]any{"path": path}, &pv); d != nil {
		e.t.Fatalf("import_preview %s: %v", path, d)
	}
	return pv
}

// lockedUntil returns when the commit lock named in a PREVIEW_STALE
// refusal lapses (a commit of the same document by a killed process).
func lockedUntil(d map[string]any) (time.Time, bool) {
	if fmt.Sprint(d["code"]) != "PREVIEW_STALE" {
		return time.Time{}, false
	}
	ds, _ := d["details"].([]any)
	for _, x := range ds {
		m, _ := x.(map[string]any)
		msg := fmt.Sprint(m["message"])
		if _, at, ok := strings.Cut(msg, "commit lock held by run "); ok {
			if _, ts, ok := strings.Cut(at, " until "); ok {
				if t, err := time.Parse(time.RFC3339, strings.TrimSpace(ts)); err == nil {
					return t, true
				}
			}
		}
	}
	return time.Time{}, false
}

// scConverge re-previews the document and commits what is left with a new
// key (if anything), then checks that the tracker holds every item of the
// document once, with its title and epic, except the creates the preview
// holds back because an earlier create of them had an unknown outcome:
// those must be absent from the tracker (never a duplicate). It returns
// the held references; wantHeld (nil = none) is what the caller expects.
// A commit lock left by a killed process is waited out (it lapses).
func (e *env) scConverge(cs *mcp.ClientSession, path string, p planSpec, wantHeld map[string]bool) map[string]bool {
	e.t.Helper()
	var pv scPreviewResult
	for attempt := 0; ; attempt++ {
		pv = e.scPreview(cs, path)
		if pv.Counts.Create+pv.Counts.Update == 0 {
			break
		}
		o := e.scCommitImport(cs, pv.PreviewHandle, newKey())
		if o.errData == nil || onlyHeldBack(o.errData) {
			break
		}
		if until, ok := lockedUntil(o.errData); ok && attempt < 2 {
			e.t.Logf("%s: the commit lock of a killed commit lapses at %s; waiting for it", p.id, until.Format(time.RFC3339))
			<-time.After(time.Until(until) + time.Second) // the lease's end, named by the refusal
			continue
		}
		e.t.Fatalf("converging commit of %s failed: %v", p.id, o.errData)
	}
	held := pv.held()
	if !wantHeld[anyHeld] && (wantHeld != nil || len(held) > 0) {
		if !maps.Equal(held, wantHeld) && !(len(held) == 0 && len(wantHeld) == 0) {
			e.t.Errorf("%s: the preview holds back %v, want %v", p.id, slices.Sorted(maps.Keys(held)), slices.Sorted(maps.Keys(wantHeld)))
		}
	}
	again := e.scPreview(cs, path)
	if again.Counts.Create+again.Counts.Update+again.Counts.Drift != 0 || !maps.Equal(again.held(), held) {
		e.t.Errorf("%s did not converge: a preview after the converging commit = %+v (held %v, before %v)", p.id, again.Counts, again.held(), held)
	}
	e.noDuplicates()
	got := e.issuesByRef()
	check := func(ref, title, parentRef string) {
		i, ok := got[ref]
		switch {
		case held[ref] && ok:
			e.t.Errorf("%s is held back as an unknown create, yet the tracker has it as %s", ref, i.Key)
		case held[ref]:
		case !ok:
			e.t.Errorf("reference %s is missing from the tracker", ref)
		case i.Summary != title:
			e.t.Errorf("%s summary = %q, want %q", ref, i.Summary, title)
		case parentRef != "" && held[parentRef] && i.Parent != "":
			e.t.Errorf("%s has parent %q although its epic %s is held back", ref, i.Parent, parentRef)
		case parentRef != "" && !held[parentRef] && i.Parent != got[parentRef].Key:
			e.t.Errorf("%s parent = %q, want %s of %s", ref, i.Parent, got[parentRef].Key, parentRef)
		}
	}
	n := 0
	for ep := 1; ep <= p.epics; ep++ {
		eref := fmt.Sprintf("%s/e-%d", p.id, ep)
		check(eref, p.title(fmt.Sprintf("e-%d", ep), fmt.Sprintf("Epic %d", ep)), "")
		for s := 1; s <= p.stories; s++ {
			n++
			sid := fmt.Sprintf("s-%d", n)
			check(p.id+"/"+sid, p.title(sid, fmt.Sprintf("Story %d", n)), eref)
		}
	}
	return held
}

// onlyHeldBack reports a commit that wrote everything but the creates its
// plan held back: COMMIT_PARTIAL whose every detail is committed or held
// back (not everything is in the tracker, by design).
func onlyHeldBack(d map[string]any) bool {
	if fmt.Sprint(d["code"]) != "COMMIT_PARTIAL" {
		return false
	}
	ds, _ := d["details"].([]any)
	for _, x := range ds {
		m, _ := x.(map[string]any)
		if m["outcome"] != "committed" && !(m["outcome"] == "unknown" && strings.HasPrefix(fmt.Sprint(m["message"]), "held back")) {
			return false
		}
	}
	return len(ds) > 0
}

// anyHeld as a key of scConverge's wantHeld accepts whatever is held back.
const anyHeld = "\x00any"

// unknownRefs returns the items a failed commit reports with outcome
// unknown.
func unknownRefs(d map[string]any) map[string]bool {
	out := map[string]bool{}
	ds, _ := d["details"].([]any)
	for _, x := range ds {
		if m, ok := x.(map[string]any); ok && m["outcome"] == "unknown" {
			out[fmt.Sprint(m["item"])] = true
		}
	}
	return out
}

// loggedRequest is one entry of the fake's request log, with its arrival
// time and the fault that shaped it.
type loggedRequest struct {
	harness.Request
	At    time.Time `json:"at"`
	Fault string    `json:"fault"`
}

// writesSince returns the logged write requests that arrived at the fake
// at or after t0 (a request a killed process sent earlier and the fake
// finished later is not counted: it arrived before).
func (e *env) writesSince(t0 time.Time) []loggedRequest {
	e.t.Helper()
	var out []loggedRequest
	for _, r := range e.requestLog() {
		if r.IsWrite() && !r.At.Before(t0) {
			out = append(out, r)
		}
	}
	return out
}

// docWritesSince returns the write requests that arrived at or after t0
// and carry a reference of document doc.
func (e *env) docWritesSince(t0 time.Time, doc string) []loggedRequest {
	var out []loggedRequest
	for _, r := range e.writesSince(t0) {
		if strings.Contains(r.Body, "\""+doc+"/") || strings.Contains(r.Path, doc) {
			out = append(out, r)
		}
	}
	return out
}

// scComments returns the bodies (ADF JSON) of an issue's comments, read
// through the fake's REST API as the configured user.
func (e *env) scComments(key string) []string {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.jira.URL+"/rest/api/3/issue/"+key+"/comment?maxResults=100", nil)
	req.SetBasicAuth(email, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("read comments of %s: %v", key, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("read comments of %s: %d", key, resp.StatusCode)
	}
	var page struct {
		Comments []struct {
			Body json.RawMessage `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		e.t.Fatalf("decode comments of %s: %v", key, err)
	}
	var out []string
	for _, c := range page.Comments {
		out = append(out, string(c.Body))
	}
	return out
}

// scCount counts the strings holding marker.
func scCount(ss []string, marker string) int {
	n := 0
	for _, s := range ss {
		if strings.Contains(s, marker) {
			n++
		}
	}
	return n
}

// scDetailCodes lists the codes in an error's details.
func scDetailCodes(d map[string]any) []string {
	var out []string
	ds, _ := d["details"].([]any)
	for _, x := range ds {
		if m, ok := x.(map[string]any); ok && m["code"] != nil {
			out = append(out, fmt.Sprint(m["code"]))
		}
	}
	return out
}
