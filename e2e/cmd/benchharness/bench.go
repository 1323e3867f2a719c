package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/e2e/harness"
	"github.com/devworkwire/devworkwire/jira"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// The physical limits the minimum is computed from: Jira's bulk create
// takes at most 50 issues, and one search page holds at most 100 issues
// when fields are requested (the adapter's page size).
const (
	createBatch = 50
	pageSize    = 100
)

// exactlyOnceReads are the reads a fresh commit adds to the minimum of its
// writes and search pages, both POST issue/bulkfetch (exactly
// once within Jira's search lag): the stale check's tail read (the issues
// created since the preview, which search may not show yet) and, once
// every create has ended, the duplicate check (an issue another store
// created with one of the same references at the same moment). Issue 20's
// targets allow the lag-proof lookup's request on the unchanged re-import
// ("+1 if the lag-proof lookup needs it"); a fresh commit's are that read
// and its counterpart after the creates.
const (
	exactlyOnceReads = 2
	bulkFetch        = "POST /rest/api/3/issue/bulkfetch"
)

const (
	benchToken   = "bench-token-not-secret"
	benchEmail   = "demo@example.com"
	benchProject = "DEMO"
)

type bench struct {
	o    Options
	bins harness.Binaries
	tmp  string
	// confirm is the time between a preview and its commit (a person
	// reading the preview before confirming it); 0 = none.
	confirm time.Duration
	// deployment is every provider's jira.Config.Deployment ("" = Cloud;
	// the Data Center row's copy of the bench sets it).
	deployment string
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// dirFor makes the directory of one row's files under the run's
// temporary directory.
func (b *bench) dirFor(row string) (string, error) {
	dir := filepath.Join(b.tmp, row)
	return dir, os.MkdirAll(dir, 0o755)
}

// storeFor makes the directory of one row's files (dirFor) and returns
// the path of its state store there.
func (b *bench) storeFor(row string) (string, error) {
	dir, err := b.dirFor(row)
	return filepath.Join(dir, "state.db"), err
}

// stamp is now, as the reports date a row.
func stamp() string { return time.Now().UTC().Format(time.RFC3339) }

// epicsFor is ≈2% of n, at least one.
func epicsFor(n int) int { return max(1, int(math.Round(float64(n)*0.02))) }

// document renders a planning document of n items (≈2% epics, the stories
// spread evenly over them). Items whose index is in edited get a changed
// title.
func document(n int, edited func(i int) bool) []byte { return planDoc(n, edited, false) }

// fieldLines are the seven field lines every story of a fields document
// carries (i: the story's index), the values the fields seed allows.
func fieldLines(i int) string {
	return fmt.Sprintf("Labels: l%d\nPriority: High\nAssignee: %s\nEstimate: %d\nComponents: Web\nFix versions: 2027.1\nDue: 2027-03-%02d\n", i%7, benchAssignee, i%13, 1+i%28)
}

// planDoc is document, and with withFields the seven fields of fieldLines
// under every story's heading.
func planDoc(n int, edited func(i int) bool, withFields bool) []byte {
	epics := epicsFor(n)
	stories := n - epics
	var b strings.Builder
	b.WriteString("---\nid: bench\n---\n# Benchmark plan\n")
	i := 0
	suffix := func() string {
		if edited != nil && edited(i) {
			return " (edited)"
		}
		return ""
	}
	for e := 0; e < epics; e++ {
		per := stories / epics
		if e < stories%epics {
			per++
		}
		fmt.Fprintf(&b, "\n## Epic e-%d: Epic number %d%s\n\nWhat epic %d is about, in a sentence or two of **Markdown**.\n", e+1, e+1, suffix(), e+1)
		i++
		for s := 0; s < per; s++ {
			fields := ""
			if withFields {
				fields = fieldLines(i)
			}
			fmt.Fprintf(&b, "\n## Story s-%d-%d: Story %d of epic %d%s\nEpic: e-%d\n%s\nAs a user I want story %d so that the benchmark has some text to carry.\n\nAcceptance criteria:\n- It works\n- It is tested\n",
				e+1, s+1, s+1, e+1, suffix(), e+1, fields, s+1)
			i++
		}
	}
	return []byte(b.String())
}

// Phase is one measured operation against the fake Jira.
type Phase struct {
	Requests   int            `json:"requests"`
	Writes     int            `json:"writes"`
	ByEndpoint map[string]int `json:"by_endpoint"`
	WallMS     float64        `json:"wall_ms"`
	// MinRequests is the physical minimum for the phase, when defined.
	MinRequests  int      `json:"min_requests,omitempty"`
	RequestRatio float64  `json:"request_ratio,omitempty"` // Requests / MinRequests
	WallRatio    *float64 `json:"wall_ratio,omitempty"`    // WallMS / (MinRequests × latency); absent at zero latency
	Counts       any      `json:"counts,omitempty"`
	// MockJiraCPUMS is the fake Jira's own CPU time during the phase.
	MockJiraCPUMS float64 `json:"mockjira_cpu_ms"`
	// RateLimited counts the requests answered 429 (also in ByEndpoint).
	RateLimited           int            `json:"rate_limited,omitempty"`
	RateLimitedByEndpoint map[string]int `json:"rate_limited_by_endpoint,omitempty"`
	// log is what mockjira logged during the phase (-timeline).
	log []harness.Request
}

// PreviewPhase is the CLI preview (a subprocess).
type PreviewPhase struct {
	Phase
	CPUMS    float64 `json:"cpu_ms"` // user + system
	MaxRSSMB float64 `json:"max_rss_mb"`
}

// SizeResult is everything measured for one document size.
type SizeResult struct {
	Items   int `json:"items"`
	Epics   int `json:"epics"`
	Stories int `json:"stories"`
	Edited  int `json:"edited"`
	// MinCommitRequests = ceil(epics/50) + ceil(stories/50) + ceil(items/100)
	// + rankRequests(items-1): ranking is on by default, so a fresh import
	// places every item after the first, in two rounds.
	MinCommitRequests int           `json:"min_commit_requests"`
	MinSearchPages    int           `json:"min_search_pages"`
	Preview           PreviewPhase  `json:"preview"`                   // dwire import --dry-run --json, empty tracker
	PreviewInProcess  Phase         `json:"preview_in_process"`        // ImportPreview before the commit below
	Commit            Phase         `json:"commit"`                    // ImportCommit of the fresh import
	Unchanged         Phase         `json:"reimport_unchanged"`        // fresh provider: preview (+ commit only if it had writes)
	EditedPreview     Phase         `json:"reimport_edited_preview"`   // fresh provider, 10% edited: preview
	EditedCommit      Phase         `json:"reimport_edited_commit"`    // and its commit
	Baseline          *Phase        `json:"baseline_commit,omitempty"` // SingleCreate: one POST /issue per item
	BaselineNote      string        `json:"baseline_note,omitempty"`
	SpeedupWall       float64       `json:"speedup_wall,omitempty"`     // baseline wall / commit wall
	SpeedupRequests   float64       `json:"speedup_requests,omitempty"` // baseline requests / commit requests
	Extrapolated      *Extrapolated `json:"baseline_extrapolated,omitempty"`
}

// Extrapolated is the baseline estimated rather than run.
type Extrapolated struct {
	Requests int     `json:"requests"`
	WallMS   float64 `json:"wall_ms"`
	Basis    string  `json:"basis"`
}

// rankRequests is the rank requests of a run of moves placed as core
// does: ceil(moves/50) for up to 50² moves (a chain up to 100, else
// two rounds with the first chunk whole in the first); a longer run in
// chunks of a head plus up to 50 more, ceil(heads/50) requests for the
// heads, then one per chunk.
func rankRequests(moves int) int {
	if moves <= createBatch*createBatch {
		return ceilDiv(moves, createBatch)
	}
	chunks := ceilDiv(moves, createBatch+1)
	return ceilDiv(chunks, createBatch) + chunks
}

// minimum is a fresh commit's physical minimum of n items and the search
// pages of reading them (an unchanged re-import's minimum).
func (b *bench) minimum(n int) (commit, pages int) {
	epics := epicsFor(n)
	pages = ceilDiv(n, pageSize)
	commit = ceilDiv(epics, createBatch) + ceilDiv(n-epics, createBatch) + pages
	if !b.o.NoRank {
		commit += rankRequests(n - 1)
	}
	return commit, pages
}

func (b *bench) size(ctx context.Context, n int) (SizeResult, error) {
	epics := epicsFor(n)
	sr := SizeResult{Items: n, Epics: epics, Stories: n - epics}
	sr.MinCommitRequests, sr.MinSearchPages = b.minimum(n)
	dir, err := b.dirFor(fmt.Sprintf("size-%d", n))
	if err != nil {
		return sr, err
	}
	doc := document(n, nil)
	docPath := filepath.Join(dir, "bench.md")
	if err := os.WriteFile(docPath, doc, 0o644); err != nil {
		return sr, err
	}

	mj, err := b.startJira(ctx)
	if err != nil {
		return sr, err
	}
	defer stopJira(mj)

	// 1. Preview as a user runs it: a dwire subprocess on an empty tracker.
	logf(b.o, "%d items: CLI preview", n)
	if sr.Preview, err = b.cliPreview(ctx, mj, dir, n); err != nil {
		return sr, err
	}

	// 2. A fresh import in process: preview, then commit.
	storePath := filepath.Join(dir, "state.db")
	logf(b.o, "%d items: fresh import (commit)", n)
	if sr.PreviewInProcess, sr.Commit, err = b.freshImport(ctx, mj, storePath, doc, n); err != nil {
		return sr, err
	}
	sr.Commit.MinRequests = sr.MinCommitRequests
	b.ratios(&sr.Commit)

	// 3. Re-import with nothing changed: a new provider (as a new dwire
	// process would have), preview, and a commit only when the preview has
	// something to write (the CLI stops there otherwise).
	logf(b.o, "%d items: re-import, nothing changed", n)
	pre, com, counts, err := b.importOnce(ctx, mj, storePath, "bench.md", doc, true)
	if err != nil {
		return sr, err
	}
	sr.Unchanged = merge(pre, com)
	sr.Unchanged.Counts = counts
	sr.Unchanged.MinRequests = sr.MinSearchPages
	b.ratios(&sr.Unchanged)
	if sr.Unchanged.Writes != 0 {
		return sr, fmt.Errorf("re-import with nothing changed wrote %d requests to Jira", sr.Unchanged.Writes)
	}

	// 4. Re-import with 10% of the items edited.
	edited := func(i int) bool { return i%10 == 0 }
	for i := 0; i < n; i++ {
		if edited(i) {
			sr.Edited++
		}
	}
	logf(b.o, "%d items: re-import, %d edited", n, sr.Edited)
	pre, com, counts, err = b.importOnce(ctx, mj, storePath, "bench.md", document(n, edited), false)
	if err != nil {
		return sr, err
	}
	if counts.Updated != sr.Edited {
		return sr, fmt.Errorf("re-import of %d edited items updated %d", sr.Edited, counts.Updated)
	}
	if b.o.Timeline != "" {
		if err := writeTimeline(fmt.Sprintf("%s.edits-%d", b.o.Timeline, n), fmt.Sprintf("re-import, %d of %d edited", sr.Edited, n), com); err != nil {
			return sr, err
		}
	}
	sr.EditedPreview, sr.EditedCommit = pre, com
	sr.EditedCommit.Counts = counts
	sr.EditedCommit.MinRequests = sr.MinSearchPages + sr.Edited // Jira has no bulk edit of different values
	b.ratios(&sr.EditedCommit)

	// 5. The baseline: the same fresh import, one POST /issue per item.
	switch {
	case b.o.SkipBaseline:
		sr.BaselineNote = "not run (-skip-baseline)"
	case n > b.o.BaselineMax:
		sr.BaselineNote = fmt.Sprintf("not run (%d sequential creates would take over %s at this latency)", n, (time.Duration(n) * b.o.Latency).Round(time.Second))
	default:
		logf(b.o, "%d items: baseline (one create request per item)", n)
		mj2, err := b.startJira(ctx)
		if err != nil {
			return sr, err
		}
		_, com, counts, err := b.importWith(ctx, mj2, filepath.Join(dir, "baseline.db"), "bench.md", doc, false, true)
		stopJira(mj2)
		if err != nil {
			return sr, err
		}
		if counts.Created != n {
			return sr, fmt.Errorf("baseline created %d of %d items", counts.Created, n)
		}
		com.Counts = counts
		com.MinRequests = sr.MinCommitRequests
		b.ratios(&com)
		sr.Baseline = &com
	}
	return sr, nil
}

// extrapolate fills the baseline of sizes it was not run for from the
// per-item cost of the largest size it was run for.
func extrapolate(rs []SizeResult) {
	var ref *SizeResult
	for i := range rs {
		if rs[i].Baseline != nil && (ref == nil || rs[i].Items > ref.Items) {
			ref = &rs[i]
		}
	}
	for i := range rs {
		r := &rs[i]
		if r.Baseline != nil {
			if r.Commit.WallMS > 0 {
				r.SpeedupWall = r.Baseline.WallMS / r.Commit.WallMS
			}
			if r.Commit.Requests > 0 {
				r.SpeedupRequests = float64(r.Baseline.Requests) / float64(r.Commit.Requests)
			}
			continue
		}
		if ref == nil || strings.HasPrefix(r.BaselineNote, "not run (-skip") {
			continue
		}
		// Requests: one create per item plus the same lookups.
		req := r.Items + r.MinSearchPages
		perItem := ref.Baseline.WallMS / float64(ref.Items)
		r.Extrapolated = &Extrapolated{
			Requests: req,
			WallMS:   perItem * float64(r.Items),
			Basis:    fmt.Sprintf("≈ values extrapolated linearly from the %d-item baseline (%.1f ms per item), not measured", ref.Items, perItem),
		}
		if r.Commit.WallMS > 0 {
			r.SpeedupWall = r.Extrapolated.WallMS / r.Commit.WallMS
		}
		if r.Commit.Requests > 0 {
			r.SpeedupRequests = float64(req) / float64(r.Commit.Requests)
		}
	}
}

func (b *bench) ratios(p *Phase) {
	if p.MinRequests > 0 {
		p.RequestRatio = float64(p.Requests) / float64(p.MinRequests)
		if b.o.Latency > 0 {
			w := p.WallMS / (float64(p.MinRequests) * float64(b.o.Latency) / float64(time.Millisecond))
			p.WallRatio = &w
		}
	}
}

func merge(a, b Phase) Phase {
	out := Phase{Requests: a.Requests + b.Requests, Writes: a.Writes + b.Writes, WallMS: a.WallMS + b.WallMS, MockJiraCPUMS: a.MockJiraCPUMS + b.MockJiraCPUMS, ByEndpoint: map[string]int{}}
	for _, m := range []map[string]int{a.ByEndpoint, b.ByEndpoint} {
		for k, v := range m {
			out.ByEndpoint[k] += v
		}
	}
	return out
}

func (b *bench) startJira(ctx context.Context) (*harness.MockJira, error) {
	return b.startJiraWith(ctx)
}

// startJiraWith starts mockjira with more flags.
func (b *bench) startJiraWith(ctx context.Context, flags ...string) (*harness.MockJira, error) {
	return harness.StartMockJira(ctx, b.bins, harness.ModeProcess, harness.MockJiraOptions{
		Project: benchProject, Email: benchEmail, Token: benchToken, Latency: b.o.Latency, Extra: flags,
	})
}

func stopJira(mj *harness.MockJira) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = mj.Stop(ctx)
}

// issueKey and number segments of a path are folded so the request log
// groups by endpoint.
var keySegment = regexp.MustCompile(`^([A-Z][A-Z0-9_]*-\d+|\d+)$`)

func endpoint(r harness.Request) string {
	segs := strings.Split(r.Path, "/")
	for i, s := range segs {
		if i > 0 && segs[i-1] == "api" {
			continue // the REST API version
		}
		if keySegment.MatchString(s) {
			segs[i] = "{id}"
		}
	}
	return r.Method + " " + strings.Join(segs, "/")
}

// collect reads and clears the request log.
func collect(ctx context.Context, mj *harness.MockJira, cpu0 time.Duration) (Phase, error) {
	cpu := mockjiraCPU() - cpu0
	rs, err := mj.Requests(ctx)
	if err != nil {
		return Phase{}, err
	}
	if err := mj.ClearRequests(ctx); err != nil {
		return Phase{}, err
	}
	p := Phase{ByEndpoint: map[string]int{}, MockJiraCPUMS: ms(cpu), log: rs}
	for _, r := range rs {
		if !strings.HasPrefix(r.Path, "/rest/") {
			continue
		}
		p.Requests++
		if r.IsWrite() {
			p.Writes++
		}
		p.ByEndpoint[endpoint(r)]++
		if r.Status == 429 {
			if p.RateLimitedByEndpoint == nil {
				p.RateLimitedByEndpoint = map[string]int{}
			}
			p.RateLimited++
			p.RateLimitedByEndpoint[endpoint(r)]++
		}
	}
	return p, nil
}

// cliPreview runs `dwire import --dry-run --json` in a workspace pointed at
// mj and reads the child's CPU time and peak RSS.
func (b *bench) cliPreview(ctx context.Context, mj *harness.MockJira, dir string, n int) (PreviewPhase, error) {
	ws := filepath.Join(dir, "cli")
	if err := writeWorkspace(ws, mj.URL); err != nil {
		return PreviewPhase{}, err
	}
	doc, err := os.ReadFile(filepath.Join(dir, "bench.md"))
	if err != nil {
		return PreviewPhase{}, err
	}
	if err := os.WriteFile(filepath.Join(ws, "bench.md"), doc, 0o644); err != nil {
		return PreviewPhase{}, err
	}
	if err := mj.ClearRequests(ctx); err != nil {
		return PreviewPhase{}, err
	}
	cmd := dwireCmd(ctx, b.bins, ws, "import", "bench.md", "--dry-run", "--json")
	cpu0 := mockjiraCPU()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return PreviewPhase{}, fmt.Errorf("dwire import --dry-run: %v\n%s", err, errb.String())
	}
	var res service.ImportPreviewResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return PreviewPhase{}, fmt.Errorf("dwire import --dry-run --json printed no preview: %v", err)
	}
	if res.Counts.Create != n {
		return PreviewPhase{}, fmt.Errorf("preview of an empty tracker plans %d creates, want %d", res.Counts.Create, n)
	}
	p, err := collect(ctx, mj, cpu0)
	if err != nil {
		return PreviewPhase{}, err
	}
	p.WallMS = ms(wall)
	p.Counts = res.Counts
	p.MinRequests = ceilDiv(n, pageSize)
	pp := PreviewPhase{Phase: p}
	st := cmd.ProcessState
	pp.CPUMS = ms(st.UserTime() + st.SystemTime())
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		pp.MaxRSSMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	if p.Writes != 0 {
		return pp, fmt.Errorf("preview wrote %d requests to Jira", p.Writes)
	}
	return pp, nil
}

func writeWorkspace(ws, jiraURL string) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf("jira:\n  site: %s\n  project: %s\n  email: %s\n  token_env: JIRA_API_TOKEN\nstore: sqlite://./state.db\n", jiraURL, benchProject, benchEmail)
	return os.WriteFile(filepath.Join(ws, ".devworkwire.yaml"), []byte(cfg), 0o644)
}

func dwireCmd(ctx context.Context, bins harness.Binaries, ws string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, bins.Dwire, args...)
	c.Dir = ws
	c.Env = append(os.Environ(),
		"JIRA_API_TOKEN="+benchToken,
		"HOME="+ws,
		"XDG_STATE_HOME="+filepath.Join(ws, ".state"),
		"NO_COLOR=1",
		"DWIRE_CONFIG=",
		"DWIRE_STORE_URL=",
	)
	return c
}

func (b *bench) importOnce(ctx context.Context, mj *harness.MockJira, storePath, name string, doc []byte, reimport bool) (pre, com Phase, counts service.CommitCounts, err error) {
	return b.importWith(ctx, mj, storePath, name, doc, reimport, false)
}

// importWith runs ImportPreview and ImportCommit in process through a new
// jira.Provider (real HTTP to mj) and the SQLite store at storePath. With
// unchangedOnly the commit is skipped when the preview has nothing to write
// (as the CLI does) and the counts must say so.
func (b *bench) importWith(ctx context.Context, mj *harness.MockJira, storePath, name string, doc []byte, unchangedOnly, single bool) (pre, com Phase, counts service.CommitCounts, err error) {
	st, err := sqlitestore.Open(ctx, sqlitestore.Options{Path: storePath})
	if err != nil {
		return pre, com, counts, err
	}
	defer st.Close()
	inFlight := b.o.MaxInFlight
	if single {
		inFlight = 1 // the baseline: one create request per item, one after another
	}
	p, err := jira.New(jira.Config{BaseURL: mj.URL, Email: benchEmail, Token: benchToken, Project: benchProject, SingleCreate: single, MaxInFlight: inFlight, Deployment: b.deployment})
	if err != nil {
		return pre, com, counts, err
	}
	// Rank as dwire does by default (rank: absent or true), unless -rank=false.
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: st, WritesInFlight: inFlight, Rank: !b.o.NoRank})
	if err := mj.ClearRequests(ctx); err != nil {
		return pre, com, counts, err
	}
	var pr service.ImportPreviewResult
	if pre, err = measured(ctx, mj, func() (err error) {
		pr, err = svc.ImportPreview(ctx, service.ImportPreviewInput{Path: name, Data: doc})
		return err
	}); err != nil {
		return pre, com, counts, err
	}
	pre.Counts = pr.Counts
	if unchangedOnly {
		if pr.Counts.Unchanged != len(pr.Items) {
			return pre, com, counts, fmt.Errorf("re-import of an unchanged document previews %+v", pr.Counts)
		}
		counts.Unchanged = pr.Counts.Unchanged
		return pre, Phase{ByEndpoint: map[string]int{}}, counts, nil
	}
	if b.confirm > 0 {
		// Not measured: the person reads the preview and confirms.
		select {
		case <-ctx.Done():
			return pre, com, counts, ctx.Err()
		case <-time.After(b.confirm):
		}
	}
	var cr service.ImportCommitResult
	if com, err = measured(ctx, mj, func() (err error) {
		cr, err = svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pr.PreviewHandle, Confirmed: true})
		return err
	}); err != nil {
		return pre, com, counts, err
	}
	return pre, com, cr.Counts, nil
}

// measured runs step and returns what it cost: mockjira's requests and
// CPU time (collect) and the wall time.
func measured(ctx context.Context, mj *harness.MockJira, step func() error) (Phase, error) {
	cpu0 := mockjiraCPU()
	t0 := time.Now()
	if err := step(); err != nil {
		return Phase{}, err
	}
	wall := time.Since(t0)
	ph, err := collect(ctx, mj, cpu0)
	if err != nil {
		return ph, err
	}
	ph.WallMS = ms(wall)
	return ph, nil
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeTimeline writes when each request of p reached mockjira, in ms from
// the first, with its status and endpoint (and a create's first summary, a
// rank request's first key): where a commit's time goes (-timeline).
func writeTimeline(path, title string, p Phase) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %d requests\n", title, len(p.log))
	var t0 time.Time
	for _, r := range p.log {
		if t0.IsZero() || r.At.Before(t0) {
			t0 = r.At
		}
	}
	for _, r := range p.log {
		hint := ""
		if i := strings.Index(r.Body, `"issueIdsOrKeys":[`); i >= 0 {
			rest := r.Body[i+len(`"issueIdsOrKeys":[`):]
			rest = rest[:strings.IndexByte(rest+"]", ']')]
			ks := strings.Split(rest, ",")
			hint = fmt.Sprintf("n=%d %s..%s", len(ks), ks[0], ks[len(ks)-1])
		}
		for _, k := range []string{`"summary":"`, `"issues":["`} {
			if i := strings.Index(r.Body, k); i >= 0 {
				rest := r.Body[i+len(k):]
				hint = rest[:strings.IndexByte(rest+`"`, '"')]
				break
			}
		}
		fmt.Fprintf(&b, "%8.1f %d %s %s\n", float64(r.At.Sub(t0).Microseconds())/1000, r.Status, endpoint(r), hint)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
