package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

// newClock is the tests' settable clock.
func newClock() *storetest.Clock {
	return storetest.NewClock(time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC))
}

// refusal is a table case: an input the service refuses with code, in a
// message containing every one of frags.
type refusal[I any] struct {
	name  string
	in    I
	code  core.Code
	frags []string
}

// env is one service over the fake tracker and the in-memory store.
type env struct {
	t     *testing.T
	ctx   context.Context
	p     *fakeprovider.Provider
	st    *memstore.Store
	clock *storetest.Clock
	logs  *streamtest.Buffer
	svc   *service.WorkItemService
	// writes is ServiceOptions.WritesInFlight (0: the default).
	writes int
}

func newEnv(t *testing.T, opts ...fakeprovider.Options) *env {
	t.Helper()
	c := newClock()
	o := fakeprovider.Options{Now: c.Now}
	if len(opts) > 0 {
		o = opts[0]
		o.Now = c.Now
	}
	e := &env{t: t, ctx: context.Background(), p: fakeprovider.New(o), st: memstore.New(memstore.Options{Now: c.Now}), clock: c, logs: &streamtest.Buffer{}}
	e.svc = e.service(e.p)
	return e
}

// oneAtATime makes the service send one write at a time, as a commit did
// before writes went out together: for tests whose scripted faults,
// holds and crashes are counted by call order.
func (e *env) oneAtATime() {
	e.writes = 1
	e.svc = e.service(e.p)
}

// service returns a new service (a new process, as it were) over the same
// store.
func (e *env) service(p core.WorkItemProvider) *service.WorkItemService {
	return e.serviceWith(service.ServiceOptions{
		Provider: p, WritesInFlight: e.writes,
		Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
}

// serviceWith is a new service (a new process, as it were) on e's clock
// over e's tracker and store, or o's Provider and Store where it sets
// them, with o's other options.
func (e *env) serviceWith(o service.ServiceOptions) *service.WorkItemService {
	if o.Provider == nil {
		o.Provider = e.p
	}
	if o.Store == nil {
		o.Store = e.st
	}
	o.Now = e.clock.Now
	return service.NewWorkItemService(o)
}

// preview previews doc and fails the test on an error or any write.
func (e *env) preview(doc string) service.ImportPreviewResult {
	e.t.Helper()
	before := e.p.Writes()
	e.p.ForbidWrites(e.t)
	defer e.p.AllowWrites()
	res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(doc)})
	if err != nil {
		e.t.Fatalf("ImportPreview: %v", err)
	}
	if w := e.p.Writes(); w != before {
		e.t.Fatalf("ImportPreview made %d writes", w-before)
	}
	return res
}

func (e *env) commit(handle, key string) service.ImportCommitResult {
	e.t.Helper()
	res, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: key})
	if err != nil {
		e.t.Fatalf("ImportCommit: %v", err)
	}
	return res
}

// commitAsync starts svc's commit of handle under key in the background
// (e.g. to pause it at a Hold); wait returns its error once it ended.
func (e *env) commitAsync(svc *service.WorkItemService, handle, key string) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: key})
		done <- err
	}()
	return func() error { return <-done }
}

// commitHeld commits a plan that holds creates back and asserts the
// result: COMMIT_PARTIAL (not everything was written), with committed
// committed items and the held references as outcome unknown.
func (e *env) commitHeld(handle, key string, committed int, held ...core.Reference) *core.Error {
	e.t.Helper()
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true, IdempotencyKey: key})
	ce := wantErr(e.t, err, core.CodeCommitPartial, "Not everything was written", fmt.Sprintf("%d item(s) committed, %d held back", committed, len(held)))
	unknown := map[string]bool{}
	n := 0
	for _, d := range ce.Details {
		switch d.Outcome {
		case core.OutcomeUnknown:
			if !strings.Contains(d.Message, "held back, not created") {
				e.t.Errorf("held detail %+v", d)
			}
			unknown[d.Item] = true
		case core.OutcomeCommitted:
			n++
		default:
			e.t.Errorf("detail %+v; want committed or held back", d)
		}
	}
	for _, r := range held {
		if !unknown[string(r)] {
			e.t.Errorf("held-back %s is not in the details %+v", r, ce.Details)
		}
	}
	if n != committed || len(unknown) != len(held) {
		e.t.Errorf("details: %d committed, %d held; want %d and %d", n, len(unknown), committed, len(held))
	}
	return ce
}

// checkoutEnv is newEnv with checkoutDoc imported.
func checkoutEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.importDoc(checkoutDoc())
	return e
}

// importDoc previews and commits doc.
func (e *env) importDoc(doc string) service.ImportCommitResult {
	e.t.Helper()
	return e.commit(e.preview(doc).PreviewHandle, "")
}

// byRef returns the tracker's items by reference, failing on duplicates.
func (e *env) byRef() map[core.Reference]core.WorkItem {
	e.t.Helper()
	out := map[core.Reference]core.WorkItem{}
	for _, w := range e.p.Items() {
		if w.Reference == "" {
			continue
		}
		if prev, dup := out[w.Reference]; dup {
			e.t.Fatalf("two items hold reference %s: %s and %s", w.Reference, prev.Key, w.Key)
		}
		out[w.Reference] = w
	}
	return out
}

// wantErr asserts err is a *core.Error with code whose message holds
// every fragment, and returns it.
func wantErr(t *testing.T, err error, code core.Code, fragments ...string) *core.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error; want %s", code)
	}
	e, ok := err.(*core.Error)
	if !ok {
		t.Fatalf("error %T %v is not a *core.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code %s (%s); want %s", e.Code, e.Message, code)
	}
	if e.RunID == "" || !strings.HasPrefix(e.RunID, "run_") {
		t.Errorf("error run id %q; want a run id", e.RunID)
	}
	if e.Retryable != code.Retryable() {
		t.Errorf("retryable = %v; want %v", e.Retryable, code.Retryable())
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message %q lacks %q", e.Message, f)
		}
	}
	wantRerunMarked(t, e)
	return e
}

// wantRerunMarked: a refusal that asks for a new preview and advises it in
// no front door's words marks that advice (core.Error.Rerun), so that a
// front door can say its own step in its place instead of after it — a
// replayed one too.
func wantRerunMarked(t *testing.T, e *core.Error) {
	t.Helper()
	if !core.AsksForNewPreview(e.Code) {
		return
	}
	advises := strings.Contains(strings.ToLower(e.Message), "preview again") || strings.Contains(e.Message, "Run the pull again")
	switch {
	case advises && e.Rerun == "":
		t.Errorf("%s %q advises a new preview but does not mark the advice", e.Code, e.Message)
	case e.Rerun != "" && !strings.Contains(e.Message, e.Rerun):
		t.Errorf("%s: marked advice %q is not in the message %q", e.Code, e.Rerun, e.Message)
	}
}

// logLines returns the JSON log lines written so far.
func (e *env) logLines() []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			e.t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// ---- documents ----------------------------------------------------------

type docItem struct {
	id, kind, title, desc string
	ac                    []string
	epic                  string
	take                  bool
}

// markdown renders a planning document.
func markdown(id string, items ...docItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\n---\n# Plan %s\n", id, id)
	for _, it := range items {
		level := "##"
		word := "Epic"
		if it.kind == "story" {
			word = "Story"
		}
		fmt.Fprintf(&b, "\n%s %s %s: %s\n", level, word, it.id, it.title)
		if it.epic != "" {
			fmt.Fprintf(&b, "Epic: %s\n", it.epic)
		}
		if it.take {
			b.WriteString("Drift: take-document\n")
		}
		if it.desc != "" {
			fmt.Fprintf(&b, "\n%s\n", it.desc)
		}
		if len(it.ac) > 0 {
			b.WriteString("\nAcceptance criteria:\n")
			for _, a := range it.ac {
				fmt.Fprintf(&b, "- %s\n", a)
			}
		}
	}
	return b.String()
}

func epic(id, title string) docItem {
	return docItem{id: id, kind: "epic", title: title, desc: "About " + title + "."}
}

func story(id, title, ep string) docItem {
	return docItem{id: id, kind: "story", title: title, epic: ep, desc: "Story " + title + ".", ac: []string{"It works", "It is tested"}}
}

// checkoutDoc is a small document: 2 epics, 3 stories (one loose).
var checkoutItems = []docItem{
	epic("e-1", "Guest checkout"),
	story("s-1", "Pay without an account", "e-1"),
	story("s-2", "Save address", "e-1"),
	epic("e-2", "Receipts"),
	story("s-3", "Email receipt", "e-2"),
	story("s-4", "Loose story", ""),
}

func checkoutDoc() string { return markdown("checkout", checkoutItems...) }

// bigDoc has epics epics with per stories each.
func bigDoc(id string, epics, per int) string {
	var items []docItem
	for e := 1; e <= epics; e++ {
		eid := fmt.Sprintf("e-%d", e)
		items = append(items, epic(eid, "Epic number "+eid))
		for s := 1; s <= per; s++ {
			sid := fmt.Sprintf("s-%d-%d", e, s)
			items = append(items, story(sid, "Story number "+sid, eid))
		}
	}
	return markdown(id, items...)
}

// itemsWith lists, in order, the items of details whose outcome is
// outcome (core.OutcomeFailed, core.OutcomeUnknown, …).
func itemsWith(details []core.Detail, outcome string) []string {
	var out []string
	for _, d := range details {
		if d.Outcome == outcome {
			out = append(out, d.Item)
		}
	}
	return out
}
