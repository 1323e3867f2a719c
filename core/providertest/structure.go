package providertest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// The contract of core.StructureProvider: sub-tasks, dependencies, sprints
// and rank. A provider without the capability skips these tests.

// SprintHarness is the harness capability the sprint test needs: the name
// of a future sprint of the project's board (the tracker's setup, not the
// provider's).
type SprintHarness interface {
	FutureSprint() string
}

var structureTests = []struct {
	name string
	f    func(*testing.T, *suite)
}{
	{"Subtasks", testSubtasks},
	{"Dependencies", testDependencies},
	{"Sprint", testSprint},
	{"Rank", testRank},
}

func (s *suite) structure(t *testing.T) core.StructureProvider {
	t.Helper()
	sp, ok := s.Provider.(core.StructureProvider)
	if !ok {
		t.Skip("the provider has no core.StructureProvider capability")
	}
	return sp
}

func testSubtasks(t *testing.T, s *suite) {
	sp := s.structure(t)
	if err := sp.CheckSubtasks(s.ctx); err != nil {
		t.Fatalf("CheckSubtasks: %v", err)
	}
	story := s.spec(core.KindStory, "s-1", "Save the address", "", "")
	sk := s.create(t, story)[0]
	sub := s.spec(core.KindSubtask, "t-1", "Migration for the address table", story.Reference, sk)
	tk := s.create(t, sub)[0]
	w := s.get(t, tk)
	checkContent(t, w, sub)
	if w.Kind != core.KindSubtask || w.ParentKey != sk {
		t.Errorf("sub-task %s: kind %q parent %q; want subtask under %s", tk, w.Kind, w.ParentKey, sk)
	}
	if st := s.get(t, sk); !slices.ContainsFunc(st.Subtasks, func(l core.Linked) bool { return l.Key == tk && l.Status == core.StatusTodo && l.Title == sub.Title }) {
		t.Errorf("story %s lists sub-tasks %v; want %s %q (todo)", sk, st.Subtasks, tk, sub.Title)
	}
	// Found by reference like any item.
	got, err := s.Provider.Lookup(s.ctx, []core.Reference{sub.Reference}, map[core.Reference]string{sub.Reference: tk})
	if err != nil || got[sub.Reference].Key != tk {
		t.Errorf("Lookup of the sub-task: %v, %v", keyList(got), err)
	}
	// A sub-task without a parent story is refused, not created.
	orphan := s.spec(core.KindSubtask, "t-2", "Orphan", "", "")
	out, err := s.Provider.Create(s.ctx, []core.ItemSpec{orphan})
	if err == nil && (len(out) != 1 || out[0].Err == nil || out[0].Key != "") {
		t.Errorf("Create of a sub-task without parent: %+v; want a refusal", out)
	}
}

// depsBetween returns the dependencies among keys as "blocked<-blocker".
func depsBetween(t *testing.T, s *suite, sp core.StructureProvider, keys ...string) ([]string, []core.Dependency) {
	t.Helper()
	deps, err := sp.Dependencies(s.ctx, keys)
	if err != nil {
		t.Fatalf("Dependencies(%v): %v", keys, err)
	}
	var out []string
	for _, d := range deps {
		if d.ID == "" {
			t.Errorf("dependency %+v has no id", d)
		}
		out = append(out, d.Blocked+"<-"+d.Blocker)
	}
	slices.Sort(out)
	return out, deps
}

func testDependencies(t *testing.T, s *suite) {
	sp := s.structure(t)
	keys := s.create(t, s.spec(core.KindStory, "s-1", "Blocker", "", ""), s.spec(core.KindStory, "s-2", "Blocked", "", ""), s.spec(core.KindStory, "s-3", "Other", "", ""))
	a, b, c := keys[0], keys[1], keys[2]
	before := s.get(t, b).Fingerprint
	if err := sp.AddDependency(s.ctx, b, a); err != nil {
		t.Fatalf("AddDependency(%s blocked by %s): %v", b, a, err)
	}
	wb, wa := s.get(t, b), s.get(t, a)
	// Each side names the other with its title, read with the item.
	if len(wb.BlockedBy) != 1 || wb.BlockedBy[0].Key != a || wb.BlockedBy[0].Status != core.StatusTodo || wb.BlockedBy[0].Title != "Blocker" {
		t.Errorf("%s BlockedBy = %v; want %s \"Blocker\" (todo)", b, wb.BlockedBy, a)
	}
	if len(wa.Blocks) != 1 || wa.Blocks[0].Key != b || wa.Blocks[0].Title != "Blocked" {
		t.Errorf("%s Blocks = %v; want %s \"Blocked\"", a, wa.Blocks, b)
	}
	if wb.Fingerprint == before {
		t.Errorf("%s: Fingerprint unchanged by a new dependency (the stale check would miss it)", b)
	}
	// A duplicate adds nothing.
	if err := sp.AddDependency(s.ctx, b, a); err != nil {
		t.Fatalf("AddDependency again: %v", err)
	}
	got, deps := depsBetween(t, s, sp, a)
	if want := []string{b + "<-" + a}; !slices.Equal(got, want) {
		t.Fatalf("Dependencies(%s) = %v; want %v", a, got, want)
	}
	// One a person made is read too, from either end.
	if err := s.Link(s.ctx, c, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := depsBetween(t, s, sp, b); !slices.Equal(got, []string{b + "<-" + a, c + "<-" + b}) {
		t.Errorf("Dependencies(%s) = %v; want both links", b, got)
	}
	if err := sp.RemoveDependency(s.ctx, deps[0].ID); err != nil {
		t.Fatalf("RemoveDependency(%s): %v", deps[0].ID, err)
	}
	if got, _ := depsBetween(t, s, sp, a, b); !slices.Equal(got, []string{c + "<-" + b}) {
		t.Errorf("after removal: %v; want only the person's link", got)
	}
	if w := s.get(t, b); len(w.BlockedBy) != 0 {
		t.Errorf("%s BlockedBy after removal = %v", b, w.BlockedBy)
	}
	wantCode(t, "RemoveDependency of a removed link", sp.RemoveDependency(s.ctx, deps[0].ID), core.CodeWorkItemNotFound)
}

func testSprint(t *testing.T, s *suite) {
	sp := s.structure(t)
	h, ok := s.Harness.(SprintHarness)
	if !ok {
		t.Skip("the harness names no future sprint (SprintHarness)")
	}
	name := h.FutureSprint()
	sprints, err := sp.Sprints(s.ctx, name)
	if err != nil || len(sprints) != 1 || sprints[0].State != core.SprintFuture || sprints[0].ID == "" {
		t.Fatalf("Sprints(%q) = %+v, %v; want one future sprint", name, sprints, err)
	}
	if none, err := sp.Sprints(s.ctx, "No such sprint "+randHex(3)); err != nil || len(none) != 0 {
		t.Errorf("Sprints(unknown) = %+v, %v; want none", none, err)
	}
	story := s.spec(core.KindStory, "s-1", "In a sprint", "", "")
	sk := s.create(t, story)[0]
	tk := s.create(t, s.spec(core.KindSubtask, "t-1", "Its sub-task", story.Reference, sk))[0]
	before := s.get(t, sk).Fingerprint
	if err := sp.MoveToSprint(s.ctx, sprints[0].ID, []string{sk}); err != nil {
		t.Fatalf("MoveToSprint: %v", err)
	}
	w := s.get(t, sk)
	if w.Sprint != sprints[0].Name {
		t.Errorf("%s Sprint = %q; want %q", sk, w.Sprint, sprints[0].Name)
	}
	if w.Fingerprint == before {
		t.Errorf("%s: Fingerprint unchanged by a sprint move", sk)
	}
	if st := s.get(t, tk); st.Sprint != sprints[0].Name {
		t.Errorf("sub-task %s Sprint = %q; want its story's, %q", tk, st.Sprint, sprints[0].Name)
	}
}

func testRank(t *testing.T, s *suite) {
	sp := s.structure(t)
	var specs []core.ItemSpec
	for i := range 4 {
		specs = append(specs, s.spec(core.KindStory, fmt.Sprintf("s-%d", i+1), fmt.Sprintf("Ranked %d", i+1), "", ""))
	}
	k := s.create(t, specs...)
	order := func() []string {
		ws := make([]core.WorkItem, len(k))
		for i, key := range k {
			ws[i] = s.get(t, key)
			if ws[i].Rank == "" {
				t.Fatalf("%s has no Rank", key)
			}
		}
		slices.SortStableFunc(ws, func(a, b core.WorkItem) int {
			switch {
			case a.Rank < b.Rank:
				return -1
			case a.Rank > b.Rank:
				return 1
			}
			return 0
		})
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = w.Key
		}
		return out
	}
	if got := order(); !slices.Equal(got, k) {
		t.Errorf("new items rank in creation order: %v; want %v", got, k)
	}
	outs, err := sp.Rank(s.ctx, []string{k[3], k[2]}, k[0], true)
	if err != nil || len(outs) != 2 || outs[0].Err != nil || outs[1].Err != nil {
		t.Fatalf("Rank before: %+v, %v", outs, err)
	}
	if got, want := order(), []string{k[3], k[2], k[0], k[1]}; !slices.Equal(got, want) {
		t.Errorf("after ranking %s, %s before %s: %v; want %v", k[3], k[2], k[0], got, want)
	}
	if _, err := sp.Rank(s.ctx, []string{k[3]}, k[1], false); err != nil {
		t.Fatalf("Rank after: %v", err)
	}
	if got, want := order(), []string{k[2], k[0], k[1], k[3]}; !slices.Equal(got, want) {
		t.Errorf("after ranking %s after %s: %v; want %v", k[3], k[1], got, want)
	}
	// A query lists items in backlog order, not key order.
	s.expectQueryOrder(t, "in backlog order", core.Filter{Document: s.doc, Limit: 10}, k[2], k[0], k[1], k[3])
}
