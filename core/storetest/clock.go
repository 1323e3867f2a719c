package storetest

import (
	"sync"
	"time"
)

// Clock is a settable clock for stores and tests. Its zero value is not
// usable; use NewClock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at t (truncated to microseconds, the precision
// every store keeps).
func NewClock(t time.Time) *Clock {
	return &Clock{now: t.UTC().Truncate(time.Microsecond)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d).Truncate(time.Microsecond)
	return c.now
}
