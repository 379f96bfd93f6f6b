//go:build (amd64 || arm64) && !purego

package lazy

// getg returns the address of the calling goroutine's runtime descriptor:
// unique among live goroutines, which is all a trace needs (the tracing
// goroutine is alive while its trace is).
func getg() uintptr

// goid identifies the calling goroutine.
func goid() uint64 { return uint64(getg()) }
