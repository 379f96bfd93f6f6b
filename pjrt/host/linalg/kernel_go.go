package linalg

// Portable micro-kernels. Go does not vectorise, so these are scalar, and
// the tile must be small enough for its accumulators to stay in the 15
// usable XMM registers (X15 is reserved by the Go ABI): the compiler
// schedules all multiplies of a step before the adds, so a 4x4 tile spills
// and runs ~30 % slower than 3x3 (measured: 6.7 vs 9.4 GFLOP/s at 512).

var goKernelF32 = &microKernel[float32]{name: "go3x3", mr: 3, nr: 3, fn: kern3x3[float32]}
var goKernelF64 = &microKernel[float64]{name: "go3x3", mr: 3, nr: 3, fn: kern3x3[float64]}

func kern3x3[T float](k int, a, b, c []T, ldc int, store bool) {
	var c00, c01, c02 T
	var c10, c11, c12 T
	var c20, c21, c22 T
	a = a[:3*k]
	b = b[:3*k]
	for p := 0; p < k; p++ {
		aa := a[3*p : 3*p+3 : 3*p+3]
		bb := b[3*p : 3*p+3 : 3*p+3]
		a0, a1, a2 := aa[0], aa[1], aa[2]
		c00 += a0 * bb[0]
		c10 += a1 * bb[0]
		c20 += a2 * bb[0]
		c01 += a0 * bb[1]
		c11 += a1 * bb[1]
		c21 += a2 * bb[1]
		c02 += a0 * bb[2]
		c12 += a1 * bb[2]
		c22 += a2 * bb[2]
	}
	if store {
		r := c[:3:3]
		r[0], r[1], r[2] = c00, c01, c02
		r = c[ldc : ldc+3 : ldc+3]
		r[0], r[1], r[2] = c10, c11, c12
		r = c[2*ldc : 2*ldc+3 : 2*ldc+3]
		r[0], r[1], r[2] = c20, c21, c22
		return
	}
	r := c[:3:3]
	r[0] += c00
	r[1] += c01
	r[2] += c02
	r = c[ldc : ldc+3 : ldc+3]
	r[0] += c10
	r[1] += c11
	r[2] += c12
	r = c[2*ldc : 2*ldc+3 : 2*ldc+3]
	r[0] += c20
	r[1] += c21
	r[2] += c22
}
