//go:build !unix

package linalg_test

// cpuNanos is unknown here: benchmarks report 0.
func cpuNanos() int64 { return 0 }
