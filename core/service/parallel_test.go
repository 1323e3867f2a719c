package service_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// gated wraps the fake provider: it counts the writes in flight at once,
// can hold each write until the test lets it go, and can fail the update
// of one key.
type gated struct {
	*fakeprovider.Provider
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	arrivals    []string
	epicsDone   int // epic create batches that returned
	storyEarly  bool
	arrived     chan string // when non-nil, each write announces itself
	hold        bool        // writes wait until let go
	gates       map[string]chan struct{}
	opened      bool
	failKey     string
}

// gate is the channel write what waits on.
func (g *gated) gate(what string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates == nil {
		g.gates = map[string]chan struct{}{}
	}
	ch := g.gates[what]
	if ch == nil {
		ch = make(chan struct{})
		if g.opened {
			close(ch)
		}
		g.gates[what] = ch
	}
	return ch
}

// let lets write what go.
func (g *gated) let(what string) { close(g.gate(what)) }

// open lets every write go, now and from now on.
func (g *gated) open() {
	g.mu.Lock()
	g.opened = true
	for _, ch := range g.gates {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	g.mu.Unlock()
}

func (g *gated) enter(ctx context.Context, what string) {
	g.mu.Lock()
	g.inFlight++
	g.maxInFlight = max(g.maxInFlight, g.inFlight)
	g.arrivals = append(g.arrivals, what)
	g.mu.Unlock()
	if g.arrived != nil {
		g.arrived <- what
	}
	if g.hold {
		select {
		case <-g.gate(what):
		case <-ctx.Done():
		}
	}
}

func (g *gated) leave() {
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
}

func (g *gated) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	epics := specs[0].Kind == core.KindEpic
	g.mu.Lock()
	if !epics && g.epicsDone == 0 {
		g.storyEarly = true
	}
	g.mu.Unlock()
	g.enter(ctx, "create "+string(specs[0].Reference))
	defer g.leave()
	outs, err := g.Provider.Create(ctx, specs)
	if epics {
		g.mu.Lock()
		g.epicsDone++
		g.mu.Unlock()
	}
	return outs, err
}

func (g *gated) Update(ctx context.Context, key string, s core.ItemSpec) error {
	g.enter(ctx, "update "+key)
	defer g.leave()
	g.mu.Lock()
	fail := key == g.failKey
	g.mu.Unlock()
	if fail {
		return core.Errorf(core.CodeValidationFailed, "Jira refused the request to edit issue %s: field summary: too long", key)
	}
	return g.Provider.Update(ctx, key, s)
}

func (g *gated) stats() (maxInFlight int, arrivals []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.maxInFlight, append([]string(nil), g.arrivals...)
}

// tenEdits imports 1 epic with 10 stories, and previews the same document
// with every story retitled: a plan of 10 updates.
func tenEdits(t *testing.T, e *env) service.ImportPreviewResult {
	t.Helper()
	e.importDoc(bigDoc("d", 1, 10))
	pre := e.preview(strings.ReplaceAll(bigDoc("d", 1, 10), "Story number", "Story renamed"))
	if pre.Counts.Update != 10 {
		t.Fatalf("plan %+v; want 10 updates", pre.Counts)
	}
	return pre
}

// heldTenEdits starts the commit of tenEdits under ctx with at most
// inFlight writes in flight, each held by the gate g until the test lets it
// go; done gets the commit's error.
func heldTenEdits(t *testing.T, ctx context.Context, inFlight int) (e *env, g *gated, pre service.ImportPreviewResult, done <-chan error) {
	t.Helper()
	e = newEnv(t)
	pre = tenEdits(t, e)
	e.writes = inFlight
	g = &gated{Provider: e.p, arrived: make(chan string, 16), hold: true}
	errc := make(chan error, 1)
	go func() {
		_, err := e.commitWith(g, ctx, pre.PreviewHandle)
		errc <- err
	}()
	return e, g, pre, errc
}

func (e *env) commitWith(p core.WorkItemProvider, ctx context.Context, handle string) (service.ImportCommitResult, error) {
	return e.service(p).ImportCommit(ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: "k-" + handle})
}

// waitRecorded waits until the run of handle has recorded n outcomes.
func (e *env) waitRecorded(t *testing.T, handle string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		run, found, err := e.st.GetRun(e.ctx, "k-"+handle)
		if err != nil {
			t.Fatal(err)
		}
		if found && len(run.Outcomes) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not record %d outcomes", n)
		}
		runtime.Gosched()
	}
}

// waitArrivals reads n announcements of writes.
func waitArrivals(t *testing.T, g *gated, n int) []string {
	t.Helper()
	var got []string
	for range n {
		select {
		case w := <-g.arrived:
			got = append(got, w)
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d of %d writes arrived: %v", len(got), n, got)
		}
	}
	return got
}

// TestWritesGoOutTogetherUpToTheBound: independent writes are in flight
// together, never more than WritesInFlight.
func TestWritesGoOutTogetherUpToTheBound(t *testing.T) {
	e, g, _, done := heldTenEdits(t, t.Context(), 4)
	waitArrivals(t, g, 4)
	if n, _ := g.stats(); n != 4 {
		t.Fatalf("%d writes in flight once four arrived", n)
	}
	g.open()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, arr := g.stats(); n != 4 || len(arr) != 10 {
		t.Errorf("at most %d in flight over %d writes; want exactly 4 over 10", n, len(arr))
	}
	for _, w := range e.p.Items() {
		if w.Kind == core.KindStory && !strings.HasPrefix(w.Title, "Story renamed") {
			t.Errorf("%s not updated: %q", w.Key, w.Title)
		}
	}
}

// TestOneWriteAtATime: WritesInFlight 1 sends one write at a time.
func TestOneWriteAtATime(t *testing.T) {
	e := newEnv(t)
	pre := tenEdits(t, e)
	e.writes = 1
	g := &gated{Provider: e.p}
	if _, err := e.commitWith(g, e.ctx, pre.PreviewHandle); err != nil {
		t.Fatal(err)
	}
	if n, arr := g.stats(); n != 1 || len(arr) != 10 {
		t.Errorf("%d in flight at most over %d writes; want 1 over 10", n, len(arr))
	}
}

// TestStoriesWaitForTheirEpics: story batches go out together, but only
// once every epic batch has returned (the stories need the epics' keys).
func TestStoriesWaitForTheirEpics(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(bigDoc("d", 60, 3)) // 60 epics (2 batches), 180 stories (4 batches)
	e.writes = 8
	g := &gated{Provider: e.p}
	res, err := e.commitWith(g, e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Created != 240 {
		t.Fatalf("created %d, want 240", res.Counts.Created)
	}
	_, arr := g.stats()
	if g.storyEarly || g.epicsDone != 2 {
		t.Errorf("a story batch was sent before the epics were created (%d epic batches done): %v", g.epicsDone, arr)
	}
	for _, w := range e.p.Items() {
		if w.Kind == core.KindStory && w.ParentKey == "" {
			t.Errorf("story %s has no parent", w.Key)
		}
	}
}

// TestFailFastWithWritesInFlight: after the first failure no new write is
// sent; the writes already in flight finish and are recorded as committed;
// the report splits committed / failed / untried.
func TestFailFastWithWritesInFlight(t *testing.T) {
	e, g, pre, done := heldTenEdits(t, t.Context(), 3)
	arr := waitArrivals(t, g, 3)
	// The second of the three fails and is recorded before the other two
	// return.
	g.mu.Lock()
	g.failKey = strings.TrimPrefix(arr[1], "update ")
	g.mu.Unlock()
	g.let(arr[1])
	e.waitRecorded(t, pre.PreviewHandle, 1) // the failure is recorded (and the run stopped)
	g.open()
	ce := wantErr(t, <-done, core.CodeCommitPartial, "failed")
	var committed, failed, untried int
	for _, d := range ce.Details {
		switch d.Outcome {
		case core.OutcomeCommitted:
			committed++
		case core.OutcomeFailed:
			failed++
		case core.OutcomeUntried:
			untried++
		}
	}
	if _, all := g.stats(); len(all) != 3 {
		t.Errorf("%d writes were sent; want only the 3 in flight when the first failed: %v", len(all), all)
	}
	if committed != 2 || failed != 1 || untried != 7 {
		t.Errorf("report: %d committed, %d failed, %d untried; want 2, 1, 7", committed, failed, untried)
	}
}

// TestCancelStopsNewWrites: a cancelled commit sends no new write; those
// in flight end and are recorded; the rest are untried.
func TestCancelStopsNewWrites(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	_, g, _, done := heldTenEdits(t, ctx, 3)
	waitArrivals(t, g, 3)
	cancel()
	err := <-done
	if err == nil {
		t.Fatal("a cancelled commit succeeded")
	}
	_, arr := g.stats()
	if len(arr) != 3 {
		t.Errorf("%d writes were sent; want only the 3 in flight at the cancel: %v", len(arr), arr)
	}
	ce := core.AsError(err)
	recorded, untried := 0, 0
	for _, d := range ce.Details {
		if d.Outcome == core.OutcomeUntried {
			untried++
		} else {
			recorded++
		}
	}
	if recorded != 3 || untried != 7 {
		t.Errorf("%d recorded, %d untried; want 3 and 7 (%s: %s)", recorded, untried, ce.Code, ce.Message)
	}
}
