package main

import (
	"context"
	"fmt"
	"strings"
)

// The link-heavy row: a plan of n items of which 30%
// are sub-tasks, with n/2 dependencies between stories, every story in
// the active sprint and the backlog in the document's order. Its commit
// writes what a plan's structure costs: sub-task creates, one request per
// link, sprint moves and rank requests of 50.

// sprintName is the active sprint of mockjira's default board.
const sprintName = benchProject + " Sprint 1"

// LinksResult is the link-heavy plan's fresh import.
type LinksResult struct {
	Date         string `json:"date"`
	Items        int    `json:"items"`
	Epics        int    `json:"epics"`
	Stories      int    `json:"stories"`
	Subtasks     int    `json:"subtasks"`
	Dependencies int    `json:"dependencies"`
	// Minimum = creates in batches of 50 (epics, stories, sub-tasks) + one
	// request per link + sprint moves of 50 (the stories; sub-tasks follow
	// their story) + rank requests of 50 (epics and stories after the
	// first) + ceil(items/100) search pages.
	Minimum      int            `json:"min_requests"`
	MinBreakdown map[string]int `json:"min_breakdown"`
	Preview      Phase          `json:"preview"`
	Commit       Phase          `json:"commit"`
}

// linksShape is the plan's make-up: epics ≈2%, sub-tasks 30%, the rest
// stories, n/2 dependencies.
func linksShape(n int) (epics, stories, subtasks, deps int) {
	epics = epicsFor(n)
	subtasks = n * 3 / 10
	stories = n - epics - subtasks
	deps = min(n/2, stories-1)
	return
}

// spread reports whether the k-th of n slots gets one of m things (m ≤ n),
// spreading exactly m over the n.
func spread(k, n, m int) bool { return (k+1)*m/n != k*m/n }

// linksDoc renders the link-heavy plan: stories spread over the epics,
// the sub-tasks spread over the stories (at most one each), the
// dependencies spread over the stories after the first, each on the story
// before it (across epics too; never a cycle).
func linksDoc(n int) []byte {
	epics, stories, subtasks, deps := linksShape(n)
	var b strings.Builder
	b.WriteString("---\nid: links\n---\n# Link-heavy benchmark plan\n")
	story, sub, prev := 0, 0, ""
	for e := 0; e < epics; e++ {
		per := stories / epics
		if e < stories%epics {
			per++
		}
		fmt.Fprintf(&b, "\n## Epic e-%d: Epic number %d\n\nWhat epic %d is about, in a sentence or two of **Markdown**.\n", e+1, e+1, e+1)
		for s := 0; s < per; s++ {
			id := fmt.Sprintf("s-%d-%d", e+1, s+1)
			dep := ""
			if story > 0 && spread(story-1, stories-1, deps) {
				dep = "Depends on: " + prev + "\n"
			}
			fmt.Fprintf(&b, "\n## Story %s: Story %d of epic %d\nEpic: e-%d\n%sSprint: %s\n\nAs a user I want story %d so that the benchmark has some text to carry.\n\nAcceptance criteria:\n- It works\n- It is tested\n",
				id, s+1, e+1, e+1, dep, sprintName, s+1)
			if spread(story, stories, subtasks) {
				sub++
				fmt.Fprintf(&b, "\n#### Sub-task t-%d: Part of story %s\n\nThe piece of %s this sub-task does.\n", sub, id, id)
			}
			prev = id
			story++
		}
	}
	return []byte(b.String())
}

// linksRun imports the link-heavy plan of n items into a fresh mockjira.
func (b *bench) linksRun(ctx context.Context, n int) (*LinksResult, error) {
	store, err := b.storeFor(fmt.Sprintf("links-%d", n))
	if err != nil {
		return nil, err
	}
	epics, stories, subtasks, deps := linksShape(n)
	lr := &LinksResult{Date: stamp(), Items: n, Epics: epics, Stories: stories, Subtasks: subtasks, Dependencies: deps}
	lr.MinBreakdown = map[string]int{
		"creates": ceilDiv(epics, createBatch) + ceilDiv(stories, createBatch) + ceilDiv(subtasks, createBatch),
		"links":   deps,
		"sprint":  ceilDiv(stories, createBatch),
		"rank":    rankRequests(epics + stories - 1),
		"search":  ceilDiv(n, pageSize),
	}
	ranked := epics + stories - 1
	if b.o.NoRank {
		lr.MinBreakdown["rank"], ranked = 0, 0
	}
	for _, v := range lr.MinBreakdown {
		lr.Minimum += v
	}
	mj, err := b.startJira(ctx)
	if err != nil {
		return nil, err
	}
	defer stopJira(mj)
	logf(b.o, "link-heavy plan, %d items (%d sub-tasks, %d dependencies): fresh import", n, subtasks, deps)
	pre, com, counts, err := b.importOnce(ctx, mj, store, "links.md", linksDoc(n), false)
	if err != nil {
		return nil, err
	}
	if counts.Created != n || counts.Linked != deps || counts.Sprinted != stories || counts.Ranked != ranked {
		return nil, fmt.Errorf("the link-heavy commit created %d (want %d), linked %d (want %d), moved %d into the sprint (want %d), ranked %d (want %d)",
			counts.Created, n, counts.Linked, deps, counts.Sprinted, stories, counts.Ranked, ranked)
	}
	lr.Preview, lr.Commit = pre, com
	lr.Commit.Counts = counts
	lr.Commit.MinRequests = lr.Minimum
	b.ratios(&lr.Commit)
	return lr, nil
}

func linksTargets(r *Results) []Target {
	l := r.Links
	if l == nil {
		return nil
	}
	return []Target{{
		Name: fmt.Sprintf("link-heavy commit: %s items, %d dependencies, %d sub-tasks, sprint and rank", thousands(l.Items), l.Dependencies, l.Subtasks),
		Goal: fmt.Sprintf("requests ≤ 1.05 × minimum (%d) = %.0f; wall time at %.0f ms reported", l.Minimum, 1.05*float64(l.Minimum), r.Settings.LatencyMS),
		Measured: fmt.Sprintf("%d requests (%.3f ×), %.2f s wall (max_in_flight %s)",
			l.Commit.Requests, l.Commit.RequestRatio, l.Commit.WallMS/1000, maxInFlight(r.Settings.MaxInFlight)),
		Status: status(float64(l.Commit.Requests) <= 1.05*float64(l.Minimum)),
	}}
}

func linksMarkdown(r *Results) string {
	l := r.Links
	if l == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Link-heavy plan\n\nA %s-item plan: %d epics, %d stories, %d sub-tasks (at most one per story, spread evenly), %d dependencies (`Depends on:` the story before, across epics too), every story in the active sprint (`Sprint: %s`; sub-tasks follow their story), the backlog in the document's order (rank on, as by default). A fresh mockjira at the same latency; in process as above: preview, then commit. Measured %s.\n\n",
		thousands(l.Items), l.Epics, l.Stories, l.Subtasks, l.Dependencies, sprintName, l.Date)
	fmt.Fprintf(&b, "Minimum: %d creates (batches of %d: epics, stories, sub-tasks) + %d links (one request each: Jira has no bulk link) + %d sprint moves (%d stories, %d a request) + %d rank requests (%d epics and stories after the first: the chunks' heads, %d a request, then one request per chunk) + %d search pages = %d.\n\n",
		l.MinBreakdown["creates"], createBatch, l.MinBreakdown["links"], l.MinBreakdown["sprint"], l.Stories, createBatch, l.MinBreakdown["rank"], l.Epics+l.Stories-1, createBatch, l.MinBreakdown["search"], l.Minimum)
	b.WriteString("| Phase | Requests | Minimum | Ratio | Wall (ms) | mockjira CPU (ms) | Requests by endpoint |\n|---|---:|---:|---:|---:|---:|---|\n")
	fmt.Fprintf(&b, "| preview | %d | — | — | %s | %s | %s |\n", l.Preview.Requests, f1(l.Preview.WallMS), f1(l.Preview.MockJiraCPUMS), endpoints(l.Preview.ByEndpoint))
	fmt.Fprintf(&b, "| commit | %d | %d | %.3f | %s | %s | %s |\n\n", l.Commit.Requests, l.Minimum, l.Commit.RequestRatio, f1(l.Commit.WallMS), f1(l.Commit.MockJiraCPUMS), endpoints(l.Commit.ByEndpoint))
	return b.String()
}
