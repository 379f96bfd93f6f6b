//go:build amd64 && !purego

package lazy

// fpCallers stores the return addresses of the frames above its caller,
// found by following frame pointers (as Go's execution tracer does): a
// few nanoseconds per frame, where runtime.Callers decodes each frame's
// tables.
//
//go:noescape
func fpCallers(pcs []uintptr) int

// callers fills pcs with the return addresses of the frames above the
// caller of callers (physical frames: inlined calls share one; the
// frames of package lazy are skipped when a site is resolved).
func callers(pcs []uintptr) int { return fpCallers(pcs) }
