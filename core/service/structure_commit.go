package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// The commit's structure phases (after epics → stories → sub-tasks):
// links → sprint → rank. Every write is fenced and its outcome recorded;
// a write whose answer never came is read back, never sent again.

// structureRow is one planned structure write of the commit, for outcomes
// and the partial report, and for the list of writes a person confirms
// (writes.go).
type structureRow struct {
	ref    core.Reference // the outcome's reference (synthetic: "<doc>/~link:s-2<-s-1")
	action core.Action
	label  string // the outcome's words: "s-2 depends on s-1"
	item   string // the item it is about, as the document names it
	key    string // its tracker key, when it exists
	text   string // what is written, for the person: "s-2 depends on s-1: s-2 is blocked by s-1"
}

func opRef(doc, kind, label string) core.Reference {
	return core.NewReference(doc, "~"+kind+":"+label)
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

// named is an endpoint as a person reads it: its label, with its key when
// it exists and differs.
func (e endpoint) named() string {
	if e.Key != "" && !strings.EqualFold(e.Key, e.Label) {
		return e.Label + " (" + e.Key + ")"
	}
	return e.Label
}

// rows lists a document's planned structure writes in commit order.
func (ds docStructure) rows() []structureRow {
	sp, doc := ds.Plan, ds.Document
	rows := make([]structureRow, 0, sp.writes()) // (one row a write: made at its size)
	for _, op := range sp.Links {
		l := op.Blocked.Label + "<-" + op.Blocker.Label
		rows = append(rows, structureRow{opRef(doc, "link", l), ActionLink, op.Blocked.Label + " depends on " + op.Blocker.Label,
			op.Blocked.Label, op.Blocked.Key, fmt.Sprintf("%s depends on %s: %s is blocked by %s", op.Blocked.named(), op.Blocker.named(), op.Blocked.Label, op.Blocker.Label)})
	}
	for _, op := range sp.Unlinks {
		l := op.Blocked.Label + "<-" + op.Blocker.Label
		rows = append(rows, structureRow{opRef(doc, "unlink", l), ActionUnlink, "link " + op.Blocked.Label + " depends on " + op.Blocker.Label + " removed",
			op.Blocked.Label, op.Blocked.Key, fmt.Sprintf("%s no longer depends on %s (the link DevWorkWire made is removed)", op.Blocked.named(), op.Blocker.named())})
	}
	for _, op := range sp.Sprints {
		for _, it := range op.Items {
			rows = append(rows, structureRow{opRef(doc, "sprint", it.Label), ActionSprint, it.Label + " into sprint " + op.Sprint,
				it.Label, it.Key, fmt.Sprintf("%s into sprint %s", it.named(), op.Sprint)})
		}
	}
	for _, op := range sp.Ranks {
		where := "after"
		if op.Before {
			where = "before"
		}
		anchor := op.Anchor
		for _, it := range op.Items {
			rows = append(rows, structureRow{opRef(doc, "rank", it.Label), ActionRank, it.Label + " ranked",
				it.Label, it.Key, it.named() + " " + where + " " + anchor.named() + " in the backlog order"})
			if !op.Before {
				anchor = it // placed in order: each right after the one before it
			}
		}
	}
	return rows
}

// structureUnsupported stops the run before any write when the plan has
// structure the provider cannot write.
func (x *execution) structureUnsupported() bool {
	if _, ok := x.s.p.(core.StructureProvider); ok {
		return false
	}
	for _, ds := range x.pl.structures() {
		if !ds.Plan.empty() {
			x.mu.Lock()
			x.stop, x.why = core.Errorf(core.CodeInternal, "the tracker provider cannot write the document's structure"), "the tracker provider cannot write the document's structure"
			x.mu.Unlock()
			return true
		}
	}
	return false
}

// structureSteps are a document's structure writes as steps of the
// commit (parallel.go) — links, sprint moves, rank moves, each waiting
// for the items it names — and what to do once every step has ended (read
// the links back and record them).
func (x *execution) structureSteps(ds docStructure) ([]*step, func(context.Context)) {
	sp, _ := x.s.p.(core.StructureProvider)
	if ds.Plan.empty() || sp == nil {
		return nil, func(context.Context) {}
	}
	steps, finish := x.links(sp, ds)
	steps = append(steps, x.sprints(sp, ds)...)
	for _, op := range ds.Plan.Ranks {
		steps = append(steps, x.rankSteps(sp, ds.Document, op)...)
	}
	for _, s := range steps {
		s.structure = true
	}
	return steps, finish
}

// needs are the items of ends this commit writes.
func (x *execution) needs(ends ...endpoint) []core.Reference {
	var out []core.Reference
	for _, e := range ends {
		out = x.need(out, e.Ref)
	}
	return out
}

func (x *execution) outcome1(ref core.Reference, action core.Action, key string, err error, what string) core.ItemOutcome {
	rec := core.ItemOutcome{Reference: ref, Action: action, Key: key, Outcome: core.OutcomeCommitted}
	if err != nil {
		ae := core.AsError(err)
		rec.Code = ae.Code
		if core.IsOutcomeUnknown(err) {
			rec.Outcome = core.OutcomeUnknown
			rec.Message = fmt.Sprintf("%s may or may not have been applied (%s: %s); it was not sent again: run the import preview again, which shows whether it is in the tracker.", what, ae.Code, strings.TrimSuffix(ae.Message, "."))
		} else {
			rec.Outcome, rec.Message = core.OutcomeFailed, ae.Message
		}
	}
	return rec
}

// fail stops the run at the first failed or unknown structure write.
func (x *execution) failOn(rec core.ItemOutcome, what string) {
	if rec.Outcome == core.OutcomeCommitted {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stop == nil {
		x.stop = core.Errorf(rec.Code, "%s", rec.Message)
		state := "failed"
		if rec.Outcome == core.OutcomeUnknown {
			state = "has an unknown outcome"
		}
		x.why = fmt.Sprintf("%s %s (%s)", what, state, rec.Code)
	}
}

// links adds and removes dependencies (each link once both its ends are
// written); once every step has ended, finish reads back the ones whose
// answer never came and records which links DevWorkWire made.
func (x *execution) links(sp core.StructureProvider, ds docStructure) ([]*step, func(context.Context)) {
	spl, doc := ds.Plan, ds.Document
	results := make([]*linkWrite, 0, len(spl.Links)+len(spl.Unlinks))
	var steps []*step
	for _, op := range spl.Links {
		p := &linkWrite{op: op, ref: opRef(doc, "link", op.Blocked.Label+"<-"+op.Blocker.Label), add: true, err: errUntried}
		results = append(results, p)
		steps = append(steps, x.linkStep(sp, p, x.needs(op.Blocked, op.Blocker), "linking "+op.Blocked.Label+" to "+op.Blocker.Label, func(ctx context.Context) error {
			return sp.AddDependency(ctx, x.endKey(op.Blocked), x.endKey(op.Blocker))
		}))
	}
	for _, op := range spl.Unlinks {
		p := &linkWrite{op: op, ref: opRef(doc, "unlink", op.Blocked.Label+"<-"+op.Blocker.Label), err: errUntried}
		results = append(results, p)
		steps = append(steps, x.linkStep(sp, p, nil, "removing the link "+op.Blocked.Label+" depends on "+op.Blocker.Label, func(ctx context.Context) error {
			err := sp.RemoveDependency(ctx, op.ID)
			if core.ErrorCode(err) == core.CodeWorkItemNotFound {
				err = nil // already gone
			}
			return err
		}))
	}
	finish := func(ctx context.Context) {
		if len(results) == 0 && len(spl.Made) == 0 {
			return
		}
		// Read back: the ids of the links made, and the truth of every
		// write whose answer never came.
		var keys []string
		for _, p := range results {
			if p.err != errUntried {
				keys = append(keys, x.endKey(p.op.Blocked), x.endKey(p.op.Blocker))
			}
		}
		for _, m := range spl.Made {
			keys = append(keys, m.Blocked)
		}
		var now []core.Dependency
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
		var recs []core.ItemOutcome
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
			if core.IsOutcomeUnknown(p.err) && readErr == nil {
				_, exists := has(blocked, blocker)
				if exists == p.add {
					p.err = nil // it did apply
				}
			}
			rec := x.outcome1(p.ref, action, blocked, p.err, what)
			recs = append(recs, rec)
			x.failOn(rec, what)
			if rec.Outcome == core.OutcomeCommitted && p.add {
				if id, ok := has(blocked, blocker); ok {
					made = append(made, core.Dependency{ID: id, Blocked: blocked, Blocker: blocker})
				}
			}
			if !p.add && rec.Outcome == core.OutcomeCommitted {
				made = slices.DeleteFunc(made, func(m core.Dependency) bool { return m.ID == p.op.ID })
			}
		}
		if readErr != nil {
			x.o.log.Warn("could not read the links back", "code", core.ErrorCode(readErr))
		}
		b, _ := json.Marshal(made)
		index := []core.IndexEntry{{Scope: x.pl.Head.Scope, Reference: core.NewReference(doc, linksItem), Digest: "links:" + string(b), UpdatedAt: core.UTCSecond(x.s.now())}}
		x.record(ctx, index, recs, false)
	}
	return steps, finish
}

// linkWrite is one planned link added (add) or removed, and how its write
// ended (errUntried until it is sent).
type linkWrite struct {
	op  linkOp
	ref core.Reference
	add bool
	err error
}

// linkStep is the step of one link write: fenced, sent, read back at once
// when its answer never came (it applied when the link is then there, for
// an add, or gone, for a removal), and the run stopped when it failed or
// stays unknown.
func (x *execution) linkStep(sp core.StructureProvider, p *linkWrite, needs []core.Reference, what string, send func(context.Context) error) *step {
	return &step{needs: needs, write: func(ctx context.Context) {
		// Its outcome is recorded with the others' once every step has
		// ended, after the read back (links).
		end := x.write(ctx, "checking the commit lock before "+what, false, writeStep{
			send: func(ctx context.Context) error {
				err := send(ctx)
				if linked, read := x.linked(ctx, sp, err, x.endKey(p.op.Blocked), x.endKey(p.op.Blocker)); read && linked == p.add {
					err = nil // it did apply
				}
				return err
			},
			outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
				if sent {
					x.mu.Lock()
					p.err = err
					x.mu.Unlock()
				}
				return nil, nil
			},
		})
		if end.sent && end.err != nil {
			action := ActionLink
			if !p.add {
				action = ActionUnlink
			}
			x.failOn(x.outcome1(p.ref, action, "", end.err, what), what)
		}
	}}
}

// linked reads back, after a link write whose answer never came (err: a
// read, never a resend), whether blocked is linked to blocker now; read
// is false when there was nothing to read back or the read failed.
func (x *execution) linked(ctx context.Context, sp core.StructureProvider, err error, blocked, blocker string) (linked, read bool) {
	if !core.IsOutcomeUnknown(err) {
		return false, false
	}
	now, rerr := sp.Dependencies(context.WithoutCancel(ctx), []string{blocked, blocker})
	return slices.ContainsFunc(now, func(d core.Dependency) bool {
		return strings.EqualFold(d.Blocked, blocked) && strings.EqualFold(d.Blocker, blocker)
	}), rerr == nil
}

// errUntried marks a write the run stopped before.
var errUntried = core.Errorf(core.CodeInternal, "not attempted")

// sprints moves the items into their sprints, 50 a request, each request
// once its items are written.
func (x *execution) sprints(sp core.StructureProvider, ds docStructure) []*step {
	doc := ds.Document
	var steps []*step
	for _, op := range ds.Plan.Sprints {
		for _, batch := range chunked(op.Items, core.MaxBatch) {
			// A sub-task is in its parent's sprint: the move waits for the
			// sub-tasks this commit creates under the items too.
			needs := x.needs(batch...)
			for _, e := range batch {
				for _, c := range x.children[e.Ref] {
					needs = x.need(needs, c)
				}
			}
			steps = append(steps, &step{needs: needs, write: func(ctx context.Context) {
				keys := make([]string, len(batch))
				for i, e := range batch {
					keys[i] = x.endKey(e)
				}
				recs := x.structureWrite(ctx, "a sprint move",
					func(ctx context.Context) error { return sp.MoveToSprint(ctx, op.SprintID, keys) },
					func(ctx context.Context) bool { return x.inSprint(ctx, keys, op.Sprint) },
					func(err error) []core.ItemOutcome {
						recs := make([]core.ItemOutcome, len(batch))
						for i, e := range batch {
							recs[i] = x.outcome1(opRef(doc, "sprint", e.Label), ActionSprint, keys[i], err, "moving "+keys[i]+" into sprint "+op.Sprint)
						}
						return recs
					})
				if recs != nil {
					x.failOn(recs[0], "moving items into sprint "+op.Sprint)
				}
			}})
		}
	}
	return steps
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

// rankChunks plans a rank run of more than 2 × MaxBatch items in two
// rounds: round1, the items round 1 places, in order, next to the anchor,
// and chunks, each a head plus up to MaxBatch more items (before an
// anchor: the chunk's last item is its head) that round 2 places next to
// the head. A run of up to MaxBatch² items is k = ceil(n/MaxBatch)
// requests, the fewest there can be: the chunk next to the anchor (of
// max(1, n − (MaxBatch+1)(k−1)) items) goes whole into round 1 with the
// other chunks' heads (at most MaxBatch items in all), and each other
// chunk is one request. A longer run is cut into chunks of MaxBatch+1
// items whose heads alone make round 1. A shorter run has neither: it is
// placed in a chain, one request per MaxBatch items, each after the last
// (no more round trips than two rounds would take, and a request fewer).
func rankChunks(op rankOp) (round1 []endpoint, chunks [][]endpoint) {
	n := len(op.Items)
	if n <= 2*core.MaxBatch {
		return nil, nil
	}
	var near []endpoint // the chunk next to the anchor, whole in round 1
	rest := op.Items
	if k := (n + core.MaxBatch - 1) / core.MaxBatch; k <= core.MaxBatch {
		s0 := max(1, n-(core.MaxBatch+1)*(k-1))
		if op.Before {
			near, rest = op.Items[n-s0:], op.Items[:n-s0]
		} else {
			near, rest = op.Items[:s0], op.Items[s0:]
		}
	}
	chunks = chunked(rest, core.MaxBatch+1)
	var heads []endpoint
	for _, c := range chunks {
		if op.Before {
			heads = append(heads, c[len(c)-1])
		} else {
			heads = append(heads, c[0])
		}
	}
	if op.Before {
		return append(heads, near...), chunks
	}
	return append(slices.Clone(near), heads...), chunks
}

// rankHeads are the items round 1 of every long rank run of the plan
// places: their creates go first (headsFirst).
func (x *execution) rankHeads() map[core.Reference]bool {
	heads := map[core.Reference]bool{}
	for _, ds := range x.pl.structures() {
		if ds.Plan == nil {
			continue
		}
		for _, op := range ds.Plan.Ranks {
			r1, _ := rankChunks(op)
			for _, h := range r1 {
				heads[h.Ref] = true
			}
		}
	}
	return heads
}

// rankSteps places one run. A run of up to 2 × MaxBatch items is a chain
// of requests of up to MaxBatch items, each placed after (before) the one
// before it. A longer run is placed in two rounds, as
// rankChunks plans: round 1 places its items, in order, after (before)
// the anchor, MaxBatch a request, chained only when there are more than
// that; round 2 places every chunk's rest right after its own head
// (before its own tail), each chunk as soon as its items are written and
// round 1 has ended (a head can be the anchor of round 1's next request). Inserts next to distinct fixed anchors commute, so the
// order is the document's whatever order round 2's answers come in. A
// chunk whose head was not placed is not sent; fail-fast as everywhere.
func (x *execution) rankSteps(sp core.StructureProvider, doc string, op rankOp) []*step {
	chain, chunks := rankChunks(op)
	if chunks == nil {
		chain = op.Items
	}
	// A chain: each request anchored on the previous one's end.
	batches := chunked(chain, core.MaxBatch)
	if op.Before {
		slices.Reverse(batches)
	}
	placed := map[string]bool{}
	var steps []*step
	var prev *step
	for i, batch := range batches {
		s := &step{needs: x.needs(append([]endpoint{op.Anchor}, batch...)...)}
		if prev != nil {
			s.after = []*step{prev}
		}
		s.write = func(ctx context.Context) {
			anchor := x.endKey(op.Anchor)
			if i > 0 { // the previous request's end
				if p := batches[i-1]; op.Before {
					anchor = x.endKey(p[0])
				} else {
					anchor = x.endKey(p[len(p)-1])
				}
			}
			keys, ok := x.rankBatch(ctx, sp, doc, batch, anchor, op.Before)
			x.mu.Lock()
			for i, k := range keys {
				placed[k] = ok[i]
			}
			x.mu.Unlock()
		}
		steps, prev = append(steps, s), s
	}
	// Round 2: every chunk's rest next to its own head.
	round1 := slices.Clone(steps)
	for _, c := range chunks {
		rest, head := c[1:], c[0]
		if op.Before {
			rest, head = c[:len(c)-1], c[len(c)-1]
		}
		if len(rest) == 0 {
			continue
		}
		steps = append(steps, &step{after: round1, needs: x.needs(rest...), write: func(ctx context.Context) {
			h := x.endKey(head)
			x.mu.Lock()
			ok := placed[h]
			x.mu.Unlock()
			if !ok {
				return
			}
			x.rankBatch(ctx, sp, doc, rest, h, op.Before)
		}})
	}
	return steps
}

// rankBatch sends one rank request (≤ MaxBatch items), fenced, and
// records its outcomes; an answer that never came is read back, never
// resent. It returns the items' keys and which of them were placed
// (none when it was not sent).
func (x *execution) rankBatch(ctx context.Context, sp core.StructureProvider, doc string, batch []endpoint, anchor string, before bool) ([]string, []bool) {
	keys := make([]string, len(batch))
	for i, e := range batch {
		keys[i] = x.endKey(e)
	}
	var outs []core.RankOutcome
	ok := make([]bool, len(batch))
	recs := x.structureWrite(ctx, "ranking",
		func(ctx context.Context) (err error) {
			outs, err = sp.Rank(ctx, keys, anchor, before)
			return err
		},
		func(ctx context.Context) bool {
			if x.ranked(ctx, keys, anchor, before) {
				outs = nil
				return true
			}
			return false
		},
		func(err error) []core.ItemOutcome {
			recs := make([]core.ItemOutcome, len(batch))
			for i, e := range batch {
				ierr := err
				if ierr == nil && i < len(outs) {
					ierr = outs[i].Err
				}
				recs[i] = x.outcome1(opRef(doc, "rank", e.Label), ActionRank, keys[i], ierr, "ranking "+keys[i])
				ok[i] = recs[i].Outcome == core.OutcomeCommitted
			}
			return recs
		})
	for _, r := range recs {
		x.failOn(r, "ranking "+r.Key)
	}
	return keys, ok
}

// structureWrite is one sprint move or rank request (what): fenced, sent,
// read back when its answer never came (applied says whether it took
// effect: a read, never a resend), and its outcomes recorded. It returns
// those outcomes (none when it was not sent).
func (x *execution) structureWrite(ctx context.Context, what string, send func(context.Context) error, applied func(context.Context) bool, outcomes func(err error) []core.ItemOutcome) []core.ItemOutcome {
	var recs []core.ItemOutcome
	x.write(ctx, "checking the commit lock before "+what, false, writeStep{
		send: func(ctx context.Context) error {
			err := send(ctx)
			if core.IsOutcomeUnknown(err) && applied(ctx) {
				err = nil
			}
			return err
		},
		outcome: func(err error, sent bool) ([]core.IndexEntry, []core.ItemOutcome) {
			if !sent {
				return nil, nil
			}
			recs = outcomes(err)
			return nil, recs
		},
	})
	return recs
}

// chunked splits items into runs of up to n.
func chunked(items []endpoint, n int) [][]endpoint {
	var out [][]endpoint
	for start := 0; start < len(items); start += n {
		out = append(out, items[start:min(start+n, len(items))])
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
func (x *execution) structureDetails(details *[]core.Detail, t *tally) {
	for _, r := range x.structureRows() {
		d := core.Detail{Item: string(r.ref)}
		if oc, ok := x.outcome[r.ref]; ok {
			d.Outcome, d.Code, d.Message, d.Key = oc.Outcome, oc.Code, oc.Message, oc.Key
		} else {
			d.Outcome, d.Message = core.OutcomeUntried, r.label+": not attempted, the commit stopped before reaching it"
		}
		if d.Outcome == core.OutcomeCommitted {
			d.Message = r.label
		}
		t.add(d.Outcome)
		*details = append(*details, d)
	}
}

// structureCounts counts the committed structure writes.
func (x *execution) structureCounts(c *CommitCounts) {
	for _, r := range x.structureRows() {
		if oc, ok := x.outcome[r.ref]; !ok || oc.Outcome != core.OutcomeCommitted {
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
