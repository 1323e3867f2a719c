package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Helpers of the fault, crash and team scenarios.

// scCommit is the part of an import.commit / progress.commit result the
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

// scCommitImport calls import.commit with confirmed: true.
func (e *env) scCommitImport(cs *mcp.ClientSession, handle, key string) scOutcome {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := map[string]any{"preview_handle": handle, "confirmed": true}
	if key != "" {
		args["idempotency_key"] = key
	}
	o := e.scCall(ctx, cs, "import.commit", args)
	if o.transport != nil {
		e.t.Fatalf("import.commit: %v", o.transport)
	}
	return o
}

// scPreview calls import.preview and fails the test on an error.
func (e *env) scPreview(cs *mcp.ClientSession, path string) previewJSON {
	e.t.Helper()
	var pv previewJSON
	if d := e.call(cs, "import.preview", map[string]any{"path": path}, &pv); d != nil {
		e.t.Fatalf("import.preview %s: %v", path, d)
	}
	return pv
}

// scConverge re-previews the document and commits what is left with a new
// key (if anything), then checks the tracker holds every item once with
// the document's titles.
func (e *env) scConverge(cs *mcp.ClientSession, path string, p planSpec) {
	e.t.Helper()
	pv := e.scPreview(cs, path)
	if pv.Counts.Create+pv.Counts.Update > 0 {
		if o := e.scCommitImport(cs, pv.PreviewHandle, newKey()); o.errData != nil {
			e.t.Fatalf("converging commit of %s failed: %v", p.id, o.errData)
		}
	}
	pv = e.scPreview(cs, path)
	if pv.Counts.Create+pv.Counts.Update+pv.Counts.Drift != 0 {
		e.t.Errorf("%s did not converge: a preview after the converging commit = %+v", p.id, pv.Counts)
	}
	e.matches(p)
	got := e.issuesByRef()
	n := 0
	for e2 := 1; e2 <= p.epics; e2++ {
		ref := fmt.Sprintf("%s/e-%d", p.id, e2)
		if want := p.title(fmt.Sprintf("e-%d", e2), fmt.Sprintf("Epic %d", e2)); got[ref].Summary != want {
			e.t.Errorf("%s summary = %q, want %q", ref, got[ref].Summary, want)
		}
		for s := 1; s <= p.stories; s++ {
			n++
			sid := fmt.Sprintf("s-%d", n)
			ref := p.id + "/" + sid
			if want := p.title(sid, fmt.Sprintf("Story %d", n)); got[ref].Summary != want {
				e.t.Errorf("%s summary = %q, want %q", ref, got[ref].Summary, want)
			}
			if got[ref].Parent != got[fmt.Sprintf("%s/e-%d", p.id, e2)].Key {
				e.t.Errorf("%s parent = %q, want the key of its epic", ref, got[ref].Parent)
			}
		}
	}
}

// scIssuesOf returns the tracker's issues of one document.
func (e *env) scIssuesOf(doc string) int {
	e.t.Helper()
	n := 0
	for _, i := range e.issues() {
		if strings.HasPrefix(i.Reference, doc+"/") {
			n++
		}
	}
	return n
}

// scAppliedWrites counts logged write requests that reached a handler (a
// request abandoned by a killed client while held by latency is logged
// with status 0 and changed nothing).
func (e *env) scAppliedWrites() int {
	e.t.Helper()
	rs, err := e.jira.Requests(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if r.IsWrite() && r.Status != 0 {
			n++
		}
	}
	return n
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
