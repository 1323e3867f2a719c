// Package sqlrows is what the SQL state stores (store-sqlite,
// store-postgres) do the same way whatever their driver: it reads the rows
// they select into domain values (runs, dedup index entries, previews,
// tombstones, documents), decides what the rows mean (Refusal: why a
// handle may not be consumed; StartRun: replay, reused key or a new run;
// RunState; Save; Prune), runs their plain reads and their fence (Store:
// one description of a store, built once from its own methods). Each store
// keeps its own SQL (placeholders, schema), transactions and driver error
// translation. It is a module of its own beside the stores, required by
// them only. T is the type a store keeps
// times in (Unix microseconds for SQLite, timestamptz for Postgres);
// toTime converts it. The driver's rows (database/sql or pgx) are passed
// as Rows or Row, its "no rows" error as noRows.
package sqlrows

import (
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Rows is what both drivers' result sets offer.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// RunColumns are the columns Run reads, in order, from runs r LEFT JOIN
// run_outcomes o ordered by o.seq, where outcomes names the run_outcomes
// table (with its schema where there is one). The run's result comes on
// the first row only (Run reads it there): repeated on each outcome's
// row, a 10,000-item commit's result (megabytes) was read 10,000 times.
func RunColumns(outcomes string) string {
	return `r.run_id, r.handle, r.state, r.started_at, r.finished_at,
	CASE WHEN o.seq IS NULL OR o.seq = (SELECT MIN(f.seq) FROM ` + outcomes + ` f WHERE f.idempotency_key = r.idempotency_key) THEN r.result END,
	o.seq, o.reference, o.action, o.issue_key, o.outcome, o.code, o.message`
}

// Run assembles the run with idempotency key from rows of RunColumns;
// found is false when there are none.
func Run[T any](rows Rows, key string, toTime func(T) time.Time) (run core.Run, found bool, err error) {
	for rows.Next() {
		var (
			state                                      string
			started                                    T
			finished                                   *T
			result                                     []byte
			seq                                        *int64
			ref, action, issueKey, outcome, code, mesg *string
		)
		if err := rows.Scan(&run.ID, &run.Handle, &state, &started, &finished, &result,
			&seq, &ref, &action, &issueKey, &outcome, &code, &mesg); err != nil {
			return core.Run{}, false, err
		}
		if !found {
			found = true
			run.Key, run.State = key, core.RunState(state)
			run.StartedAt, run.Result = toTime(started), result
			if finished != nil {
				run.FinishedAt = toTime(*finished)
			}
		}
		if seq != nil {
			run.Outcomes = append(run.Outcomes, core.ItemOutcome{
				Reference: core.Reference(*ref), Action: core.Action(*action), Key: *issueKey,
				Outcome: *outcome, Code: core.Code(*code), Message: *mesg,
			})
		}
	}
	if err := rows.Err(); err != nil {
		return core.Run{}, false, err
	}
	return run, found, nil
}

// IndexColumns are the columns Index reads, in order, from dedup_index.
const IndexColumns = `reference, issue_key, digest, updated_at`

// Index reads dedup index entries of scope from rows of IndexColumns.
func Index[T any](rows Rows, scope string, toTime func(T) time.Time, n int) (map[core.Reference]core.IndexEntry, error) {
	out := make(map[core.Reference]core.IndexEntry, n)
	for rows.Next() {
		var (
			e       = core.IndexEntry{Scope: scope}
			ref     string
			updated T
		)
		if err := rows.Scan(&ref, &e.Key, &e.Digest, &updated); err != nil {
			return nil, err
		}
		e.Reference, e.UpdatedAt = core.Reference(ref), toTime(updated)
		out[e.Reference] = e
	}
	return out, rows.Err()
}

// PendingColumns are the columns Pending reads, in order, from previews.
const PendingColumns = `handle, plan, plan_digest`

// Pending reads the handles of rows of PendingColumns, leaving out a
// tampered plan (one that no longer matches its digest), and stops after
// one more than limit (limit <= 0: no limit); truncated reports that there
// were more. The caller closes rows.
func Pending(rows Rows, limit int) (handles []string, truncated bool, err error) {
	limit = Limit(limit)
	for rows.Next() {
		var (
			h, dig string
			plan   []byte
		)
		if err := rows.Scan(&h, &plan, &dig); err != nil {
			return nil, false, err
		}
		if core.PlanDigest(plan) == dig {
			handles = append(handles, h)
		}
		if len(handles) > limit {
			return handles[:limit], true, nil
		}
	}
	return handles, false, rows.Err()
}

// LoadAll loads the previews of handles with load, leaving out those
// pruned meanwhile (PREVIEW_NOT_FOUND, or PREVIEW_EXPIRED from a
// tombstone).
func LoadAll(handles []string, load func(handle string) (core.Preview, error)) ([]core.Preview, error) {
	out := make([]core.Preview, 0, len(handles))
	for _, h := range handles {
		p, err := load(h)
		switch code := core.ErrorCode(err); {
		case code == core.CodePreviewNotFound || code == core.CodePreviewExpired:
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Entries returns the entries of m, in no particular order.
func Entries(m map[core.Reference]core.IndexEntry) []core.IndexEntry {
	out := make([]core.IndexEntry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	return out
}
