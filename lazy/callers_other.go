//go:build !amd64 || purego

package lazy

import "runtime"

// callers fills pcs with the return addresses of the frames above the
// caller of callers.
func callers(pcs []uintptr) int { return runtime.Callers(3, pcs) }
