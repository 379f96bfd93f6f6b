//go:build !unix

package host

// cpuSeconds falls back to wall time where getrusage is missing.
func cpuSeconds() float64 { return nowSeconds() }
