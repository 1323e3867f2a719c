package jira

import (
	"context"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Settling a create whose outcome is unknown.
//
// A bulk create that was sent but not answered (the connection dropped, it
// timed out, Jira answered 5xx) may have created its issues. Search lags
// behind writes, so a search right after may miss issues created a second
// before and leave them "unknown": the commit stops although they exist.
// Keys are sequential per project and POST /issue/bulkfetch reads the
// issues themselves, so the batch is settled by key instead, like the
// tail (tail.go): every key above the batch's floor — the newest key known
// to exist before the request left (the commit's stale check read the
// tail up to it: noteFloor; or a key this Provider created earlier) — is
// read in pages until tailGap keys in a row past the newest existing one
// are missing, and the issues holding a reference of the batch are its
// creates. Without a floor (no tail read and no create before) or on a
// site without bulk fetch, the references are searched for as before.
// A reference not found stays unknown: a create Jira had not finished
// when the read passed may still appear, so it is never sent again.

// floorOf is the batch's floor: the newest key number known to exist
// before the pending items were sent (-1: none known).
func (p *Provider) floorOf(batch []core.ItemSpec, pending []int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	floor, all := -1, len(pending) > 0
	for _, i := range pending {
		f, ok := p.floors[batch[i].Reference]
		if !ok {
			all = false
			break
		}
		if floor < 0 || f < floor {
			floor = f
		}
	}
	if !all {
		floor = -1
	}
	if p.newest > 0 && p.newest > floor {
		floor = p.newest
	}
	return floor
}

// noteNewest records a key this Provider knows to exist: every create sent
// after it has a higher key.
func (p *Provider) noteNewest(key string) {
	tl := tail{project: strings.ToUpper(p.cfg.Project)}
	if n := tl.number(key); n > p.newest {
		p.newest = n
	}
}

// settleCreated finds which pending items of the batch exist: by key above
// floor when there is one and the site has bulk fetch, else by search.
func (p *Provider) settleCreated(ctx context.Context, m *meta, batch []core.ItemSpec, pending []int, floor int) (map[core.Reference]issue, error) {
	if floor < 0 {
		return p.findCreated(ctx, m, batch, pending)
	}
	want := make(map[core.Reference]bool, len(pending))
	for _, i := range pending {
		want[batch[i].Reference] = true
	}
	found := map[core.Reference]issue{}
	tl := &tail{project: strings.ToUpper(p.cfg.Project), from: floor + 1, next: floor + 1, hi: floor}
	limit := maxTailPages + 2*((len(pending)+bulkFetchMax-1)/bulkFetchMax)
	noBulk, err := p.readAbove(ctx, m, tl, nil, limit, func(is issue) {
		r := parseRefValue(m.refValueIn(is.Fields))
		if _, dup := found[r]; want[r] && !dup {
			found[r] = is
		}
	})
	switch {
	case err != nil:
		return nil, err
	case noBulk:
		return p.findCreated(ctx, m, batch, pending)
	}
	p.logFor(ctx).Info("jira create settled by key", "from_key", tl.project+"-"+strconv.Itoa(tl.from), "pages", tl.pages, "found", len(found), "items", len(pending))
	return found, nil
}

// readAbove reads the issues of tl's keys in bulk-fetch pages from
// tl.next, skipping the keys in skip, and gives each to visit, until
// tailGap keys in a row past the newest existing one are missing or limit
// pages were read (then it logs that the project is busy). noBulk reports
// a site without bulk fetch (nothing read).
func (p *Provider) readAbove(ctx context.Context, m *meta, tl *tail, skip map[string][]core.Reference, limit int, visit func(issue)) (noBulk bool, err error) {
	for !tl.done {
		resp, notFound, err := p.bulkFetch(ctx, m, tl.take(bulkFetchMax, skip))
		if err != nil || notFound {
			return notFound, err
		}
		for _, is := range resp.Issues {
			tl.hi = max(tl.hi, tl.number(is.Key))
			visit(is)
		}
		tl.pages++
		switch {
		case tl.next-1-tl.hi >= tailGap:
			tl.done = true
		case tl.pages >= limit:
			p.logFor(ctx).Warn("jira stopped reading new issues by key: the project is busy", "pages", tl.pages, "next_key", tl.project+"-"+strconv.Itoa(tl.next))
			tl.done = true
		}
	}
	return false, nil
}
