package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

// UpsertIndex implements core.Store.
func (s *Store) UpsertIndex(ctx context.Context, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	return s.write(ctx, "update the dedup index", func(tx *sql.Tx) error { return upsertIndex(ctx, tx, entries) })
}

func upsertIndex(ctx context.Context, tx *sql.Tx, entries []core.IndexEntry) error {
	if len(entries) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO dedup_index (scope, reference, issue_key, digest, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (scope, reference) DO UPDATE SET issue_key = excluded.issue_key, digest = excluded.digest, updated_at = excluded.updated_at`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, e := range entries {
		if _, err := st.ExecContext(ctx, e.Scope, string(e.Reference), e.Key, e.Digest, dbTime(e.UpdatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// LookupIndex implements core.Store.
func (s *Store) LookupIndex(ctx context.Context, scope string, refs []core.Reference) (map[core.Reference]core.IndexEntry, error) {
	list, err := json.Marshal(refs)
	if err != nil {
		return nil, s.fault(err, "look up the dedup index")
	}
	return s.kit().Lookup(ctx, scope, refs, `SELECT `+sqlrows.IndexColumns+` FROM dedup_index
		WHERE scope = ? AND reference IN (SELECT value FROM json_each(?))`, scope, string(list))
}

var _ core.IndexLister = (*Store)(nil)

// ListIndex implements core.IndexLister.
func (s *Store) ListIndex(ctx context.Context, scope string, limit int) ([]core.IndexEntry, error) {
	return s.listIndex(ctx, scope, "list the dedup index", `issue_key <> '' LIMIT ?`, sqlrows.Limit(limit))
}

// listIndex lists the entries of scope that meet cond (with args), for
// what (a fault's wording).
func (s *Store) listIndex(ctx context.Context, scope, what, cond string, args ...any) ([]core.IndexEntry, error) {
	return s.kit().List(ctx, scope, what, `SELECT `+sqlrows.IndexColumns+` FROM dedup_index WHERE scope = ? AND `+cond, append([]any{scope}, args...)...)
}
