//go:build !unix

package jit_test

// cpuNanos is unknown here: benchmarks report 0.
func cpuNanos() int64 { return 0 }
