package lazy

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock: what time.Now reads for its
// monotonic part, without the wall clock (half the cost on the execute path,
// which times every execution).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
