//go:build unix

package linalg_test

import "syscall"

// cpuNanos is the CPU time this process has used (user and system), so
// that benchmarks can report it beside wall time on a shared machine.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
