package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Burst-limited runs: the same imports against a mockjira that
// enforces Jira's burst limit per endpoint and method (-burst-limit), to
// show the adapter's pacing: requests, 429s received, wall time, and the
// floor the limit implies.

// BurstRun is one commit under the burst limit.
type BurstRun struct {
	Name        string         `json:"name"`
	Items       int            `json:"items"`
	LimitPerSec float64        `json:"limit_per_sec"`
	Requests    int            `json:"requests"`
	RateLimited int            `json:"rate_limited"` // 429s received
	WallMS      float64        `json:"wall_ms"`
	FloorMS     float64        `json:"floor_ms"`
	WallRatio   float64        `json:"wall_ratio"` // wall / floor
	ByEndpoint  map[string]int `json:"by_endpoint"`
	Error       string         `json:"error,omitempty"`
}

// floorMS is the shortest time the work of p can take under a burst limit
// of rate per second per endpoint and method with buckets of burst: each
// endpoint's requests beyond its first burst need (n - burst) / rate
// seconds, endpoints are limited independently, and the last answer takes
// one latency.
func floorMS(p Phase, rate float64, burst int, latencyMS float64) float64 {
	worst := 0.0
	for ep, n := range p.ByEndpoint {
		admitted := n - p.RateLimitedByEndpoint[ep]
		if s := float64(admitted-burst) / rate; s > worst {
			worst = s
		}
	}
	return worst*1000 + latencyMS
}

// burstRuns runs a fresh import of n items and a 10%-edited re-import
// against a mockjira with a burst limit of rate requests per second.
func (b *bench) burstRuns(ctx context.Context, n int, rate float64) ([]BurstRun, error) {
	dir, err := b.dirFor(fmt.Sprintf("burst-%d", n))
	if err != nil {
		return nil, err
	}
	burst := int(rate) // mockjira's default bucket: the rate, at least 1
	// The floor assumes each endpoint's bucket is full when the commit
	// starts, and in use it is: a person reads the preview before
	// confirming it, and by then the preview's own requests (10 search
	// pages for 1,000 items, on the endpoint the commit's stale check uses)
	// have left the bucket. So the commit starts twice a bucket's refill
	// time after its preview (not measured; a person takes longer).
	defer func(c time.Duration) { b.confirm = c }(b.confirm)
	b.confirm = 2 * time.Duration(float64(burst)/rate*float64(time.Second))
	mj, err := b.startJiraWith(ctx, "-burst-limit", fmt.Sprint(rate))
	if err != nil {
		return nil, err
	}
	defer stopJira(mj)
	storePath := filepath.Join(dir, "state.db")
	edited := func(i int) bool { return i%10 == 0 }
	var out []BurstRun
	for _, run := range []struct {
		name string
		doc  []byte
	}{
		{fmt.Sprintf("fresh import, %d items", n), document(n, nil)},
		{fmt.Sprintf("re-import, %d of %d items edited", ceilDiv(n, 10), n), document(n, edited)},
	} {
		logf(b.o, "burst limit %.0f/s: %s", rate, run.name)
		r := BurstRun{Name: run.name, Items: n, LimitPerSec: rate}
		_, com, _, err := b.importOnce(ctx, mj, storePath, "bench.md", run.doc, false)
		if err != nil {
			// A failed commit is a result here, not a harness failure.
			r.Error = err.Error()
			out = append(out, r)
			continue
		}
		r.Requests, r.RateLimited, r.WallMS, r.ByEndpoint = com.Requests, com.RateLimited, com.WallMS, com.ByEndpoint
		if b.o.Timeline != "" && len(out) == 0 {
			if err := writeTimeline(b.o.Timeline, run.name, com); err != nil {
				return nil, err
			}
		}
		r.FloorMS = floorMS(com, rate, burst, ms(b.o.Latency))
		if r.FloorMS > 0 {
			r.WallRatio = r.WallMS / r.FloorMS
		}
		out = append(out, r)
	}
	return out, nil
}

func burstTargets(r *Results) []Target {
	var ts []Target
	for _, br := range r.Burst {
		t := Target{Name: fmt.Sprintf("%s under a %.0f req/s burst limit", br.Name, br.LimitPerSec),
			Goal: "0 failed commits, 429s ≤ 5% of requests (wall and its ratio to the floor reported)"}
		if br.Error != "" {
			t.Measured, t.Status = "failed: "+firstLine(br.Error), "miss"
		} else {
			share := 0.0
			if br.Requests > 0 {
				share = float64(br.RateLimited) / float64(br.Requests)
			}
			t.Measured = fmt.Sprintf("%d requests, %d 429s (%.1f%%), %.2f s wall, floor %.2f s (%s ×)", br.Requests, br.RateLimited, 100*share, br.WallMS/1000, br.FloorMS/1000, burstRatio(br))
			t.Status = status(share <= 0.05)
		}
		ts = append(ts, t)
	}
	return ts
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func burstMarkdown(r *Results) string {
	if len(r.Burst) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Under Jira's burst limit\n\nA fresh mockjira with `-burst-limit %.0f` (Jira's burst limit: %.0f requests per second for each endpoint and method, a bucket of %.0f, `429` + `Retry-After` + `RateLimit-Reason: jira-burst-based` beyond it; as on real sites, no answer states the burst budget) and the same latency; a fresh import, then a re-import with every tenth item edited, each through a new provider on the run's SQLite store. The adapter reads no budget headers: it learns each endpoint's rate from the 429s (docs/jira-client.md, \"Pacing\"): a process alone on the site sends by its window, two at a time until an endpoint served 20 in a second, until the first 429, and keeps what it learned in the store, so later processes (the re-import's) start from it. Each commit starts %.0f s after its preview (not measured: a person reading the preview before confirming it takes longer), so the preview's own requests have left the buckets, as the floor assumes. The floor is the time the limit alone implies: for each endpoint and method, (requests that got through − the bucket) / rate, the largest of these, plus one latency. It counts every request the commit sent against its own endpoint's limit (a refused request takes nothing from mockjira's bucket, so it is not counted) and lets endpoints run side by side; it leaves out what the commit's order adds, each at least one round trip: the stale check (its searches and its tail read) before the first write, the epics before their stories, and — with rank on, as by default — the batch creating the rank chunks' heads before the first rank request; from that request on, the rank endpoint's own budget sets the pace. It leaves out the `Retry-After` of each 429 too (a whole second for that endpoint).\n\n**Goals changed with the pacer.** Until the pacer stopped reading `X-RateLimit-Remaining` (which mockjira used to send as the burst bucket's own count, and real sites do not), these rows were held to 0 429s and wall ≤ 1.3 × floor: the pacer spent exactly what the fake said was left. A client that is told nothing finds the limit by being refused, and each refusal costs that endpoint Jira's `Retry-After` (1 s here); so the goals are now 0 failed commits and 429s ≤ 5%% of requests, with the wall time and its ratio to the floor reported, not held to 1.3 ×.\n\n",
		r.Burst[0].LimitPerSec, r.Burst[0].LimitPerSec, r.Burst[0].LimitPerSec, 2*float64(int(r.Burst[0].LimitPerSec))/r.Burst[0].LimitPerSec)
	b.WriteString("| Commit | Requests | 429s | Wall (ms) | Floor (ms) | Wall / floor | Requests by endpoint |\n|---|---:|---:|---:|---:|---:|---|\n")
	for _, br := range r.Burst {
		if br.Error != "" {
			fmt.Fprintf(&b, "| %s | — | — | — | — | — | failed: %s |\n", br.Name, firstLine(br.Error))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s |\n", br.Name, br.Requests, br.RateLimited, f1(br.WallMS), f1(br.FloorMS), burstRatio(br), endpoints(br.ByEndpoint))
	}
	b.WriteString("\n")
	return b.String()
}

func burstRatio(br BurstRun) string {
	if br.FloorMS == 0 {
		return "—"
	}
	return f2(br.WallRatio)
}
