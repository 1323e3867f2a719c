//go:build unix

package plan

import "syscall"

// openFlags are added to O_RDONLY when ReadFile opens a document.
// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a
// writer, so the check of the opened file (fstat) always runs; it has no
// effect on reading a regular file.
const openFlags = syscall.O_NONBLOCK
