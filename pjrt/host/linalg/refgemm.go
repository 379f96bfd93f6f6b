package linalg

import "github.com/xlajit/xlajit/hlo"

// Small products run in the StableHLO reference interpreter's evaluation
// order: operands converted to the result type, each product rounded to it
// (no fused multiply-add), summed from zero along the contracting index in
// row-major order. JAX's expected values and the reference interpreter
// agree to a few ULP on small products, while the blocked FMA kernels
// differ from both by more on cancelling sums. Large products use the
// GEMM, as XLA's CPU backend switches from its naive emitter to a library
// kernel. The explicit conversions T(x*y) forbid the compiler to fuse.

// refWork is the largest product (batch*m*n*k multiply-adds) run in
// reference order.
const refWork = 1 << 12

func refGemm[T float32 | float64](batch, m, n, k int, a, b, c matrix[T]) {
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < m; i++ {
			ab := a.off[bi] + i*a.rs
			cb := c.off[bi] + i*c.rs
			for j := 0; j < n; j++ {
				bb := b.off[bi] + j*b.cs
				var acc T
				for p := 0; p < k; p++ {
					acc = acc + T(a.data[ab+p*a.cs]*b.data[bb+p*b.rs])
				}
				c.data[cb+j*c.cs] += acc
			}
		}
	}
}

func refGemmC64(batch, m, n, k int, a, b, c matrix[complex64]) {
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < m; i++ {
			ab := a.off[bi] + i*a.rs
			cb := c.off[bi] + i*c.rs
			for j := 0; j < n; j++ {
				bb := b.off[bi] + j*b.cs
				var re, im float32
				for p := 0; p < k; p++ {
					x, y := a.data[ab+p*a.cs], b.data[bb+p*b.rs]
					xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
					re = re + (float32(xr*yr) - float32(xi*yi))
					im = im + (float32(xr*yi) + float32(xi*yr))
				}
				c.data[cb+j*c.cs] += complex(re, im)
			}
		}
	}
}

func refGemmC128(batch, m, n, k int, a, b, c matrix[complex128]) {
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < m; i++ {
			ab := a.off[bi] + i*a.rs
			cb := c.off[bi] + i*c.rs
			for j := 0; j < n; j++ {
				bb := b.off[bi] + j*b.cs
				var re, im float64
				for p := 0; p < k; p++ {
					x, y := a.data[ab+p*a.cs], b.data[bb+p*b.rs]
					xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
					re = re + (float64(xr*yr) - float64(xi*yi))
					im = im + (float64(xr*yi) + float64(xi*yr))
				}
				c.data[cb+j*c.cs] += complex(re, im)
			}
		}
	}
}

// toC64 returns the elements of l as complex64 (a view when l is c64).
func toC64(l *hlo.Literal) []complex64 {
	if l.DType == hlo.C64 {
		return l.C64()
	}
	v := toC128(l)
	out := make([]complex64, len(v))
	for i, x := range v {
		out[i] = complex64(x)
	}
	return out
}
