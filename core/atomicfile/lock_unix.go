//go:build unix

package atomicfile

import (
	"os"
	"syscall"
	"time"
)

// lock holds an advisory lock on a temporary file for as long as it is
// open: the kernel drops it when the file is closed or its process ends,
// killed or not. It is false where the file system cannot lock.
func lock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// abandoned reports whether a temporary file was left by a write that
// ended without finishing (no process holds its lock), locking it for
// the removal when so.
func abandoned(f *os.File, _ time.Time) bool { return lock(f) }
