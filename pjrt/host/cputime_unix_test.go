//go:build unix

package host

import "syscall"

// cpuSeconds is the CPU time this process has used (user and system), so
// that timing comparisons do not depend on what else the machine runs.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nowSeconds()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
