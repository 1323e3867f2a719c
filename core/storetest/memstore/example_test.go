package memstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// A preview handle is single-use: the first StartRun consumes it, a repeat
// with the same idempotency key gets the same run back, another key is
// refused.
func Example() {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := memstore.New(memstore.Options{Now: func() time.Time { return now }})
	defer s.Close()

	_ = s.SavePreview(ctx, core.Preview{Handle: "h1", Kind: core.PreviewImport, Scope: "https://example.atlassian.net/DEMO",
		Plan: []byte(`{"items":[]}`), CreatedAt: now, ExpiresAt: now.Add(30 * time.Minute)})

	run, started, _ := s.StartRun(ctx, core.StartRunRequest{Key: "key-1", Handle: "h1", RunID: "run-1", Now: now})
	fmt.Println(run.ID, run.State, started)

	run, started, _ = s.StartRun(ctx, core.StartRunRequest{Key: "key-1", Handle: "h1", RunID: "run-2", Now: now})
	fmt.Println(run.ID, run.State, started)

	_, _, err := s.StartRun(ctx, core.StartRunRequest{Key: "key-2", Handle: "h1", RunID: "run-3", Now: now})
	fmt.Println(core.ErrorCode(err))
	// Output:
	// run-1 in_progress true
	// run-1 in_progress false
	// PREVIEW_NOT_FOUND
}
