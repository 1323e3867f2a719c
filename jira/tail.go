package jira

import (
	"context"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// The tail: what search cannot see yet.
//
// Jira's search index lags behind writes (seconds, sometimes more), so an
// issue another DevWorkWire (another store: another person, CI, a new
// laptop) created a moment ago is missing from search, and a lookup that
// trusts search would create it again. Issue keys are sequential per
// project and POST /issue/bulkfetch reads the issues themselves, not the
// index. So Lookup reads, by key, every key after the newest one it knows
// of — the newest key the searches returned, the dedup index holds for
// the references or an earlier tail read of this Provider found; with
// none, the project's newest key in search — in
// pages of bulkFetchMax, until tailGap keys in a row after the
// newest existing one are missing (deleted issues leave gaps; a key never
// used is missing too). The tail's issues holding a wanted reference are
// found like search results. When nobody else is writing this is one
// request (the page after the newest key, empty), shared with the page of
// known keys when there is one. Without known keys, and with a start this
// Provider knows, it is sent alongside the searches and goes on after
// their newest key only if that is newer than all it found (startTail,
// afterSearch): the tail then costs no round trip of its own.
//
// A busy project (people creating issues in Jira meanwhile) makes the tail
// longer: after tailJumpAfter full pages Lookup asks search for the
// project's newest key once and goes on from there (everything up to it
// is searchable), and it never reads more than maxTailPages pages.
const (
	tailGap       = 50
	tailJumpAfter = 2
	maxTailPages  = 10
)

// tail is the state of one Lookup's tail read.
type tail struct {
	project string
	doc     string // the one document of the references ("" for several): its memory (Provider.tails)
	want    map[core.Reference]bool
	from    int // first key number read
	next    int // next key number to read
	hi      int // newest key number known to exist
	pages   int
	jumped  bool
	done    bool
	ran     bool // this Provider read the document's tail before (Provider.tails)
	noBulk  bool // the site has no bulk fetch: no tail can be read
	found   int  // references found in the tail
	// deferred: the tail is read alongside the searches, so what it finds
	// is kept in items, in the order read, for mergeTail to keep once the
	// searches have answered.
	deferred bool
	items    []core.WorkItem
}

// startTail begins the tail after the newest key of the project that the
// index holds for refs or that an earlier tail read of this Provider found
// for the same document. early reports whether the tail can be read
// alongside the searches: it has a start, and no reference has a known
// key. Known keys search misses (it lags) are read after the searches,
// and the tail's first page fills up their last page (one request, not
// two); a document none of whose items has a key yet (a fresh import, its
// commit's stale check) has no such page to share. Otherwise the tail
// waits for the searches (afterSearch).
func (p *Provider) startTail(refs []core.Reference, known map[core.Reference]string) (tl *tail, early bool) {
	tl = &tail{project: strings.ToUpper(p.cfg.Project), want: make(map[core.Reference]bool, len(refs))}
	anyKnown := false
	for _, r := range refs {
		tl.want[r] = true
		tl.hi = max(tl.hi, tl.number(known[r]))
		anyKnown = anyKnown || known[r] != ""
	}
	// The newest key an earlier tail read of this Provider found for the
	// same document (the commit after a preview in one process) is as good
	// a start. Only for the same document: a read for another one (a
	// `dwire mcp` process serves many) kept only that document's issues,
	// and this one's may lie before its end.
	tl.doc = oneDocument(refs)
	p.mu.Lock()
	hi, ran := p.tails[tl.doc]
	p.mu.Unlock()
	if tl.doc == "" {
		hi, ran = 0, false
	}
	tl.hi, tl.ran = max(tl.hi, hi), ran
	tl.from, tl.next = tl.hi+1, tl.hi+1
	tl.deferred = (tl.hi > 0 || ran) && !anyKnown
	return tl, tl.deferred
}

// afterSearch takes the newest key of the project the searches returned
// (out). A tail not read alongside them starts after the newest of that
// key and startTail's start or, with neither, after the project's newest
// key in search. A tail read alongside them goes on when that key is newer
// than every key it found: from where it stopped, or, when the key lies
// past everything it read, from just after the key with a new page
// budget. Either way it covers at least what a tail started after the
// searches would.
func (p *Provider) afterSearch(ctx context.Context, m *meta, tl *tail, early bool, out map[core.Reference]core.WorkItem) error {
	n := 0
	for _, w := range out {
		n = max(n, tl.number(w.Key))
	}
	if !early {
		tl.hi = max(tl.hi, n)
		if tl.hi == 0 && !tl.ran {
			newest, err := p.newestSearchable(ctx, m)
			if err != nil {
				return err
			}
			tl.hi = newest
		}
		tl.from, tl.next = tl.hi+1, tl.hi+1
		return nil
	}
	if n <= tl.hi {
		return nil
	}
	tl.hi = n
	if tl.next <= n {
		tl.next, tl.pages, tl.jumped = n+1, 0, false
	}
	if !tl.noBulk && tl.next-1-tl.hi < tailGap {
		tl.done = false
	}
	return nil
}

// mergeTail keeps what a tail read alongside the searches found (into a
// map of its own) as if it had been read after them: each issue holding a
// wanted reference, in the order read, through keep.
func (p *Provider) mergeTail(ctx context.Context, tl *tail, known map[core.Reference]string, out map[core.Reference]core.WorkItem) {
	tl.found, tl.deferred = 0, false
	for _, w := range tl.items {
		if _, had := out[w.Reference]; !had {
			tl.found++
		}
		p.keep(ctx, w, known, out)
	}
	tl.items = nil
}

// finishTail records the newest key the tail found for the next Lookup
// of the same document.
func (p *Provider) finishTail(tl *tail) {
	if tl.doc == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tails == nil {
		p.tails = map[string]int{}
	}
	p.tails[tl.doc] = max(p.tails[tl.doc], tl.hi)
}

// oneDocument is the document every reference of refs belongs to, "" when
// they belong to several (or there are none).
func oneDocument(refs []core.Reference) string {
	doc := ""
	for i, r := range refs {
		d, _ := r.Split()
		if i > 0 && d != doc {
			return ""
		}
		doc = d
	}
	return doc
}

// number is the number of a key of the tail's project, 0 for any other.
func (tl *tail) number(key string) int {
	proj, n, ok := strings.Cut(strings.ToUpper(key), "-")
	if !ok || proj != tl.project {
		return 0
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 0 {
		return 0
	}
	return i
}

// take returns up to n next keys of the tail, skipping those in skip.
func (tl *tail) take(n int, skip map[string][]core.Reference) []string {
	if tl.done || n <= 0 {
		return nil
	}
	keys := make([]string, 0, n)
	for len(keys) < n {
		k := tl.project + "-" + strconv.Itoa(tl.next)
		tl.next++
		if _, ok := skip[k]; !ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// fetchedTail takes what one tail page returned: issues holding a wanted
// reference are found, the newest existing key moves on; it ends the tail
// after tailGap missing keys, and jumps ahead or stops a long one.
func (p *Provider) fetchedTail(ctx context.Context, m *meta, tl *tail, issues []issue, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	for _, is := range issues {
		n := tl.number(is.Key)
		if n < tl.from {
			continue // a known key of the same page
		}
		tl.hi = max(tl.hi, n)
		w := p.workItem(m, is)
		switch {
		case !tl.want[w.Reference]:
		case tl.deferred:
			tl.items = append(tl.items, w)
		default:
			if _, had := out[w.Reference]; !had {
				tl.found++
			}
			p.keep(ctx, w, known, out)
		}
	}
	tl.pages++
	switch {
	case tl.next-1-tl.hi >= tailGap:
		tl.done = true
	case tl.pages >= tailJumpAfter && !tl.jumped:
		tl.jumped = true
		n, err := p.newestSearchable(ctx, m)
		if err != nil {
			return err
		}
		if n >= tl.next {
			tl.next, tl.hi = n+1, n
		}
	case tl.pages >= maxTailPages:
		p.logFor(ctx).Warn("jira lookup stopped reading new issues by key: the project is busy; issues created in the last moments may be missing from search", "pages", tl.pages, "next_key", tl.project+"-"+strconv.Itoa(tl.next))
		tl.done = true
	}
	return nil
}

// newestSearchable is the number of the project's newest key that search
// returns (0 when it returns none).
func (p *Provider) newestSearchable(ctx context.Context, m *meta) (int, error) {
	req := searchRequest{JQL: p.projectClause() + " ORDER BY key DESC", Fields: []string{"key"}, Properties: []string{}, MaxResults: 1}
	var resp searchResponse
	if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: req, class: retryIdempotent, endpoint: searchEndpoint, action: "find the newest work item of project " + p.cfg.Project}, &resp); err != nil {
		return 0, err
	}
	tl := tail{project: strings.ToUpper(p.cfg.Project)}
	n := 0
	for _, is := range resp.Issues {
		n = max(n, tl.number(is.Key))
	}
	return n, nil
}
