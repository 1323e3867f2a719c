package service_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

var words = []string{"guest", "checkout", "receipt", "address", "card", "refund", "search", "basket", "login", "export", "audit", "mobile"}

func drawText(t *rapid.T, label string, min, max int) string {
	n := rapid.IntRange(min, max).Draw(t, label+"-len")
	out := make([]string, n)
	for i := range out {
		out[i] = rapid.SampledFrom(words).Draw(t, label)
	}
	return strings.Join(out, " ")
}

// model is the document as the test holds it.
type model struct {
	items []docItem
	next  int
}

func (m *model) epics() []string {
	var out []string
	for _, it := range m.items {
		if it.kind == "epic" {
			out = append(out, it.id)
		}
	}
	return out
}

func (m *model) add(t *rapid.T) {
	m.next++
	it := docItem{title: strings.ToUpper(drawText(t, "title", 1, 1)[:1]) + drawText(t, "title", 1, 4), desc: drawText(t, "desc", 0, 6)}
	if it.desc != "" {
		it.desc = strings.ToUpper(it.desc[:1]) + it.desc[1:] + "."
	}
	for range rapid.IntRange(0, 2).Draw(t, "acs") {
		it.ac = append(it.ac, drawText(t, "ac", 1, 3))
	}
	eps := m.epics()
	if len(eps) == 0 || rapid.IntRange(0, 3).Draw(t, "kind") == 0 {
		it.kind, it.id = "epic", fmt.Sprintf("e-%d", m.next)
	} else {
		it.kind, it.id = "story", fmt.Sprintf("s-%d", m.next)
		if rapid.IntRange(0, 4).Draw(t, "loose") > 0 {
			it.epic = rapid.SampledFrom(eps).Draw(t, "epic")
		}
	}
	m.items = append(m.items, it)
}

func (m *model) edit(t *rapid.T) {
	i := rapid.IntRange(0, len(m.items)-1).Draw(t, "edit-item")
	it := &m.items[i]
	switch rapid.IntRange(0, 3).Draw(t, "edit-what") {
	case 0:
		it.title = "Renamed " + drawText(t, "title", 1, 3)
	case 1:
		it.desc = "Changed " + drawText(t, "desc", 1, 4) + "."
	case 2:
		it.ac = append(slices.Clone(it.ac), drawText(t, "ac", 1, 2))
	case 3:
		if it.kind == "story" {
			eps := append(m.epics(), "")
			it.epic = rapid.SampledFrom(eps).Draw(t, "move-to")
		}
	}
}

func (m *model) doc(takeAll bool) string {
	items := slices.Clone(m.items)
	for i := range items {
		items[i].take = takeAll
	}
	return markdown("prop", items...)
}

// TestPropertyNoDuplicatesAndConvergence drives random documents, random
// edits in the tracker, random injected failures and random process deaths
// through the service, with commits repeated under the same or new keys.
// Invariants: the tracker never holds two items with one reference,
// previews never write, replays never write; and after a final clean
// preview + commit the tracker matches the document exactly.
func TestPropertyNoDuplicatesAndConvergence(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := newClock()
		p := fakeprovider.New(fakeprovider.Options{Now: c.Now, SearchLag: rapid.Bool().Draw(rt, "search-lag")})
		st := memstore.New(memstore.Options{Now: c.Now})
		e := &env{ctx: t.Context(), p: p, st: st, clock: c, logs: &streamtest.Buffer{}}
		e.svc = e.service(p)
		m := &model{}
		personEdited := map[string]bool{} // keys a person edited and DevWorkWire has not overwritten since
		for range rapid.IntRange(1, 6).Draw(rt, "initial") {
			m.add(rt)
		}
		noDup := func(when string) {
			seen := map[core.Reference]string{}
			for _, w := range p.Items() {
				if k, dup := seen[w.Reference]; dup {
					rt.Fatalf("%s: %s and %s both hold reference %s", when, k, w.Key, w.Reference)
				}
				seen[w.Reference] = w.Key
			}
		}
		// Search lag is bounded: search catches up within the service's
		// search-lag window. Time passes between rounds; whenever a window
		// has passed since search last caught up, it catches up.
		lastSettle := c.Now()
		settle := func() { p.Settle(); lastSettle = c.Now() }
		restart := func() { // process death: a new service over the reopened store
			e.st = st.Reopen(memstore.Options{Now: c.Now})
			e.svc = e.service(p)
			if rapid.Bool().Draw(rt, "settle-on-restart") {
				settle() // by the time someone looks again, search may have caught up
			}
		}

		rounds := rapid.IntRange(1, 6).Draw(rt, "rounds")
		for round := range rounds {
			c.Advance(rapid.SampledFrom([]time.Duration{0, time.Minute, 4 * time.Minute, core.DefaultSearchLagWindow + time.Minute}).Draw(rt, "time-passes"))
			if c.Now().Sub(lastSettle) >= core.DefaultSearchLagWindow {
				settle()
			}
			// The document evolves, and people edit the tracker.
			for range rapid.IntRange(0, 3).Draw(rt, "doc-changes") {
				if rapid.Bool().Draw(rt, "add-or-edit") {
					m.add(rt)
				} else {
					m.edit(rt)
				}
			}
			if items := p.Items(); len(items) > 0 {
				for range rapid.IntRange(0, 2).Draw(rt, "person-edits") {
					w := rapid.SampledFrom(items).Draw(rt, "person-edit")
					if rapid.Bool().Draw(rt, "edit-or-status") {
						_ = p.EditTitle(w.Key, "Person "+drawText(rt, "title", 1, 2))
						personEdited[w.Key] = true
					} else {
						_ = p.SetStatus(w.Key, rapid.SampledFrom([]core.Status{core.StatusTodo, core.StatusInProgress, core.StatusDone}).Draw(rt, "status"))
					}
				}
			}

			writes := p.Writes()
			take := rapid.Bool().Draw(rt, "take")
			pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "prop.md", Data: []byte(m.doc(take))})
			if err != nil {
				rt.Fatalf("round %d preview: %v", round, err)
			}
			if p.Writes() != writes {
				rt.Fatalf("preview wrote")
			}
			toWrite := pre.Counts.Create + pre.Counts.Update
			// What a person edited (the title) must come out of the commit
			// untouched unless the document takes its version deliberately;
			// the item's other parts may take the document's changes (the
			// three-way merge per part, contentmerge.go).
			drifted := map[string]core.WorkItem{}
			if !take {
				for _, w := range p.Items() {
					if personEdited[w.Key] {
						drifted[w.Key] = w
					}
				}
			}
			docOf := map[core.Reference]docItem{}
			for _, it := range m.items {
				docOf[core.Reference("prop/"+it.id)] = it
			}
			untouched := func() {
				for _, w := range p.Items() {
					if d, ok := drifted[w.Key]; ok && (w.Title != d.Title || w.ParentKey != d.ParentKey) {
						rt.Fatalf("round %d: drifted item %s was overwritten", round, w.Key)
					}
					// Its other parts are as they were or the document's.
					if d, ok := drifted[w.Key]; ok {
						doc, inDoc := docOf[w.Reference]
						if w.Description != d.Description && (!inDoc || strings.TrimSpace(w.Description) != doc.desc) {
							rt.Fatalf("round %d: drifted item %s has description %q, neither its own %q nor the document's", round, w.Key, w.Description, d.Description)
						}
						if !slices.Equal(w.AcceptanceCriteria, d.AcceptanceCriteria) && (!inDoc || !slices.Equal(w.AcceptanceCriteria, doc.ac)) {
							rt.Fatalf("round %d: drifted item %s has criteria %q, neither its own %q nor the document's", round, w.Key, w.AcceptanceCriteria, d.AcceptanceCriteria)
						}
					}
				}
			}

			// Maybe the tracker changes between preview and commit.
			staleEdit := false
			if items := p.Items(); len(items) > 0 && rapid.IntRange(0, 5).Draw(rt, "stale") == 0 {
				_ = p.SetStatus(rapid.SampledFrom(items).Draw(rt, "stale-item").Key, core.StatusDone)
				staleEdit = true
			}

			// Scripted trouble.
			crashy := false
			svc := e.svc
			switch rapid.IntRange(0, 7).Draw(rt, "fault") {
			case 1:
				p.FailItem(rapid.IntRange(1, toWrite+1).Draw(rt, "at"), fakeprovider.ItemFail, nil)
			case 2:
				p.FailItem(rapid.IntRange(1, toWrite+1).Draw(rt, "at"), fakeprovider.ItemLost, nil)
			case 3:
				p.FailItem(rapid.IntRange(1, toWrite+1).Draw(rt, "at"), rapid.SampledFrom([]fakeprovider.ItemFaultKind{fakeprovider.ItemCrashBefore, fakeprovider.ItemCrashAfter}).Draw(rt, "crash"), nil)
				crashy = true
			case 4:
				p.FailCall(rapid.SampledFrom([]fakeprovider.Op{fakeprovider.OpCreate, fakeprovider.OpUpdate}).Draw(rt, "op"), rapid.IntRange(1, 3).Draw(rt, "call"),
					core.Errorf(core.CodeJiraUnavailable, "Jira is unavailable"))
			case 5:
				p.CrashAt(fakeprovider.OpUpdate, rapid.IntRange(1, 3).Draw(rt, "call"), rapid.Bool().Draw(rt, "after"))
				crashy = true
			case 6:
				// The state store fails while the commit runs.
				svc = service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: &flakyStore{Store: e.st, failFrom: rapid.IntRange(1, toWrite+1).Draw(rt, "store-fault")}, Now: c.Now})
			}

			itemsBefore := len(p.Items())
			key := fmt.Sprintf("key-%d", round)
			in := service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: key}
			var res service.ImportCommitResult
			crashed := false
			func() {
				defer func() {
					if r := recover(); r != nil {
						if r != fakeprovider.ErrCrash {
							panic(r)
						}
						crashed = true
					}
				}()
				res, err = svc.ImportCommit(e.ctx, in)
			}()
			p.ClearFaults()
			noDup(fmt.Sprintf("round %d commit", round))
			untouched()
			for _, w := range p.Items() {
				if !w.EditedOutside {
					delete(personEdited, w.Key)
				}
			}
			if crashed {
				if !crashy {
					rt.Fatalf("unexpected crash")
				}
				restart()
				writes := p.Writes()
				_, err := e.svc.ImportCommit(e.ctx, in)
				if core.ErrorCode(err) != core.CodeCommitInterrupted {
					rt.Fatalf("same key after a death: %v; want COMMIT_INTERRUPTED", err)
				}
				if p.Writes() != writes {
					rt.Fatalf("COMMIT_INTERRUPTED wrote")
				}
				continue
			}
			code := core.ErrorCode(err)
			switch code {
			case "", core.CodeCommitPartial, core.CodePreviewStale:
			case core.CodeValidationFailed, core.CodeJiraUnavailable, core.CodeInternal:
				// A stop before anything was written carries the
				// failure's own code, never COMMIT_PARTIAL.
				for _, d := range err.(*core.Error).Details {
					if d.Outcome == core.OutcomeCommitted || d.Outcome == core.OutcomeUnknown {
						rt.Fatalf("round %d: %s with a written item: %+v", round, code, d)
					}
				}
				if len(p.Items()) != itemsBefore {
					rt.Fatalf("round %d: %s but the tracker went from %d to %d items", round, code, itemsBefore, len(p.Items()))
				}
			default:
				rt.Fatalf("round %d commit: unexpected %v", round, err)
			}
			if code == core.CodeCommitPartial {
				written := 0
				for _, d := range err.(*core.Error).Details {
					if d.Outcome == core.OutcomeCommitted || d.Outcome == core.OutcomeUnknown {
						written++
					}
				}
				if written == 0 {
					rt.Fatalf("round %d: COMMIT_PARTIAL with nothing written: %v", round, err)
				}
			}
			if code == core.CodePreviewStale && !staleEdit {
				rt.Fatalf("stale without a change: %v", err)
			}
			if code == core.CodeCommitPartial && rapid.Bool().Draw(rt, "settle-after-unknown") {
				settle() // unknown outcomes may be resolved by a later look at once, or not
			}
			if rapid.IntRange(0, 2).Draw(rt, "restart") == 0 {
				restart()
			}
			// Repeats: the same key replays, writing nothing; a new key on
			// a consumed handle is refused.
			if code != core.CodePreviewStale && rapid.Bool().Draw(rt, "repeat") {
				writes := p.Writes()
				again, err2 := e.svc.ImportCommit(e.ctx, in)
				if core.ErrorCode(err2) != code || (err2 == nil && (!again.Replayed || again.Counts != res.Counts)) {
					rt.Fatalf("repeat with the same key: %v / %+v; first was %v", err2, again.Counts, err)
				}
				in.IdempotencyKey = "other-" + key
				if _, err3 := e.svc.ImportCommit(e.ctx, in); core.ErrorCode(err3) != core.CodePreviewNotFound {
					rt.Fatalf("a new key on a consumed handle: %v", err3)
				}
				if p.Writes() != writes {
					rt.Fatalf("repeats wrote")
				}
			}
		}

		// A final clean import, taking the document's version everywhere,
		// once search has caught up and every unknown create's window is
		// over (a create the process died during may never have happened).
		c.Advance(core.DefaultSearchLagWindow)
		settle()
		// The marker takes the document's version of what both sides
		// changed (a person's change of a part the document did not
		// change is kept): the final document changes every title, which
		// is what people edit here, so that it takes them all.
		for i := range m.items {
			m.items[i].title += " (final)"
		}
		final := m.doc(true)
		pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "prop.md", Data: []byte(final)})
		if err != nil {
			rt.Fatalf("final preview: %v", err)
		}
		if _, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true}); err != nil {
			rt.Fatalf("final commit: %v", err)
		}
		noDup("final")
		checkMatches(rt, p, final)
		again, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "prop.md", Data: []byte(m.doc(false))})
		if err != nil || again.Counts.Unchanged != len(m.items) {
			rt.Fatalf("after the final import, a preview plans %+v (%v); want all unchanged", again.Counts, err)
		}
	})
}

// checkMatches asserts the tracker holds exactly the document's items.
func checkMatches(t *rapid.T, p *fakeprovider.Provider, src string) {
	doc, err := plan.Parse("prop.md", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	byRef := map[core.Reference]core.WorkItem{}
	for _, w := range p.Items() {
		byRef[w.Reference] = w
	}
	if len(byRef) != len(doc.Items) {
		t.Fatalf("tracker holds %d referenced items; the document %d", len(byRef), len(doc.Items))
	}
	for _, it := range doc.Items {
		w, ok := byRef[core.NewReference(doc.ID, it.ID)]
		if !ok {
			t.Fatalf("%s is missing from the tracker", it.ID)
		}
		wantParent := ""
		if it.Epic != "" {
			wantParent = byRef[core.NewReference(doc.ID, it.Epic)].Key
		}
		ac := it.AcceptanceCriteria
		if len(ac) == 0 {
			ac = nil
		}
		if w.Title != it.Title || w.Description != it.Description || !slices.Equal(w.AcceptanceCriteria, ac) ||
			string(w.Kind) != it.Kind || w.ParentKey != wantParent || w.EditedOutside {
			t.Fatalf("%s differs:\ntracker  %q %q %q %s parent=%q edited=%v\ndocument %q %q %q %s parent=%q",
				it.ID, w.Title, w.Description, w.AcceptanceCriteria, w.Kind, w.ParentKey, w.EditedOutside,
				it.Title, it.Description, ac, it.Kind, wantParent)
		}
	}
}
