package providertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// Harness gives the suite one fresh provider (a fresh harness per
// subtest) plus the things a person can do in the tracker behind
// DevWorkWire's back. The shape is the one core/storetest uses too: a
// HarnessMaker makes a Harness per subtest, and Run takes Options.
type Harness interface {
	// Provider is the implementation under test, configured for an empty
	// (or at least isolated) project.
	Provider() core.WorkItemProvider
	// EditTitle changes an item's title the way a person in the tracker
	// would (not through the provider), so that DevWorkWire's stored
	// digest no longer matches the item's content.
	EditTitle(ctx context.Context, key, title string) error
	// Link records, as a person would, that blocked "is blocked by"
	// blocker.
	Link(ctx context.Context, blocked, blocker string) error
	// Close releases the harness.
	Close() error
}

// HarnessMaker makes a harness over a fresh tracker. It may register
// cleanups with t.
type HarnessMaker func(ctx context.Context, t testing.TB) (Harness, error)

// Options tune Run.
type Options struct {
	// Eventually bounds how long the suite waits for the tracker's search
	// to reflect a write (Lookup without a known key, Query). Default 20s.
	Eventually time.Duration
}

// Run runs the WorkItemProvider contract suite.
func Run(t *testing.T, newHarness HarnessMaker, opts ...Options) {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Eventually == 0 {
		o.Eventually = 20 * time.Second
	}
	tests := []struct {
		name string
		f    func(*testing.T, *suite)
	}{
		{"Scope", testScope},
		{"Check", testCheck},
		{"CreateAndGet", testCreateAndGet},
		{"CreateManyKeepsOrder", testCreateMany},
		{"MarkdownRoundTrip", testMarkdown},
		{"LookupByReference", testLookup},
		{"LookupKnownKeyOfOtherReference", testLookupKnownMismatch},
		{"Update", testUpdate},
		{"OutsideEditIsDetected", testOutsideEdit},
		{"NotFound", testNotFound},
		{"Transitions", testTransitions},
		{"TransitionUnavailable", testTransitionUnavailable},
		{"AddComment", testAddComment},
		{"Query", testQuery},
		{"QueryReady", testQueryReady},
		{"Fields", testFields},
	}
	tests = append(tests, structureTests...)  // structure.go
	tests = append(tests, capabilityTests...) // capabilities.go
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			h, err := newHarness(ctx, t)
			if err != nil {
				t.Fatalf("providertest: new harness: %v", err)
			}
			t.Cleanup(func() {
				if err := h.Close(); err != nil {
					t.Errorf("providertest: close harness: %v", err)
				}
			})
			p := h.Provider()
			if p == nil {
				t.Fatal("providertest: Harness.Provider() is nil")
			}
			tc.f(t, &suite{Harness: h, Provider: p, ctx: ctx, doc: "pt-" + randHex(4), wait: o.Eventually})
		})
	}
}

type suite struct {
	Harness
	Provider core.WorkItemProvider // Harness.Provider()
	ctx      context.Context
	doc      string // a document id unique to this subtest
	wait     time.Duration
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *suite) spec(kind core.Kind, id, title string, parent core.Reference, parentKey string) core.ItemSpec {
	desc := "A plain paragraph about " + strings.ToLower(title) + "."
	ac := []string{"First criterion of " + id, "Second criterion of " + id}
	ref := core.NewReference(s.doc, id)
	return core.ItemSpec{
		Reference: ref, Kind: kind, Title: title, Description: desc, AcceptanceCriteria: ac,
		ParentKey: parentKey, Digest: core.ContentDigest(kind, title, desc, ac, parent),
	}
}

// create creates specs and fails the test unless every one was created.
func (s *suite) create(t *testing.T, specs ...core.ItemSpec) []string {
	t.Helper()
	out, err := s.Provider.Create(s.ctx, specs)
	if err != nil {
		t.Fatalf("Create(%d specs): %v", len(specs), err)
	}
	if len(out) != len(specs) {
		t.Fatalf("Create(%d specs) returned %d outcomes; want one per spec", len(specs), len(out))
	}
	keys := make([]string, len(out))
	for i, o := range out {
		if o.Reference != specs[i].Reference {
			t.Fatalf("outcome %d is for %q; want %q (outcomes must be in input order)", i, o.Reference, specs[i].Reference)
		}
		if o.Err != nil || o.Unknown || o.Key == "" {
			t.Fatalf("outcome %d (%s): key=%q unknown=%v err=%v; want a created item", i, o.Reference, o.Key, o.Unknown, o.Err)
		}
		keys[i] = o.Key
	}
	return keys
}

func (s *suite) get(t *testing.T, key string) core.WorkItem {
	t.Helper()
	w, err := s.Provider.Get(s.ctx, key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	return w
}

// eventually polls cond until it returns "" or the deadline passes, then
// fails with cond's last complaint.
func (s *suite) eventually(t *testing.T, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(s.wait)
	delay := 10 * time.Millisecond
	for {
		msg := cond()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", s.wait, msg)
		}
		select {
		case <-s.ctx.Done():
			t.Fatalf("context done: %s", msg)
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

func wantCode(t *testing.T, what string, err error, code core.Code) {
	t.Helper()
	if got := core.ErrorCode(err); got != code {
		t.Errorf("%s: error code %q (%v); want %s", what, got, err, code)
	}
}

func checkContent(t *testing.T, w core.WorkItem, s core.ItemSpec) {
	t.Helper()
	if w.Reference != s.Reference || w.Kind != s.Kind || w.Title != s.Title {
		t.Errorf("item %s: reference/kind/title = %q/%q/%q; want %q/%q/%q", w.Key, w.Reference, w.Kind, w.Title, s.Reference, s.Kind, s.Title)
	}
	if strings.TrimSpace(w.Description) != strings.TrimSpace(s.Description) {
		t.Errorf("item %s: description = %q; want %q", w.Key, w.Description, s.Description)
	}
	if !slices.Equal(w.AcceptanceCriteria, s.AcceptanceCriteria) {
		t.Errorf("item %s: acceptance criteria = %q; want %q", w.Key, w.AcceptanceCriteria, s.AcceptanceCriteria)
	}
	if w.ParentKey != s.ParentKey {
		t.Errorf("item %s: parent = %q; want %q", w.Key, w.ParentKey, s.ParentKey)
	}
	if w.LastWritten != s.Digest {
		t.Errorf("item %s: LastWritten = %q; want the digest written with it, %q", w.Key, w.LastWritten, s.Digest)
	}
	if w.EditedOutside {
		t.Errorf("item %s: EditedOutside = true right after DevWorkWire wrote it", w.Key)
	}
	if w.Fingerprint == "" {
		t.Errorf("item %s: empty Fingerprint", w.Key)
	}
}

func testScope(t *testing.T, s *suite) {
	sc := s.Provider.Scope()
	if sc == "" {
		t.Fatal("Scope() is empty; previews must be bound to a non-empty scope")
	}
	if again := s.Provider.Scope(); again != sc {
		t.Errorf("Scope() changed between calls: %q then %q", sc, again)
	}
}

func testCheck(t *testing.T, s *suite) {
	if err := s.Provider.Check(s.ctx); err != nil {
		t.Fatalf("Check on a correctly configured tracker: %v", err)
	}
}

func testCreateAndGet(t *testing.T, s *suite) {
	epic := s.spec(core.KindEpic, "e-1", "Guest checkout", "", "")
	ek := s.create(t, epic)[0]
	story := s.spec(core.KindStory, "s-1", "Pay without an account", epic.Reference, ek)
	sk := s.create(t, story)[0]
	if ek == sk {
		t.Fatalf("epic and story got the same key %s", ek)
	}
	e := s.get(t, ek)
	checkContent(t, e, epic)
	st := s.get(t, sk)
	checkContent(t, st, story)
	for _, w := range []core.WorkItem{e, st} {
		if w.Key == "" || w.Status != core.StatusTodo {
			t.Errorf("new item %q: status %q; want todo", w.Key, w.Status)
		}
		if w.StatusName == "" {
			t.Errorf("item %s: empty StatusName", w.Key)
		}
	}
}

func testCreateMany(t *testing.T, s *suite) {
	n := core.MaxBatch + 7
	specs := make([]core.ItemSpec, n)
	for i := range specs {
		specs[i] = s.spec(core.KindStory, fmt.Sprintf("s-%d", i+1), fmt.Sprintf("Story number %d", i+1), "", "")
	}
	keys := s.create(t, specs...)
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Fatalf("key %s returned twice", k)
		}
		seen[k] = true
	}
	refs := make([]core.Reference, n)
	known := map[core.Reference]string{}
	for i, sp := range specs {
		refs[i] = sp.Reference
		known[sp.Reference] = keys[i]
	}
	got, err := s.Provider.Lookup(s.ctx, refs, known)
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if len(got) != n {
		t.Fatalf("Lookup with known keys found %d of %d items just created", len(got), n)
	}
	for i, sp := range specs {
		if w := got[sp.Reference]; w.Key != keys[i] || w.Title != sp.Title {
			t.Errorf("Lookup[%s] = %s %q; want %s %q", sp.Reference, w.Key, w.Title, keys[i], sp.Title)
		}
	}
}

func testLookup(t *testing.T, s *suite) {
	got, err := s.Provider.Lookup(s.ctx, nil, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Lookup(no refs) = %v, %v; want empty, nil", got, err)
	}
	a := s.spec(core.KindEpic, "e-1", "Alpha epic", "", "")
	b := s.spec(core.KindStory, "s-1", "Beta story", "", "")
	keys := s.create(t, a, b)
	missing := core.NewReference(s.doc, "s-404")
	refs := []core.Reference{a.Reference, b.Reference, missing}

	// With the dedup index's keys, items are found at once, even before
	// search has caught up.
	got, err = s.Provider.Lookup(s.ctx, refs, map[core.Reference]string{a.Reference: keys[0], b.Reference: keys[1]})
	if err != nil {
		t.Fatalf("Lookup with known keys: %v", err)
	}
	if got[a.Reference].Key != keys[0] || got[b.Reference].Key != keys[1] {
		t.Errorf("Lookup with known keys = %v; want %s and %s", keyList(got), keys[0], keys[1])
	}
	if _, ok := got[missing]; ok {
		t.Errorf("Lookup returned an item for %s, which was never created", missing)
	}
	checkContent(t, got[b.Reference], b)

	// Without them, search finds them eventually.
	s.eventually(t, func() string {
		got, err := s.Provider.Lookup(s.ctx, refs, nil)
		if err != nil {
			return fmt.Sprintf("Lookup without known keys: %v", err)
		}
		if _, ok := got[missing]; ok {
			return fmt.Sprintf("Lookup returned an item for %s, which was never created", missing)
		}
		if got[a.Reference].Key != keys[0] || got[b.Reference].Key != keys[1] {
			return fmt.Sprintf("Lookup without known keys = %v; want %s and %s", keyList(got), keys[0], keys[1])
		}
		return ""
	})
}

func keyList(m map[core.Reference]core.WorkItem) []string {
	var out []string
	for r, w := range m {
		out = append(out, string(r)+"="+w.Key)
	}
	slices.Sort(out)
	return out
}

func testLookupKnownMismatch(t *testing.T, s *suite) {
	a := s.spec(core.KindStory, "s-1", "Real story", "", "")
	key := s.create(t, a)[0]
	other := core.NewReference(s.doc, "s-2")
	got, err := s.Provider.Lookup(s.ctx, []core.Reference{other}, map[core.Reference]string{other: key})
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	if w, ok := got[other]; ok {
		t.Errorf("Lookup(%s) returned %s, whose reference is %s: a known key must be kept only if its reference matches", other, w.Key, w.Reference)
	}
}

func testUpdate(t *testing.T, s *suite) {
	epic := s.spec(core.KindEpic, "e-1", "Epic one", "", "")
	ek := s.create(t, epic)[0]
	story := s.spec(core.KindStory, "s-1", "First title", "", "")
	sk := s.create(t, story)[0]
	before := s.get(t, sk)

	upd := story
	upd.Title = "Second title"
	upd.Description = "A changed paragraph."
	upd.AcceptanceCriteria = []string{"Only criterion"}
	upd.ParentKey = ek
	upd.Digest = core.ContentDigest(upd.Kind, upd.Title, upd.Description, upd.AcceptanceCriteria, epic.Reference)
	if err := s.Provider.Update(s.ctx, sk, upd); err != nil {
		t.Fatalf("Update: %v", err)
	}
	after := s.get(t, sk)
	checkContent(t, after, upd)
	if after.Key != sk {
		t.Errorf("Update changed the key: %s → %s", sk, after.Key)
	}
	if after.Fingerprint == before.Fingerprint {
		t.Errorf("Fingerprint unchanged (%q) after an update", after.Fingerprint)
	}

	// A story taken out of its epic: the parent is cleared.
	loose := upd
	loose.ParentKey = ""
	loose.Digest = core.ContentDigest(loose.Kind, loose.Title, loose.Description, loose.AcceptanceCriteria, "")
	if err := s.Provider.Update(s.ctx, sk, loose); err != nil {
		t.Fatalf("Update without a parent: %v", err)
	}
	checkContent(t, s.get(t, sk), loose)
}

func testOutsideEdit(t *testing.T, s *suite) {
	sp := s.spec(core.KindStory, "s-1", "Written by DevWorkWire", "", "")
	key := s.create(t, sp)[0]
	before := s.get(t, key)
	if err := s.EditTitle(s.ctx, key, "Edited by a person"); err != nil {
		t.Fatalf("EditTitle: %v", err)
	}
	after := s.get(t, key)
	if after.Title != "Edited by a person" {
		t.Fatalf("title after the person's edit = %q", after.Title)
	}
	if !after.EditedOutside {
		t.Error("EditedOutside = false after a person changed the title; drift would go unnoticed")
	}
	if after.LastWritten != sp.Digest {
		t.Errorf("LastWritten = %q after an outside edit; want still %q (what DevWorkWire last wrote)", after.LastWritten, sp.Digest)
	}
	if after.Fingerprint == before.Fingerprint {
		t.Errorf("Fingerprint unchanged (%q) after an outside edit", after.Fingerprint)
	}
	// Writing the document's version again clears the drift.
	if err := s.Provider.Update(s.ctx, key, sp); err != nil {
		t.Fatalf("Update: %v", err)
	}
	checkContent(t, s.get(t, key), sp)
}

func testNotFound(t *testing.T, s *suite) {
	key := s.create(t, s.spec(core.KindStory, "s-1", "Exists", "", ""))[0]
	prefix, _, _ := strings.Cut(key, "-")
	missing := prefix + "-987654"
	_, err := s.Provider.Get(s.ctx, missing)
	wantCode(t, "Get(missing)", err, core.CodeWorkItemNotFound)
	sp := s.spec(core.KindStory, "s-2", "Nowhere", "", "")
	wantCode(t, "Update(missing)", s.Provider.Update(s.ctx, missing, sp), core.CodeWorkItemNotFound)
	_, err = s.Provider.Transitions(s.ctx, missing)
	wantCode(t, "Transitions(missing)", err, core.CodeWorkItemNotFound)
	wantCode(t, "AddComment(missing)", s.Provider.AddComment(s.ctx, missing, "hello"), core.CodeWorkItemNotFound)
}

func transitionTo(t *testing.T, s *suite, key string, to core.Status) {
	t.Helper()
	ts, err := s.Provider.Transitions(s.ctx, key)
	if err != nil {
		t.Fatalf("Transitions(%s): %v", key, err)
	}
	i := slices.IndexFunc(ts, func(x core.Transition) bool { return x.To == to })
	if i < 0 {
		t.Fatalf("Transitions(%s) = %+v: none reaches %s", key, ts, to)
	}
	if err := s.Provider.Transition(s.ctx, key, ts[i].ID); err != nil {
		t.Fatalf("Transition(%s, %s): %v", key, ts[i].ID, err)
	}
}

func testTransitions(t *testing.T, s *suite) {
	key := s.create(t, s.spec(core.KindStory, "s-1", "Moves along", "", ""))[0]
	ts, err := s.Provider.Transitions(s.ctx, key)
	if err != nil {
		t.Fatalf("Transitions: %v", err)
	}
	for _, to := range []core.Status{core.StatusInProgress, core.StatusDone} {
		i := slices.IndexFunc(ts, func(x core.Transition) bool { return x.To == to })
		if i < 0 {
			t.Errorf("Transitions of a todo item = %+v: none reaches %s", ts, to)
			continue
		}
		if ts[i].ID == "" || ts[i].Name == "" || ts[i].ToName == "" {
			t.Errorf("transition %+v: id, name and to_name must be set", ts[i])
		}
	}
	before := s.get(t, key)
	transitionTo(t, s, key, core.StatusInProgress)
	mid := s.get(t, key)
	if mid.Status != core.StatusInProgress {
		t.Errorf("status after the transition = %q; want in_progress", mid.Status)
	}
	if mid.Fingerprint == before.Fingerprint {
		t.Errorf("Fingerprint unchanged (%q) after a status change", mid.Fingerprint)
	}
	transitionTo(t, s, key, core.StatusDone)
	if st := s.get(t, key).Status; st != core.StatusDone {
		t.Errorf("status after the second transition = %q; want done", st)
	}
}

func testTransitionUnavailable(t *testing.T, s *suite) {
	key := s.create(t, s.spec(core.KindStory, "s-1", "Stays put", "", ""))[0]
	err := s.Provider.Transition(s.ctx, key, "999999")
	wantCode(t, "Transition(unknown id)", err, core.CodeValidationFailed)
	if st := s.get(t, key).Status; st != core.StatusTodo {
		t.Errorf("status after a refused transition = %q; want todo", st)
	}
}

func testAddComment(t *testing.T, s *suite) {
	key := s.create(t, s.spec(core.KindStory, "s-1", "Gets a comment", "", ""))[0]
	if err := s.Provider.AddComment(s.ctx, key, "Progress: **half** done.\n\n- tests written"); err != nil {
		t.Fatalf("AddComment: %v", err)
	}
}

// queryKeys are the keys f selects, in the order Query returns them.
func (s *suite) queryKeys(f core.Filter) ([]string, bool, error) {
	items, trunc, err := s.Provider.Query(s.ctx, f)
	var keys []string
	for _, w := range items {
		keys = append(keys, w.Key)
	}
	return keys, trunc, err
}

// expectQuery waits until f selects exactly want (in any order).
func (s *suite) expectQuery(t *testing.T, name string, f core.Filter, want ...string) {
	t.Helper()
	s.expectKeys(t, name, f, true, want)
}

// expectQueryOrder waits until f selects exactly want, in want's order.
func (s *suite) expectQueryOrder(t *testing.T, name string, f core.Filter, want ...string) {
	t.Helper()
	s.expectKeys(t, name, f, false, want)
}

func (s *suite) expectKeys(t *testing.T, name string, f core.Filter, anyOrder bool, want []string) {
	t.Helper()
	if anyOrder {
		want = slices.Sorted(slices.Values(want))
	}
	s.eventually(t, func() string {
		got, trunc, err := s.queryKeys(f)
		if anyOrder {
			slices.Sort(got)
		}
		switch {
		case err != nil:
			return fmt.Sprintf("Query %s: %v", name, err)
		case !slices.Equal(got, want):
			return fmt.Sprintf("Query %s = %v; want %v", name, got, want)
		case trunc:
			return fmt.Sprintf("Query %s: truncated with %d items under limit %d", name, len(got), f.Limit)
		}
		return ""
	})
}

func testQuery(t *testing.T, s *suite) {
	epic := s.spec(core.KindEpic, "e-1", "Query epic", "", "")
	ek := s.create(t, epic)[0]
	word := "zq" + randHex(3)
	specs := []core.ItemSpec{
		s.spec(core.KindStory, "s-1", "Story one", epic.Reference, ek),
		s.spec(core.KindStory, "s-2", "Story two "+word, epic.Reference, ek),
		s.spec(core.KindStory, "s-3", "Story three", epic.Reference, ek),
		s.spec(core.KindStory, "s-4", "Loose story", "", ""),
	}
	ks := s.create(t, specs...)
	transitionTo(t, s, ks[2], core.StatusDone)

	all := append([]string{ek}, ks...)
	s.expectQuery(t, "by document", core.Filter{Document: s.doc, Limit: 100}, all...)
	s.expectQuery(t, "by epic", core.Filter{Document: s.doc, EpicKey: ek, Limit: 100}, ks[0], ks[1], ks[2])
	s.expectQuery(t, "by status done", core.Filter{Document: s.doc, Status: core.StatusDone, Limit: 100}, ks[2])
	s.expectQuery(t, "by status todo", core.Filter{Document: s.doc, Status: core.StatusTodo, Limit: 100}, ek, ks[0], ks[1], ks[3])
	s.expectQuery(t, "by text", core.Filter{Document: s.doc, Text: word, Limit: 100}, ks[1])
	s.expectQuery(t, "other document", core.Filter{Document: s.doc + "-other", Limit: 100})

	items, trunc, err := s.Provider.Query(s.ctx, core.Filter{Document: s.doc, Limit: 2})
	if err != nil {
		t.Fatalf("Query with limit 2: %v", err)
	}
	if len(items) != 2 || !trunc {
		t.Errorf("Query with limit 2 over 5 items: %d items, truncated=%v; want 2, true", len(items), trunc)
	}
	for _, w := range items {
		if w.Key == "" || w.Title == "" || !w.Status.Valid() || w.Reference.Document() != s.doc || !w.Kind.Valid() {
			t.Errorf("query item %+v is not self-sufficient (key, title, status, reference, kind)", w)
		}
	}
	items, _, err = s.Provider.Query(s.ctx, core.Filter{Document: s.doc, Text: word, Limit: 10})
	if err != nil || len(items) != 1 {
		t.Fatalf("Query by text: %d items, %v", len(items), err)
	}
	checkContent(t, items[0], specs[1])
}

func testQueryReady(t *testing.T, s *suite) {
	specs := []core.ItemSpec{
		s.spec(core.KindStory, "s-1", "Blocked story", "", ""),
		s.spec(core.KindStory, "s-2", "Blocker story", "", ""),
		s.spec(core.KindStory, "s-3", "Free story", "", ""),
		s.spec(core.KindStory, "s-4", "Started story", "", ""),
	}
	ks := s.create(t, specs...)
	if err := s.Link(s.ctx, ks[0], ks[1]); err != nil {
		t.Fatalf("Link: %v", err)
	}
	transitionTo(t, s, ks[3], core.StatusInProgress)

	w := s.get(t, ks[0])
	if len(w.BlockedBy) != 1 || w.BlockedBy[0].Key != ks[1] || w.BlockedBy[0].Status != core.StatusTodo || w.BlockedBy[0].Title != specs[1].Title {
		t.Errorf("Get(%s).BlockedBy = %+v; want [{%s %q todo}]", ks[0], w.BlockedBy, ks[1], specs[1].Title)
	}
	s.expectQuery(t, "ready", core.Filter{Document: s.doc, Ready: true, Limit: 100}, ks[1], ks[2])

	transitionTo(t, s, ks[1], core.StatusDone)
	s.expectQuery(t, "ready after the blocker is done", core.Filter{Document: s.doc, Ready: true, Limit: 100}, ks[0], ks[2])
}

func testMarkdown(t *testing.T, s *suite) {
	sp := s.spec(core.KindStory, "s-1", "Rich text", "", "")
	sp.Description = "A paragraph with **bold**, *emphasis*, `code` and a [link](https://example.com/a).\n\n- first point\n- second point\n\n```go\nfmt.Println(\"hi\")\n```"
	sp.AcceptanceCriteria = []string{"Criterion with **bold**", "Criterion with `code`"}
	sp.Digest = core.ContentDigest(sp.Kind, sp.Title, sp.Description, sp.AcceptanceCriteria, "")
	key := s.create(t, sp)[0]
	checkContent(t, s.get(t, key), sp)
}
