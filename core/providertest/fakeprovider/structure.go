package fakeprovider

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// The fake's core.StructureProvider: sub-tasks (kind subtask under a
// story), dependencies with ids, sprints (one board with an active and a
// future sprint), and rank (a new item ranks last).

var _ core.StructureProvider = (*Provider)(nil)

const rankGap = 1 << 16

type dependency struct {
	id               int
	blocker, blocked string
}

type structureState struct {
	deps       []dependency
	nextDep    int
	sprints    []core.Sprint
	nextSprint int
	noSubtasks bool
	rankFail   map[string]error // key → the error ranking it gets
}

func newStructureState(project string) structureState {
	return structureState{sprints: []core.Sprint{
		{ID: "1", Name: project + " Sprint 1", State: core.SprintActive, Board: project + " board"},
		{ID: "2", Name: project + " Sprint 2", State: core.SprintFuture, Board: project + " board"},
	}, nextSprint: 2}
}

// ---- test controls ------------------------------------------------------

// AddSprint adds a sprint (state active, future or closed) on a board and
// returns its id.
func (p *Provider) AddSprint(name, state, board string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.structure.nextSprint++
	id := strconv.Itoa(p.structure.nextSprint)
	p.structure.sprints = append(p.structure.sprints, core.Sprint{ID: id, Name: name, State: state, Board: board})
	return id
}

// DisableSubtasks makes the project have no sub-task type (CheckSubtasks
// fails, sub-task creates are refused).
func (p *Provider) DisableSubtasks() { p.mu.Lock(); p.structure.noSubtasks = true; p.mu.Unlock() }

// FailRank makes ranking key fail with err (nil clears it), as Jira's
// partial-success answer does: the other items of the request move.
func (p *Provider) FailRank(key string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.structure.rankFail == nil {
		p.structure.rankFail = map[string]error{}
	}
	if err == nil {
		delete(p.structure.rankFail, key)
	} else {
		p.structure.rankFail[key] = err
	}
}

// Deps returns every dependency as "blocked<-blocker", oldest first.
func (p *Provider) Deps() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.structure.deps))
	for _, d := range p.structure.deps {
		out = append(out, d.blocked+"<-"+d.blocker)
	}
	return out
}

// Backlog returns the keys in rank order.
func (p *Provider) Backlog() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, it := range p.ranked() {
		out = append(out, it.w.Key)
	}
	return out
}

// ---- internals (p.mu held) ----------------------------------------------

func (p *Provider) linkLocked(blocked, blocker string) error {
	a, ok := p.items[blocked]
	if !ok {
		return notFound(blocked)
	}
	b, ok := p.items[blocker]
	if !ok {
		return notFound(blocker)
	}
	for _, d := range p.structure.deps {
		if d.blocked == blocked && d.blocker == blocker {
			return nil // as Jira: a duplicate adds nothing
		}
	}
	p.structure.nextDep++
	p.structure.deps = append(p.structure.deps, dependency{id: p.structure.nextDep, blocker: blocker, blocked: blocked})
	a.rev++
	b.rev++
	return nil
}

func (p *Provider) viewStructure(it *item, w *core.WorkItem) {
	for _, d := range p.structure.deps {
		switch it.w.Key {
		case d.blocked:
			if bi, ok := p.items[d.blocker]; ok {
				w.BlockedBy = append(w.BlockedBy, core.Linked{Key: d.blocker, Title: bi.w.Title, Status: bi.w.Status})
			}
		case d.blocker:
			if bi, ok := p.items[d.blocked]; ok {
				w.Blocks = append(w.Blocks, core.Linked{Key: d.blocked, Title: bi.w.Title, Status: bi.w.Status})
			}
		}
	}
	if it.w.Kind != core.KindSubtask {
		for _, c := range p.sorted() {
			if c.w.Kind == core.KindSubtask && c.w.ParentKey == it.w.Key {
				w.Subtasks = append(w.Subtasks, core.Linked{Key: c.w.Key, Title: c.w.Title, Status: c.w.Status})
			}
		}
	}
	if sp := p.sprintByID(it.sprint); sp != nil {
		w.Sprint = sp.Name
	}
	w.Rank = fmt.Sprintf("%012d", it.rank)
}

func (p *Provider) validateSubtask(s core.ItemSpec) error {
	if p.structure.noSubtasks {
		return core.Errorf(core.CodeConfigInvalid, "%s: the project has no sub-task type", s.Reference)
	}
	par, ok := p.items[s.ParentKey]
	if s.ParentKey == "" || !ok || par.w.Kind != core.KindStory {
		return core.Errorf(core.CodeValidationFailed, "%s: a sub-task needs a parent story in this project (got %q)", s.Reference, s.ParentKey)
	}
	return nil
}

func (p *Provider) sprintByID(id string) *core.Sprint {
	for i := range p.structure.sprints {
		if p.structure.sprints[i].ID == id {
			return &p.structure.sprints[i]
		}
	}
	return nil
}

// ---- core.StructureProvider ---------------------------------------------

// CheckSubtasks implements core.StructureProvider.
func (p *Provider) CheckSubtasks(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpCheck); err != nil {
		return err
	}
	if p.structure.noSubtasks {
		return core.Errorf(core.CodeConfigInvalid, "The project has no sub-task type.")
	}
	return nil
}

// Dependencies implements core.StructureProvider.
func (p *Provider) Dependencies(ctx context.Context, keys []string) ([]core.Dependency, error) {
	return structureRead(ctx, p, OpDependencies, func() (out []core.Dependency) {
		for _, d := range p.structure.deps {
			if slices.Contains(keys, d.blocked) || slices.Contains(keys, d.blocker) {
				out = append(out, core.Dependency{ID: strconv.Itoa(d.id), Blocker: d.blocker, Blocked: d.blocked})
			}
		}
		return out
	})
}

// structureRead runs one read call: the faults scheduled for it, then
// read under the lock.
func structureRead[T any](ctx context.Context, p *Provider, op Op, read func() T) (T, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, op); err != nil {
		var zero T
		return zero, err
	}
	return read(), nil
}

// AddDependency implements core.StructureProvider.
func (p *Provider) AddDependency(ctx context.Context, blocked, blocker string) error {
	return p.structureWrite(ctx, OpAddDependency, func() error {
		if blocked == blocker {
			return core.Errorf(core.CodeValidationFailed, "%s cannot depend on itself", blocked)
		}
		return p.linkLocked(blocked, blocker)
	})
}

// structureWrite runs one write call (writeItem's too): scripted pauses
// and faults before it, change under the lock, the faults scheduled for
// after it.
func (p *Provider) structureWrite(ctx context.Context, op Op, change func() error) error {
	p.pause(op)
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.enter(ctx, op)
	if err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	return p.after(f)
}

// RemoveDependency implements core.StructureProvider.
func (p *Provider) RemoveDependency(ctx context.Context, id string) error {
	return p.structureWrite(ctx, OpRemoveDependency, func() error {
		i := slices.IndexFunc(p.structure.deps, func(d dependency) bool { return strconv.Itoa(d.id) == id })
		if i < 0 {
			return core.Errorf(core.CodeWorkItemNotFound, "Dependency %s does not exist.", id)
		}
		d := p.structure.deps[i]
		p.structure.deps = slices.Delete(p.structure.deps, i, i+1)
		for _, k := range []string{d.blocker, d.blocked} {
			if it, ok := p.items[k]; ok {
				it.rev++
			}
		}
		return nil
	})
}

// Sprints implements core.StructureProvider.
func (p *Provider) Sprints(ctx context.Context, name string) ([]core.Sprint, error) {
	return structureRead(ctx, p, OpSprints, func() (out []core.Sprint) {
		for _, sp := range p.structure.sprints {
			if name == "" || strings.EqualFold(strings.TrimSpace(sp.Name), strings.TrimSpace(name)) {
				out = append(out, sp)
			}
		}
		return out
	})
}

func checkBatch(keys []string) error {
	if len(keys) == 0 || len(keys) > core.MaxBatch {
		return core.Errorf(core.CodeInternal, "fakeprovider: %d items in one request; send 1 to %d", len(keys), core.MaxBatch)
	}
	return nil
}

// MoveToSprint implements core.StructureProvider.
func (p *Provider) MoveToSprint(ctx context.Context, sprintID string, keys []string) error {
	return p.structureWrite(ctx, OpMoveToSprint, func() error {
		if err := checkBatch(keys); err != nil {
			return err
		}
		sp := p.sprintByID(sprintID)
		if sp == nil || sp.State == core.SprintClosed {
			return core.Errorf(core.CodeValidationFailed, "Sprint %s does not exist or is closed.", sprintID)
		}
		for _, k := range keys {
			it, ok := p.items[k]
			switch {
			case !ok:
				return notFound(k)
			case it.w.Kind == core.KindSubtask:
				return core.Errorf(core.CodeValidationFailed, "%s is a sub-task: it is in its parent's sprint.", k)
			}
		}
		for _, c := range p.items { // the items and their sub-tasks
			if (slices.Contains(keys, c.w.Key) || (c.w.Kind == core.KindSubtask && slices.Contains(keys, c.w.ParentKey))) && c.sprint != sprintID {
				c.sprint = sprintID
				c.rev++
			}
		}
		return nil
	})
}

// Rank implements core.StructureProvider.
func (p *Provider) Rank(ctx context.Context, keys []string, anchor string, before bool) ([]core.RankOutcome, error) {
	var out []core.RankOutcome
	err := p.structureWrite(ctx, OpRank, func() error {
		if err := checkBatch(keys); err != nil {
			return err
		}
		a, ok := p.items[anchor]
		if !ok {
			return core.Errorf(core.CodeValidationFailed, "Rank anchor %s does not exist.", anchor)
		}
		out = make([]core.RankOutcome, len(keys))
		var moving []*item
		for i, k := range keys {
			out[i].Key = k
			it, ok := p.items[k]
			switch {
			case !ok:
				out[i].Err = notFound(k)
			case it == a:
				out[i].Err = core.Errorf(core.CodeValidationFailed, "%s cannot be ranked relative to itself", k)
			case p.structure.rankFail[k] != nil:
				out[i].Err = p.structure.rankFail[k]
			default:
				moving = append(moving, it)
			}
		}
		p.placeLocked(moving, a, before)
		return nil
	})
	if err != nil && !core.IsOutcomeUnknown(err) {
		return nil, err
	}
	return out, err
}

// placeLocked puts moving right before/after the anchor and renumbers
// every rank (the fake needs no stable rank values); the moved items'
// fingerprints change.
func (p *Provider) placeLocked(moving []*item, a *item, before bool) {
	var rest []*item
	for _, it := range p.ranked() {
		if !slices.Contains(moving, it) {
			rest = append(rest, it)
		}
	}
	at := slices.Index(rest, a)
	if !before {
		at++
	}
	for i, it := range slices.Concat(rest[:at], moving, rest[at:]) {
		it.rank = (i + 1) * rankGap
	}
	for _, it := range moving {
		it.rev++
	}
}
