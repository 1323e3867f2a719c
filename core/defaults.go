package core

import "time"

// Query limits.
const (
	DefaultQueryLimit = 25
	MaxQueryLimit     = 100
)

// Defaults of the service's options (service.ServiceOptions) the stores
// share: a Postgres session's idle timeout is the commit lock's lease.
const (
	// DefaultPreviewTTL is how long a preview handle can be committed.
	DefaultPreviewTTL      = 30 * time.Minute
	DefaultSearchLagWindow = 10 * time.Minute
	DefaultCommitLockLease = 30 * time.Second
	DefaultCommitLockWait  = 45 * time.Second
	DefaultWritesInFlight  = 16
)

// The commit lock's heartbeat: a running commit renews its lock every
// CommitLockBeat (every third of a shorter lease), and a holder silent
// for CommitLockSilentBeats beats (on the store's clock) is taken as not
// running (its process died, or it lost the store), although its lease
// may run for a while yet. Only what a repeat of its key is told depends
// on it: the lock itself passes on only when its lease ran out.
const (
	CommitLockBeat        = time.Second
	CommitLockSilentBeats = 5
)

// PositiveOr is v, or def when v is zero or negative (an option left
// unset, or one that means nothing).
func PositiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
