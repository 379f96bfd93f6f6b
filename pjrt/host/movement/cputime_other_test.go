//go:build !unix

package movement

// cpuNanos is unknown here: benchmarks report 0.
func cpuNanos() int64 { return 0 }
