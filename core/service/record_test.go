package service_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// countingStore remembers the size of every RecordOutcomes call.
type countingStore struct {
	core.Store
	mu    sync.Mutex
	sizes []int
}

func (c *countingStore) RecordOutcomes(ctx context.Context, key string, outcomes []core.ItemOutcome) error {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(outcomes))
	c.mu.Unlock()
	return c.Store.RecordOutcomes(ctx, key, outcomes)
}

// A create batch's outcomes are recorded in one store call, not one per
// item (one durable transaction each), and every one of them is
// in the run.
func TestCreateBatchOutcomesAreOneStoreCall(t *testing.T) {
	e := newEnv(t)
	e.oneAtATime() // one group per batch, in plan order
	cs := &countingStore{Store: e.st}
	svc := e.serviceWith(service.ServiceOptions{Store: cs, WritesInFlight: 1})
	pre := e.preview(bigDoc("r", 2, 60)) // 2 epics, 120 stories
	res, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "batched"})
	if err != nil || res.Counts.Created != 122 {
		t.Fatalf("commit: %+v, %v", res.Counts, err)
	}
	if want := []int{2, 50, 50, 20}; !slices.Equal(cs.sizes, want) {
		t.Errorf("RecordOutcomes calls of %v outcomes; want %v (one per create batch)", cs.sizes, want)
	}
	run, _, err := e.st.GetRun(e.ctx, "batched")
	if err != nil || len(run.Outcomes) != 122 {
		t.Fatalf("run has %d outcomes, %v; want 122", len(run.Outcomes), err)
	}
}

// No commit path drops a state store error on the floor: no `_ =` on a
// record, an outcome, a run's finish, a fence or an index write, in any
// non-test source of this module.
func TestNoCommitPathIgnoresAStoreError(t *testing.T) {
	ignored := regexp.MustCompile(`_\s*(,\s*_\s*)?=\s*[\w.()]*\.(record|RecordOutcomes|FinishRun|finish|fence|UpsertIndex|RecordBase|StartRun)\(`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if ignored.MatchString(line) {
				t.Errorf("%s:%d ignores a state store error: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
