package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
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
	Render      string // only rewrite OutMD from this results JSON (no measuring)
	// MaxInFlight is jira.Config.MaxInFlight of every provider (0 = the
	// adapter's default; 1 = one request at a time).
	MaxInFlight int
	// BurstItems is the size of the burst-limited runs (0 = none);
	// BurstLimit their limit in requests per second per endpoint.
	BurstItems int
	BurstLimit float64
	// FieldsItems is the size of the plan run with and without seven
	// fields per story (0 = none); FieldsOnly measures only that and
	// merges it into the results already in OutJSON.
	FieldsItems int
	FieldsOnly  bool
	Log         io.Writer // progress lines
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
	fs.IntVar(&o.MaxInFlight, "max-in-flight", 0, "jira max_in_flight of every provider (0 = the adapter's default, 1 = one request at a time)")
	fs.IntVar(&o.BurstItems, "burst-items", -1, "items of the runs under a burst limit (default 1000; with -quick 20; 0 = none)")
	fs.Float64Var(&o.BurstLimit, "burst-limit", 10, "the burst limit of those runs, requests per second per endpoint and method")
	fs.IntVar(&o.FieldsItems, "fields-items", -1, "items of the plan imported with and without seven fields per story (default 1000; with -quick 20; 0 = none)")
	fs.BoolVar(&o.FieldsOnly, "fields-only", false, "measure only the fields runs and merge them into the results already in -out-json (both reports rewritten)")
	fs.StringVar(&o.OutMD, "out-md", filepath.Join(root, "docs", "benchmarks.md"), "Markdown report to write")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the driver (in-process preview and commit) to this file")
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
	if o.FieldsOnly && o.FieldsItems < 2 {
		return Options{}, fmt.Errorf("-fields-only needs -fields-items of at least 2")
	}
	if o.ColdRuns <= 0 {
		o.ColdRuns = 31
		if o.Quick {
			o.ColdRuns = 3
		}
	}
	o.StoreBench = *storeBench && !o.Quick
	return o, nil
}

// Run builds the binaries, measures everything and writes both reports.
func Run(ctx context.Context, o Options) (*Results, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	res := &Results{Date: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Settings: settings(o)}
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
	if o.FieldsOnly {
		return b.fieldsOnly(ctx, res)
	}
	for _, n := range o.Sizes {
		sr, err := b.size(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", n, err)
		}
		res.Sizes = append(res.Sizes, sr)
	}
	extrapolate(res.Sizes)
	if o.BurstItems > 0 {
		if res.Burst, err = b.burstRuns(ctx, o.BurstItems, o.BurstLimit); err != nil {
			return nil, fmt.Errorf("burst-limited runs: %w", err)
		}
	}
	if o.FieldsItems > 0 {
		if res.Fields, err = b.fieldsRuns(ctx, o.FieldsItems); err != nil {
			return nil, fmt.Errorf("fields runs: %w", err)
		}
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
