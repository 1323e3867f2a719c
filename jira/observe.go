package jira

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// logFor returns the logger for work done on behalf of ctx: with the
// service's run id (core.RunIDFrom) when there is one, so every adapter
// line of a run (retries, unknown outcomes, resolutions) can be found by
// it.
func (p *Provider) logFor(ctx context.Context) *slog.Logger {
	if id := core.RunIDFrom(ctx); id != "" {
		return p.log.With("run_id", id)
	}
	return p.log
}

// retryTally collects the retries of one provider call (Lookup, Create, …)
// across all the requests it sends.
type retryTally struct {
	mu        sync.Mutex
	endpoints map[string]bool
	attempts  int           // attempts of the requests that were retried
	retries   int           // attempts beyond the first
	wait      time.Duration // time spent waiting before retries
}

type tallyKey struct{}

// record notes a request to endpoint that took attempts attempts and
// waited wait between them. Requests without a retry are not recorded.
func (t *retryTally) record(endpoint string, attempts int, wait time.Duration) {
	if t == nil || attempts < 2 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.endpoints == nil {
		t.endpoints = map[string]bool{}
	}
	t.endpoints[endpoint] = true
	t.attempts += attempts
	t.retries += attempts - 1
	t.wait += wait
}

func tallyFrom(ctx context.Context) *retryTally {
	t, _ := ctx.Value(tallyKey{}).(*retryTally)
	return t
}

// observe starts a provider call named op. The returned done logs one
// summary line if any request of the call was retried: the endpoints, the
// attempts of the retried requests, the retries and the total wait. A
// call made inside another (Lookup reading by key, for instance) counts
// towards the outer one.
func (p *Provider) observe(ctx context.Context, op string) (context.Context, func()) {
	if tallyFrom(ctx) != nil {
		return ctx, func() {}
	}
	t := &retryTally{}
	ctx = context.WithValue(ctx, tallyKey{}, t)
	return ctx, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.retries == 0 {
			return
		}
		eps := make([]string, 0, len(t.endpoints))
		for e := range t.endpoints {
			eps = append(eps, e)
		}
		slices.Sort(eps)
		p.logFor(ctx).Info("jira call retried", "op", op, "endpoint", strings.Join(eps, ", "), "attempts", t.attempts, "retries", t.retries, "total_wait_ms", t.wait.Milliseconds())
	}
}
