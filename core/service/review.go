package service

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// madeByKey carries who or what makes a preview, set by the front door.
type madeByKey struct{}

// WithMadeBy returns ctx saying who or what makes the previews made with
// it (a short phrase the front door chooses: the command and the account,
// or the agent's client); the
// stored plan keeps it, so a person listing pending previews sees where
// each came from.
func WithMadeBy(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, madeByKey{}, who)
}

func madeByFrom(ctx context.Context) string {
	s, _ := ctx.Value(madeByKey{}).(string)
	return s
}

// PendingPreview is one preview waiting for a person: not committed, not
// expired.
type PendingPreview struct {
	PreviewHandle string           `json:"preview_handle"`
	Kind          core.PreviewKind `json:"kind"`
	// Document is the document id of an import preview; Item the work
	// item of a progress preview.
	Document string `json:"document,omitempty"`
	// Documents are the document ids of an import preview of a directory
	// (Document is empty then).
	Documents []string `json:"documents,omitempty"`
	Item      *ItemRef `json:"item,omitempty"`
	Counts    *Counts  `json:"counts,omitempty"` // import
	// TargetStatus and Comment say what a progress preview writes.
	TargetStatus core.Status `json:"target_status,omitempty"`
	Comment      bool        `json:"comment,omitempty"`
	MadeBy       string      `json:"made_by,omitempty"`
	CreatedAt    time.Time   `json:"created_at"`
	ExpiresAt    time.Time   `json:"expires_at"`
}

// PendingResult lists the pending previews of the configured project,
// newest first, bounded like a query.
type PendingResult struct {
	ResultType string           `json:"result_type"` // "preview"
	RunID      string           `json:"run_id"`
	Previews   []PendingPreview `json:"previews"`
	Returned   int              `json:"returned"`
	Truncated  bool             `json:"truncated"`
}

// PendingPreviews lists up to limit (1..MaxQueryLimit, 0 = default)
// previews of this scope waiting for a person. It writes nothing. A store
// without the capability is an INTERNAL_ERROR.
func (s *WorkItemService) PendingPreviews(ctx context.Context, limit int) (PendingResult, error) {
	ctx, o := s.begin(ctx, "preview.list")
	if limit <= 0 {
		limit = core.DefaultQueryLimit
	}
	limit = min(limit, core.MaxQueryLimit)
	l, ok := s.st.(core.PreviewLister)
	if !ok {
		return PendingResult{}, o.fail(core.Errorf(core.CodeInternal, "This state store cannot list previews."))
	}
	ps, truncated, err := l.PendingPreviews(ctx, s.p.Scope(), s.now(), limit)
	if err != nil {
		return PendingResult{}, o.fail(err)
	}
	res := PendingResult{ResultType: ResultPreview, RunID: o.runID, Previews: []PendingPreview{}, Truncated: truncated}
	for _, p := range ps {
		pp := PendingPreview{PreviewHandle: p.Handle, Kind: p.Kind, CreatedAt: core.UTCSecond(p.CreatedAt), ExpiresAt: core.UTCSecond(p.ExpiresAt)}
		switch p.Kind {
		case core.PreviewImport:
			pl, err := decodeImportPlan(p)
			if err != nil {
				continue // an unreadable plan is not offered for review
			}
			r := pl.result(p)
			pp.Document, pp.Counts, pp.MadeBy = r.Document, &r.Counts, pl.Head.MadeBy
			for _, d := range r.Documents {
				pp.Documents = append(pp.Documents, d.ID)
			}
		case core.PreviewProgress:
			pl, err := decodeProgressPlan(p)
			if err != nil {
				continue
			}
			ref := pl.Head.Item.api()
			pp.Item, pp.TargetStatus, pp.Comment, pp.MadeBy = &ref, pl.Target, pl.Comment != "", pl.Head.MadeBy
		default:
			continue // a pull's plan is not listed (as when it was stored as an import's)
		}
		res.Previews = append(res.Previews, pp)
	}
	res.Returned = len(res.Previews)
	o.done("previews listed", "returned", res.Returned)
	return res, nil
}

// CommitSummary says what became of the commit that consumed a preview
// (PreviewInfo.Commit), from its run as recorded in the store.
type CommitSummary struct {
	RunID     string        `json:"run_id"`
	State     core.RunState `json:"state"` // in_progress (still running, or the process died), committed, partial, failed
	StartedAt time.Time     `json:"started_at"`
	// FinishedAt is zero while the run is in progress.
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Written is how many items the commit wrote, of Total planned writes;
	// Failed, Untried and Unknown count the others recorded.
	Written int `json:"written"`
	Failed  int `json:"failed,omitempty"`
	Untried int `json:"untried,omitempty"`
	Unknown int `json:"unknown,omitempty"`
	Total   int `json:"total"`
	// Outcomes are the recorded outcomes, in order.
	Outcomes []core.ItemOutcome `json:"-"`
}

// commitSummary reads the run that consumed p; nil when it is not found.
func (s *WorkItemService) commitSummary(ctx context.Context, p core.Preview, total int) (*CommitSummary, error) {
	if p.ConsumedBy == "" {
		return nil, nil
	}
	run, found, err := s.st.GetRun(ctx, p.ConsumedBy)
	if err != nil || !found {
		return nil, err
	}
	c := &CommitSummary{RunID: run.ID, State: run.State, StartedAt: core.UTCSecond(run.StartedAt), Total: total, Outcomes: run.Outcomes}
	if !run.FinishedAt.IsZero() {
		c.FinishedAt = core.UTCSecond(run.FinishedAt)
	}
	for _, oc := range run.Outcomes {
		switch oc.Outcome {
		case core.OutcomeCommitted:
			c.Written++
		case core.OutcomeFailed:
			c.Failed++
		case core.OutcomeUntried:
			c.Untried++
		case core.OutcomeUnknown:
			c.Unknown++
		}
	}
	return c, nil
}

// progressWrites counts the writes of a progress plan: a transition, a
// comment.
func progressWrites(pl *progressPlan) int {
	n := 0
	if pl.TransitionID != "" {
		n++
	}
	if pl.Comment != "" {
		n++
	}
	return n
}

// KnownItems returns up to limit references and keys of items this
// scope's dedup index knows, sorted by reference, without asking the
// tracker: for completing an item argument. It writes nothing.
func (s *WorkItemService) KnownItems(ctx context.Context, limit int) ([]core.IndexEntry, error) {
	l, ok := s.st.(core.IndexLister)
	if !ok {
		return nil, core.Errorf(core.CodeInternal, "This state store cannot list its index.")
	}
	es, err := l.ListIndex(ctx, s.p.Scope(), limit)
	if err != nil {
		return nil, err
	}
	es = slices.DeleteFunc(es, func(e core.IndexEntry) bool { _, item := e.Reference.Split(); return strings.HasPrefix(item, "~") }) // a document's link record (structure.go), not an item
	sort.Slice(es, func(i, j int) bool { return es[i].Reference < es[j].Reference })
	return es, nil
}
