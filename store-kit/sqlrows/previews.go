package sqlrows

import (
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
)

// Row is one row a query returned (pgx.Row, *sql.Row).
type Row interface {
	Scan(dest ...any) error
}

// PreviewColumns are the columns Preview reads, in order, from previews.
const PreviewColumns = `handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by`

// Preview reads the preview of handle from row (of PreviewColumns). The
// row's error (the driver's "no rows" among them) is returned as it is;
// a plan that no longer matches its digest is PreviewTampered.
func Preview[T any](row Row, handle string, toTime func(T) time.Time) (core.Preview, error) {
	var (
		p                core.Preview
		kind, dig        string
		created, expires T
		consumed         *T
		consumedBy       *string
	)
	if err := row.Scan(&p.Handle, &kind, &p.Scope, &p.Plan, &dig, &created, &expires, &consumed, &consumedBy); err != nil {
		return core.Preview{}, err
	}
	if p.Plan == nil {
		p.Plan = []byte{}
	}
	if core.PlanDigest(p.Plan) != dig {
		return core.Preview{}, storeerr.PreviewTampered(handle)
	}
	p.Kind, p.Digest = core.PreviewKind(kind), dig
	p.CreatedAt, p.ExpiresAt = toTime(created), toTime(expires)
	if consumed != nil {
		p.ConsumedAt = toTime(*consumed)
	}
	if consumedBy != nil {
		p.ConsumedBy = *consumedBy
	}
	return p, nil
}

// TombstoneColumns are the columns Missing reads, in order, from
// preview_tombstones.
const TombstoneColumns = `kind, expired_at`

// Missing is the error for a handle without a preview, read from row (of
// TombstoneColumns, the handle's tombstone): PREVIEW_EXPIRED while its
// tombstone is kept, PREVIEW_NOT_FOUND when row has none (noRows, the
// driver's "no rows" error); any other error is returned as it is.
func Missing[T any](row Row, handle string, noRows error, toTime func(T) time.Time) error {
	var (
		kind    string
		expired T
	)
	err := row.Scan(&kind, &expired)
	if errors.Is(err, noRows) {
		return storeerr.PreviewNotFound(handle)
	}
	if err != nil {
		return err
	}
	return storeerr.PreviewPruned(handle, core.PreviewKind(kind), toTime(expired))
}

// ConsumeColumns are the columns Refusal reads, in order, from previews.
const ConsumeColumns = `expires_at, consumed_at, consumed_by, plan_digest`

// Consume is what Refusal needs from a store besides the preview's row.
type Consume struct {
	// NoRows is the driver's "no rows" error.
	NoRows error
	// Missing is the error for a handle without a preview row (the
	// store's notFound: a tombstone or PREVIEW_NOT_FOUND).
	Missing func() error
	// RunOf is the id of the run the key that consumed the preview
	// started (see RunID); its error is returned as it is.
	RunOf func(key string) (runID string, err error)
}

// Refusal is why req may not consume its preview, read from row (of
// ConsumeColumns, the preview's row); nil when it may. In this order: no
// such preview (c.Missing), consumed already (storeerr.PreviewConsumed,
// naming the run c.RunOf finds), expired (storeerr.PreviewExpired), or
// another plan than req's (core.CheckPlanDigest). Any other error of row
// is returned as it is.
func Refusal[T any](row Row, req core.StartRunRequest, toTime func(T) time.Time, c Consume) error {
	var (
		expires    T
		consumed   *T
		consumedBy *string
		dig        string
	)
	err := row.Scan(&expires, &consumed, &consumedBy, &dig)
	if errors.Is(err, c.NoRows) {
		return c.Missing()
	}
	if err != nil {
		return err
	}
	if consumed != nil {
		by := ""
		if consumedBy != nil {
			by = *consumedBy
		}
		runID, err := c.RunOf(by)
		if err != nil {
			return err
		}
		return storeerr.PreviewConsumed(req.Handle, runID, toTime(*consumed))
	}
	// Stored times are whole microseconds, so now >= expires holds for
	// req.Now exactly when it holds for req.Now truncated as stored.
	if at := toTime(expires); !req.Now.Before(at) {
		return storeerr.PreviewExpired(req.Handle, at)
	}
	return core.CheckPlanDigest(req.Handle, "", req.PlanDigest, dig)
}

// RunID reads a run's id from row (its run_id column): "" when there is
// no such run (noRows, the driver's "no rows" error).
func RunID(row Row, noRows error) (string, error) {
	var runID string
	if err := row.Scan(&runID); err != nil && !errors.Is(err, noRows) {
		return "", err
	}
	return runID, nil
}

// Save is core.Store's SavePreview: p is checked (storeerr.CheckPreview)
// and then inserted by insert (the store's INSERT INTO previews
// (PreviewColumns) … ON CONFLICT (handle) DO NOTHING), which returns the
// rows it added; none is DuplicateHandle.
func Save(p core.Preview, insert func(p core.Preview) (added int64, err error)) error {
	p, err := storeerr.CheckPreview(p)
	if err != nil {
		return err
	}
	n, err := insert(p)
	if err != nil {
		return err
	}
	if n == 0 {
		return storeerr.DuplicateHandle(p.Handle)
	}
	return nil
}

// PruneSQL are the statements of core.Store's Prune in a store's SQL, in
// the order they run. Each takes one parameter, the cut: a stored time
// before which what it names is pruned.
type PruneSQL struct {
	Tombstone  string // keep a tombstone of every preview expired before the cut
	Previews   string // delete the previews expired before the cut
	Tombstones string // delete the tombstones expired before the cut
	Outcomes   string // delete the outcomes of the runs finished before the cut (not in progress)
	Runs       string // delete the runs finished before the cut (not in progress)
	Audit      string // delete the audit records made before the cut
}

// Prune is core.Store's Prune inside the store's one transaction: exec
// runs each of q's statements with the age of its cut (the cut is now less
// age: previews by now, tombstones by r.Tombstones, runs by r.Runs, audit
// records by r.Audit; r with its defaults) and returns the rows it
// changed.
func Prune(r core.Retention, q PruneSQL, exec func(sql string, age time.Duration) (changed int64, err error)) (core.Pruned, error) {
	r = r.OrDefault()
	var n core.Pruned
	for _, st := range []struct {
		count *int
		sql   string
		age   time.Duration
	}{
		{nil, q.Tombstone, 0},
		{&n.Previews, q.Previews, 0},
		{&n.Tombstones, q.Tombstones, r.Tombstones},
		{nil, q.Outcomes, r.Runs},
		{&n.Runs, q.Runs, r.Runs},
		{&n.Audit, q.Audit, r.Audit},
	} {
		k, err := exec(st.sql, st.age)
		if err != nil {
			return core.Pruned{}, err
		}
		if st.count != nil {
			*st.count = int(k)
		}
	}
	return n, nil
}
