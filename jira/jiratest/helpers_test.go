package jiratest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// tc is a tiny Jira client for the tests.
type tc struct {
	t    *testing.T
	srv  *jiratest.Server
	auth string
	hc   *http.Client
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

func (r resp) errs(t *testing.T) ([]any, map[string]any) {
	t.Helper()
	m := r.json(t)
	msgs, ok1 := m["errorMessages"].([]any)
	errs, ok2 := m["errors"].(map[string]any)
	if !ok1 || !ok2 {
		t.Fatalf("not a Jira error body: %s", r.body)
	}
	return msgs, errs
}

func start(t *testing.T, o jiratest.Options) *tc {
	t.Helper()
	s := startServer(t, o)
	return &tc{t: t, srv: s, auth: s.AuthHeader(), hc: &http.Client{}}
}

func (c *tc) do(method, path string, body any) resp {
	c.t.Helper()
	return c.doCtx(context.Background(), method, path, body)
}

func (c *tc) doCtx(ctx context.Context, method, path string, body any) resp {
	c.t.Helper()
	r, err := c.try(ctx, method, path, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

func (c *tc) try(ctx context.Context, method, path string, body any) (resp, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.srv.URL+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.hc.Do(req)
	if err != nil {
		return resp{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return resp{}, err
	}
	return resp{status: res.StatusCode, header: res.Header, body: b}, nil
}

func adf(text string) map[string]any {
	return map[string]any{"type": "doc", "version": 1, "content": []any{
		map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": text}}},
	}}
}

func issueFields(typ, summary, ref string) map[string]any {
	f := map[string]any{
		"project":   map[string]any{"key": "DEMO"},
		"issuetype": map[string]any{"name": typ},
		"summary":   summary,
	}
	if ref != "" {
		f[jiratest.DefaultFieldID] = ref
	}
	return f
}

// link asks for a link of type typ (by name) from inward issue in to
// outward issue out: "in blocks out" for Blocks.
func (c *tc) link(typ, in, out string) resp {
	return c.do("POST", "/rest/api/3/issueLink", map[string]any{"type": map[string]any{"name": typ}, "inwardIssue": map[string]any{"key": in}, "outwardIssue": map[string]any{"key": out}})
}

// create creates an issue through the API and returns its key and id.
func (c *tc) create(fields map[string]any) (string, string) {
	c.t.Helper()
	r := c.do("POST", "/rest/api/3/issue", map[string]any{"fields": fields})
	if r.status != 201 {
		c.t.Fatalf("create: %d %s", r.status, r.body)
	}
	m := r.json(c.t)
	return m["key"].(string), m["id"].(string)
}

func (c *tc) search(body map[string]any) resp {
	c.t.Helper()
	return c.do("POST", "/rest/api/3/search/jql", body)
}

// keys returns the issue keys of a search response.
func keys(t *testing.T, r resp) []string {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	var out []string
	for _, i := range r.json(t)["issues"].([]any) {
		k, _ := i.(map[string]any)["key"].(string)
		out = append(out, k)
	}
	return out
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o600) }
