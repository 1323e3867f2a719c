package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/e2e/harness"
)

// TestQuickRun runs the whole driver in -quick mode on a 20-item document
// at zero latency and checks both reports: the harness keeps working as
// the code under it changes. It asserts counts, never times.
func TestQuickRun(t *testing.T) {
	dir := t.TempDir()
	o, err := parseFlags([]string{"-quick", "-sizes", "20", "-latency", "0",
		"-out-md", filepath.Join(dir, "b.md"), "-out-json", filepath.Join(dir, "b.json")})
	if err != nil {
		t.Fatal(err)
	}
	o.Log = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sizes) != 1 {
		t.Fatalf("%d sizes measured, want 1", len(res.Sizes))
	}
	s := res.Sizes[0]
	if s.Items != 20 || s.Epics != 1 || s.Edited != 2 {
		t.Errorf("size: %d items, %d epics, %d edited; want 20, 1, 2", s.Items, s.Epics, s.Edited)
	}
	// 1 epic batch + 1 story batch + 1 search page + 1 rank batch (the 19
	// items after the first, ranking being on by default).
	if s.MinCommitRequests != 4 {
		t.Errorf("minimum commit requests %d, want 4", s.MinCommitRequests)
	}
	if s.Commit.Requests == 0 || s.Commit.ByEndpoint["POST /rest/api/3/issue/bulk"] == 0 {
		t.Errorf("commit used no bulk create: %+v", s.Commit.ByEndpoint)
	}
	if s.Preview.Requests == 0 || s.Preview.Writes != 0 || s.Preview.MaxRSSMB <= 0 {
		t.Errorf("preview: %+v", s.Preview)
	}
	if s.Unchanged.Writes != 0 {
		t.Errorf("unchanged re-import wrote %d requests", s.Unchanged.Writes)
	}
	if s.Baseline == nil || s.Baseline.ByEndpoint["POST /rest/api/3/issue"] != 20 {
		t.Errorf("baseline did not create one issue per request: %+v", s.Baseline)
	}
	if f := res.Fields; f == nil || f.Items != 20 || f.With.Commit.Requests == 0 ||
		f.With.Commit.ByEndpoint["POST /rest/api/3/issue/bulk"] != f.Without.Commit.ByEndpoint["POST /rest/api/3/issue/bulk"] || f.With.Unchanged.Writes != 0 {
		t.Errorf("fields runs: %+v", f)
	}
	if len(res.Burst) != 2 {
		t.Fatalf("%d burst-limited runs, want 2 (fresh, edited)", len(res.Burst))
	}
	if l := res.Links; l == nil || l.Items != 20 || l.Commit.ByEndpoint["POST /rest/api/3/issueLink"] != l.Dependencies || l.Commit.Requests < l.Minimum {
		t.Errorf("link-heavy run: %+v", l)
	}
	for _, br := range res.Burst {
		if br.Error != "" || br.Requests == 0 || br.FloorMS < 0 {
			t.Errorf("burst-limited run %q: %+v", br.Name, br)
		}
	}
	if res.ColdStart.Runs != 3 || res.MCP.Runs != 3 || res.ColdStart.MedianMS <= 0 {
		t.Errorf("cold start %+v, mcp %+v", res.ColdStart, res.MCP)
	}
	md, err := os.ReadFile(o.OutMD)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Targets", "## Machine", "-quick smoke run", "| 20 |", "## Under Jira's burst limit", "## Fields\n", "seven fields per item", "## Link-heavy plan"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("benchmarks.md lacks %q", want)
		}
	}
	var back Results
	b, err := os.ReadFile(o.OutJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Sizes) != 1 || len(back.Targets) == 0 {
		t.Errorf("benchmarks.json does not round-trip: %v", err)
	}
	// -render rewrites the same page from the JSON alone.
	o.Render, o.OutMD = o.OutJSON, filepath.Join(dir, "rendered.md")
	if err := render(o); err != nil {
		t.Fatal(err)
	}
	if again, err := os.ReadFile(o.OutMD); err != nil || string(again) != string(md) {
		t.Errorf("-render from benchmarks.json differs from the page the run wrote (%v)", err)
	}
	if strings.Contains(string(md)+string(b), benchToken) {
		t.Error("the token appears in a report")
	}
}

func TestDocumentShape(t *testing.T) {
	for _, n := range []int{2, 100, 1000} {
		doc := string(document(n, nil))
		epics := strings.Count(doc, "\n## Epic ")
		stories := strings.Count(doc, "\n## Story ")
		if epics != epicsFor(n) || epics+stories != n {
			t.Errorf("n=%d: %d epics, %d stories", n, epics, stories)
		}
	}
	edited := string(document(100, func(i int) bool { return i%10 == 0 }))
	if got := strings.Count(edited, "(edited)"); got != 10 {
		t.Errorf("%d edited items, want 10", got)
	}
}

// TestLinksDocShape: the link-heavy plan has the items, sub-tasks and
// dependencies its minimum is computed from.
func TestLinksDocShape(t *testing.T) {
	for _, n := range []int{20, 1000} {
		doc := string(linksDoc(n))
		epics, stories, subtasks, deps := linksShape(n)
		got := [4]int{strings.Count(doc, "\n## Epic "), strings.Count(doc, "\n## Story "), strings.Count(doc, "\n#### Sub-task "), strings.Count(doc, "\nDepends on: ")}
		if want := [4]int{epics, stories, subtasks, deps}; got != want || epics+stories+subtasks != n {
			t.Errorf("n=%d: epics, stories, sub-tasks, dependencies %v, want %v (sum %d)", n, got, want, n)
		}
		if s := strings.Count(doc, "\nSprint: "+sprintName+"\n"); s != stories {
			t.Errorf("n=%d: %d stories in the sprint, want %d", n, s, stories)
		}
	}
	if epics, stories, subtasks, deps := linksShape(1000); epics != 20 || stories != 680 || subtasks != 300 || deps != 500 {
		t.Errorf("1,000 items: %d epics, %d stories, %d sub-tasks, %d dependencies; want 20, 680, 300, 500", epics, stories, subtasks, deps)
	}
}

func TestParseFlagsRejectsBadSizes(t *testing.T) {
	for _, s := range []string{"x", "1", "10,,20"} {
		if _, err := parseFlags([]string{"-sizes", s}); err == nil {
			t.Errorf("-sizes %q accepted", s)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestRankRequests: the two-round placement's request count:
// one request up to 50 moves, then ceil(heads/50) + chunks.
func TestRankRequests(t *testing.T) {
	for moves, want := range map[int]int{0: 0, 19: 1, 50: 1, 51: 2, 100: 2, 101: 3, 102: 3, 103: 3, 999: 20, 2500: 50, 2501: 51, 2599: 53, 9999: 201} {
		if got := rankRequests(moves); got != want {
			t.Errorf("rankRequests(%d) = %d; want %d", moves, got, want)
		}
	}
}

// TestWriteTimeline: -timeline writes each request's arrival in ms from
// the first, its status and endpoint, and a create's first summary or a
// rank request's first key.
func TestWriteTimeline(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := Phase{log: []harness.Request{
		{Method: "POST", Path: "/rest/api/3/search/jql", Status: 200, At: t0},
		{Method: "POST", Path: "/rest/api/3/issue/bulk", Status: 201, At: t0.Add(81500 * time.Microsecond), Body: `{"issueUpdates":[{"fields":{"summary":"Epic number 1"}}]}`},
		{Method: "PUT", Path: "/rest/agile/1.0/issue/rank", Status: 204, At: t0.Add(290 * time.Millisecond), Body: `{"issues":["DEMO-21","DEMO-22"]}`},
	}}
	path := filepath.Join(t.TempDir(), "tl.txt")
	if err := writeTimeline(path, "fresh import", p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# fresh import: 3 requests\n     0.0 200 POST /rest/api/3/search/jql \n    81.5 201 POST /rest/api/3/issue/bulk Epic number 1\n   290.0 204 PUT /rest/agile/1.0/issue/rank DEMO-21\n"
	if string(b) != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", b, want)
	}
}

// TestFreshCommitTargetCountsTheExactlyOnceReads: the 1,000-item fresh
// commit meets its request target with exactly the minimum plus the two
// bulkfetch reads exactly-once needs, and misses it with any other extra
// request.
func TestFreshCommitTargetCountsTheExactlyOnceReads(t *testing.T) {
	target := func(reads, other int) string {
		r := &Results{Settings: Settings{LatencyMS: 50}, Sizes: []SizeResult{{Items: 1000, Commit: Phase{
			WallMS: 650, MinRequests: 51, Requests: 51 + reads + other,
			ByEndpoint: map[string]int{bulkFetch: reads, "PUT /rest/api/3/issue/{id}": other},
		}}}}
		for _, tg := range concurrencyTargets(r) {
			if strings.HasPrefix(tg.Name, "1,000-item fresh commit") {
				return tg.Status
			}
		}
		t.Fatal("no fresh-commit target")
		return ""
	}
	if got := target(2, 0); got != "pass" {
		t.Errorf("minimum + the 2 reads: %s, want pass", got)
	}
	if got := target(1, 1); got != "miss" {
		t.Errorf("minimum + 1 read + 1 other request: %s, want miss", got)
	}
	if got := target(3, 0); got != "miss" {
		t.Errorf("minimum + 3 reads: %s, want miss", got)
	}
}

// The hostile documents stay what their row says: each at the size its
// descriptions are named for and under the plan size limit (5 MiB), so
// the row measures documents a person could hand dwire.
func TestHostileDocumentsAreWithinTheLimits(t *testing.T) {
	for _, d := range hostileDescriptions() {
		if n := len(d.text); n < hostileDescription*9/10 || n > hostileDescription*11/10 {
			t.Errorf("%s: a description of %d characters, want about %d", d.name, n, hostileDescription)
		}
		if n := len(hostileDoc(d.text)); n > 5<<20 {
			t.Errorf("%s: a document of %d bytes is over the 5 MiB limit", d.name, n)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4649683: "4,649,683", -1234567: "-1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
