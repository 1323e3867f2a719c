package pgstore

import (
	"context"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

// UpsertIndex implements core.Store. Entries go in one statement (arrays
// unnested), the last of repeated references winning.
func (s *Store) UpsertIndex(ctx context.Context, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := s.check(); err != nil {
		return err
	}
	return s.fault(s.upsertIndex(ctx, s.db, entries), "update the dedup index")
}

func (s *Store) upsertIndex(ctx context.Context, q querier, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	// ON CONFLICT cannot touch one row twice in a statement: keep the last
	// entry of each (scope, reference).
	type k struct {
		scope string
		ref   core.Reference
	}
	last := make(map[k]int, len(entries))
	for i, e := range entries {
		last[k{e.Scope, e.Reference}] = i
	}
	n := len(last)
	scopes, refs, keys, digests := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	times := make([]time.Time, 0, n)
	for i, e := range entries {
		if last[k{e.Scope, e.Reference}] != i {
			continue
		}
		scopes, refs, keys, digests = append(scopes, e.Scope), append(refs, string(e.Reference)), append(keys, e.Key), append(digests, e.Digest)
		times = append(times, dbTime(e.UpdatedAt))
	}
	_, err := q.Exec(ctx, s.q(`INSERT INTO {schema}.dedup_index (scope, reference, issue_key, digest, updated_at)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
		ON CONFLICT (scope, reference) DO UPDATE SET issue_key = excluded.issue_key, digest = excluded.digest, updated_at = excluded.updated_at`),
		scopes, refs, keys, digests, times)
	return err
}

// LookupIndex implements core.Store.
func (s *Store) LookupIndex(ctx context.Context, scope string, refs []core.Reference) (map[core.Reference]core.IndexEntry, error) {
	list := make([]string, len(refs))
	for i, r := range refs {
		list[i] = string(r)
	}
	return s.kit().Lookup(ctx, scope, refs, s.q(`SELECT `+sqlrows.IndexColumns+` FROM {schema}.dedup_index
		WHERE scope = $1 AND reference = ANY($2::text[])`), scope, list)
}

var _ core.IndexLister = (*Store)(nil)

// ListIndex implements core.IndexLister.
func (s *Store) ListIndex(ctx context.Context, scope string, limit int) ([]core.IndexEntry, error) {
	return s.listIndex(ctx, scope, "list the dedup index", `issue_key <> '' LIMIT $2`, sqlrows.Limit(limit))
}

// listIndex lists the entries of scope ($1) that meet cond (with args as
// $2, …), for what (a fault's wording).
func (s *Store) listIndex(ctx context.Context, scope, what, cond string, args ...any) ([]core.IndexEntry, error) {
	return s.kit().List(ctx, scope, what, s.q(`SELECT `+sqlrows.IndexColumns+` FROM {schema}.dedup_index WHERE scope = $1 AND `+cond), append([]any{scope}, args...)...)
}
