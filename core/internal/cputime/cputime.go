// Package cputime measures the CPU time the process has used, so that the
// benchmarks of core and core/plan can report it next to wall time on a
// busy machine.
package cputime
