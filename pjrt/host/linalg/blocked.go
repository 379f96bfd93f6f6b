package linalg

import (
	"math"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// Blocked triangular solve and Cholesky factorisation for real matrices
// (computed in float64): panels of blockNB columns are handled by the
// scalar algorithms, and the trailing updates, which hold nearly all of
// the work, run on the f64 GEMM.

const (
	blockNB = 64
	// Matrices up to this order use the scalar algorithms only.
	blockedMin = 128
)

// gemmSub computes C -= A x B for an m x k view a, a k x n view b, and C
// at c[off:] with row stride ldc.
func gemmSub(m, n, k int, a, b matrix[float64], c []float64, off, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	tmp, scr := scratch[float64](m * n)
	defer putScratch(scr)
	clear(tmp)
	gemm(bestF64(), 1, m, n, k, a, b, matrix[float64]{data: tmp, off: []int{0}, rs: n, cs: 1})
	kernel.ParallelFor(m, max(1, 8192/n), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := c[off+i*ldc : off+i*ldc+n]
			t := tmp[i*n : (i+1)*n]
			for j := range row {
				row[j] -= t[j]
			}
		}
	})
}

// triSolveBlocked solves T X = B (left) or X T = B for one matrix: tm is
// the dense effective n x n triangle (lower or upper), x holds B (rows x
// cols) and receives X.
func triSolveBlocked(tm, x []float64, n, rows, cols int, left, lower bool) {
	tv := func(r0, c0 int) matrix[float64] {
		return matrix[float64]{data: tm, off: []int{r0*n + c0}, rs: n, cs: 1}
	}
	xv := func(r0, c0 int) matrix[float64] {
		return matrix[float64]{data: x, off: []int{r0*cols + c0}, rs: cols, cs: 1}
	}
	for step := 0; step < n; step += blockNB {
		b := min(blockNB, n-step)
		// Blocks go forward for lower-left and upper-right solves.
		b0 := step
		if left != lower {
			b0 = n - step - b
		}
		b1 := b0 + b
		if left {
			// Solve the block rows, then remove their part from the rest.
			kernel.ParallelFor(cols, 64, func(lo, hi int) {
				solveLeftBlock(tm, x, n, cols, b0, b1, lo, hi, lower)
			})
			if lower {
				gemmSub(n-b1, cols, b, tv(b1, b0), xv(b0, 0), x, b1*cols, cols)
			} else {
				gemmSub(b0, cols, b, tv(0, b0), xv(b0, 0), x, 0, cols)
			}
			continue
		}
		kernel.ParallelFor(rows, 16, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				solveRightBlock(tm, x[r*cols:(r+1)*cols], n, b0, b1, lower)
			}
		})
		if lower {
			gemmSub(rows, b0, b, xv(0, b0), tv(b0, 0), x, 0, cols)
		} else {
			gemmSub(rows, n-b1, b, xv(0, b0), tv(b0, b1), x, b1, cols)
		}
	}
}

// solveLeftBlock solves rows [b0, b1) of T X = B for columns [c0, c1),
// using only the diagonal block of T.
func solveLeftBlock(tm, x []float64, n, cols, b0, b1, c0, c1 int, lower bool) {
	w := c1 - c0
	row := func(i int) []float64 { return x[i*cols+c0 : i*cols+c0+w] }
	if lower {
		for i := b0; i < b1; i++ {
			xi := row(i)
			for j := b0; j < i; j++ {
				t, xj := tm[i*n+j], row(j)
				for q := range xi {
					xi[q] -= t * xj[q]
				}
			}
			d := tm[i*n+i]
			for q := range xi {
				xi[q] /= d
			}
		}
		return
	}
	for i := b1 - 1; i >= b0; i-- {
		xi := row(i)
		for j := i + 1; j < b1; j++ {
			t, xj := tm[i*n+j], row(j)
			for q := range xi {
				xi[q] -= t * xj[q]
			}
		}
		d := tm[i*n+i]
		for q := range xi {
			xi[q] /= d
		}
	}
}

// solveRightBlock solves columns [b0, b1) of x T = b for one row.
func solveRightBlock(tm, x []float64, n, b0, b1 int, lower bool) {
	if !lower {
		for j := b0; j < b1; j++ {
			x[j] /= tm[j*n+j]
			xj := x[j]
			r := tm[j*n : (j+1)*n]
			for l := j + 1; l < b1; l++ {
				x[l] -= xj * r[l]
			}
		}
		return
	}
	for j := b1 - 1; j >= b0; j-- {
		x[j] /= tm[j*n+j]
		xj := x[j]
		r := tm[j*n : (j+1)*n]
		for l := b0; l < j; l++ {
			x[l] -= xj * r[l]
		}
	}
}

// choleskyBlocked computes the lower factor of the symmetric matrix whose
// lower triangle is given by at (left-looking, by column panels) into l,
// reporting false when a pivot is not positive (NaN square root).
func choleskyBlocked(at func(i, j int) float64, l []float64, n int) bool {
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			l[i*n+j] = at(i, j)
		}
	}
	lv := func(r0, c0, rs, cs int) matrix[float64] {
		return matrix[float64]{data: l, off: []int{r0*n + c0}, rs: rs, cs: cs}
	}
	ok := true
	for k0 := 0; k0 < n; k0 += blockNB {
		k1 := min(k0+blockNB, n)
		b := k1 - k0
		// Panel L[k0:n, k0:k1] -= L[k0:n, 0:k0] x L[k0:k1, 0:k0]^T.
		gemmSub(n-k0, b, k0, lv(k0, 0, n, 1), lv(k0, 0, 1, n), l, k0*n+k0, n)
		// Factor the diagonal block.
		for j := k0; j < k1; j++ {
			rj := l[j*n+k0 : j*n+j]
			d := l[j*n+j]
			for _, v := range rj {
				d -= v * v
			}
			piv := math.Sqrt(d)
			if math.IsNaN(piv) {
				ok = false
			}
			l[j*n+j] = piv
			for i := j + 1; i < k1; i++ {
				ri := l[i*n+k0 : i*n+j]
				s := l[i*n+j]
				for p, v := range ri {
					s -= v * rj[p]
				}
				l[i*n+j] = s / piv
			}
		}
		// Rows below: solve x L_kk^T = panel row.
		kernel.ParallelFor(n-k1, 16, func(lo, hi int) {
			for i := k1 + lo; i < k1+hi; i++ {
				x := l[i*n+k0 : i*n+k1]
				for j := 0; j < b; j++ {
					s := x[j]
					lj := l[(k0+j)*n+k0 : (k0+j)*n+k0+j]
					for p, v := range lj {
						s -= x[p] * v
					}
					x[j] = s / l[(k0+j)*n+k0+j]
				}
			}
		})
	}
	for i := 0; i < n; i++ {
		clear(l[i*n+i+1 : (i+1)*n])
	}
	return ok
}
