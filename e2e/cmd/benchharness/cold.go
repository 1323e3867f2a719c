package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devworkwire/devworkwire/e2e/harness"
)

// Timing is the spread of repeated runs.
type Timing struct {
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
	Note     string  `json:"note,omitempty"`
}

func timing(ds []time.Duration) Timing {
	t := Timing{Runs: len(ds), MedianMS: ms(median(ds))}
	if len(ds) > 0 {
		lo, hi := ds[0], ds[0]
		for _, d := range ds {
			lo, hi = min(lo, d), max(hi, d)
		}
		t.MinMS, t.MaxMS = ms(lo), ms(hi)
	}
	return t
}

// coldStart times `dwire version` from exec to exit.
func (b *bench) coldStart(ctx context.Context) (Timing, error) {
	ws := filepath.Join(b.tmp, "cold")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return Timing{}, err
	}
	var ds []time.Duration
	for i := 0; i < b.o.ColdRuns; i++ {
		c := dwireCmd(ctx, b.bins, ws, "version")
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		t0 := time.Now()
		if err := c.Run(); err != nil {
			return Timing{}, fmt.Errorf("dwire version: %v\n%s", err, out.String())
		}
		ds = append(ds, time.Since(t0))
	}
	t := timing(ds)
	t.Note = "`dwire version`, exec to exit"
	return t, nil
}

// mcpStart times a cold `dwire mcp`: process start, initialize, and one
// tools/list answered, using the go-sdk client over CommandTransport.
func (b *bench) mcpStart(ctx context.Context) (Timing, error) {
	mj, err := b.startJira(ctx)
	if err != nil {
		return Timing{}, err
	}
	defer stopJira(mj)
	ws := filepath.Join(b.tmp, "mcp")
	if err := writeWorkspace(ws, mj.URL); err != nil {
		return Timing{}, err
	}
	var ds []time.Duration
	for i := 0; i < b.o.ColdRuns; i++ {
		d, err := mcpOnce(ctx, b.bins, ws)
		if err != nil {
			return Timing{}, err
		}
		ds = append(ds, d)
	}
	t := timing(ds)
	t.Note = "cold `dwire mcp`: exec, initialize, tools/list answered"
	return t, nil
}

func mcpOnce(ctx context.Context, bins harness.Binaries, ws string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c := dwireCmd(ctx, bins, ws, "mcp")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "dwire-bench", Version: "1.0.0"}, nil)
	t0 := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		return 0, fmt.Errorf("connect to dwire mcp: %v\n%s", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	d := time.Since(t0)
	_ = cs.Close()
	if err != nil {
		return 0, fmt.Errorf("tools/list: %v\n%s", err, stderr.String())
	}
	if len(tools.Tools) == 0 {
		return 0, fmt.Errorf("dwire mcp lists no tools")
	}
	return d, nil
}

// StoreResult is one store's SaveLoadConsume benchmark.
type StoreResult struct {
	Store   string       `json:"store"`
	Results []StoreBench `json:"results,omitempty"`
	Note    string       `json:"note,omitempty"`
}

// StoreBench is one sub-benchmark line.
type StoreBench struct {
	Name      string  `json:"name"`
	Clients   int     `json:"clients"`
	NsPerOp   float64 `json:"ns_per_op"`
	OpsPerSec float64 `json:"ops_per_sec"` // save+load+consume cycles per second
}

var benchLine = regexp.MustCompile(`^(BenchmarkStore/SaveLoadConsume/clients=(\d+))(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

// storeBenchmarks runs `go test -run '^$' -bench Store/SaveLoadConsume` in both
// store modules and parses the output.
func storeBenchmarks(ctx context.Context, o Options) []StoreResult {
	root, _ := harness.RepoRoot()
	var out []StoreResult
	for _, s := range []struct{ name, dir string }{{"sqlite", "store-sqlite"}, {"postgres", "store-postgres"}} {
		logf(o, "store benchmark: %s", s.name)
		r := StoreResult{Store: s.name}
		c := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^$", "-bench", "Store/SaveLoadConsume", ".")
		c.Dir = filepath.Join(root, s.dir)
		b, err := c.CombinedOutput()
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
			if m == nil {
				continue
			}
			clients, _ := strconv.Atoi(m[2])
			ns, _ := strconv.ParseFloat(m[3], 64)
			sb := StoreBench{Name: m[1], Clients: clients, NsPerOp: ns}
			if ns > 0 {
				sb.OpsPerSec = 1e9 / ns
			}
			r.Results = append(r.Results, sb)
		}
		switch {
		case err != nil:
			r.Note = "not measured: the benchmark failed: " + lastLines(string(b), 5)
		case len(r.Results) == 0:
			r.Note = "not measured: " + lastLines(string(b), 3)
		case s.name == "postgres" && os.Getenv("DWIRE_TEST_POSTGRES_URL") != "":
			r.Note = "server from DWIRE_TEST_POSTGRES_URL"
		case s.name == "postgres":
			r.Note = "throwaway local PostgreSQL cluster started by pgtest (DWIRE_TEST_POSTGRES_URL unset)"
		default:
			r.Note = "one database file in a temporary directory"
		}
		out = append(out, r)
	}
	return out
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}

// Machine describes where the numbers come from.
type Machine struct {
	OS        string  `json:"os"`
	Arch      string  `json:"arch"`
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model,omitempty"`
	MemoryGiB float64 `json:"memory_gib"`
	Go        string  `json:"go"`
	LoadAvg   string  `json:"load_average_at_start"`
}

func machine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				f := strings.Fields(l)
				if len(f) >= 2 {
					kb, _ := strconv.ParseFloat(f[1], 64)
					m.MemoryGiB = float64(int(kb/1024/1024*10+0.5)) / 10
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	}
	return m
}

// Settings are the run's parameters.
type Settings struct {
	LatencyMS    float64 `json:"latency_ms"`
	Sizes        []int   `json:"sizes"`
	SkipBaseline bool    `json:"skip_baseline"`
	BaselineMax  int     `json:"baseline_max"`
	Quick        bool    `json:"quick"`
	ColdRuns     int     `json:"cold_runs"`
	PageSize     int     `json:"page_size"`
	CreateBatch  int     `json:"create_batch"`
	MaxInFlight  int     `json:"max_in_flight"` // 0 = the adapter's default
	NoRank       bool    `json:"no_rank,omitempty"`
}

func settings(o Options) Settings {
	return Settings{LatencyMS: ms(o.Latency), Sizes: o.Sizes, SkipBaseline: o.SkipBaseline, BaselineMax: o.BaselineMax, Quick: o.Quick, ColdRuns: o.ColdRuns, PageSize: pageSize, CreateBatch: createBatch, MaxInFlight: o.MaxInFlight, NoRank: o.NoRank}
}

// mockjiraCPU returns the CPU time (user + system) used so far by this
// process's mockjira children, read from /proc; 0 where there is no /proc.
// The fake's own work (a linear scan per search) shares the machine with
// the client, so the reports show it next to wall times.
func mockjiraCPU() time.Duration {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	var total time.Duration
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open || s[open+1:closing] != "mockjira" {
			continue
		}
		f := strings.Fields(s[closing+1:])
		// f[0] state, f[1] ppid, ... f[11] utime, f[12] stime (clock ticks).
		if len(f) < 13 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid != self {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * (time.Second / 100) // USER_HZ is 100 on Linux
	}
	return total
}
