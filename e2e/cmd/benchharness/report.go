package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Results is everything one run measured; docs/benchmarks.json holds it.
type Results struct {
	Date      string         `json:"date"`
	Machine   Machine        `json:"machine"`
	Settings  Settings       `json:"settings"`
	Sizes     []SizeResult   `json:"sizes"`
	ColdStart Timing         `json:"cli_cold_start"`
	MCP       Timing         `json:"mcp_initialize_tools_list"`
	Stores    []StoreResult  `json:"stores"`
	Targets   []Target       `json:"targets"`
	Burst     []BurstRun     `json:"burst_limited,omitempty"`
	Fields    *FieldsResult  `json:"fields,omitempty"`
	Links     *LinksResult   `json:"links,omitempty"`
	Hostile   *HostileResult `json:"hostile_markdown,omitempty"`
	// DataCenter is the Data Center row (datacenter.go).
	DataCenter *DataCenterResult `json:"datacenter,omitempty"`
	// Agents are the rows of agents on one store (agents.go).
	Agents []AgentsRun `json:"agents,omitempty"`
}

// Target is one goal of the benchmark report with the measured value.
type Target struct {
	Name     string `json:"name"`
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	Status   string `json:"status"` // pass | miss | not measured
}

func status(ok bool) string {
	if ok {
		return "pass"
	}
	return "miss"
}

func (r *Results) size(n int) *SizeResult {
	for i := range r.Sizes {
		if r.Sizes[i].Items == n {
			return &r.Sizes[i]
		}
	}
	return nil
}

func targets(r *Results) []Target {
	var ts []Target
	for _, s := range r.Sizes {
		limit := 1.2 * float64(s.MinCommitRequests)
		ts = append(ts, Target{
			Name:     fmt.Sprintf("commit requests, %d items", s.Items),
			Goal:     fmt.Sprintf("≤ 1.2 × minimum (%d) = %.0f", s.MinCommitRequests, limit),
			Measured: fmt.Sprintf("%d (%.2f ×)", s.Commit.Requests, s.Commit.RequestRatio),
			Status:   status(float64(s.Commit.Requests) <= limit),
		})
	}
	for _, s := range r.Sizes {
		limit := ceilDiv(s.Items, pageSize) + 3
		ts = append(ts, Target{
			Name:     fmt.Sprintf("re-import unchanged, %d items", s.Items),
			Goal:     fmt.Sprintf("≤ ceil(%d/%d) + 3 = %d requests, 0 writes", s.Items, pageSize, limit),
			Measured: fmt.Sprintf("%d requests (%d discovery, %d search), %d writes", s.Unchanged.Requests, discovery(s.Unchanged.ByEndpoint), s.Unchanged.ByEndpoint["POST /rest/api/3/search/jql"], s.Unchanged.Writes),
			Status:   status(s.Unchanged.Requests <= limit && s.Unchanged.Writes == 0),
		})
	}
	t := Target{Name: "1,000-item commit wall time at 50 ms latency", Goal: "< 3 s", Status: "not measured"}
	if s := r.size(1000); s != nil && r.Settings.LatencyMS == 50 {
		t.Measured = fmt.Sprintf("%.2f s", s.Commit.WallMS/1000)
		t.Status = status(s.Commit.WallMS < 3000)
	} else {
		t.Measured = "no 1,000-item run at 50 ms latency in this run"
	}
	ts = append(ts, t)
	cpu := Target{Name: "10,000-item preview CPU time", Goal: "< 1 s", Status: "not measured", Measured: "no 10,000-item run"}
	rss := Target{Name: "10,000-item preview peak RSS", Goal: "< 300 MB", Status: "not measured", Measured: "no 10,000-item run"}
	if s := r.size(10000); s != nil {
		cpu.Measured, cpu.Status = fmt.Sprintf("%.0f ms", s.Preview.CPUMS), status(s.Preview.CPUMS < 1000)
		rss.Measured, rss.Status = fmt.Sprintf("%.1f MB", s.Preview.MaxRSSMB), status(s.Preview.MaxRSSMB < 300)
	}
	ts = append(ts, cpu, rss)
	ts = append(ts, concurrencyTargets(r)...)
	ts = append(ts, burstTargets(r)...)
	ts = append(ts, agentsTargets(r)...)
	ts = append(ts, fieldsTargets(r)...)
	ts = append(ts, linksTargets(r)...)
	ts = append(ts, dataCenterTargets(r)...)
	return append(ts, hostileTargets(r)...)
}

// concurrencyTargets are the targets at 50 ms latency.
func concurrencyTargets(r *Results) []Target {
	var ts []Target
	add := func(name, goal string, n int, get func(s *SizeResult) (string, bool)) {
		t := Target{Name: name, Goal: goal, Status: "not measured", Measured: fmt.Sprintf("no %d-item run at 50 ms latency", n)}
		if s := r.size(n); s != nil && r.Settings.LatencyMS == 50 {
			var ok bool
			t.Measured, ok = get(s)
			t.Status = status(ok)
		}
		ts = append(ts, t)
	}
	add("1,000-item fresh commit at 50 ms", fmt.Sprintf("< 1.2 s, requests = minimum + the %d reads exactly-once needs", exactlyOnceReads), 1000, func(s *SizeResult) (string, bool) {
		reads := s.Commit.ByEndpoint[bulkFetch]
		return fmt.Sprintf("%.2f s, %d requests (minimum %d + %d %s reads)", s.Commit.WallMS/1000, s.Commit.Requests, s.Commit.MinRequests, reads, bulkFetch),
			s.Commit.WallMS < 1200 && s.Commit.Requests == s.Commit.MinRequests+exactlyOnceReads && reads == exactlyOnceReads
	})
	add("10,000-item fresh commit at 50 ms", "< 8 s", 10000, func(s *SizeResult) (string, bool) {
		return fmt.Sprintf("%.2f s", s.Commit.WallMS/1000), s.Commit.WallMS < 8000
	})
	add("1,000 edits (10% of 10,000) at 50 ms", "< 8 s", 10000, func(s *SizeResult) (string, bool) {
		return fmt.Sprintf("%.2f s for %d edits", s.EditedCommit.WallMS/1000, s.Edited), s.EditedCommit.WallMS < 8000
	})
	add("100 edits (10% of 1,000) at 50 ms", "< 1 s", 1000, func(s *SizeResult) (string, bool) {
		return fmt.Sprintf("%.2f s for %d edits", s.EditedCommit.WallMS/1000, s.Edited), s.EditedCommit.WallMS < 1000
	})
	add("unchanged re-import, 1,000 items", "≤ 12 requests (+1 for a lag-proof lookup)", 1000, func(s *SizeResult) (string, bool) {
		return fmt.Sprintf("%d requests", s.Unchanged.Requests), s.Unchanged.Requests <= 13
	})
	return ts
}

// discovery counts the requests a new Provider sends once to learn the
// site: the field list and the project's issue types and create fields.
func discovery(m map[string]int) int {
	n := 0
	for k, v := range m {
		if k == "GET /rest/api/3/field" || strings.HasPrefix(k, "GET /rest/api/3/issue/createmeta/") {
			n += v
		}
	}
	return n
}

func writeReports(r *Results, o Options) error {
	for _, p := range []string{o.OutMD, o.OutJSON} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
	}
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.OutJSON, append(j, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(o.OutMD, []byte(markdown(r)), 0o644)
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func ratio(p *float64) string {
	if p == nil {
		return "—"
	}
	return f2(*p)
}

func endpoints(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("`%s` %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "<br>")
}

func markdown(r *Results) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	lat := r.Settings.LatencyMS
	w("# Benchmarks\n\n")
	w("Generated by `make bench` (`go run ./e2e/cmd/benchharness`) on %s. Do not edit by hand: run it again. ", r.Date)
	w("The same numbers, machine-readable, are in [benchmarks.json](benchmarks.json).\n\n")
	if r.Settings.Quick {
		w("**This was a -quick smoke run; its numbers are not the published budget.**\n\n")
	}
	w("## Machine\n\n| | |\n|---|---|\n")
	w("| CPUs | %d (%s) |\n| Memory | %.1f GiB |\n| OS/arch | %s/%s |\n| Go | %s |\n| Load average at start (1/5/15 min) | %s |\n\n",
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGiB, r.Machine.OS, r.Machine.Arch, r.Machine.Go, r.Machine.LoadAvg)
	w("The machine is shared (2 cores, several engineers building and testing at the same time), so wall and CPU times carry noise from other work; request counts do not.\n\n")

	w("## Method\n\n")
	w("- `dwire` and `mockjira` are built from this checkout (`e2e/harness.Build`); `mockjira` runs as a local process with **%.0f ms** of latency added to every request. A fresh `mockjira` is started for each document size.\n", lat)
	w("- Documents are generated Markdown plans of N items, ≈2%% epics (at least one), the stories spread evenly over the epics, each with a description and two acceptance criteria.\n")
	w("- **Preview**: `dwire import bench.md --dry-run --json` as a subprocess against an empty tracker; requests from mockjira's request log; CPU = user + system time and peak RSS from the child's rusage.\n")
	w("- **Commit**: in process, `service.NewWorkItemService` over `jira.New` (real HTTP to mockjira) and a SQLite store (`store-sqlite`) in a temporary directory: `ImportPreview`, then `ImportCommit` with `confirmed: true`. Requests and wall time are of the commit alone (the preview before it is reported separately).\n")
	w("- **Re-import, nothing changed**: a new provider and service (what a new `dwire` process has) on the same store: `ImportPreview`. It plans no writes, so there is nothing to commit (the CLI stops there too). Discovery requests (fields, issue types) are included.\n")
	w("- **Re-import, 10%% edited**: every tenth item's title changed; a new provider: preview + commit.\n")
	w("- **Minimum**: ceil(epics/%d) + ceil(stories/%d) bulk creates + ceil(items/%d) search pages + the rank requests: ceil((items-1)/%d) up to %d² moves — a chain up to twice that, else two rounds with the first chunk whole in round 1 beside the other chunks' heads, the fewest there can be: at 1,000 items %d — and past that ceil(chunks/%d) + chunks with chunks = ceil((items-1)/%d) (Jira's bulk-create limit, the adapter's search page size, and Jira's rank limit: ranking is on by default, so a fresh import places every item after the first). A fresh commit also makes the %d reads exactly-once needs, both `POST issue/bulkfetch`: the stale check's tail read (issues created since the preview that search may not show yet) and, once every create has ended, the duplicate check (an issue another store created with one of the same references at the same moment); the fresh-commit target counts them on top of the minimum. Request ratio = requests / minimum; wall ratio = wall / (minimum × latency).\n", r.Settings.CreateBatch, r.Settings.CreateBatch, r.Settings.PageSize, r.Settings.CreateBatch, r.Settings.CreateBatch, rankRequests(999), r.Settings.CreateBatch, r.Settings.CreateBatch+1, exactlyOnceReads)
	w("- **Baseline**: the same fresh import with `jira.Config{SingleCreate: true}` (one `POST /rest/api/3/issue` per item, one at a time — max_in_flight 1 — what most Jira tools do), against its own fresh mockjira; run for sizes up to %d items.\n", r.Settings.BaselineMax)
	w("- **Cold start**: median of %d runs of `dwire version`; MCP: median of %d cold `dwire mcp` processes, each timed from exec through `initialize` to the `tools/list` answer (go-sdk client over `CommandTransport`).\n", r.Settings.ColdRuns, r.Settings.ColdRuns)
	w("- **Stores**: `go test -run '^$' -bench Store/SaveLoadConsume` in `store-sqlite` and `store-postgres` (one op = save + load + consume of a preview).\n\n")

	w("## Targets\n\n| Target | Goal | Measured | Result |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		w("| %s | %s | %s | **%s** |\n", t.Name, t.Goal, t.Measured, t.Status)
	}
	w("\n")

	if fs := findings(r); len(fs) > 0 {
		w("### What the numbers show\n\n")
		for _, f := range fs {
			w("- %s\n", f)
		}
		w("\n")
	}

	w("## Preview (`dwire import --dry-run --json`, empty tracker)\n\n| Items | Epics | Requests | Min search pages | Wall (ms) | dwire CPU (ms) | dwire peak RSS (MB) | mockjira CPU (ms) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Sizes {
		w("| %d | %d | %d | %d | %s | %s | %s | %s |\n", s.Items, s.Epics, s.Preview.Requests, s.MinSearchPages, f1(s.Preview.WallMS), f1(s.Preview.CPUMS), f1(s.Preview.MaxRSSMB), f1(s.Preview.MockJiraCPUMS))
	}
	w("\nRequests by endpoint:\n\n| Items | Endpoints |\n|---:|---|\n")
	for _, s := range r.Sizes {
		w("| %d | %s |\n", s.Items, endpoints(s.Preview.ByEndpoint))
	}
	w("\n")

	w("## Commit of a fresh import\n\n| Items | Requests | Minimum | Request ratio | Wall (ms) | Wall ratio | mockjira CPU (ms) | Requests by endpoint |\n|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Sizes {
		w("| %d | %d | %d | %s | %s | %s | %s | %s |\n", s.Items, s.Commit.Requests, s.Commit.MinRequests, f2(s.Commit.RequestRatio), f1(s.Commit.WallMS), ratio(s.Commit.WallRatio), f1(s.Commit.MockJiraCPUMS), endpoints(s.Commit.ByEndpoint))
	}
	w("\nThe wall ratio compares with a Jira that answers in exactly the latency. mockjira is not free: it serves each request on the same two cores (it checks each created issue's ADF against the schema, once per document shape), so its CPU time adds to the wall time. It is shown in its own column; a real Jira's server time is part of its latency instead. The commit's own cost besides the requests is the state store (SQLite, synchronous=FULL: each transaction is a flush to disk): a create batch's outcomes are one transaction, and the fences and outcomes of writes that start or end together share one (group commit), so a 1,000-item commit is a few dozen transactions, not one per item.\n")
	w("\nThe in-process preview before each commit: ")
	var pp []string
	for _, s := range r.Sizes {
		pp = append(pp, fmt.Sprintf("%d items: %d requests, %s ms", s.Items, s.PreviewInProcess.Requests, f1(s.PreviewInProcess.WallMS)))
	}
	w("%s.\n\n", strings.Join(pp, "; "))

	w("## Baseline: one create request per item\n\n| Items | Requests (bulk) | Requests (baseline) | Wall bulk (ms) | Wall baseline (ms) | Speed-up (wall) | Fewer requests (×) | Note |\n|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Sizes {
		switch {
		case s.Baseline != nil:
			w("| %d | %d | %d | %s | %s | %s | %s | measured |\n", s.Items, s.Commit.Requests, s.Baseline.Requests, f1(s.Commit.WallMS), f1(s.Baseline.WallMS), f1(s.SpeedupWall), f1(s.SpeedupRequests))
		case s.Extrapolated != nil:
			w("| %d | %d | ≈%d | %s | ≈%s | ≈%s | ≈%s | %s; %s |\n", s.Items, s.Commit.Requests, s.Extrapolated.Requests, f1(s.Commit.WallMS), f1(s.Extrapolated.WallMS), f1(s.SpeedupWall), f1(s.SpeedupRequests), s.BaselineNote, s.Extrapolated.Basis)
		default:
			w("| %d | %d | — | %s | — | — | — | %s |\n", s.Items, s.Commit.Requests, f1(s.Commit.WallMS), s.BaselineNote)
		}
	}
	w("\n")

	w("## Re-import\n\n| Items | Unchanged: requests | writes | wall (ms) | mockjira CPU (ms) | 10%% edited: items | preview requests | commit requests | commit writes | commit minimum | commit wall (ms) | mockjira CPU (ms) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Sizes {
		w("| %d | %d | %d | %s | %s | %d | %d | %d | %d | %d | %s | %s |\n", s.Items, s.Unchanged.Requests, s.Unchanged.Writes, f1(s.Unchanged.WallMS), f1(s.Unchanged.MockJiraCPUMS), s.Edited, s.EditedPreview.Requests, s.EditedCommit.Requests, s.EditedCommit.Writes, s.EditedCommit.MinRequests, f1(s.EditedCommit.WallMS), f1(s.EditedCommit.MockJiraCPUMS))
	}
	w("\nUnchanged re-import requests by endpoint: ")
	var ue []string
	for _, s := range r.Sizes {
		ue = append(ue, fmt.Sprintf("%d items: %s", s.Items, strings.ReplaceAll(endpoints(s.Unchanged.ByEndpoint), "<br>", ", ")))
	}
	w("%s.\n\nThe edited commit's minimum is ceil(items/%d) search pages + one edit per changed item: Jira has no bulk edit of per-issue values.\n\n", strings.Join(ue, "; "), r.Settings.PageSize)

	w("%s", burstMarkdown(r))
	w("%s", agentsMarkdown(r))
	w("%s", fieldsMarkdown(r))
	w("%s", linksMarkdown(r))
	w("%s", dataCenterMarkdown(r))
	w("%s", hostileMarkdown(r))

	w("## Front doors\n\n| Measurement | Runs | Median (ms) | Min (ms) | Max (ms) |\n|---|---:|---:|---:|---:|\n")
	for _, t := range []Timing{r.ColdStart, r.MCP} {
		w("| %s | %d | %s | %s | %s |\n", t.Note, t.Runs, f1(t.MedianMS), f1(t.MinMS), f1(t.MaxMS))
	}
	w("\n")

	w("## Stores (SaveLoadConsume)\n\n| Store | Benchmark | ns/op | ops/s | Note |\n|---|---|---:|---:|---|\n")
	for _, s := range r.Stores {
		if len(s.Results) == 0 {
			w("| %s | — | — | — | %s |\n", s.Store, s.Note)
			continue
		}
		for _, x := range s.Results {
			w("| %s | clients=%d | %.0f | %.0f | %s |\n", s.Store, x.Clients, x.NsPerOp, x.OpsPerSec, s.Note)
		}
	}
	w("\n## Running it\n\n`make bench` (about 7 minutes on this machine) rewrites both files. Flags of `go run ./e2e/cmd/benchharness`: `-latency` (default 50ms; this run: %[2]s), `-sizes` (default 100,1000,10000), `-skip-baseline`, `-baseline-max` (default 1000), `-quick` (smoke run: 20 items, 3 cold-start runs, no store benchmarks), `-cold-runs`, `-store-bench=false`, `-max-in-flight N` (the adapter's cap; this run: %[1]s), `-rank=false` (no rank requests: the commits as they were before ranking was on by default), `-burst-items` (default 1000, 0 = none) and `-burst-limit` (default 10 req/s) for the runs under Jira's burst limit, `-agents` (default 10,25; needs `DWIRE_TEST_POSTGRES_URL`, skipped without it) and `-agents-items` (default 40) for the agents on one Postgres store, `-fields-items` (default 1000, 0 = none) for the plan with and without seven fields per story, `-links-items` (default 1000, 0 = none) for the link-heavy plan, `-only sizes,burst,agents,fields,links,hostile,datacenter` to measure only those rows (`sizes`: the document sizes of `-sizes`, each replacing the one of its size) and merge them into the existing benchmarks.json (`-fields-only` = `-only fields`), `-cpuprofile FILE`, `-timeline FILE` (when each request of the burst-limited fresh commit reached mockjira: ms from the first, status, endpoint, the first summary or rank key, or a bulk fetch's keys; each agents row's requests go to FILE.agents-N, each size row's edited re-import commit's to FILE.edits-N), `-out-md`/`-out-json`, and `-render benchmarks.json` to rewrite this page from a results file without measuring. `DWIRE_TEST_POSTGRES_URL` picks the PostgreSQL server for the store benchmark. Compare runs through benchmarks.json: request counts are exact and repeatable; times depend on the machine's load.\n", maxInFlight(r.Settings.MaxInFlight), time.Duration(lat*float64(time.Millisecond)))
	return b.String()
}

// findings explains the misses and the notable numbers from the data.
func findings(r *Results) []string {
	var out []string
	for _, s := range r.Sizes {
		limit := ceilDiv(s.Items, pageSize) + 3
		if s.Unchanged.Requests <= limit {
			continue
		}
		d := discovery(s.Unchanged.ByEndpoint)
		searches := s.Unchanged.ByEndpoint["POST /rest/api/3/search/jql"]
		if searches <= s.MinSearchPages && d > 3 {
			out = append(out, fmt.Sprintf("Unchanged re-import of %d items: the %d searches are the minimum; the rest are the %d discovery requests every new process sends first (the field list, the project's issue types, and the create fields of each of the two issue types). The create-field check matters only when something will be created: running it only when a lookup finds a reference missing, or before the first create, would make an unchanged re-import %d requests (limit %d).",
				s.Items, searches, d, s.Unchanged.Requests-2, limit))
		} else {
			out = append(out, fmt.Sprintf("Unchanged re-import of %d items: %d requests (%d discovery, %d searches for a minimum of %d pages) against a limit of %d.", s.Items, s.Unchanged.Requests, d, searches, s.MinSearchPages, limit))
		}
		break
	}
	for _, s := range r.Sizes {
		if s.Commit.WallRatio != nil && *s.Commit.WallRatio > 1.5 {
			out = append(out, fmt.Sprintf("Commit of %d items: %.1f s wall for %d requests (%.1f s of pure latency); mockjira itself used %.1f s of CPU on the same two cores, which a real Jira spends on its own servers inside the latency.",
				s.Items, s.Commit.WallMS/1000, s.Commit.Requests, float64(s.Commit.MinRequests)*r.Settings.LatencyMS/1000, s.Commit.MockJiraCPUMS/1000))
		}
	}
	for _, s := range r.Sizes {
		if s.Unchanged.WallMS > 0 && s.Unchanged.MockJiraCPUMS > 0.5*s.Unchanged.WallMS {
			out = append(out, fmt.Sprintf("Unchanged re-import of %d items: %.1f s wall while mockjira used %.1f s of CPU (on both cores: dwire's lookup searches run 4 at a time): most of it encoding the %d search pages (100 issues each, with description and property; the reference-field index narrows each search to the issues holding a reference's tokens). That is the fake's cost, not dwire's (the requests stay at the minimum).",
				s.Items, s.Unchanged.WallMS/1000, s.Unchanged.MockJiraCPUMS/1000, s.MinSearchPages))
		}
	}
	for _, s := range r.Sizes {
		if n := s.Commit.ByEndpoint["PUT /rest/agile/1.0/issue/rank"]; n > 0 && s.Items-1 > 2*createBatch {
			out = append(out, fmt.Sprintf("Rank (on by default): the fresh commit of %d items sends %d rank requests alongside its creates: the first chunk and the other chunks' heads are created first, in a batch of their own, and placed once it answers; every other chunk's rest of up to %d goes right after its own head as soon as its items are created.",
				s.Items, n, createBatch))
		}
	}
	for _, s := range r.Sizes {
		if s.Baseline != nil {
			out = append(out, fmt.Sprintf("Against one create request per item, %d items: %d instead of %d requests, %.1f× faster.", s.Items, s.Commit.Requests, s.Baseline.Requests, s.SpeedupWall))
		}
	}
	for _, s := range r.Sizes {
		if s.Edited > 0 && s.EditedCommit.WallMS > 0 && r.Settings.LatencyMS > 0 {
			out = append(out, fmt.Sprintf("10%% edited, %d items: %d edits are %d `PUT /issue/{key}` requests (Jira has no bulk edit of per-issue values), %.1f s wall; how many are in flight at once is the adapter's pacing (max_in_flight %s).",
				s.Items, s.Edited, s.EditedCommit.ByEndpoint["PUT /rest/api/3/issue/{id}"], s.EditedCommit.WallMS/1000, maxInFlight(r.Settings.MaxInFlight)))
			break
		}
	}
	return out
}

// maxInFlight names the adapter's cap of a run.
func maxInFlight(n int) string {
	if n == 0 {
		return "default"
	}
	return fmt.Sprint(n)
}
