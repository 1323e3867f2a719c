package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The commit's structure phases (after epics → stories → sub-tasks):
// links → sprint → rank. Every write is fenced and its outcome recorded;
// a write whose answer never came is read back, never sent again.

// structureRow is one planned structure write of the commit, for outcomes
// and the partial report.
type structureRow struct {
	ref    Reference // the outcome's reference (synthetic: "<doc>/~link:s-2<-s-1")
	action Action
	label  string
}

func opRef(doc, kind, label string) Reference {
	return NewReference(doc, "~"+kind+":"+label)
}

func (x *execution) endKey(e endpoint) string {
	if e.Key != "" {
		return e.Key
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.keys[e.Ref]
}

// structureRows lists every planned structure write in commit order.
func (x *execution) structureRows() []structureRow {
	var rows []structureRow
	for _, ds := range x.pl.structures() {
		rows = append(rows, ds.rows()...)
	}
	return rows
}

// rows lists a document's planned structure writes in commit order.
func (ds docStructure) rows() []structureRow {
	sp, doc := ds.Plan, ds.Document
	var rows []structureRow
	for _, op := range sp.Links {
		l := op.Blocked.Label + "<-" + op.Blocker.Label
		rows = append(rows, structureRow{opRef(doc, "link", l), ActionLink, op.Blocked.Label + " depends on " + op.Blocker.Label})
	}
	for _, op := range sp.Unlinks {
		l := op.Blocked.Label + "<-" + op.Blocker.Label
		rows = append(rows, structureRow{opRef(doc, "unlink", l), ActionUnlink, "link " + op.Blocked.Label + " depends on " + op.Blocker.Label + " removed"})
	}
	for _, op := range sp.Sprints {
		for _, it := range op.Items {
			rows = append(rows, structureRow{opRef(doc, "sprint", it.Label), ActionSprint, it.Label + " into sprint " + op.Sprint})
		}
	}
	for _, op := range sp.Ranks {
		for _, it := range op.Items {
			rows = append(rows, structureRow{opRef(doc, "rank", it.Label), ActionRank, it.Label + " ranked"})
		}
	}
	return rows
}

// runStructure runs the structure phases of a document, unless the run
// stopped.
func (x *execution) runStructure(ctx context.Context, ds docStructure) {
	sp, ok := x.s.p.(StructureProvider)
	if ds.Plan.empty() || x.stopped() {
		return
	}
	if !ok {
		x.mu.Lock()
		x.stop, x.why = Errorf(CodeInternal, "the tracker provider cannot write the document's structure"), "the tracker provider cannot write the document's structure"
		x.mu.Unlock()
		return
	}
	x.links(ctx, sp, ds)
	if !x.stopped() {
		x.sprints(ctx, sp, ds)
	}
	if !x.stopped() {
		x.ranks(ctx, sp, ds)
	}
}

func (x *execution) outcome1(ref Reference, action Action, key string, err error, what string) ItemOutcome {
	rec := ItemOutcome{Reference: ref, Action: action, Key: key, Outcome: OutcomeCommitted}
	if err != nil {
		ae := AsError(err)
		rec.Code = ae.Code
		if IsOutcomeUnknown(err) {
			rec.Outcome = OutcomeUnknown
			rec.Message = fmt.Sprintf("%s may or may not have been applied (%s: %s); it was not sent again: run the import preview again, which shows whether it is in the tracker.", what, ae.Code, strings.TrimSuffix(ae.Message, "."))
		} else {
			rec.Outcome, rec.Message = OutcomeFailed, ae.Message
		}
	}
	return rec
}

// fail stops the run at the first failed or unknown structure write.
func (x *execution) failOn(rec ItemOutcome, what string) {
	if rec.Outcome == OutcomeCommitted {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stop == nil {
		x.stop = Errorf(rec.Code, "%s", rec.Message)
		state := "failed"
		if rec.Outcome == OutcomeUnknown {
			state = "has an unknown outcome"
		}
		x.why = fmt.Sprintf("%s %s (%s)", what, state, rec.Code)
	}
}

// links adds and removes dependencies, then reads back the ones whose
// answer never came and records which links DevWorkWire made.
func (x *execution) links(ctx context.Context, sp StructureProvider, ds docStructure) {
	spl, doc := ds.Plan, ds.Document
	type pending struct {
		op  linkOp
		ref Reference
		add bool
		err error
	}
	results := make([]*pending, 0, len(spl.Links)+len(spl.Unlinks))
	var writes []func(context.Context)
	for _, op := range spl.Links {
		p := &pending{op: op, ref: opRef(doc, "link", op.Blocked.Label+"<-"+op.Blocker.Label), add: true}
		results = append(results, p)
		writes = append(writes, func(ctx context.Context) {
			if !x.fenced(ctx, nil, "checking the commit lock before linking "+op.Blocked.Label) || x.stopped() {
				p.err = errUntried
				return
			}
			p.err = sp.AddDependency(ctx, x.endKey(op.Blocked), x.endKey(op.Blocker))
			if p.err != nil && !IsOutcomeUnknown(p.err) {
				x.failOn(x.outcome1(p.ref, ActionLink, "", p.err, "linking"), "linking "+op.Blocked.Label+" to "+op.Blocker.Label)
			}
		})
	}
	for _, op := range spl.Unlinks {
		p := &pending{op: op, ref: opRef(doc, "unlink", op.Blocked.Label+"<-"+op.Blocker.Label)}
		results = append(results, p)
		writes = append(writes, func(ctx context.Context) {
			if !x.fenced(ctx, nil, "checking the commit lock before removing a link of "+op.Blocked.Label) || x.stopped() {
				p.err = errUntried
				return
			}
			p.err = sp.RemoveDependency(ctx, op.ID)
			if ErrorCode(p.err) == CodeWorkItemNotFound {
				p.err = nil // already gone
			}
			if p.err != nil && !IsOutcomeUnknown(p.err) {
				x.failOn(x.outcome1(p.ref, ActionUnlink, "", p.err, "removing a link"), "removing the link "+op.Blocked.Label+" depends on "+op.Blocker.Label)
			}
		})
	}
	x.parallel(ctx, writes)
	// Read back: the ids of the links made, and the truth of every write
	// whose answer never came.
	var keys []string
	for _, p := range results {
		if p.err != errUntried {
			keys = append(keys, x.endKey(p.op.Blocked), x.endKey(p.op.Blocker))
		}
	}
	for _, m := range spl.Made {
		keys = append(keys, m.Blocked)
	}
	var now []Dependency
	var readErr error
	if len(keys) > 0 {
		now, readErr = sp.Dependencies(context.WithoutCancel(ctx), keys)
	}
	has := func(blocked, blocker string) (string, bool) {
		for _, d := range now {
			if strings.EqualFold(d.Blocked, blocked) && strings.EqualFold(d.Blocker, blocker) {
				return d.ID, true
			}
		}
		return "", false
	}
	made := slices.Clone(spl.Made)
	var recs []ItemOutcome
	for _, p := range results {
		if p.err == errUntried {
			continue
		}
		blocked, blocker := x.endKey(p.op.Blocked), x.endKey(p.op.Blocker)
		what := fmt.Sprintf("linking %s (is blocked by) %s", blocked, blocker)
		action := ActionLink
		if !p.add {
			what, action = "removing the link "+p.op.ID, ActionUnlink
		}
		if IsOutcomeUnknown(p.err) && readErr == nil {
			_, exists := has(blocked, blocker)
			if exists == p.add {
				p.err = nil // it did apply
			}
		}
		rec := x.outcome1(p.ref, action, blocked, p.err, what)
		recs = append(recs, rec)
		x.failOn(rec, what)
		if rec.Outcome == OutcomeCommitted && p.add {
			if id, ok := has(blocked, blocker); ok {
				made = append(made, Dependency{ID: id, Blocked: blocked, Blocker: blocker})
			}
		}
		if !p.add && rec.Outcome == OutcomeCommitted {
			made = slices.DeleteFunc(made, func(m Dependency) bool { return m.ID == p.op.ID })
		}
	}
	if readErr != nil {
		x.o.log.Warn("could not read the links back", "code", ErrorCode(readErr))
	}
	b, _ := json.Marshal(made)
	index := []IndexEntry{{Scope: x.pl.Head.Scope, Reference: NewReference(doc, linksItem), Digest: "links:" + string(b), UpdatedAt: utc(x.s.now())}}
	x.record(ctx, index, recs, false)
}

// errUntried marks a write the run stopped before.
var errUntried = Errorf(CodeInternal, "not attempted")

// sprints moves the items into their sprints, 50 a request.
func (x *execution) sprints(ctx context.Context, sp StructureProvider, ds docStructure) {
	doc := ds.Document
	var writes []func(context.Context)
	for _, op := range ds.Plan.Sprints {
		for start := 0; start < len(op.Items); start += MaxBatch {
			batch := op.Items[start:min(start+MaxBatch, len(op.Items))]
			writes = append(writes, func(ctx context.Context) {
				if !x.fenced(ctx, nil, "checking the commit lock before a sprint move") || x.stopped() {
					return
				}
				keys := make([]string, len(batch))
				for i, e := range batch {
					keys[i] = x.endKey(e)
				}
				err := sp.MoveToSprint(ctx, op.SprintID, keys)
				if IsOutcomeUnknown(err) && x.inSprint(ctx, keys, op.Sprint) {
					err = nil
				}
				recs := make([]ItemOutcome, len(batch))
				for i, e := range batch {
					recs[i] = x.outcome1(opRef(doc, "sprint", e.Label), ActionSprint, keys[i], err, "moving "+keys[i]+" into sprint "+op.Sprint)
				}
				x.record(ctx, nil, recs, false)
				x.failOn(recs[0], "moving items into sprint "+op.Sprint)
			})
		}
	}
	x.parallel(ctx, writes)
}

// inSprint reads back whether every item is in the sprint now.
func (x *execution) inSprint(ctx context.Context, keys []string, sprint string) bool {
	for _, k := range keys {
		w, err := x.s.p.Get(context.WithoutCancel(ctx), k)
		if err != nil || !strings.EqualFold(w.Sprint, sprint) {
			return false
		}
	}
	return true
}

// ranks places each run. A run of up to MaxBatch items is one request. A
// longer run is placed in two rounds (issue 20): it is split into chunks
// of a head plus up to MaxBatch more items (before an anchor: up to
// MaxBatch items plus the chunk's last item, its head); round 1 places the
// heads, in order, after (before) the anchor, MaxBatch a request, chained
// only when there are more heads than that; round 2 places every chunk's
// rest right after its own head (before its own tail), all chunks together
// through parallel. Inserts next to distinct fixed anchors commute, so the
// order is the document's whatever order round 2's answers come in. A
// chunk whose head was not placed is not sent; fail-fast as everywhere.
func (x *execution) ranks(ctx context.Context, sp StructureProvider, ds docStructure) {
	for _, op := range ds.Plan.Ranks {
		anchor, before := x.endKey(op.Anchor), op.Before
		if len(op.Items) <= MaxBatch {
			if x.stopped() || !x.fenced(ctx, nil, "checking the commit lock before ranking") {
				return
			}
			x.rankBatch(ctx, sp, ds.Document, op.Items, anchor, before)
			continue
		}
		var chunks [][]endpoint
		for start := 0; start < len(op.Items); start += MaxBatch + 1 {
			chunks = append(chunks, op.Items[start:min(start+MaxBatch+1, len(op.Items))])
		}
		head := func(c []endpoint) endpoint {
			if before {
				return c[len(c)-1]
			}
			return c[0]
		}
		heads := make([]endpoint, len(chunks))
		for i, c := range chunks {
			heads[i] = head(c)
		}
		// Round 1: the heads, chained request after request.
		batches := chunked(heads)
		if before {
			slices.Reverse(batches)
		}
		placed := map[string]bool{}
		for _, batch := range batches {
			if x.stopped() || !x.fenced(ctx, nil, "checking the commit lock before ranking") {
				return
			}
			keys, ok := x.rankBatch(ctx, sp, ds.Document, batch, anchor, before)
			for i, k := range keys {
				placed[k] = ok[i]
			}
			if before {
				anchor = keys[0]
			} else {
				anchor = keys[len(keys)-1]
			}
		}
		// Round 2: every chunk's rest next to its own head, together.
		var writes []func(context.Context)
		for _, c := range chunks {
			rest, h := c[1:], x.endKey(head(c))
			if before {
				rest = c[:len(c)-1]
			}
			if len(rest) == 0 || !placed[h] {
				continue
			}
			writes = append(writes, func(ctx context.Context) {
				if !x.fenced(ctx, nil, "checking the commit lock before ranking") || x.stopped() {
					return
				}
				x.rankBatch(ctx, sp, ds.Document, rest, h, before)
			})
		}
		x.parallel(ctx, writes)
		if x.stopped() {
			return
		}
	}
}

// rankBatch sends one rank request (≤ MaxBatch items) and records its
// outcomes; an answer that never came is read back, never resent. It
// returns the items' keys and which of them were placed.
func (x *execution) rankBatch(ctx context.Context, sp StructureProvider, doc string, batch []endpoint, anchor string, before bool) ([]string, []bool) {
	keys := make([]string, len(batch))
	for i, e := range batch {
		keys[i] = x.endKey(e)
	}
	outs, err := sp.Rank(ctx, keys, anchor, before)
	if IsOutcomeUnknown(err) && x.ranked(ctx, keys, anchor, before) {
		err, outs = nil, nil
	}
	recs := make([]ItemOutcome, len(batch))
	ok := make([]bool, len(batch))
	for i, e := range batch {
		ierr := err
		if ierr == nil && i < len(outs) {
			ierr = outs[i].Err
		}
		recs[i] = x.outcome1(opRef(doc, "rank", e.Label), ActionRank, keys[i], ierr, "ranking "+keys[i])
		ok[i] = recs[i].Outcome == OutcomeCommitted
	}
	x.record(ctx, nil, recs, false)
	for _, r := range recs {
		x.failOn(r, "ranking "+r.Key)
	}
	return keys, ok
}

func chunked(items []endpoint) [][]endpoint {
	var out [][]endpoint
	for start := 0; start < len(items); start += MaxBatch {
		out = append(out, items[start:min(start+MaxBatch, len(items))])
	}
	return out
}

// ranked reads back whether keys now sit, in order, right before/after
// anchor (as far as their ranks show).
func (x *execution) ranked(ctx context.Context, keys []string, anchor string, before bool) bool {
	seq := slices.Clone(keys)
	if before {
		seq = append(seq, anchor)
	} else {
		seq = append([]string{anchor}, seq...)
	}
	last := ""
	for _, k := range seq {
		w, err := x.s.p.Get(context.WithoutCancel(ctx), k)
		if err != nil || w.Rank == "" || w.Rank <= last {
			return false
		}
		last = w.Rank
	}
	return true
}

// structureDetails adds the structure writes to a partial report and
// counts them in t (apart from the items: they are not items).
func (x *execution) structureDetails(details *[]Detail, t *tally) {
	for _, r := range x.structureRows() {
		d := Detail{Item: string(r.ref)}
		if oc, ok := x.outcome[r.ref]; ok {
			d.Outcome, d.Code, d.Message, d.Key = oc.Outcome, oc.Code, oc.Message, oc.Key
		} else {
			d.Outcome, d.Message = OutcomeUntried, r.label+": not attempted, the commit stopped before reaching it"
		}
		if d.Outcome == OutcomeCommitted {
			d.Message = r.label
		}
		t.add(d.Outcome)
		*details = append(*details, d)
	}
}

// structureCounts counts the committed structure writes.
func (x *execution) structureCounts(c *CommitCounts) {
	for _, r := range x.structureRows() {
		if oc, ok := x.outcome[r.ref]; !ok || oc.Outcome != OutcomeCommitted {
			continue
		}
		switch r.action {
		case ActionLink:
			c.Linked++
		case ActionUnlink:
			c.Unlinked++
		case ActionSprint:
			c.Sprinted++
		case ActionRank:
			c.Ranked++
		}
	}
}
