package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The hostile-Markdown row: documents at the size limit (150 stories of
// 32,000-character descriptions, about 4.8 MB) built to be slow for a
// Markdown parser or converter, each previewed once by a real `dwire
// import --dry-run` process against mockjira, once a Jira Cloud site (ADF)
// and once a Jira Data Center site (wiki markup). The goal: every one
// previews, or is refused with a clear message, in under 3 s of CPU and
// 300 MB. A refusal is a pass: the limits exist to refuse before the
// cost; so the documents at the nesting limit (64 columns) are the ones
// to beat.

// hostileStories and hostileDescription size the documents.
const (
	hostileStories     = 150
	hostileDescription = 32000
	hostileCPUMS       = 3000
	hostileRSSMB       = 300
)

// HostileCase is one document's preview.
type HostileCase struct {
	Name     string  `json:"name"`
	Site     string  `json:"site,omitempty"` // "cloud" or "datacenter" ("" in results before both were measured: cloud)
	Bytes    int     `json:"bytes"`
	Outcome  string  `json:"outcome"` // "previewed" or "refused CODE"
	WallMS   float64 `json:"wall_ms"`
	CPUMS    float64 `json:"cpu_ms"` // user + system
	MaxRSSMB float64 `json:"max_rss_mb"`
}

// HostileResult is the hostile-Markdown row.
type HostileResult struct {
	Date  string        `json:"date"`
	Cases []HostileCase `json:"cases"`
}

// hostileDescriptions are the shapes, each about hostileDescription
// characters of Markdown.
func hostileDescriptions() []struct{ name, text string } {
	n := hostileDescription
	fill := func(unit string) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }
	nested := func(depth int) string {
		var nest strings.Builder
		for i := range depth {
			nest.WriteString(strings.Repeat("  ", i) + "- a\n")
		}
		return fill(nest.String())
	}
	para := func(unit string, per int) string { return fill(strings.Repeat(unit, per) + "\n\n") }
	lazy := func(first string) string { return (first + strings.Repeat("a\n", n))[:n] }
	return []struct{ name, text string }{
		{"nested lists (40 deep)", nested(40)},
		{"nested lists (32 deep, at the limit)", nested(32)},
		{"a list 32 deep on one line, then 16,000 lines of its paragraph", lazy(strings.Repeat("- ", 32) + "a\n")},
		{"a paragraph of 16,000 lines", lazy("")},
		{"emphasis openers (`*a`)", fill("*a")},
		{"underscores (`_a`)", fill("_a")},
		{"code spans (`` `a ``)", fill("`a")},
		{"HTML openers (`<a`)", fill("<a")},
		{"block quotes (100 deep)", fill(strings.Repeat(">", 100) + " a\n")},
		{"wide table (40 columns)", strings.Repeat("|a", 40) + "|\n" + strings.Repeat("|-", 40) + "|\n" + fill(strings.Repeat("|a", 40)+"|\n")},
		{"unclosed links (`[a](`, 999 a paragraph)", para("[a](", 999)},
		{"link openers (`[a]`, 999 a paragraph)", para("[a]", 999)},
		{"closed links (`[a](b) `, 999 a paragraph)", para("[a](b) ", 999)},
	}
}

// hostileDoc is a Markdown plan of hostileStories stories with text as
// each description.
func hostileDoc(text string) []byte {
	var b strings.Builder
	b.WriteString("---\nid: hostile\n---\n# Hostile\n\n## Epic e-1: Epic\n")
	for i := range hostileStories {
		fmt.Fprintf(&b, "\n## Story s-%d: Story %d\nEpic: e-1\n\n%s\n", i+1, i+1, text)
	}
	return []byte(b.String())
}

// hostileRun previews each hostile document once on a Jira Cloud site and
// once on a Jira Data Center site.
func (b *bench) hostileRun(ctx context.Context) (*HostileResult, error) {
	r := &HostileResult{Date: stamp()}
	seed := filepath.Join(b.tmp, "hostile-datacenter.json")
	if err := os.WriteFile(seed, []byte(`{"deployment": "datacenter"}`), 0o644); err != nil {
		return nil, err
	}
	for _, site := range []struct {
		name, config string
		flags        []string
	}{{"cloud", "", nil}, {"datacenter", "  deployment: datacenter\n", []string{"-seed", seed}}} {
		if err := b.hostileSite(ctx, r, site.name, site.config, site.flags); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// hostileSite previews each hostile document once against a fresh
// mockjira started with flags, the workspace's jira section extended by
// config.
func (b *bench) hostileSite(ctx context.Context, r *HostileResult, site, config string, flags []string) error {
	mj, err := b.startJiraWith(ctx, flags...)
	if err != nil {
		return err
	}
	defer stopJira(mj)
	ws := filepath.Join(b.tmp, "hostile-"+site)
	if err := writeWorkspace(ws, mj.URL); err != nil {
		return err
	}
	if config != "" {
		cfg := filepath.Join(ws, ".devworkwire.yaml")
		data, err := os.ReadFile(cfg)
		if err != nil {
			return err
		}
		data = bytes.Replace(data, []byte("  token_env: JIRA_API_TOKEN\n"), []byte("  token_env: JIRA_API_TOKEN\n"+config), 1)
		if err := os.WriteFile(cfg, data, 0o644); err != nil {
			return err
		}
	}
	for i, d := range hostileDescriptions() {
		doc := hostileDoc(d.text)
		name := fmt.Sprintf("hostile-%d.md", i)
		if err := os.WriteFile(filepath.Join(ws, name), doc, 0o644); err != nil {
			return err
		}
		logf(b.o, "hostile Markdown on %s: %s (%d bytes)", site, d.name, len(doc))
		c, err := hostilePreview(ctx, b, ws, name)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", d.name, site, err)
		}
		c.Name, c.Site, c.Bytes = d.name, site, len(doc)
		r.Cases = append(r.Cases, c)
	}
	return nil
}

// hostilePreview runs `dwire import NAME --dry-run` and measures it. Exit 0
// is a preview; exit 1 with a coded error line is a refusal; anything else
// (a crash, a timeout, another exit code) is an error of the run.
func hostilePreview(ctx context.Context, b *bench, ws, name string) (HostileCase, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c := dwireCmd(ctx, b.bins, ws, "import", name, "--dry-run")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	t0 := time.Now()
	err := c.Run()
	wall := time.Since(t0)
	var hc HostileCase
	if c.ProcessState == nil {
		return hc, err
	}
	hc.WallMS = ms(wall)
	hc.CPUMS = ms(c.ProcessState.UserTime() + c.ProcessState.SystemTime())
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		hc.MaxRSSMB = float64(ru.Maxrss) / 1024 // Linux reports KiB
	}
	switch code := c.ProcessState.ExitCode(); {
	case code == 0:
		hc.Outcome = "previewed"
	case code == 1 && strings.HasPrefix(stderr.String(), "Error: "):
		first := strings.TrimPrefix(firstLine(stderr.String()), "Error: ")
		what, _, _ := strings.Cut(first, ":")
		hc.Outcome = "refused " + what
	default:
		return hc, fmt.Errorf("dwire exited %d after %s: %s", code, wall.Round(time.Millisecond), lastLines(stderr.String(), 5))
	}
	return hc, nil
}

func hostileTargets(r *Results) []Target {
	h := r.Hostile
	if h == nil {
		return nil
	}
	worst := HostileCase{}
	ok := true
	for _, c := range h.Cases {
		ok = ok && c.CPUMS < hostileCPUMS && c.MaxRSSMB < hostileRSSMB
		if c.CPUMS > worst.CPUMS {
			worst = c
		}
	}
	return []Target{{
		Name:     fmt.Sprintf("hostile Markdown: %d documents of %d × %s-character descriptions on Cloud and Data Center, previewed or refused", len(h.Cases)/2, hostileStories, thousands(hostileDescription)),
		Goal:     fmt.Sprintf("each < %d s CPU and < %d MB resident", hostileCPUMS/1000, hostileRSSMB),
		Measured: fmt.Sprintf("slowest %s on %s: %.2f s CPU (%.2f s wall), %.0f MB", worst.Name, siteName(worst.Site), worst.CPUMS/1000, worst.WallMS/1000, worst.MaxRSSMB),
		Status:   status(ok),
	}}
}

// siteName names a hostile case's site.
func siteName(site string) string {
	if site == "datacenter" {
		return "Data Center"
	}
	return "Cloud"
}

func hostileMarkdown(r *Results) string {
	h := r.Hostile
	if h == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Hostile Markdown\n\nEach document is %d stories whose descriptions are about %s characters of one shape built to be slow for a Markdown parser or the Markdown → ADF or wiki converter (about 4.8 MB, under the 5 MiB limit), previewed once by a real `dwire import --dry-run` process against mockjira, as a Jira Cloud site and as a Jira Data Center site (wiki markup). A refusal (the plan parser's limits: nesting past 64 columns, link openers, unclosed link destinations; or Jira's description size, checked at preview and counted only until it is past the limit) is a pass when it comes in time; the documents at the nesting limit are within every limit. Measured %s; wall time depends on the machine's load, CPU time (user + system) less so.\n\n",
		hostileStories, thousands(hostileDescription), h.Date)
	b.WriteString("| Document | Site | Bytes | Outcome | Wall (ms) | CPU (ms) | Max RSS (MB) |\n|---|---|---:|---|---:|---:|---:|\n")
	for _, c := range h.Cases {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.0f |\n", c.Name, siteName(c.Site), thousands(c.Bytes), c.Outcome, f1(c.WallMS), f1(c.CPUMS), c.MaxRSSMB)
	}
	b.WriteString("\n")
	return b.String()
}
