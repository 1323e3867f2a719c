package service

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// schedulerOnly is an execution with nothing but what schedule uses.
func schedulerOnly(writes int) *execution {
	return &execution{commitRun: &commitRun{s: &WorkItemService{writes: writes}}, outcome: map[core.Reference]*core.ItemOutcome{}, written: map[core.Reference]bool{}}
}

// TestScheduleWaitsForWhatAStepNeeds: a step needing an item starts only
// once the step writing it ended with the item committed, and a step after
// another only once that one ended.
func TestScheduleWaitsForWhatAStepNeeds(t *testing.T) {
	x := schedulerOnly(4)
	var order []string
	var mu = &x.mu
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	create := &step{writes: []core.Reference{"d/e-1"}, write: func(context.Context) {
		note("create")
		mu.Lock()
		x.outcome["d/e-1"] = &core.ItemOutcome{Reference: "d/e-1", Outcome: core.OutcomeCommitted}
		mu.Unlock()
	}}
	rank := &step{needs: []core.Reference{"d/e-1"}, write: func(context.Context) { note("rank") }}
	last := &step{after: []*step{rank}, write: func(context.Context) { note("last") }}
	x.schedule(context.Background(), []*step{last, rank, create})
	if len(order) != 3 || order[0] != "create" || order[1] != "rank" || order[2] != "last" {
		t.Errorf("order %v; want create, rank, last", order)
	}
	if x.stop != nil {
		t.Errorf("stopped: %v", x.stop)
	}
}

// TestScheduleNeverLeavesAStepOutSilently: a step whose item was never
// written (its write ended without a committed outcome, and nothing
// stopped the run) is not sent, and the run stops with an internal error
// instead of ending as if everything was written.
func TestScheduleNeverLeavesAStepOutSilently(t *testing.T) {
	x := schedulerOnly(2)
	var sent atomic.Int32
	create := &step{writes: []core.Reference{"d/s-1"}, write: func(context.Context) {}}
	link := &step{needs: []core.Reference{"d/s-1"}, write: func(context.Context) { sent.Add(1) }}
	x.schedule(context.Background(), []*step{create, link})
	if sent.Load() != 0 {
		t.Errorf("the link was sent without its item")
	}
	if x.stop == nil || core.ErrorCode(x.stop) != core.CodeInternal {
		t.Errorf("stop = %v; want an internal error", x.stop)
	}
}

// TestScheduleStartsWhatWaitsForASendOnceItLeft: a step after another's
// send starts once that write says its request left (Sent), while the
// write is still waiting for its answer; and, from a provider that never
// says so, once the write ended.
func TestScheduleStartsWhatWaitsForASendOnceItLeft(t *testing.T) {
	x := schedulerOnly(4)
	followed := make(chan struct{})
	early := false
	lead := &step{write: func(ctx context.Context) {
		core.Sent(ctx)
		select { // the answer is held until the follower ran (or a deadline)
		case <-followed:
			early = true
		case <-time.After(10 * time.Second):
		}
	}}
	follower := &step{afterSent: []*step{lead}, write: func(context.Context) { close(followed) }}
	x.schedule(t.Context(), []*step{lead, follower})
	if !early {
		t.Error("the follower waited for the lead's answer, not its send")
	}
	if x.stop != nil {
		t.Errorf("stopped: %v", x.stop)
	}

	x = schedulerOnly(4)
	var order []string
	note := func(s string) { x.mu.Lock(); order = append(order, s); x.mu.Unlock() }
	silent := &step{write: func(context.Context) { note("silent") }}
	after := &step{afterSent: []*step{silent}, write: func(context.Context) { note("after") }}
	x.schedule(t.Context(), []*step{silent, after})
	if len(order) != 2 || order[0] != "silent" {
		t.Errorf("order %v; want silent, then after", order)
	}
}
