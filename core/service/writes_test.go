package service_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// writesDoc adopts an existing issue (DEMO-1), creates a story and a
// sub-task, links two dependencies, moves a story into a sprint and ranks
// the new story after the adopted one.
const writesDoc = `---
id: shop
---
### Story s-1: Pay
Key: DEMO-1

### Story s-2: Save the address
Depends on: s-1
Sprint: DEMO Sprint 2

#### Sub-task t-1: Migrate the table

### Story s-3: Receipt
Blocks: s-2
`

// TestPlanWritesAreWhatTheCommitWrites: the list of writes of a stored
// plan names every write the commit then records, and nothing else — by
// action and by the outcome's reference — with counts by kind.
func TestPlanWritesAreWhatTheCommitWrites(t *testing.T) {
	e := newEnv(t)
	e.svc = e.ranked()
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay (old)"})
	pre := e.preview(writesDoc)
	w := pre.Writes
	var got []string
	for _, c := range w.Counts {
		got = append(got, c.Text)
	}
	want := []string{"adopt 1 existing issue", "create 3 items", "add 2 dependency links", "move 1 item into a sprint", "place 2 items in the backlog order"}
	if !slices.Equal(got, want) || w.Total != 9 || len(w.Writes) != 9 {
		t.Fatalf("counts %q, total %d, %d writes; want %q, 9", got, w.Total, len(w.Writes), want)
	}
	lines := map[string]bool{}
	for _, pw := range w.Writes {
		lines[string(pw.Action)+" "+pw.Text] = true
	}
	for _, l := range []string{
		`adopt story s-1 "Pay" (DEMO-1): its reference and the document's content are written to it`,
		`create story s-2 "Save the address"`,
		`create sub-task t-1 "Migrate the table" under story s-2`,
		`link s-2 depends on s-1 (DEMO-1): s-2 is blocked by s-1`,
		`link s-2 depends on s-3: s-2 is blocked by s-3`,
		`sprint s-2 into sprint DEMO Sprint 2`,
		`rank s-2 after s-1 (DEMO-1) in the backlog order`,
		`rank s-3 after s-2 in the backlog order`,
	} {
		if !lines[l] {
			t.Errorf("the list of writes lacks %q:\n%s", l, strings.Join(slices.Sorted(maps.Keys(lines)), "\n"))
		}
	}
	cr := e.commit(pre.PreviewHandle, "k")
	c := cr.Counts
	if c.Adopted != 1 || c.Created != 3 || c.Linked != 2 || c.Sprinted != 1 || c.Ranked != 2 {
		t.Errorf("commit counts %+v; want what the list counted", c)
	}
	run, found, err := e.st.GetRun(e.ctx, "k")
	if err != nil || !found {
		t.Fatalf("run: %v %v", found, err)
	}
	var recorded, listed []string
	for _, oc := range run.Outcomes {
		if oc.Outcome == core.OutcomeCommitted {
			recorded = append(recorded, string(oc.Action)+" "+string(oc.Reference))
		}
	}
	for _, pw := range w.Writes {
		listed = append(listed, string(pw.Action)+" "+string(service.OutcomeOf(pw)))
	}
	slices.Sort(recorded)
	slices.Sort(listed)
	if !slices.Equal(recorded, listed) {
		t.Errorf("the commit recorded\n%s\nbut the list of writes named\n%s", strings.Join(recorded, "\n"), strings.Join(listed, "\n"))
	}
}
