//go:build amd64 && !purego

package elementwise

import "unsafe"

// Implemented in minmax_amd64.s.

//go:noescape
func min32AVX2(d, a, b *float32, n int)

//go:noescape
func max32AVX2(d, a, b *float32, n int)

// max32 and min32 are maxK and minK for float32 (ReLU's maximum with 0
// runs over every activation), the same bits eight lanes at a time.
func max32(d, a, b []float32) {
	n := len(d) &^ 7
	if haveVec && n > 0 {
		max32AVX2(unsafe.SliceData(d), unsafe.SliceData(a[:n]), unsafe.SliceData(b[:n]), n)
	}
	maxK(d[n:], a[n:], b[n:])
}

func min32(d, a, b []float32) {
	n := len(d) &^ 7
	if haveVec && n > 0 {
		min32AVX2(unsafe.SliceData(d), unsafe.SliceData(a[:n]), unsafe.SliceData(b[:n]), n)
	}
	minK(d[n:], a[n:], b[n:])
}
