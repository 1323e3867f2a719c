package jira

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

type issueUpdate struct {
	Fields     map[string]any   `json:"fields"`
	Properties []map[string]any `json:"properties,omitempty"`
}

type bulkRequest struct {
	IssueUpdates []issueUpdate `json:"issueUpdates"`
}

type createdIssue struct {
	ID  string `json:"id"`
	Key string `json:"key"`
}

type bulkResponse struct {
	Issues []createdIssue `json:"issues"`
	Errors []struct {
		FailedElementNumber int           `json:"failedElementNumber"`
		Status              int           `json:"status"`
		ElementErrors       jiraErrorBody `json:"elementErrors"`
	} `json:"errors"`
}

// Create creates items in bulk requests of at most core.MaxBatch and returns
// one outcome per spec tried, in input order.
//
// A create request is sent exactly once. When its outcome is unknown (the
// connection failed after sending, the request timed out, Jira answered
// 5xx), the issues created since the batch's floor are read by key
// (settle.go; without a floor the references are searched for): found
// items are reported created, the rest Unknown — never created again. A 429 means Jira did nothing; the batch is then searched
// for as well before the items not found are sent again, after the wait
// Jira asked for, within the usual attempt and time bounds.
//
// Per-item failures (Jira's failedElementNumber) are outcomes with Err;
// the next batches still run. A failure of the call as a whole (auth,
// permission, unknown outcome, rate limit that did not clear) stops: the
// error is returned with the outcomes known so far.
func (p *Provider) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	ctx, done := p.observe(ctx, "Create")
	defer done()
	m, err := p.creatableMeta(ctx)
	if err != nil {
		return nil, err
	}
	p.noteFloor(specs) // duplicates.go
	out := make([]core.CreateOutcome, 0, len(specs))
	size := core.MaxBatch
	if p.cfg.SingleCreate {
		size = 1
	}
	for start := 0; start < len(specs); start += size {
		batch := specs[start:min(start+size, len(specs))]
		res, err := p.createBatch(ctx, m, batch)
		out = append(out, res...)
		if err != nil {
			return out, err
		}
	}
	p.logFor(ctx).Info("jira create finished", "items", len(specs), "outcomes", len(out))
	return out, nil
}

// createBatch creates one batch (bulk, or a single POST /issue in
// SingleCreate mode). Outcomes cover the whole batch unless err is set
// before anything was sent.
func (p *Provider) createBatch(ctx context.Context, m *meta, batch []core.ItemSpec) ([]core.CreateOutcome, error) {
	outcomes := make([]core.CreateOutcome, len(batch))
	updates := make([]issueUpdate, len(batch))
	pending := []int{} // indices still to send
	for i, s := range batch {
		outcomes[i].Reference = s.Reference
		fields, props, err := p.writeFields(m, s, true)
		if err != nil {
			outcomes[i].Err = err
			continue
		}
		p.epicLinkOut(m, s.Kind == core.KindSubtask, fields) // datacenter.go
		updates[i] = issueUpdate{Fields: fields, Properties: props}
		pending = append(pending, i)
	}
	// fail gives every item still undecided the error e: none of them was
	// created (they were refused, or never sent again after a 429).
	fail := func(e error) {
		ce := core.AsError(e)
		for _, i := range pending {
			if outcomes[i].Key == "" && outcomes[i].Err == nil && !outcomes[i].Unknown {
				outcomes[i].Err = ce
			}
		}
	}
	start := timeNow()
	// Sends after a 429 are retries of the create: they count towards the
	// call's retry summary.
	endpoint := "POST /rest/api/3/issue/bulk"
	if p.cfg.SingleCreate {
		endpoint = "POST /rest/api/3/issue"
	}
	sends, waited := 0, time.Duration(0)
	defer func() { tallyFrom(ctx).record(endpoint, sends, waited) }()
	for attempt := 1; len(pending) > 0; attempt++ {
		sends = attempt
		rateLimited, err := p.sendCreate(ctx, m, batch, updates, pending, outcomes)
		if err == nil {
			break
		}
		if !rateLimited {
			fail(err)
			return outcomes, err
		}
		// 429: Jira did nothing. Re-establish state by searching before
		// sending again (the seed's rule), then send what is missing.
		wait, hinted := rateLimited429Wait(err)
		if !hinted {
			wait = p.backoffStep(attempt)
		}
		wait = max(wait, p.minSleep)
		if attempt >= p.cfg.MaxAttempts || timeNow().Add(wait).Sub(start) > p.cfg.MaxRetryWait {
			e := core.AsError(err)
			fail(e)
			return outcomes, e
		}
		p.logFor(ctx).Info("jira create rate-limited; searching before sending again", "items", len(pending), "wait_ms", wait.Milliseconds())
		waited += wait
		if err := p.sleep(ctx, wait); err != nil {
			e := ctxError(err, call{action: "create issues"})
			fail(e)
			return outcomes, e
		}
		found, serr := p.findCreated(ctx, m, batch, pending)
		if serr != nil {
			fail(serr)
			return outcomes, serr
		}
		var still []int
		for _, i := range pending {
			if is, ok := found[batch[i].Reference]; ok {
				p.recordCreated(batch[i].Reference, createdIssue{ID: is.ID, Key: is.Key})
				outcomes[i].Key, outcomes[i].URL = is.Key, p.site+"/browse/"+is.Key
				continue
			}
			still = append(still, i)
		}
		pending = still
	}
	return outcomes, nil
}

// rateLimitedError carries the wait Jira asked for on a 429 create.
type rateLimitedError struct {
	err    *core.Error
	wait   time.Duration
	hinted bool // Jira sent Retry-After
}

func (e *rateLimitedError) Error() string { return e.err.Error() }
func (e *rateLimitedError) Unwrap() error { return e.err }

func rateLimited429Wait(err error) (time.Duration, bool) {
	if r, ok := err.(*rateLimitedError); ok {
		return r.wait, r.hinted
	}
	return 0, false
}

// sendCreate sends the pending items once and fills their outcomes. It
// returns rateLimited=true (and the error) when Jira answered 429; the
// pending items are then untouched.
func (p *Provider) sendCreate(ctx context.Context, m *meta, batch []core.ItemSpec, updates []issueUpdate, pending []int, outcomes []core.CreateOutcome) (bool, error) {
	var c call
	if p.cfg.SingleCreate {
		c = call{method: "POST", path: "/rest/api/3/issue", body: updates[pending[0]], class: retryNever, endpoint: "POST /rest/api/3/issue", action: "create issues in project " + p.cfg.Project}
	} else {
		req := bulkRequest{IssueUpdates: make([]issueUpdate, len(pending))}
		for j, i := range pending {
			req.IssueUpdates[j] = updates[i]
		}
		c = call{method: "POST", path: "/rest/api/3/issue/bulk", body: req, class: retryNever, endpoint: "POST /rest/api/3/issue/bulk", action: "create issues in project " + p.cfg.Project}
	}
	floor := p.floorOf(batch, pending) // before it leaves: settle.go
	resp, err := p.do(ctx, c, nil)
	switch {
	case isUncertain(err):
		return false, p.resolveUnknown(ctx, m, batch, pending, floor, outcomes, err)
	case resp != nil && resp.status == http.StatusTooManyRequests:
		w, hinted := retryAfter(resp.header, timeNow())
		return true, &rateLimitedError{err: core.AsError(err), wait: w, hinted: hinted}
	case resp == nil && err != nil:
		return false, err
	}
	// A definite answer: 2xx (possibly with per-element errors) or 4xx.
	if p.cfg.SingleCreate {
		i := pending[0]
		if err != nil {
			if core.ErrorCode(err) == core.CodeValidationFailed {
				outcomes[i].Err = itemErr(err, batch[i].Reference, "")
				return false, nil
			}
			return false, err
		}
		var ci createdIssue
		if jerr := json.Unmarshal(resp.body, &ci); jerr != nil || ci.Key == "" {
			return false, p.resolveUnknown(ctx, m, batch, pending, floor, outcomes, core.Errorf(core.CodeJiraUnavailable, "Jira's answer to a create could not be read."))
		}
		p.recordCreated(batch[i].Reference, ci)
		outcomes[i].Key, outcomes[i].URL = ci.Key, p.site+"/browse/"+ci.Key
		return false, nil
	}
	var br bulkResponse
	jerr := json.Unmarshal(resp.body, &br)
	if err != nil && (jerr != nil || len(br.Errors) == 0) {
		// Refused as a whole (401, 403, a 400 without per-element errors).
		if core.ErrorCode(err) == core.CodeValidationFailed {
			for _, i := range pending {
				outcomes[i].Err = itemErr(err, batch[i].Reference, "")
			}
			return false, nil
		}
		return false, err
	}
	if jerr != nil {
		return false, p.resolveUnknown(ctx, m, batch, pending, floor, outcomes, core.Errorf(core.CodeJiraUnavailable, "Jira's answer to a bulk create could not be read."))
	}
	failed := map[int]bool{}
	var authFailed []int
	for _, e := range br.Errors {
		if e.FailedElementNumber < 0 || e.FailedElementNumber >= len(pending) {
			continue
		}
		i := pending[e.FailedElementNumber]
		failed[e.FailedElementNumber] = true
		msg, details := p.translateErrors(e.ElementErrors)
		code := core.CodeValidationFailed
		switch e.Status {
		case http.StatusUnauthorized:
			code = core.CodeJiraUnauthorized
		case http.StatusForbidden:
			code = core.CodeJiraPermissionDenied
		}
		for d := range details {
			details[d].Item = string(batch[i].Reference)
		}
		if len(details) == 0 {
			details = []core.Detail{{Item: string(batch[i].Reference), Message: msg}}
		}
		outcomes[i].Err = core.Errorf(code, "Jira refused to create %s: %s", batch[i].Reference, msg).WithDetails(details...)
		if code != core.CodeValidationFailed {
			authFailed = append(authFailed, e.Status)
		}
	}
	// Every element refused for lack of credentials or permission: that is
	// the call failing as a whole, and the next batches would fare no better.
	if len(authFailed) == len(pending) && len(pending) > 0 {
		st := http.StatusForbidden
		if slices.Contains(authFailed, http.StatusUnauthorized) {
			st = http.StatusUnauthorized
		}
		return false, p.statusError(&response{status: st}, c)
	}
	// Created issues are listed in request order of the elements that
	// succeeded (as every site seen does; Atlassian does not document the
	// order): checked below.
	var made []madeIssue
	n := 0
	for j, i := range pending {
		if failed[j] {
			continue
		}
		if n >= len(br.Issues) {
			// Fewer issues than successes: the answer is inconsistent.
			p.recordMade(batch, made, outcomes)
			return false, p.resolveUnknown(ctx, m, batch, pending[j:], floor, outcomes, core.Errorf(core.CodeJiraUnavailable, "Jira's answer to a bulk create listed fewer issues than it created."))
		}
		made = append(made, madeIssue{i, br.Issues[n]})
		n++
	}
	if !createdInOrder(made) {
		if err := p.repairPairing(ctx, m, batch, made); err != nil {
			p.markUnpaired(batch, made, outcomes, err)
			return false, err
		}
	}
	p.recordMade(batch, made, outcomes)
	return false, nil
}

// madeIssue pairs an element of a bulk create (its index in the batch)
// with the issue Jira answered for it.
type madeIssue struct {
	i  int
	ci createdIssue
}

// recordMade records the created issues and their outcomes.
func (p *Provider) recordMade(batch []core.ItemSpec, made []madeIssue, outcomes []core.CreateOutcome) {
	for _, mi := range made {
		p.recordCreated(batch[mi.i].Reference, mi.ci)
		outcomes[mi.i].Key, outcomes[mi.i].URL = mi.ci.Key, p.site+"/browse/"+mi.ci.Key
	}
}

// createdInOrder reports whether the issues of a bulk create's answer, in
// the order paired with the request's elements, were created in that
// order: Jira numbers issues as it creates them, so their ids ascend.
// Ids that do not ascend mean issues[] is not in request order, and
// pairing by position would give references the wrong keys.
func createdInOrder(made []madeIssue) bool {
	last := int64(-1)
	for _, mi := range made {
		id, err := strconv.ParseInt(mi.ci.ID, 10, 64)
		if err != nil || id <= last {
			return false
		}
		last = id
	}
	return true
}

// repairPairing pairs a bulk create's issues with its elements by the
// reference each issue holds, read back by key (one bulk fetch: only when
// the answer's order is in doubt), and reports the repair in the log.
func (p *Provider) repairPairing(ctx context.Context, m *meta, batch []core.ItemSpec, made []madeIssue) error {
	keys := make([]string, len(made))
	for j, mi := range made {
		keys[j] = mi.ci.Key
	}
	resp, notFound, err := p.bulkFetch(ctx, m, keys)
	if err == nil && notFound {
		err = core.Errorf(core.CodeJiraUnavailable, "Jira cannot read issues by key (bulk fetch), so the keys of a bulk create answered out of order could not be matched to their items.")
	}
	if err != nil {
		return err
	}
	byRef := map[core.Reference]issue{}
	for _, is := range resp.Issues {
		byRef[parseRefValue(m.refValueIn(is.Fields))] = is
	}
	moved := 0
	for j, mi := range made {
		is, ok := byRef[batch[mi.i].Reference]
		if !ok {
			return core.Errorf(core.CodeJiraUnavailable, "Jira answered a bulk create out of order, and the issue created for %s was not among the keys it listed.", batch[mi.i].Reference)
		}
		if !strings.EqualFold(is.Key, mi.ci.Key) {
			moved++
		}
		made[j].ci = createdIssue{ID: is.ID, Key: is.Key}
	}
	p.logFor(ctx).Warn("jira bulk create answered out of request order; keys paired by the references read back", "items", len(made), "repaired", moved)
	return nil
}

// markUnpaired gives the items of a bulk create whose keys could not be
// matched an unknown outcome: they were created, but which key is whose
// is not known. They are not sent again.
func (p *Provider) markUnpaired(batch []core.ItemSpec, made []madeIssue, outcomes []core.CreateOutcome, cause error) {
	for _, mi := range made {
		ref := batch[mi.i].Reference
		outcomes[mi.i].Unknown = true
		outcomes[mi.i].Err = core.Wrap(cause, core.CodeJiraUnavailable, "%s was created, but Jira's answer did not say which of its keys is %s's. It was not sent again: check Jira for an issue with reference %s before importing again.", ref, ref, ref).WithDetails(core.Detail{Item: string(ref), Outcome: core.OutcomeUnknown})
	}
	p.mu.Lock()
	p.stats.Unknown += len(made)
	p.mu.Unlock()
}

func (p *Provider) recordCreated(ref core.Reference, ci createdIssue) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Created++
	p.noteNewest(ci.Key)
	if id, err := strconv.ParseInt(ci.ID, 10, 64); err == nil {
		p.created[ref] = id
	}
}

// resolveUnknown establishes what an uncertain create did: it reads the
// issues created above floor by key (settle.go) or, without a floor,
// searches for the references of the pending items. Found → created; not
// found → Unknown (never sent again). It returns the call-level error that
// stops the Create.
func (p *Provider) resolveUnknown(ctx context.Context, m *meta, batch []core.ItemSpec, pending []int, floor int, outcomes []core.CreateOutcome, cause error) error {
	cerr := core.AsError(cause)
	reason := uncertainReason(cause)
	if reason == "" {
		reason = "Jira's answer could not be read"
	}
	p.logFor(ctx).Warn("jira create outcome unknown; looking for the created issues", "items", len(pending), "code", cerr.Code, "by_key", floor >= 0)
	found, serr := p.settleCreated(context.WithoutCancel(ctx), m, batch, pending, floor)
	unknown := 0
	for _, i := range pending {
		if is, ok := found[batch[i].Reference]; ok && serr == nil {
			p.recordCreated(batch[i].Reference, createdIssue{ID: is.ID, Key: is.Key})
			outcomes[i].Key, outcomes[i].URL = is.Key, p.site+"/browse/"+is.Key
			continue
		}
		unknown++
		outcomes[i].Unknown = true
		outcomes[i].Err = core.Wrap(cause, core.CodeJiraUnavailable, "The create of %s may or may not have happened (%s), and Jira showed no issue holding its reference yet. It was not sent again: check Jira for an issue with reference %s before importing again.", batch[i].Reference, reason, batch[i].Reference).WithDetails(core.Detail{Item: string(batch[i].Reference), Outcome: core.OutcomeUnknown})
	}
	p.mu.Lock()
	p.stats.Unknown += unknown
	p.mu.Unlock()
	p.logFor(ctx).Warn("jira create outcome resolved", "found", len(pending)-unknown, "unknown", unknown)
	if unknown == 0 && serr == nil {
		// Every item was found: the batch is settled and the next ones may
		// go ahead.
		return nil
	}
	return core.Wrap(cause, cerr.Code, "%s %s of the batch could not be confirmed in Jira and %s not sent again (check Jira for them before importing again); later items were not sent.", cerr.Message, core.Plural(unknown, "item", "items"), map[bool]string{true: "was", false: "were"}[unknown == 1])
}

// findCreated searches for the pending items' references.
func (p *Provider) findCreated(ctx context.Context, m *meta, batch []core.ItemSpec, pending []int) (map[core.Reference]issue, error) {
	refs := make([]core.Reference, 0, len(pending))
	for _, i := range pending {
		refs = append(refs, batch[i].Reference)
	}
	found := map[core.Reference]issue{}
	for _, b := range p.batches(m, refs) {
		want := map[core.Reference]bool{}
		for _, r := range b.refs {
			want[r] = true
		}
		err := p.search(ctx, m, b.jql, p.reconcileIDs(b.refs), "search for issues whose create had no clear answer", func(is issue) bool {
			r := parseRefValue(m.refValueIn(is.Fields))
			if want[r] {
				if _, dup := found[r]; !dup {
					found[r] = is
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var timeNow = time.Now
