package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/devworkwire/devworkwire/jira"
)

// The Data Center row: the plan of the sizes above, a fresh import and an
// unchanged re-import against mockjira's Jira Data Center site (REST API
// v2, a personal access token, wiki markup, Epic Link, search by startAt
// for the lookup, the tail read and the duplicate check), each against the
// same minimum as on Cloud: Data Center's bulk create also takes 50 issues
// and the adapter's search pages hold 100.

// DataCenterResult is the Data Center row: the same plan on Cloud and on
// Data Center, measured in the same run.
type DataCenterResult struct {
	Date              string    `json:"date"`
	Items             int       `json:"items"`
	MinCommitRequests int       `json:"min_commit_requests"`
	MinSearchPages    int       `json:"min_search_pages"`
	Cloud             FieldsRun `json:"cloud"`
	DataCenter        FieldsRun `json:"datacenter"`
}

// dataCenterRun imports the n-item plan into a fresh mockjira, once a
// Jira Cloud site and once a Jira Data Center site, then re-imports it
// unchanged.
func (b *bench) dataCenterRun(ctx context.Context, n int) (*DataCenterResult, error) {
	dir, err := b.dirFor(fmt.Sprintf("datacenter-%d", n))
	if err != nil {
		return nil, err
	}
	seed := filepath.Join(dir, "seed.json")
	if err := os.WriteFile(seed, []byte(`{"deployment": "datacenter"}`), 0o644); err != nil {
		return nil, err
	}
	dr := &DataCenterResult{Date: stamp(), Items: n}
	dr.MinCommitRequests, dr.MinSearchPages = b.minimum(n)
	for _, d := range []struct {
		deployment string
		flags      []string
		out        *FieldsRun
	}{{jira.DeploymentCloud, nil, &dr.Cloud}, {jira.DeploymentDataCenter, []string{"-seed", seed}, &dr.DataCenter}} {
		if err := b.deploymentRun(ctx, n, d.deployment, filepath.Join(dir, d.deployment+".db"), d.out, d.flags...); err != nil {
			return nil, fmt.Errorf("%s: %w", d.deployment, err)
		}
		d.out.Commit.MinRequests, d.out.Unchanged.MinRequests = dr.MinCommitRequests, dr.MinSearchPages
		b.ratios(&d.out.Commit)
		b.ratios(&d.out.Unchanged)
	}
	return dr, nil
}

func (b *bench) deploymentRun(ctx context.Context, n int, deployment, store string, out *FieldsRun, flags ...string) error {
	mj, err := b.startJiraWith(ctx, flags...)
	if err != nil {
		return err
	}
	defer stopJira(mj)
	dc := *b
	dc.deployment = deployment
	logf(b.o, "%d items on %s: fresh import, unchanged re-import", n, deployment)
	return dc.importTwice(ctx, mj, store, document(n, nil), n, out)
}

// dataCenterTargets: the fresh commit and the unchanged re-import cost on
// Data Center what they cost on Cloud in the same run, and the re-import
// writes nothing.
func dataCenterTargets(r *Results) []Target {
	d := r.DataCenter
	if d == nil {
		return nil
	}
	name := fmt.Sprintf("%s-item plan on Jira Data Center", thousands(d.Items))
	c, dc := d.Cloud, d.DataCenter
	return []Target{
		{Name: name + ": fresh import", Goal: "commit requests ≤ Cloud's (same run)",
			Measured: fmt.Sprintf("%d requests, minimum %d (×%.2f); Cloud %d", dc.Commit.Requests, d.MinCommitRequests, dc.Commit.RequestRatio, c.Commit.Requests),
			Status:   status(dc.Commit.Requests <= c.Commit.Requests)},
		{Name: name + ": unchanged re-import", Goal: "requests ≤ Cloud's (same run), 0 writes",
			Measured: fmt.Sprintf("%d requests, minimum %d, %d writes; Cloud %d", dc.Unchanged.Requests, d.MinSearchPages, dc.Unchanged.Writes, c.Unchanged.Requests),
			Status:   status(dc.Unchanged.Requests <= c.Unchanged.Requests && dc.Unchanged.Writes == 0)},
	}
}

func dataCenterMarkdown(r *Results) string {
	d := r.DataCenter
	if d == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Jira Data Center\n\nThe %s-item plan of the sizes above against a fresh mockjira that is a Jira Data Center site (`{\"deployment\": \"datacenter\"}`: REST API v2, a personal access token, wiki markup, Epic Link; the lookup, the tail read and the duplicate check search by `startAt` where Cloud bulk-fetches), in process as above: preview, commit, then a new provider's unchanged re-import; and the same against a fresh Cloud site in the same run. The minimum is Cloud's: Data Center's bulk create also takes 50 issues, and the adapter's search pages hold 100. Measured %s.\n\n", thousands(d.Items), d.Date)
	b.WriteString("| Phase | Requests | Minimum | Ratio | Wall (ms) | Writes | Requests by endpoint |\n|---|---:|---:|---:|---:|---:|---|\n")
	for _, row := range []struct {
		name string
		p    Phase
	}{{"Cloud: preview", d.Cloud.Preview}, {"Cloud: fresh commit", d.Cloud.Commit}, {"Cloud: unchanged re-import", d.Cloud.Unchanged},
		{"Data Center: preview", d.DataCenter.Preview}, {"Data Center: fresh commit", d.DataCenter.Commit}, {"Data Center: unchanged re-import", d.DataCenter.Unchanged}} {
		minimum, ratio := "", ""
		if row.p.MinRequests > 0 {
			minimum, ratio = fmt.Sprint(row.p.MinRequests), fmt.Sprintf("%.2f", row.p.RequestRatio)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.0f | %d | %s |\n", row.name, row.p.Requests, minimum, ratio, row.p.WallMS, row.p.Writes, endpoints(row.p.ByEndpoint))
	}
	b.WriteString("\n")
	return b.String()
}
