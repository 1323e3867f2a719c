package jira

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Duplicates made by two commits at the same moment.
//
// Two imports of one document from separate state stores whose commits
// start within the same moment both pass their stale checks (neither has
// written yet) and both create. Duplicates (core.DuplicateChecker) runs
// right after a commit's creates and finds the other's issues by key, like
// the tail (tail.go), not by search, which lags:
//
//   - The other commit's issues were created after this commit's stale
//     check read the tail (else that check would have seen them and
//     refused the plan), so their keys are above the newest key that read
//     found: the floor, which Create notes for every reference it sends
//     (noteFloor, from the Provider's tail state).
//   - So Duplicates reads, in bulk-fetch pages, every key above the floor
//     that this commit did not create — up to its newest created key and
//     on, like the tail, until tailGap keys in a row are missing — and
//     keeps the issues holding a reference this commit created.
//
// When nobody else created anything meanwhile, the keys between the floor
// and the newest created one are all this commit's: one request (the page
// after the newest key, empty). It reads at most maxTailPages pages beyond
// two per hundred created items, and says so in the log when a busy
// project cuts it short. Without a floor (no tail read ran in this
// Provider) it starts bulkFetchMax keys below the oldest created key.

// noteFloor records, for each spec about to be created, the newest key the
// Provider's tail reads of its document have seen (see Duplicates).
func (p *Provider) noteFloor(specs []core.ItemSpec) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.floors == nil {
		p.floors = map[core.Reference]int{}
	}
	for _, s := range specs {
		doc, _ := s.Reference.Split()
		if hi, ran := p.tails[doc]; ran {
			p.floors[s.Reference] = hi
		}
	}
}

// Duplicates implements core.DuplicateChecker (see above).
func (p *Provider) Duplicates(ctx context.Context, created map[core.Reference]string) (map[core.Reference][]string, error) {
	ctx, done := p.observe(ctx, "Duplicates")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	tl := &tail{project: strings.ToUpper(p.cfg.Project)}
	own := map[string][]core.Reference{}
	lo, oldest := -1, 0
	p.mu.Lock()
	for ref, key := range created {
		n := tl.number(key)
		if n == 0 {
			continue
		}
		own[strings.ToUpper(key)] = append(own[strings.ToUpper(key)], ref)
		tl.hi = max(tl.hi, n)
		if oldest == 0 || n < oldest {
			oldest = n
		}
		if f, ok := p.floors[ref]; ok && (lo < 0 || f < lo) {
			lo = f
		}
		delete(p.floors, ref)
	}
	p.mu.Unlock()
	if len(own) == 0 {
		return nil, nil
	}
	if lo < 0 {
		lo = max(0, oldest-1-bulkFetchMax)
	}
	tl.from, tl.next = lo+1, lo+1
	limit := maxTailPages + 2*((len(own)+bulkFetchMax-1)/bulkFetchMax)
	others := map[core.Reference][]string{}
	noBulk, err := p.readAbove(ctx, m, tl, own, limit, func(is issue) {
		w := p.workItem(m, is)
		if k, ok := created[w.Reference]; ok && !strings.EqualFold(k, is.Key) && !slices.Contains(others[w.Reference], is.Key) {
			others[w.Reference] = append(others[w.Reference], is.Key)
		}
	})
	if err != nil {
		return nil, err
	}
	if noBulk {
		p.logFor(ctx).Warn("jira has no bulk fetch: the created issues were not checked for duplicates made at the same moment")
		return nil, nil
	}
	out := make(map[core.Reference][]string, len(others))
	for ref, keys := range others {
		keys = append(keys, created[ref])
		slices.SortFunc(keys, func(a, b string) int { return tl.number(a) - tl.number(b) })
		out[ref] = keys
	}
	p.logFor(ctx).Info("jira duplicate check", "created", len(own), "from_key", tl.project+"-"+strconv.Itoa(tl.from), "keys_read", tl.next-tl.from-len(own), "pages", tl.pages, "duplicated", len(out))
	return out, nil
}

var _ core.DuplicateChecker = (*Provider)(nil)
