package fakeprovider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
)

// Op names one method of the provider, for fault injection and counting.
type Op string

// The provider's operations.
const (
	OpCheck       Op = "check"
	OpLookup      Op = "lookup"
	OpGet         Op = "get"
	OpQuery       Op = "query"
	OpCreate      Op = "create"
	OpUpdate      Op = "update"
	OpTransitions Op = "transitions"
	OpTransition  Op = "transition"
	OpComment     Op = "comment"
	OpCheckItems  Op = "check_items" // core.ItemChecker
	OpDuplicates  Op = "duplicates"  // core.DuplicateChecker
	// The structure operations (structure.go).
	OpDependencies     Op = "dependencies"
	OpAddDependency    Op = "add_dependency"
	OpRemoveDependency Op = "remove_dependency"
	OpSprints          Op = "sprints"
	OpMoveToSprint     Op = "move_to_sprint"
	OpRank             Op = "rank"
	OpResolve          Op = "resolve_fields" // core.FieldResolver
	OpRecordBase       Op = "record_base"    // core.BaseRecorder
	OpPeople           Op = "people"         // core.PeopleReader
	OpAccount          Op = "account"        // core.AccountReader
)

// IsWrite reports whether op changes the tracker.
func (o Op) IsWrite() bool {
	return o == OpCreate || o == OpUpdate || o == OpTransition || o == OpComment ||
		o == OpAddDependency || o == OpRemoveDependency || o == OpMoveToSprint || o == OpRank || o == OpRecordBase
}

// ErrCrash is the value the provider panics with at a scripted crash point
// (see Provider.CrashAt): it simulates the process dying mid-call. Tests
// recover it.
var ErrCrash = errors.New("fakeprovider: simulated process death")

// DefaultScope is the scope of a provider made without Options.Scope.
const DefaultScope = "https://fake.example/DEMO"

// Options configure a Provider. Zero values take defaults.
type Options struct {
	Scope   string           // default DefaultScope
	Project string           // key prefix, default "DEMO"
	Now     func() time.Time // default time.Now
	// SearchLag makes newly created items invisible to search (Lookup
	// without a known key, Query) until Settle is called, like Jira's
	// eventually consistent search.
	SearchLag bool
	// TextLimit, when set, is the most characters the fake accepts in an
	// item's text as it counts it (TextSize: description and acceptance
	// criteria together, like a tracker that writes the criteria into the
	// description): Create and Update refuse a longer item, and CheckItems
	// (core.ItemChecker) reports it beforehand.
	TextLimit int
}

type item struct {
	w           core.WorkItem     // stored fields (Key, Reference, Kind, Title, Description, AC, ParentKey, Status, Updated)
	lastWritten string            // digest DevWorkWire stored with the item
	writtenHash string            // hash of the content as DevWorkWire last wrote it
	written     map[string]string // core.ContentDigests of it then
	hash        string            // hash of the current content
	rev         int
	seq         int
	searchable  bool
	rank        int    // backlog order (structure.go)
	sprint      string // sprint id ("" = none)
	comments    []string
	fields      map[string][]string // managed fields (fields.go)
	bases       map[string]string   // per-field bases DevWorkWire stored
	baseValues  map[string][]string // the values behind them (ItemSpec.BaseValues)
}

type fault struct {
	op    Op
	at    int // absolute call number of op; 0 = every call
	err   error
	crash bool // panic with ErrCrash
	after bool // crash after applying the call
	lost  bool // apply the call, then return err (the response was lost)
}

// ItemFaultKind is what happens to one scripted item create.
type ItemFaultKind int

// The item-level create faults.
const (
	// ItemFail: the item is not created; its outcome carries the error.
	ItemFail ItemFaultKind = iota + 1
	// ItemLost: the item is created but the response is lost and the
	// search for it finds nothing: the outcome is Unknown.
	ItemLost
	// ItemCrashBefore: the process dies before the item is created.
	ItemCrashBefore
	// ItemCrashAfter: the process dies right after the item is created.
	ItemCrashAfter
)

type itemFault struct {
	at   int // absolute item-create number
	kind ItemFaultKind
	err  error
}

// Provider is an in-memory core.WorkItemProvider. It is safe for
// concurrent use.
type Provider struct {
	mu          sync.Mutex
	scope       string
	project     string
	now         func() time.Time
	lag         bool
	textLimit   int
	items       map[string]*item
	seq         int
	calls       map[Op]int
	itemCreates int // item create attempts so far
	requests    int // create requests (batches of ≤ MaxBatch)
	maxBatch    int // largest specs slice handed to Create
	faults      []fault
	itemFaults  []itemFault
	holds       []*hold
	forbid      testing.TB
	denied      map[core.Permission]bool // Deny
	noTrans     map[core.Status]bool
	structure   structureState // dependencies, sprints, sub-task support (structure.go)
	fieldMeta   FieldMeta
}

var _ core.WorkItemProvider = (*Provider)(nil)

// New returns an empty provider.
func New(o Options) *Provider {
	p := &Provider{
		scope: cmp.Or(o.Scope, DefaultScope), project: cmp.Or(o.Project, "DEMO"),
		now: o.Now, lag: o.SearchLag, textLimit: o.TextLimit,
		items: map[string]*item{}, calls: map[Op]int{}, noTrans: map[core.Status]bool{},
	}
	if p.now == nil {
		p.now = time.Now
	}
	p.structure = newStructureState(p.project)
	return p
}

// ---- test controls ------------------------------------------------------

// ForbidWrites makes every later write call fail tb (tb.Errorf) and return
// an INTERNAL_ERROR, until AllowWrites. Use it to prove that previews and
// reads write nothing.
func (p *Provider) ForbidWrites(tb testing.TB) { p.mu.Lock(); p.forbid = tb; p.mu.Unlock() }

// AllowWrites undoes ForbidWrites.
func (p *Provider) AllowWrites() { p.mu.Lock(); p.forbid = nil; p.mu.Unlock() }

// FailCall makes the n-th call of op from now on (1-based; 0 = every call
// from now on) return err without any effect.
func (p *Provider) FailCall(op Op, n int, err error) {
	p.schedule(op, n, fault{err: err})
}

// schedule adds f for the n-th call of op from now on (1-based; 0 = every
// call from now on).
func (p *Provider) schedule(op Op, n int, f fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f.op = op
	if n > 0 {
		f.at = p.calls[op] + n
	}
	p.faults = append(p.faults, f)
}

// LoseResponse makes the n-th call of op from now on (1-based; 0 = every
// call from now on) take effect and then return err, as when the tracker
// applied a write but its answer never arrived (the connection dropped).
// err defaults to a retryable JIRA_UNAVAILABLE. For the writes Update,
// Transition and AddComment.
func (p *Provider) LoseResponse(op Op, n int, err error) {
	if err == nil {
		err = core.Errorf(core.CodeJiraUnavailable, "Jira did not answer the request (scripted: applied, response lost).")
	}
	p.schedule(op, n, fault{err: err, lost: true})
}

// hold is a call that stops before it takes effect until resumed.
type hold struct {
	op      Op
	at      int // absolute call number of op
	reached chan struct{}
	resume  chan struct{}
	once    sync.Once
}

// Hold makes the n-th call of op from now on (1-based) stop before it
// takes effect, as in a process paused mid-commit (a closed laptop lid,
// Ctrl-Z, a long GC pause): reached is closed once the call arrives, and
// the call goes on when resume is called (resume is idempotent). While it
// is held, other calls proceed. For the writes Create, Update, Transition
// and AddComment; calls of op must not race while a hold is pending.
func (p *Provider) Hold(op Op, n int) (reached <-chan struct{}, resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := &hold{op: op, at: p.calls[op] + n, reached: make(chan struct{}), resume: make(chan struct{})}
	p.holds = append(p.holds, h)
	return h.reached, func() { h.once.Do(func() { close(h.resume) }) }
}

// pause blocks a call of op that a Hold is waiting for, without holding
// the provider's lock.
func (p *Provider) pause(op Op) {
	p.mu.Lock()
	var h *hold
	for i, x := range p.holds {
		if x.op == op && x.at == p.calls[op]+1 {
			h = x
			p.holds = append(p.holds[:i], p.holds[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if h != nil {
		close(h.reached)
		<-h.resume
	}
}

// CrashAt makes the n-th call of op from now on (1-based) panic with
// ErrCrash, before the call has any effect or (after) once it took effect.
func (p *Provider) CrashAt(op Op, n int, after bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, fault{op: op, at: p.calls[op] + n, crash: true, after: after})
}

// FailItem scripts the n-th item create from now on (1-based, counted
// across Create calls and batches).
func (p *Provider) FailItem(n int, kind ItemFaultKind, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if kind == ItemFail && err == nil {
		err = core.Errorf(core.CodeValidationFailed, "the tracker rejected the item (scripted failure)")
	}
	p.itemFaults = append(p.itemFaults, itemFault{at: p.itemCreates + n, kind: kind, err: err})
}

// ClearFaults removes every scripted fault.
func (p *Provider) ClearFaults() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults, p.itemFaults = nil, nil
}

// SetSearchLag switches eventual consistency of search on or off. Turning
// it off does not make lagging items searchable; Settle does.
func (p *Provider) SetSearchLag(on bool) { p.mu.Lock(); p.lag = on; p.mu.Unlock() }

// Settle makes every item visible to search.
func (p *Provider) Settle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range p.items {
		it.searchable = true
	}
}

// RemoveTransitionTo removes from the workflow every transition into s.
func (p *Provider) RemoveTransitionTo(s core.Status) { p.mu.Lock(); p.noTrans[s] = true; p.mu.Unlock() }

// Edit changes an item as a person in the tracker would: the content
// changes without DevWorkWire's digest, so the item reads EditedOutside.
func (p *Provider) Edit(key string, f func(w *core.WorkItem)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok := p.items[key]
	if !ok {
		return notFound(key)
	}
	w := it.w
	f(&w)
	it.w.Title, it.w.Description, it.w.AcceptanceCriteria, it.w.ParentKey = w.Title, w.Description, slices.Clone(w.AcceptanceCriteria), w.ParentKey
	if w.Status.Valid() {
		it.w.Status = w.Status
	}
	p.touch(it)
	return nil
}

// SetReference changes the item's reference field as a person in the
// tracker would (edited by hand, or cleared with "").
func (p *Provider) SetReference(key string, ref core.Reference) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok := p.items[key]
	if !ok {
		return notFound(key)
	}
	it.w.Reference = ref
	p.touch(it)
	return nil
}

// EditTitle sets an item's title as a person would.
func (p *Provider) EditTitle(key, title string) error {
	return p.Edit(key, func(w *core.WorkItem) { w.Title = title })
}

// SetStatus moves an item to a status as a person would.
func (p *Provider) SetStatus(key string, s core.Status) error {
	return p.Edit(key, func(w *core.WorkItem) { w.Status = s })
}

// Link records, as a person would, that blocked "is blocked by" blocker.
func (p *Provider) Link(blocked, blocker string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.linkLocked(blocked, blocker)
}

// AddAsPerson creates an item as a person would (no DevWorkWire digest; it
// may carry a reference) and returns its key. It is searchable at once.
func (p *Provider) AddAsPerson(w core.WorkItem) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	it := p.add(w)
	it.searchable = true
	return it.w.Key
}

// Delete removes an item as a person would.
func (p *Provider) Delete(key string) { p.mu.Lock(); delete(p.items, key); p.mu.Unlock() }

// Items returns every item, in creation order.
func (p *Provider) Items() []core.WorkItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]core.WorkItem, 0, len(p.items))
	for _, it := range p.sorted() {
		out = append(out, p.view(it))
	}
	return out
}

// Comments returns the comments added to an item, oldest first.
func (p *Provider) Comments(key string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if it, ok := p.items[key]; ok {
		return slices.Clone(it.comments)
	}
	return nil
}

// Stats counts the provider's calls.
type Stats struct {
	Calls          map[Op]int // calls per operation
	Writes         int        // write calls: Create + Update + Transition + AddComment
	CreateRequests int        // create requests of at most MaxBatch items
	ItemsCreated   int        // item create attempts
	MaxBatch       int        // the most specs one Create call carried
}

// Stats returns the call counts so far.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Calls: map[Op]int{}, CreateRequests: p.requests, ItemsCreated: p.itemCreates, MaxBatch: p.maxBatch}
	for op, n := range p.calls {
		s.Calls[op] = n
		if op.IsWrite() {
			s.Writes += n
		}
	}
	return s
}

// Writes returns the number of write calls so far.
func (p *Provider) Writes() int { return p.Stats().Writes }

// ---- the port -----------------------------------------------------------

// Scope implements core.WorkItemProvider.
func (p *Provider) Scope() string { return p.scope }

// Check implements core.WorkItemProvider.
func (p *Provider) Check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.enter(ctx, OpCheck)
	return err
}

// Lookup implements core.WorkItemProvider.
func (p *Provider) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpLookup); err != nil {
		return nil, err
	}
	want := make(map[core.Reference]bool, len(refs))
	for _, r := range refs {
		want[r] = true
	}
	out := make(map[core.Reference]core.WorkItem, len(refs))
	for _, it := range p.sorted() {
		if it.searchable && want[it.w.Reference] {
			prev, dup := out[it.w.Reference]
			switch {
			case !dup:
				out[it.w.Reference] = p.view(it)
			case known[it.w.Reference] == it.w.Key: // the known one wins
				w := p.view(it)
				w.Duplicates = append(prev.Duplicates, prev.Key)
				out[it.w.Reference] = w
			default: // the oldest wins
				prev.Duplicates = append(prev.Duplicates, it.w.Key)
				out[it.w.Reference] = prev
			}
		}
	}
	for ref, key := range known {
		if _, found := out[ref]; found || !want[ref] {
			continue
		}
		if it, ok := p.items[key]; ok && it.w.Reference == ref {
			out[ref] = p.view(it)
		}
	}
	return out, nil
}

// Get implements core.WorkItemProvider.
func (p *Provider) Get(ctx context.Context, key string) (core.WorkItem, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpGet); err != nil {
		return core.WorkItem{}, err
	}
	if proj, _, _ := strings.Cut(key, "-"); !strings.EqualFold(proj, p.project) {
		// As the Jira adapter: another project's issue is not read.
		return core.WorkItem{}, core.Errorf(core.CodeWorkItemNotFound, "%s is an issue of project %s; DevWorkWire works only with project %s.", key, strings.ToUpper(proj), p.project)
	}
	it, ok := p.items[key]
	if !ok {
		return core.WorkItem{}, notFound(key)
	}
	return p.view(it), nil
}

// Query implements core.WorkItemProvider.
func (p *Provider) Query(ctx context.Context, f core.Filter) ([]core.WorkItem, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpQuery); err != nil {
		return nil, false, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = core.DefaultQueryLimit
	}
	text := strings.ToLower(f.Text)
	var out []core.WorkItem
	for _, it := range p.ranked() {
		w := p.view(it)
		switch {
		case !it.searchable,
			f.Status != "" && w.Status != f.Status,
			f.Kind != "" && w.Kind != f.Kind,
			f.EpicKey != "" && w.ParentKey != f.EpicKey,
			f.Document != "" && w.Reference.Document() != f.Document,
			text != "" && !strings.Contains(strings.ToLower(w.Title), text) && !strings.Contains(strings.ToLower(w.Description), text),
			f.Ready && !ready(w),
			f.Ready && f.Kind == "" && w.Kind == core.KindEpic:
			continue
		}
		if len(out) == limit {
			return out, true, nil
		}
		out = append(out, w)
	}
	return out, false, nil
}

func ready(w core.WorkItem) bool {
	if w.Status != core.StatusTodo {
		return false
	}
	for _, b := range w.BlockedBy {
		if b.Status != core.StatusDone {
			return false
		}
	}
	return true
}

// Create implements core.WorkItemProvider.
func (p *Provider) Create(ctx context.Context, specs []core.ItemSpec) ([]core.CreateOutcome, error) {
	p.pause(OpCreate)
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.enter(ctx, OpCreate)
	if err != nil {
		return nil, err
	}
	p.maxBatch = max(p.maxBatch, len(specs))
	out := make([]core.CreateOutcome, 0, len(specs))
	for i, s := range specs {
		if i%core.MaxBatch == 0 {
			p.requests++
		}
		p.itemCreates++
		itf := p.itemFault()
		if itf != nil && itf.kind == ItemCrashBefore {
			panic(ErrCrash)
		}
		if itf != nil && itf.kind == ItemFail {
			out = append(out, core.CreateOutcome{Reference: s.Reference, Err: itf.err})
			continue
		}
		if verr := p.validate(s); verr != nil {
			out = append(out, core.CreateOutcome{Reference: s.Reference, Err: verr})
			continue
		}
		it := p.add(core.WorkItem{
			Reference: s.Reference, Kind: s.Kind, Title: s.Title, Description: s.Description,
			AcceptanceCriteria: slices.Clone(s.AcceptanceCriteria), ParentKey: s.ParentKey, Status: core.StatusTodo,
		})
		it.searchable = !p.lag
		writeFields(it, s)
		it.lastWritten = s.Digest
		it.writtenHash, it.written = it.hash, writtenContent(it.w, s.HeldContent)
		switch {
		case itf != nil && itf.kind == ItemCrashAfter:
			panic(ErrCrash)
		case itf != nil && itf.kind == ItemLost:
			out = append(out, core.CreateOutcome{Reference: s.Reference, Unknown: true,
				Err: core.Errorf(core.CodeJiraUnavailable, "the connection dropped after the create of %s was sent, and a search for it found nothing", s.Reference)})
		default:
			out = append(out, core.CreateOutcome{Reference: s.Reference, Key: it.w.Key, URL: p.url(it.w.Key)})
		}
	}
	if f != nil && f.after {
		panic(ErrCrash)
	}
	return out, nil
}

// Update implements core.WorkItemProvider.
func (p *Provider) Update(ctx context.Context, key string, s core.ItemSpec) error {
	return p.writeItem(ctx, OpUpdate, key, func(it *item) error {
		if verr := p.validate(s); verr != nil {
			return verr
		}
		it.w.Title, it.w.Description, it.w.AcceptanceCriteria, it.w.ParentKey = s.Title, s.Description, slices.Clone(s.AcceptanceCriteria), s.ParentKey
		if s.Reference != "" {
			it.w.Reference = s.Reference
		}
		writeFields(it, s)
		it.lastWritten = s.Digest
		p.touch(it)
		it.writtenHash, it.written = it.hash, writtenContent(it.w, s.HeldContent)
		return nil
	})
}

// RecordBase implements core.BaseRecorder: the item's stored digests and
// bases only (its content and fields stay).
func (p *Provider) RecordBase(ctx context.Context, key, fingerprint string, s core.ItemSpec) error {
	return p.writeItem(ctx, OpRecordBase, key, func(it *item) error {
		if now := fmt.Sprintf("%s@%d", key, it.rev); now != fingerprint {
			return core.Errorf(core.CodePreviewStale, "%s changed in the tracker since it was read; nothing was recorded.", key).WithDetails(core.Detail{Key: key, Message: "changed since read"})
		}
		it.lastWritten = s.Digest
		if len(s.HeldContent) == 0 {
			it.writtenHash = it.hash
		}
		it.written = writtenContent(it.w, s.HeldContent)
		it.bases, it.baseValues = maps.Clone(s.FieldBases), cloneValues(s.BaseValues) // values behind the old bases would be stale
		it.rev++
		return nil
	})
}

var _ core.BaseRecorder = (*Provider)(nil)

// writeItem is a write call on one existing item: scripted pauses and
// faults before it, change applied to the item under the lock, and the
// faults scheduled for after it took effect.
func (p *Provider) writeItem(ctx context.Context, op Op, key string, change func(it *item) error) error {
	return p.structureWrite(ctx, op, func() error {
		it, ok := p.items[key]
		if !ok {
			return notFound(key)
		}
		return change(it)
	})
}

var workflow = []core.Transition{
	{ID: "11", Name: "To Do", To: core.StatusTodo, ToName: "To Do"},
	{ID: "21", Name: "Start progress", To: core.StatusInProgress, ToName: "In Progress"},
	{ID: "31", Name: "Done", To: core.StatusDone, ToName: "Done"},
}

// Transitions implements core.WorkItemProvider.
func (p *Provider) Transitions(ctx context.Context, key string) ([]core.Transition, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpTransitions); err != nil {
		return nil, err
	}
	it, ok := p.items[key]
	if !ok {
		return nil, notFound(key)
	}
	return p.transitions(it), nil
}

func (p *Provider) transitions(it *item) []core.Transition {
	var out []core.Transition
	for _, t := range workflow {
		if t.To != it.w.Status && !p.noTrans[t.To] {
			out = append(out, t)
		}
	}
	return out
}

// Transition implements core.WorkItemProvider.
func (p *Provider) Transition(ctx context.Context, key, id string) error {
	return p.writeItem(ctx, OpTransition, key, func(it *item) error {
		i := slices.IndexFunc(p.transitions(it), func(t core.Transition) bool { return t.ID == id })
		if i < 0 {
			return core.Errorf(core.CodeValidationFailed, "Transition %s is not available on %s in its current status. Run the progress preview again.", id, key)
		}
		it.w.Status = p.transitions(it)[i].To
		p.touch(it)
		return nil
	})
}

// AddComment implements core.WorkItemProvider.
func (p *Provider) AddComment(ctx context.Context, key, markdown string) error {
	return p.writeItem(ctx, OpComment, key, func(it *item) error {
		it.comments = append(it.comments, markdown)
		return nil
	})
}

// ---- internals (p.mu held) ----------------------------------------------

// after applies a fault scheduled for after a write took effect: a crash,
// or a lost response.
func (p *Provider) after(f *fault) error {
	switch {
	case f == nil:
		return nil
	case f.lost:
		return core.MarkOutcomeUnknown(f.err)
	case f.after:
		panic(ErrCrash)
	}
	return nil
}

// enter counts a call and applies scripted faults. It returns the fault
// to apply after the call (crash-after), if any.
func (p *Provider) enter(ctx context.Context, op Op) (*fault, error) {
	if err := ctx.Err(); err != nil {
		return nil, core.Wrap(err, core.CodeJiraUnavailable, "the request was cancelled before it was sent")
	}
	p.calls[op]++
	if op.IsWrite() && p.forbid != nil {
		p.forbid.Helper()
		p.forbid.Errorf("fakeprovider: write call %q while writes are forbidden (a preview or read must write nothing)", op)
		return nil, core.Errorf(core.CodeInternal, "fakeprovider: write %q forbidden", op)
	}
	n := p.calls[op]
	for i, f := range p.faults {
		if f.op != op || (f.at != 0 && f.at != n) {
			continue
		}
		if f.lost {
			return &p.faults[i], nil
		}
		if f.crash {
			if f.after {
				return &p.faults[i], nil
			}
			panic(ErrCrash)
		}
		return nil, f.err
	}
	return nil, nil
}

func (p *Provider) itemFault() *itemFault {
	for i, f := range p.itemFaults {
		if f.at == p.itemCreates {
			return &p.itemFaults[i]
		}
	}
	return nil
}

// TextSize is the size of an item's text as the fake counts it against
// Options.TextLimit: the characters of the description and of every
// acceptance criterion, one more per criterion (its line break).
func TextSize(s core.ItemSpec) int {
	n := utf8.RuneCountInString(s.Description)
	for _, c := range s.AcceptanceCriteria {
		n += utf8.RuneCountInString(c) + 1
	}
	return n
}

// CheckItems implements core.ItemChecker: the specs whose TextSize is over
// Options.TextLimit (none without a limit). Reads only; counted as
// OpCheckItems.
func (p *Provider) CheckItems(ctx context.Context, specs []core.ItemSpec) ([]core.Detail, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpCheckItems); err != nil {
		return nil, err
	}
	var out []core.Detail
	for _, s := range specs {
		if n := TextSize(s); p.textLimit > 0 && n > p.textLimit {
			out = append(out, core.SizeProblem(s.Reference, "description", n, p.textLimit))
		}
	}
	return out, nil
}

var _ core.ItemChecker = (*Provider)(nil)

// Duplicates implements core.DuplicateChecker: every item holding a
// reference of created, searchable or not (it reads the items, not the
// search index), oldest first, for the references held more than once.
// Counted as OpDuplicates.
func (p *Provider) Duplicates(ctx context.Context, created map[core.Reference]string) (map[core.Reference][]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpDuplicates); err != nil {
		return nil, err
	}
	holders := map[core.Reference][]string{}
	for _, it := range p.sorted() {
		if _, ok := created[it.w.Reference]; ok {
			holders[it.w.Reference] = append(holders[it.w.Reference], it.w.Key)
		}
	}
	for ref, keys := range holders {
		if len(keys) < 2 {
			delete(holders, ref)
		}
	}
	return holders, nil
}

var _ core.DuplicateChecker = (*Provider)(nil)

func (p *Provider) validate(s core.ItemSpec) error {
	if n := TextSize(s); p.textLimit > 0 && n > p.textLimit {
		d := core.SizeProblem(s.Reference, "description", n, p.textLimit)
		return core.Errorf(core.CodeValidationFailed, "%s: %s", s.Reference, d.Message).WithDetails(d)
	}
	if strings.TrimSpace(s.Title) == "" {
		return core.Errorf(core.CodeValidationFailed, "%s: the summary must not be empty", s.Reference)
	}
	if !s.Kind.Valid() {
		return core.Errorf(core.CodeValidationFailed, "%s: unknown issue type %q", s.Reference, s.Kind)
	}
	if s.Kind == core.KindSubtask {
		return p.validateSubtask(s)
	}
	if s.ParentKey != "" {
		par, ok := p.items[s.ParentKey]
		if !ok || par.w.Kind != core.KindEpic {
			return core.Errorf(core.CodeValidationFailed, "%s: parent %s is not an epic in this project", s.Reference, s.ParentKey)
		}
	}
	return nil
}

func (p *Provider) add(w core.WorkItem) *item {
	p.seq++
	w.Key = p.project + "-" + strconv.Itoa(p.seq)
	if !w.Status.Valid() {
		w.Status = core.StatusTodo
	}
	it := &item{w: w, seq: p.seq, rank: p.seq * rankGap}
	p.touch(it)
	p.items[w.Key] = it
	return it
}

func (p *Provider) touch(it *item) {
	it.hash = contentHash(it.w)
	it.rev++
	it.w.Updated = p.now().UTC().Truncate(time.Second)
}

func (p *Provider) sorted() []*item {
	out := make([]*item, 0, len(p.items))
	for _, it := range p.items {
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b *item) int { return a.seq - b.seq })
	return out
}

// ranked are the items in backlog order (rank, then creation), as a
// query returns them.
func (p *Provider) ranked() []*item {
	out := p.sorted()
	slices.SortStableFunc(out, func(a, b *item) int { return a.rank - b.rank })
	return out
}

func (p *Provider) url(key string) string {
	return strings.TrimSuffix(p.scope, "/"+p.project) + "/browse/" + key
}

var statusNames = map[core.Status]string{core.StatusTodo: "To Do", core.StatusInProgress: "In Progress", core.StatusDone: "Done"}

func (p *Provider) view(it *item) core.WorkItem {
	w := it.w
	w.AcceptanceCriteria = slices.Clone(w.AcceptanceCriteria)
	w.StatusName = statusNames[w.Status]
	w.URL = p.url(w.Key)
	w.LastWritten = it.lastWritten
	w.EditedOutside = it.lastWritten == "" || it.hash != it.writtenHash
	if it.written != nil {
		w.ContentChanged = map[string]bool{}
		for k, d := range core.ContentDigests(w.Title, w.Description, w.AcceptanceCriteria) {
			w.ContentChanged[k] = it.written[k] != d
		}
	}
	w.Fingerprint = fmt.Sprintf("%s@%d", w.Key, it.rev)
	p.viewStructure(it, &w)
	w.Fields, w.FieldBases, w.BaseValues = maps.Clone(it.fields), maps.Clone(it.bases), cloneValues(it.baseValues)
	return w
}

// writtenContent are the per-part digests of what DevWorkWire wrote, held
// parts (the tracker's value written back) marked as not its own.
func writtenContent(w core.WorkItem, held []string) map[string]string {
	d := core.ContentDigests(w.Title, w.Description, w.AcceptanceCriteria)
	for _, k := range held {
		d[k] = ""
	}
	return d
}

func contentHash(w core.WorkItem) string {
	return core.ContentDigest(w.Kind, w.Title, w.Description, w.AcceptanceCriteria, core.Reference(w.ParentKey))
}

func notFound(key string) error {
	return core.Errorf(core.CodeWorkItemNotFound, "Work item %s does not exist or you cannot see it.", key)
}

// Account is the account the fake's writes go out as (FakeAccount).
var FakeAccount = core.Account{ID: "fake:000000", Name: "Fake Person"}

var _ core.AccountReader = (*Provider)(nil)

// Account implements core.AccountReader: FakeAccount.
func (p *Provider) Account(ctx context.Context) (core.Account, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpAccount); err != nil {
		return core.Account{}, err
	}
	return FakeAccount, nil
}
