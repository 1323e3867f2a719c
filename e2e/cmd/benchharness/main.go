package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/devworkwire/devworkwire/e2e/harness"
)

// Options are the driver's settings (its flags).
type Options struct {
	Latency      time.Duration
	Sizes        []int
	SkipBaseline bool
	// BaselineMax is the largest size the one-create-per-item baseline is
	// run for; larger sizes get an extrapolation, clearly labelled.
	BaselineMax int
	Quick       bool // fast smoke run: few cold-start runs, no store benchmarks
	ColdRuns    int  // runs of `dwire version` and of MCP initialize+tools/list
	StoreBench  bool // run the store benchmarks (go test -bench)
	OutMD       string
	OutJSON     string
	CPUProfile  string // write a CPU profile of the driver process (the in-process commits)
	Timeline    string // write the burst-limited fresh commit's request timeline to this file
	Render      string // only rewrite OutMD from this results JSON (no measuring)
	// MaxInFlight is jira.Config.MaxInFlight of every provider (0 = the
	// adapter's default; 1 = one request at a time).
	MaxInFlight int
	// NoRank turns the document's order as backlog order off (rank:
	// false); the default ranks as dwire does.
	NoRank bool
	// BurstItems is the size of the burst-limited runs (0 = none);
	// BurstLimit their limit in requests per second per endpoint.
	BurstItems int
	BurstLimit float64
	// Agents are the team sizes of the agents rows (agents.go; none
	// without DWIRE_TEST_POSTGRES_URL), AgentsItems each agent's document.
	Agents      []int
	AgentsItems int
	// FieldsItems is the size of the plan run with and without seven
	// fields per story (0 = none).
	FieldsItems int
	// LinksItems is the size of the link-heavy plan (0 = none).
	LinksItems int
	// DataCenterItems is the size of the plan imported into a Jira Data
	// Center site (0 = none).
	DataCenterItems int
	// Hostile previews the hostile-Markdown documents (hostile.go).
	Hostile bool
	// Only names the rows to measure alone (burst, fields, links), merged
	// into the results already in OutJSON; empty = everything.
	Only map[string]bool
	Log  io.Writer // progress lines
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchharness:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.Render != "" {
		if err := render(o); err != nil {
			fmt.Fprintln(os.Stderr, "benchharness:", err)
			os.Exit(1)
		}
		return
	}
	if _, err := Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchharness:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (Options, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return Options{}, err
	}
	fs := flag.NewFlagSet("benchharness", flag.ContinueOnError)
	o := Options{Log: os.Stderr}
	var sizes string
	fs.DurationVar(&o.Latency, "latency", 50*time.Millisecond, "mockjira's latency per request")
	fs.StringVar(&sizes, "sizes", "", "comma-separated document sizes in items (default 100,1000,10000; with -quick 20)")
	fs.BoolVar(&o.SkipBaseline, "skip-baseline", false, "do not run the one-create-per-item baseline")
	fs.IntVar(&o.BaselineMax, "baseline-max", 1000, "largest size the baseline runs for (larger sizes are extrapolated)")
	fs.BoolVar(&o.Quick, "quick", false, "fast smoke run: small default size, 3 cold-start runs, no store benchmarks")
	fs.IntVar(&o.ColdRuns, "cold-runs", 0, "runs of the CLI and MCP cold-start measurements (default 31; with -quick 3)")
	storeBench := fs.Bool("store-bench", true, "run the store benchmarks (always off with -quick)")
	rank := fs.Bool("rank", true, "rank as dwire does by default (false: rank: false, no rank requests; the commits as they were before ranking was on)")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", 0, "jira max_in_flight of every provider (0 = the adapter's default, 1 = one request at a time)")
	fs.IntVar(&o.BurstItems, "burst-items", -1, "items of the runs under a burst limit (default 1000; with -quick 20; 0 = none)")
	fs.Float64Var(&o.BurstLimit, "burst-limit", 10, "the burst limit of those runs, requests per second per endpoint and method")
	agents := fs.String("agents", "10,25", "team sizes of the agents rows: `dwire mcp` processes on one Postgres store under the burst limit (needs DWIRE_TEST_POSTGRES_URL; none with -quick unless -only agents)")
	fs.IntVar(&o.AgentsItems, "agents-items", 40, "items of each agent's document")
	fs.IntVar(&o.FieldsItems, "fields-items", -1, "items of the plan imported with and without seven fields per story (default 1000; with -quick 20; 0 = none)")
	fieldsOnly := fs.Bool("fields-only", false, "the same as -only fields")
	fs.IntVar(&o.DataCenterItems, "datacenter-items", -1, "items of the fresh import and unchanged re-import against a Jira Data Center site (default 1000; with -quick 20; 0 = none)")
	fs.IntVar(&o.LinksItems, "links-items", -1, "items of the link-heavy plan: 30% sub-tasks, items/2 dependencies, sprint and rank (default 1000; with -quick 20; 0 = none)")
	hostile := fs.Bool("hostile", true, "preview the hostile-Markdown documents (always off with -quick)")
	only := fs.String("only", "", "comma-separated rows to measure alone (sizes: the document sizes of -sizes; burst, agents, fields, links, hostile, datacenter), merged into the results already in -out-json (both reports rewritten)")
	fs.StringVar(&o.OutMD, "out-md", filepath.Join(root, "docs", "benchmarks.md"), "Markdown report to write")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the driver (in-process preview and commit) to this file")
	fs.StringVar(&o.Timeline, "timeline", "", "write when each request of the burst-limited fresh commit reached mockjira (ms from the first, status, endpoint) to this file, each agents row's to this file with .agents-N appended, and the N-item size row's edited re-import commit's with .edits-N")
	fs.StringVar(&o.Render, "render", "", "measure nothing: rewrite the Markdown report from this benchmarks.json (same numbers, current wording)")
	fs.StringVar(&o.OutJSON, "out-json", filepath.Join(root, "docs", "benchmarks.json"), "JSON results to write")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if sizes == "" {
		sizes = "100,1000,10000"
		if o.Quick {
			sizes = "20"
		}
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			return Options{}, fmt.Errorf("-sizes: %q is not a size of at least 2 items", s)
		}
		o.Sizes = append(o.Sizes, n)
	}
	if o.BurstItems < 0 {
		o.BurstItems = 1000
		if o.Quick {
			o.BurstItems = 20
		}
	}
	if o.BurstItems > 0 && (o.BurstLimit < 1 || o.BurstItems < 2) {
		return Options{}, fmt.Errorf("-burst-limit must be at least 1 and -burst-items at least 2 (or 0)")
	}
	if o.FieldsItems < 0 {
		o.FieldsItems = 1000
		if o.Quick {
			o.FieldsItems = 20
		}
	}
	if o.LinksItems < 0 {
		o.LinksItems = 1000
		if o.Quick {
			o.LinksItems = 20
		}
	}
	if o.DataCenterItems < 0 {
		o.DataCenterItems = 1000
		if o.Quick {
			o.DataCenterItems = 20
		}
	}
	if o.LinksItems == 1 || o.LinksItems < 0 {
		return Options{}, fmt.Errorf("-links-items must be at least 2 (or 0)")
	}
	if *fieldsOnly {
		*only += ",fields"
	}
	for _, row := range strings.Split(*only, ",") {
		switch row = strings.TrimSpace(row); row {
		case "":
		case "sizes", "burst", "agents", "fields", "links", "hostile", "datacenter":
			if o.Only == nil {
				o.Only = map[string]bool{}
			}
			o.Only[row] = true
		default:
			return Options{}, fmt.Errorf("-only: %q is not a row that can be measured alone (sizes, burst, agents, fields, links, hostile, datacenter)", row)
		}
	}
	for row, size := range map[string]int{"burst": o.BurstItems, "fields": o.FieldsItems, "links": o.LinksItems, "datacenter": o.DataCenterItems} {
		if o.Only[row] && size < 2 {
			return Options{}, fmt.Errorf("-only %s needs -%s-items of at least 2", row, row)
		}
	}
	if !o.Quick || o.Only["agents"] {
		for _, f := range strings.Split(*agents, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return Options{}, fmt.Errorf("-agents: %q is not a number of agents", f)
			}
			o.Agents = append(o.Agents, n)
		}
	}
	if o.AgentsItems < 2 {
		return Options{}, fmt.Errorf("-agents-items must be at least 2")
	}
	if o.ColdRuns <= 0 {
		o.ColdRuns = 31
		if o.Quick {
			o.ColdRuns = 3
		}
	}
	o.StoreBench = *storeBench && !o.Quick
	o.Hostile = (*hostile && !o.Quick) || o.Only["hostile"]
	o.NoRank = !*rank
	return o, nil
}

// Run builds the binaries, measures everything and writes both reports.
func Run(ctx context.Context, o Options) (*Results, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	res := &Results{Date: stamp(), Machine: machine(), Settings: settings(o)}
	tmp, err := os.MkdirTemp("", "dwire-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	logf(o, "building dwire and mockjira")
	bins, err := harness.Build(filepath.Join(tmp, "bin"))
	if err != nil {
		return nil, err
	}
	b := &bench{o: o, bins: bins, tmp: tmp}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	if len(o.Only) > 0 {
		return b.only(ctx, res)
	}
	for _, n := range o.Sizes {
		sr, err := b.size(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", n, err)
		}
		res.Sizes = append(res.Sizes, sr)
	}
	extrapolate(res.Sizes)
	if err := b.rows(ctx, res, func(string) bool { return true }); err != nil {
		return nil, err
	}
	logf(o, "CLI cold start (%d runs)", o.ColdRuns)
	if res.ColdStart, err = b.coldStart(ctx); err != nil {
		return nil, err
	}
	logf(o, "MCP initialize + tools/list (%d runs)", o.ColdRuns)
	if res.MCP, err = b.mcpStart(ctx); err != nil {
		return nil, err
	}
	if o.StoreBench {
		res.Stores = storeBenchmarks(ctx, o)
	} else {
		res.Stores = []StoreResult{{Store: "sqlite", Note: "not run (-quick or -store-bench=false)"}, {Store: "postgres", Note: "not run (-quick or -store-bench=false)"}}
	}
	res.Targets = targets(res)
	if err := writeReports(res, o); err != nil {
		return nil, err
	}
	logf(o, "wrote %s and %s", o.OutMD, o.OutJSON)
	return res, nil
}

// rows measures the burst-limited, fields, link-heavy and hostile rows that want
// selects (and whose size is not 0) into res.
func (b *bench) rows(ctx context.Context, res *Results, want func(row string) bool) error {
	var err error
	if b.o.BurstItems > 0 && want("burst") {
		if res.Burst, err = b.burstRuns(ctx, b.o.BurstItems, b.o.BurstLimit); err != nil {
			return fmt.Errorf("burst-limited runs: %w", err)
		}
	}
	if len(b.o.Agents) > 0 && want("agents") {
		if os.Getenv("DWIRE_TEST_POSTGRES_URL") == "" {
			logf(b.o, "agents rows skipped: they need a Postgres server (DWIRE_TEST_POSTGRES_URL)")
		} else if res.Agents, err = b.agentsRuns(ctx, b.o.Agents, b.o.AgentsItems, b.o.BurstLimit); err != nil {
			return fmt.Errorf("agents rows: %w", err)
		}
	}
	if b.o.FieldsItems > 0 && want("fields") {
		if res.Fields, err = b.fieldsRuns(ctx, b.o.FieldsItems); err != nil {
			return fmt.Errorf("fields runs: %w", err)
		}
	}
	if b.o.LinksItems > 0 && want("links") {
		if res.Links, err = b.linksRun(ctx, b.o.LinksItems); err != nil {
			return fmt.Errorf("link-heavy run: %w", err)
		}
	}
	if b.o.DataCenterItems > 0 && want("datacenter") {
		if res.DataCenter, err = b.dataCenterRun(ctx, b.o.DataCenterItems); err != nil {
			return fmt.Errorf("Data Center run: %w", err)
		}
	}
	if b.o.Hostile && want("hostile") {
		if res.Hostile, err = b.hostileRun(ctx); err != nil {
			return fmt.Errorf("hostile Markdown: %w", err)
		}
	}
	return nil
}

// only measures the rows of Options.Only alone and merges them into the
// results in OutJSON (kept as they are otherwise; fresh ones when there are
// none), then rewrites both reports.
func (b *bench) only(ctx context.Context, fresh *Results) (*Results, error) {
	res := fresh
	if data, err := os.ReadFile(b.o.OutJSON); err == nil {
		var old Results
		if err := json.Unmarshal(data, &old); err != nil {
			return nil, fmt.Errorf("%s: %w", b.o.OutJSON, err)
		}
		res = &old
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b.o.Only["sizes"] {
		// Each size measured replaces the one of the same size (the
		// others are kept); the baseline extrapolations follow.
		for _, n := range b.o.Sizes {
			sr, err := b.size(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("size %d: %w", n, err)
			}
			res.Sizes = slices.DeleteFunc(res.Sizes, func(s SizeResult) bool { return s.Items == n })
			res.Sizes = append(res.Sizes, sr)
		}
		slices.SortFunc(res.Sizes, func(a, b SizeResult) int { return a.Items - b.Items })
		extrapolate(res.Sizes)
	}
	if err := b.rows(ctx, res, func(row string) bool { return b.o.Only[row] }); err != nil {
		return nil, err
	}
	res.Targets = targets(res)
	if err := writeReports(res, b.o); err != nil {
		return nil, err
	}
	logf(b.o, "merged the %s rows into %s and %s", strings.Join(slices.Sorted(maps.Keys(b.o.Only)), ", "), b.o.OutMD, b.o.OutJSON)
	return res, nil
}

func logf(o Options, format string, args ...any) {
	fmt.Fprintf(o.Log, "bench: "+format+"\n", args...)
}

// render rewrites the Markdown report from a results file.
func render(o Options) error {
	b, err := os.ReadFile(o.Render)
	if err != nil {
		return err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %w", o.Render, err)
	}
	return os.WriteFile(o.OutMD, []byte(markdown(&r)), 0o644)
}
