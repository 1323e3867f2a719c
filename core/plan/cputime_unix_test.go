//go:build unix

package plan

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used, so
// benchmarks can report it next to wall time on a busy machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
