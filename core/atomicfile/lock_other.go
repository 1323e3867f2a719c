//go:build !unix

package atomicfile

import (
	"os"
	"time"
)

// lock is a no-op where advisory locks are not available.
func lock(*os.File) bool { return true }

// abandoned reports whether a temporary file was left by a write that
// ended without finishing: without advisory locks, one older than
// staleAge (no write takes that long).
func abandoned(_ *os.File, mod time.Time) bool { return time.Since(mod) > staleAge }

const staleAge = time.Hour
