package memstore

import (
	"context"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
)

type harness struct{ first *Store }

func (h *harness) Open(_ context.Context, now func() time.Time) (core.Store, error) {
	if h.first == nil {
		h.first = New(Options{Now: now})
		return h.first, nil
	}
	return h.first.Reopen(Options{Now: now}), nil
}

func (h *harness) TamperPlan(_ context.Context, handle string) error {
	if !h.first.TamperPlan(handle, []byte("tampered")) {
		return core.Errorf(core.CodeInternal, "no preview %q to tamper with", handle)
	}
	return nil
}

func (h *harness) Close() error { return nil }

func newHarness(context.Context, testing.TB) (storetest.Harness, error) { return &harness{}, nil }

func TestContract(t *testing.T) { storetest.Run(t, newHarness) }
