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
// expired, not set aside (declined, a dry run, refused as stale), not
// superseded by a newer preview of the same documents or item, and
// writing something.
type PendingPreview struct {
	PreviewHandle string           `json:"preview_handle"`
	Kind          core.PreviewKind `json:"kind"`
	// Document is the document id of an import or pull preview; Item the
	// work item of a progress preview.
	Document string `json:"document,omitempty"`
	// Documents are the document ids of an import preview of a directory
	// (Document is empty then).
	Documents []string `json:"documents,omitempty"`
	Item      *ItemRef `json:"item,omitempty"`
	Counts    *Counts  `json:"counts,omitempty"` // import
	// Writes counts what an import or a pull writes, in words
	// (PlanWrites.Summary: "3 writes: create 2 items, …").
	Writes string `json:"writes,omitempty"`
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

// pendingScan bounds the stored previews PendingPreviews reads to find
// the ones a person waits on.
const pendingScan = 500

// PendingPreviews lists up to limit (1..MaxQueryLimit, 0 = default)
// previews of the configured project a person is waiting on, newest
// first: of the previews neither committed nor expired, those the audit
// trail does not show set aside (SetPreviewAside: declined, a dry run) or
// refused as stale, that no newer preview of the same documents or item
// supersedes, and that write something. Kinds: import, progress, pull.
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
	ps, truncated, err := l.PendingPreviews(ctx, s.p.Scope(), s.now(), pendingScan)
	if err != nil {
		return PendingResult{}, o.fail(err)
	}
	t := s.previewTrail(ctx, ps)
	res := PendingResult{ResultType: ResultPreview, RunID: o.runID, Previews: []PendingPreview{}}
	listed := map[string]bool{} // subjects whose newest pending preview was seen
	for _, p := range ps {
		pp, subject, writes, ok := pendingEntry(p)
		if !ok || t.aside[p.Handle] {
			continue // unreadable, or nobody waits on it
		}
		if newest, known := t.newest[subject]; (known && newest != p.Handle) || listed[subject] {
			continue // superseded by a newer preview of the same subject
		}
		listed[subject] = true
		if !writes {
			continue
		}
		if len(res.Previews) == limit {
			truncated = true
			break
		}
		res.Previews = append(res.Previews, pp)
	}
	res.Truncated = truncated
	res.Returned = len(res.Previews)
	o.done("previews listed", "returned", res.Returned)
	return res, nil
}

// pendingEntry is a stored preview as the list shows it, what it is about
// (its subject: kind and documents or item) and whether it writes
// anything; ok is false for a plan that cannot be read (not offered).
func pendingEntry(p core.Preview) (pp PendingPreview, subject string, writes, ok bool) {
	pp = PendingPreview{PreviewHandle: p.Handle, Kind: p.Kind, CreatedAt: core.UTCSecond(p.CreatedAt), ExpiresAt: core.UTCSecond(p.ExpiresAt)}
	var plan any
	switch p.Kind {
	case core.PreviewImport:
		pl, err := decodeImportPlan(p)
		if err != nil {
			return pp, "", false, false
		}
		r := pl.result(p)
		w := pl.writes()
		pp.Document, pp.Counts, pp.MadeBy, pp.Writes = r.Document, &r.Counts, pl.Head.MadeBy, w.Summary()
		for _, d := range r.Documents {
			pp.Documents = append(pp.Documents, d.ID)
		}
		plan, writes = pl, w.Total > 0
	case core.PreviewProgress:
		pl, err := decodeProgressPlan(p)
		if err != nil {
			return pp, "", false, false
		}
		ref := pl.Head.Item.api()
		pp.Item, pp.TargetStatus, pp.Comment, pp.MadeBy = &ref, pl.Target, pl.Comment != "", pl.Head.MadeBy
		plan, writes = pl, pl.Target != "" || pl.Comment != ""
	case core.PreviewPull:
		pl, err := decodePullPlan(p)
		if err != nil {
			return pp, "", false, false
		}
		w := pl.writes()
		pp.Document, pp.MadeBy, pp.Writes = pl.Pull.Document, pl.Pull.MadeBy, w.Summary()
		plan, writes = pl, w.Total > 0
	default:
		return pp, "", false, false
	}
	docs, item := planSubject(plan)
	return pp, previewSubject(p.Kind, docs, item), writes, true
}

// previewSubject names what a preview is about, so that a newer preview
// of the same supersedes an older one.
func previewSubject(kind core.PreviewKind, documents []string, item string) string {
	docs := slices.Clone(documents)
	slices.Sort(docs)
	return string(kind) + "|" + strings.Join(docs, ",") + "|" + item
}

// previewTrail is what the audit trail says of recent previews: the
// handles set aside or refused as stale, and the newest preview of each
// subject (committed ones included).
type previewTrail struct {
	aside  map[string]bool
	newest map[string]string
}

// previewTrail reads the trail since the oldest of ps was made (previews
// live at most a day, so this is a bounded read). A store without a
// trail, or one that fails, sets nothing aside.
func (s *WorkItemService) previewTrail(ctx context.Context, ps []core.Preview) previewTrail {
	t := previewTrail{aside: map[string]bool{}, newest: map[string]string{}}
	as := s.audits()
	if as == nil || len(ps) == 0 {
		return t
	}
	since := ps[0].CreatedAt
	for _, p := range ps {
		if p.CreatedAt.Before(since) {
			since = p.CreatedAt
		}
	}
	recs, _, err := as.ListAudit(ctx, core.AuditFilter{Since: since}, 0)
	if err != nil {
		s.log.Warn("could not read the audit trail to leave out previews nobody waits on", "code", core.ErrorCode(err))
		return t
	}
	scope := s.p.Scope()
	for _, r := range recs { // newest first
		switch {
		case r.Event == core.AuditPreview && r.Scope == scope:
			subject := previewSubject(r.Kind, r.Documents, r.Item)
			if _, seen := t.newest[subject]; !seen {
				t.newest[subject] = r.Handle
			}
		case r.Event == core.AuditPreviewSetAside, r.Event == core.AuditCommitRefused && r.Code == core.CodePreviewStale:
			t.aside[r.Handle] = true
		}
	}
	return t
}

// Reasons for SetPreviewAside.
const (
	AsideDeclined = "declined"
	AsideDryRun   = "dry run"
)

// SetPreviewAside records in the audit trail that nobody waits on the
// stored preview of handle (why: AsideDeclined, AsideDryRun), so `dwire
// review` no longer lists it; who (WithActor) and the channel
// (WithChannel) are recorded. The preview itself is untouched: its handle
// still shows and commits. A store without a trail records nothing.
func (s *WorkItemService) SetPreviewAside(ctx context.Context, handle, why string) error {
	ctx, o := s.begin(ctx, "preview.set_aside")
	s.lastMu.Lock()
	p := s.last
	s.lastMu.Unlock()
	if p.handle != handle {
		// Not the preview this service stored last: read it (its kind;
		// an unknown handle is refused).
		stored, err := s.st.LoadPreview(ctx, handle)
		if err != nil {
			return o.fail(err)
		}
		p = savedPreview{stored.Handle, stored.Kind}
	}
	r := s.commitRecord(ctx, core.AuditPreviewSetAside, p.kind, p.handle)
	r.Note = why
	if err := s.appendAudit(ctx, r); err != nil {
		return o.fail(err)
	}
	return nil
}

// CheckPreview re-reads what the stored plan of handle touches, as its
// commit would before writing (no write, no lock), so a person is not
// asked about a plan the tracker no longer matches: PREVIEW_STALE then,
// recorded in the audit trail (the preview is no longer listed as
// waiting). Other errors: the gate's for an unknown or unreadable handle,
// tracker reads'.
func (s *WorkItemService) CheckPreview(ctx context.Context, handle string) error {
	ctx, o := s.begin(ctx, "preview.check")
	p, err := s.st.LoadPreview(ctx, handle)
	if err != nil {
		return o.fail(err)
	}
	var stale func(context.Context) error
	switch p.Kind {
	case core.PreviewImport:
		stale, err = staleCheck(s.importKind(), p)
	case core.PreviewProgress:
		stale, err = staleCheck(s.progressKind(), p)
	case core.PreviewPull:
		stale, err = staleCheck(s.pullKind(""), p)
	default:
		err = core.Errorf(core.CodeInternal, "core.Preview %s has a kind this version does not know (%s).", handle, p.Kind)
	}
	if err != nil {
		return o.fail(err)
	}
	if err := stale(ctx); err != nil {
		if core.ErrorCode(err) == core.CodePreviewStale {
			s.auditStale(ctx, p.Kind, p.Handle)
		}
		return o.fail(err)
	}
	return nil
}

// auditStale records a commit refused (or a review stopped) because the
// tracker no longer matches the stored plan. Best effort.
func (s *WorkItemService) auditStale(ctx context.Context, kind core.PreviewKind, handle string) {
	r := s.commitRecord(ctx, core.AuditCommitRefused, kind, handle)
	r.Outcome, r.Code = "refused", core.CodePreviewStale
	if err := s.appendAudit(ctx, r); err != nil {
		s.log.Warn("could not record the stale preview in the audit trail", "code", core.ErrorCode(err), "handle", handle)
	}
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
