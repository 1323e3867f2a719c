package sqlrows

import (
	"errors"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
)

// StartRun is core.Store's StartRun inside the store's write transaction:
// the run req's key already has (existing: a replay of req's handle, or
// IDEMPOTENCY_KEY_REUSED for another handle's), else the run start
// begins (consuming req's handle and inserting the run; startedAt is the
// start time as stored). started is true only for a new run.
func StartRun(req core.StartRunRequest, existing func() (core.Run, bool, error), start func() (startedAt time.Time, err error)) (run core.Run, started bool, err error) {
	r, found, err := existing()
	if err != nil {
		return core.Run{}, false, err
	}
	if found {
		if r.Handle != req.Handle {
			return core.Run{}, false, storeerr.KeyReused(req.Key, r.Handle, req.Handle)
		}
		return r, false, nil
	}
	at, err := start()
	if err != nil {
		return core.Run{}, false, err
	}
	return core.Run{ID: req.RunID, Key: req.Key, Handle: req.Handle, State: core.RunInProgress, StartedAt: at}, true, nil
}

// RunState reads the state of the run of key from row (its state
// column): RunNotFound when there is none (noRows, the driver's "no rows"
// error).
func RunState(row Row, key string, noRows error) (core.RunState, error) {
	var state string
	err := row.Scan(&state)
	if errors.Is(err, noRows) {
		return "", storeerr.RunNotFound(key)
	}
	return core.RunState(state), err
}

// InProgress is RunState for a write only a run in progress takes: a
// finished run is RunFinished.
func InProgress(row Row, key string, noRows error) error {
	state, err := RunState(row, key, noRows)
	if err != nil {
		return err
	}
	if state != core.RunInProgress {
		return storeerr.RunFinished(key, state)
	}
	return nil
}
