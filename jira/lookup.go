package jira

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/devworkwire/devworkwire/core"
)

// Lookup finds the items holding the given references: searches for their
// tokens on the reference field, batched, compared exactly; since search
// lags behind writes, it also reads by key (bulk fetch, not subject to the
// lag) the known keys search missed and the tail of the project: every key
// after the newest one search (or the index) knows, until a run of missing
// keys (see tail.go). When no reference has a known key and this Provider
// already knows where the tail starts (a commit's stale check after its
// preview), the tail is read alongside the searches, and only what they
// reveal beyond it afterwards: one round trip, not two.
func (p *Provider) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	ctx, done := p.observe(ctx, "Lookup")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	out := map[core.Reference]core.WorkItem{}
	want := map[core.Reference]bool{}
	var uniq []core.Reference
	for _, r := range refs {
		if r != "" && !want[r] {
			want[r] = true
			uniq = append(uniq, r)
		}
	}
	// Every reference is searched for by its token (see reftoken.go),
	// whatever its words. Search lags behind writes: the keys after the
	// newest one it (or the index) knows are read too. When startTail
	// says so, that tail goes alongside the searches (its finds kept
	// apart, then merged as if read after them).
	batches := p.batches(m, uniq)
	tl, early := p.startTail(uniq, known)
	steps := []func(context.Context) error{func(ctx context.Context) error {
		return p.lookupBatches(ctx, m, batches, known, out)
	}}
	if early {
		steps = append(steps, func(ctx context.Context) error {
			return p.readKnown(ctx, m, nil, known, map[core.Reference]core.WorkItem{}, tl)
		})
	}
	if err := inParallel(ctx, len(steps), steps, func(ctx context.Context, step func(context.Context) error) error { return step(ctx) }); err != nil {
		return nil, err
	}
	if early {
		p.mergeTail(ctx, tl, known, out)
	}
	var missing []core.Reference
	for _, r := range uniq {
		if _, ok := out[r]; !ok && known[r] != "" {
			missing = append(missing, r)
		}
	}
	// Then the known keys search missed, and what is left of the tail:
	// after the newest key search returned, when that is newer than
	// where the tail began (or, not begun, its start).
	if err := p.afterSearch(ctx, m, tl, early, out); err != nil {
		return nil, err
	}
	if err := p.readKnown(ctx, m, missing, known, out, tl); err != nil {
		return nil, err
	}
	if tl.done {
		p.finishTail(tl)
	}
	if len(out) < len(uniq) {
		// Something will probably be created: check now that it can be,
		// so the preview (not the commit) reports a create screen
		// DevWorkWire cannot fill.
		if err := p.ensureCreatable(ctx, m); err != nil {
			return nil, err
		}
	}
	p.logFor(ctx).Info("jira lookup", "references", len(uniq), "found", len(out), "read_by_known_key", len(missing), "tail_from", tl.from, "tail_keys", tl.next-tl.from, "found_in_tail", tl.found)
	return out, nil
}

// bulkFetchMax is Jira's limit of issues per POST /issue/bulkfetch.
const bulkFetchMax = 100

const bulkFetchEndpoint = "POST /rest/api/3/issue/bulkfetch"

type bulkFetchRequest struct {
	IssueIdsOrKeys []string `json:"issueIdsOrKeys"`
	Fields         []string `json:"fields"`
	Properties     []string `json:"properties"`
}

type bulkFetchResponse struct {
	Issues      []issue `json:"issues"`
	IssueErrors []struct {
		ID           string `json:"id"`
		ErrorMessage string `json:"errorMessage"`
	} `json:"issueErrors"`
}

// readKnown reads items by the keys the dedup index knows (search has not
// caught up with them) with POST /issue/bulkfetch, 100 keys a request and
// knownReaders requests at once, and keeps those whose reference still
// matches. Bulk fetch reads the issues themselves, not the search index,
// so it is not subject to search lag. Keys Jira does not return are
// deleted or invisible (skipped); keys it reports in issueErrors are read
// one by one. If the site has no bulk fetch (404), every key is read one
// by one.
func (p *Provider) readKnown(ctx context.Context, m *meta, refs []core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem, tl *tail) error {
	byKey := map[string][]core.Reference{}
	var keys []string
	for _, r := range refs {
		k := strings.ToUpper(known[r])
		if !issueKeyRE.MatchString(k) {
			continue // not an issue key: nothing to read (as Get would say)
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	var batches [][]string
	for len(keys) > 0 {
		n := min(bulkFetchMax, len(keys))
		batches = append(batches, keys[:n])
		keys = keys[n:]
	}
	// The last page of known keys is filled up with tail keys and read
	// with the tail, one page at a time; the others at once.
	var last []string
	if len(batches) > 0 {
		last, batches = batches[len(batches)-1], batches[:len(batches)-1]
	}
	var (
		mu    sync.Mutex
		retry []core.Reference // to read one by one
	)
	err := inParallel(ctx, knownReaders, batches, func(ctx context.Context, batch []string) error {
		resp, notFound, err := p.bulkFetch(ctx, m, batch)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			return err
		case notFound:
			retry = append(retry, refsUnder(batch, byKey)...)
		default:
			retry = append(retry, p.fetchedKnown(ctx, m, batch, byKey, resp, out)...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for page := last; len(page) > 0 || !tl.done; page = nil {
		tkeys := tl.take(bulkFetchMax-len(page), byKey)
		if len(page)+len(tkeys) == 0 {
			break
		}
		resp, notFound, err := p.bulkFetch(ctx, m, append(page, tkeys...))
		switch {
		case err != nil:
			return err
		case notFound:
			retry = append(retry, refsUnder(page, byKey)...)
			if !tl.done {
				p.logFor(ctx).Warn("jira has no bulk fetch: the newest issues, which search may not show yet, are not read")
				tl.done, tl.noBulk = true, true
			}
			continue
		}
		retry = append(retry, p.fetchedKnown(ctx, m, page, byKey, resp, out)...)
		if len(tkeys) > 0 {
			if err := p.fetchedTail(ctx, m, tl, resp.Issues, known, out); err != nil {
				return err
			}
		}
	}
	return p.readByKey(ctx, retry, known, out)
}

// refsUnder are the references known under keys.
func refsUnder(keys []string, byKey map[string][]core.Reference) []core.Reference {
	var out []core.Reference
	for _, k := range keys {
		out = append(out, byKey[k]...)
	}
	return out
}

// bulkFetch reads up to bulkFetchMax issues by key. notFound reports a
// site without bulk fetch (404).
func (p *Provider) bulkFetch(ctx context.Context, m *meta, keys []string) (bulkFetchResponse, bool, error) {
	var resp bulkFetchResponse
	req := bulkFetchRequest{IssueIdsOrKeys: keys, Fields: m.fieldsRequested(), Properties: []string{PropertyKey}}
	r, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/issue/bulkfetch", body: req, class: retryIdempotent, endpoint: bulkFetchEndpoint, action: "read work items by key"}, &resp)
	if err != nil && r != nil && r.status == http.StatusNotFound {
		return resp, true, nil
	}
	return resp, false, err
}

// fetchedKnown keeps what a bulk fetch returned for known keys (batch) and
// returns the references to read one by one (Jira reported issueErrors).
func (p *Provider) fetchedKnown(ctx context.Context, m *meta, batch []string, byKey map[string][]core.Reference, resp bulkFetchResponse, out map[core.Reference]core.WorkItem) []core.Reference {
	if len(batch) == 0 {
		return nil
	}
	missed := p.matchFetched(m, batch, byKey, resp.Issues, out)
	if len(resp.IssueErrors) == 0 {
		return nil
	}
	p.logFor(ctx).Warn("jira bulk fetch could not return some issues; reading them one by one", "issue_errors", len(resp.IssueErrors))
	return missed
}

// matchFetched keeps each fetched issue whose reference is the one the
// index holds for its key; an issue returned under another key (moved) is
// kept when it holds a reference whose known key Jira did not return. It
// returns the references not found.
func (p *Provider) matchFetched(m *meta, batch []string, byKey map[string][]core.Reference, issues []issue, out map[core.Reference]core.WorkItem) []core.Reference {
	returned := map[string]bool{}
	for _, is := range issues {
		returned[strings.ToUpper(is.Key)] = true
	}
	inBatch := map[core.Reference]string{}
	for _, k := range batch {
		for _, r := range byKey[k] {
			inBatch[r] = k
		}
	}
	for _, is := range issues {
		w := p.workItem(m, is)
		k := strings.ToUpper(is.Key)
		if slices.Contains(byKey[k], w.Reference) {
			out[w.Reference] = w
			continue
		}
		if want, ok := inBatch[w.Reference]; ok && !returned[want] {
			if _, done := out[w.Reference]; !done {
				out[w.Reference] = w
			}
		}
	}
	var missed []core.Reference
	for _, k := range batch {
		for _, r := range byKey[k] {
			if _, ok := out[r]; !ok && !returned[k] {
				missed = append(missed, r)
			}
		}
	}
	return missed
}

// knownReaders is how many read requests for known keys Lookup has in
// flight at once: reads only, few enough to stay polite to Jira's rate
// limits.
const knownReaders = 4

// readByKey reads items one GET at a time (knownReaders at once) and keeps
// those whose reference still matches. It is readKnown's fallback when
// bulk fetch is unavailable or could not return some issues.
func (p *Provider) readByKey(ctx context.Context, refs []core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	if len(refs) == 0 {
		return nil
	}
	var mu sync.Mutex
	return inParallel(ctx, knownReaders, refs, func(ctx context.Context, r core.Reference) error {
		w, err := p.Get(ctx, known[r])
		mu.Lock()
		defer mu.Unlock()
		switch core.ErrorCode(err) {
		case "":
			if w.Reference == r {
				out[r] = w
			}
		case core.CodeWorkItemNotFound:
		default:
			return err
		}
		return nil
	})
}

// refBatch is a batch of references and the JQL that finds their issues.
type refBatch struct {
	refs []core.Reference
	jql  string
}

// batches splits refs into searches of at most lookupBatch references
// and maxJQLLength characters, each with its JQL (each reference's clause
// made once).
func (p *Provider) batches(m *meta, refs []core.Reference) []refBatch {
	var out []refBatch
	var cur []core.Reference
	var clauses []string
	size := 0
	flush := func() {
		out = append(out, refBatch{refs: cur, jql: p.projectClause() + " AND (" + strings.Join(clauses, " OR ") + ")"})
		cur, clauses, size = nil, nil, 0
	}
	for _, r := range refs {
		c := m.refClauseFor(r)
		l := len(c) + 4
		if len(cur) > 0 && (len(cur) >= lookupBatch || size+l > maxJQLLength) {
			flush()
		}
		cur = append(cur, r)
		clauses = append(clauses, c)
		size += l
	}
	if len(cur) > 0 {
		flush()
	}
	return out
}

func (p *Provider) reconcileIDs(refs []core.Reference) []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []int64
	for _, r := range refs {
		if id, ok := p.created[r]; ok && len(ids) < maxReconcile {
			ids = append(ids, id)
		}
	}
	return ids
}

// lookupReaders bounds the goroutines of one lookup's searches: the
// Provider's MaxInFlight, not a second, lower limit. What keeps them polite
// to Jira's rate limits is the pacer (pacer.go: the search endpoint starts
// at 4 in flight and grows on fast, clean answers; once Jira's budget
// headers pace it, as many as the budget holds). At a fixed 4 a
// 1,000-item lookup (10 pages) took 3 round trips where the pacer allows
// 2, and a 10,000-item one 25 where it allows ~9. Round trips, not
// requests, are what a large preview and a commit's stale check wait for.
func (p *Provider) lookupReaders() int { return max(1, p.cfg.MaxInFlight) }

// lookupBatches runs the lookup searches, lookupReaders at a time. Batches
// hold disjoint references and a batch keeps only its own references, so
// each fills its own map and the maps are merged in batch order. The first
// failure cancels the searches not yet finished and is returned.
func (p *Provider) lookupBatches(ctx context.Context, m *meta, batches []refBatch, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	if len(batches) <= 1 {
		for _, batch := range batches {
			if err := p.lookupBatch(ctx, m, batch, known, out); err != nil {
				return err
			}
		}
		return nil
	}
	results := make([]map[core.Reference]core.WorkItem, len(batches))
	idx := make([]int, len(batches))
	for i := range idx {
		idx[i] = i
	}
	err := inParallel(ctx, p.lookupReaders(), idx, func(ctx context.Context, i int) error {
		res := map[core.Reference]core.WorkItem{}
		if err := p.lookupBatch(ctx, m, batches[i], known, res); err != nil {
			return err
		}
		results[i] = res
		return nil
	})
	if err != nil {
		return err
	}
	for _, res := range results {
		for r, w := range res {
			out[r] = w
		}
	}
	return nil
}

func (p *Provider) lookupBatch(ctx context.Context, m *meta, batch refBatch, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	want := make(map[core.Reference]bool, len(batch.refs))
	for _, r := range batch.refs {
		want[r] = true
	}
	return p.search(ctx, m, batch.jql, p.reconcileIDs(batch.refs), "look up work items by reference", func(is issue) bool {
		w := p.workItem(m, is)
		if want[w.Reference] { // else a tokenised match of another reference
			p.keep(ctx, w, known, out)
		}
		return true
	})
}

// keep puts w into out. When another issue already holds its reference
// (made outside DevWorkWire or before it existed) it keeps the one the
// index knows, else the oldest, says so, and lists the other in the kept
// item's Duplicates (the service warns, naming both).
func (p *Provider) keep(ctx context.Context, w core.WorkItem, known map[core.Reference]string, out map[core.Reference]core.WorkItem) {
	if prev, dup := out[w.Reference]; dup {
		if prev.Key == w.Key || slices.Contains(prev.Duplicates, w.Key) {
			return // the same issue again (searched, then read in the tail)
		}
		p.logFor(ctx).Warn("jira reference held by more than one issue", "reference", string(w.Reference), "keys", prev.Key+","+w.Key)
		if known[w.Reference] != w.Key && (known[w.Reference] == prev.Key || keyNumber(prev.Key) < keyNumber(w.Key)) {
			prev.Duplicates = append(prev.Duplicates, w.Key) // the service warns, naming both
			out[w.Reference] = prev
			return
		}
		w.Duplicates = append(prev.Duplicates, prev.Key)
	}
	out[w.Reference] = w
}

func keyNumber(k string) int {
	_, n, _ := strings.Cut(k, "-")
	i, _ := strconv.Atoi(n)
	return i
}

// hasWord reports whether s holds a letter or digit, something Jira's
// text search can match.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// inParallel calls f for each item, at most workers at once. The first
// error cancels the calls not yet finished (and stops feeding new ones) and
// is returned; so is the context's error if it ended first.
func inParallel[T any](ctx context.Context, workers int, items []T, f func(context.Context, T) error) error {
	if len(items) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	next := make(chan T)
	for range min(workers, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				if err := f(ctx, it); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for _, it := range items {
		select {
		case next <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
