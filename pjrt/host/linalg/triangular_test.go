package linalg_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

func triAttrs(left, lower, unit bool, tr string) []hlo.NamedAttr {
	return []hlo.NamedAttr{
		{Name: "left_side", Value: hlo.BoolAttr(left)},
		{Name: "lower", Value: hlo.BoolAttr(lower)},
		{Name: "unit_diagonal", Value: hlo.BoolAttr(unit)},
		{Name: "transpose_a", Value: hlo.EnumAttr{Dialect: "stablehlo", Kind: "transpose", Value: tr}},
	}
}

// triMatrix makes a batch of n x n matrices whose chosen triangle is well
// conditioned and whose other triangle is large garbage that must not be read.
func triMatrix(r *rand.Rand, dt hlo.DType, batch []int64, n int64, lower bool) *hlo.Literal {
	l := randLiteral(r, dt, append(append([]int64(nil), batch...), n, n)...)
	for i := 0; i < l.NumElements(); i++ {
		row, col := (int64(i)/n)%n, int64(i)%n
		v := l.Complex(i) * 0.3
		switch {
		case row == col:
			v = complex(2+real(v), imag(v))
		case (col > row) == lower:
			v = 1e6
		}
		l.SetComplex(i, v)
	}
	return l
}

func TestTriangularSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	for _, dt := range []hlo.DType{hlo.F64, hlo.F32, hlo.C128, hlo.C64, hlo.F16, hlo.BF16} {
		for _, shape := range []struct {
			batch      []int64
			n, other   int64
			left       bool
			largeBlock bool
		}{{nil, 3, 1, true, false}, {nil, 4, 5, false, false}, {[]int64{2}, 8, 10, false, false}, {[]int64{2, 3}, 6, 70, true, false}, {nil, 1, 3, true, false}, {nil, 0, 3, true, false}, {[]int64{3}, 5, 0, false, false}, {nil, 150, 70, true, true}, {[]int64{2}, 140, 33, false, true}} {
			if shape.largeBlock && dt != hlo.F64 && dt != hlo.F32 {
				continue // the blocked (GEMM) path is for real types
			}
			for _, lower := range []bool{true, false} {
				for _, unit := range []bool{false, true} {
					for _, tr := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
						name := fmt.Sprintf("%s/b%v_n%d_o%d_left%v_lower%v_unit%v_%s", dt, shape.batch, shape.n, shape.other, shape.left, lower, unit, tr)
						a := triMatrix(r, dt, shape.batch, shape.n, lower)
						bd := append(append([]int64(nil), shape.batch...), shape.n, shape.other)
						if !shape.left {
							bd = append(append([]int64(nil), shape.batch...), shape.other, shape.n)
						}
						b := randLiteral(r, dt, bd...)
						x := mustRun(t, "stablehlo.triangular_solve", []*hlo.Literal{a, b}, []hlo.Type{tt(dt, bd...)}, triAttrs(shape.left, lower, unit, tr)...)[0]
						checkTriResidual(t, name, a, b, x, shape.left, lower, unit, tr)
					}
				}
			}
		}
	}
}

// checkTriResidual verifies op(a) x = b or x op(a) = b in complex128.
func checkTriResidual(t *testing.T, name string, a, b, x *hlo.Literal, left, lower, unit bool, tr string) {
	t.Helper()
	r := len(b.Dims)
	n := int(a.Dims[r-1])
	rows, cols := int(b.Dims[r-2]), int(b.Dims[r-1])
	batch := b.NumElements() / max(rows*cols, 1)
	if rows*cols == 0 {
		batch = int(hlo.NumElements(b.Dims[:r-2]))
	}
	opA := func(bi, i, j int) complex128 {
		if tr != "NO_TRANSPOSE" {
			i, j = j, i
		}
		if (lower && j > i) || (!lower && j < i) {
			return 0
		}
		v := a.Complex(bi*n*n + i*n + j)
		if i == j && unit {
			v = 1
		}
		if tr == "ADJOINT" {
			v = cmplx.Conj(v)
		}
		return v
	}
	tol := 10 * ulpTol(b.DType)
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				var s complex128
				scale := 0.0
				if left {
					for k := 0; k < n; k++ {
						p := opA(bi, i, k) * x.Complex(bi*rows*cols+k*cols+j)
						s += p
						scale += cmplx.Abs(p)
					}
				} else {
					for k := 0; k < n; k++ {
						p := x.Complex(bi*rows*cols+i*cols+k) * opA(bi, k, j)
						s += p
						scale += cmplx.Abs(p)
					}
				}
				want := b.Complex(bi*rows*cols + i*cols + j)
				if cmplx.Abs(s-want) > tol*(scale+1) {
					t.Fatalf("%s: residual at batch %d (%d,%d): op(a)x gives %v, b is %v", name, bi, i, j, s, want)
				}
			}
		}
	}
}

func TestTriangularSolveExamples(t *testing.T) {
	a := hlo.LiteralFromSlice([]float32{1, 0, 0, 2, 4, 0, 3, 5, 6}, 3, 3)
	b := hlo.LiteralFromSlice([]float32{2, 0, 0, 4, 8, 0, 6, 10, 12}, 3, 3)
	got := mustRun(t, "stablehlo.triangular_solve", []*hlo.Literal{a, b}, []hlo.Type{tt(hlo.F32, 3, 3)}, triAttrs(true, true, false, "NO_TRANSPOSE")...)[0]
	closeTo(t, "spec", got, []complex128{2, 0, 0, 0, 2, 0, 0, 0, 2}, nil, 1e-6, 0)

	ca := hlo.LiteralFromSlice([]complex64{1 + 1i, 0, 0, 2 - 2i, 3 + 4i, 0, 4 - 3i, 5 + 5i, 6 - 8i}, 3, 3)
	cb := hlo.LiteralFromSlice([]complex64{7 - 2i, 8 + 4i, 9 - 5i}, 3, 1)
	got = mustRun(t, "stablehlo.triangular_solve", []*hlo.Literal{ca, cb}, []hlo.Type{tt(hlo.C64, 3, 1)}, triAttrs(true, true, false, "NO_TRANSPOSE")...)[0]
	closeTo(t, "complex", got, []complex128{2.5 - 4.5i, 4.32 + 0.24i, -0.29 - 0.77i}, nil, 1e-5, 0)
	got = mustRun(t, "stablehlo.triangular_solve", []*hlo.Literal{ca, cb}, []hlo.Type{tt(hlo.C64, 3, 1)}, triAttrs(true, true, false, "ADJOINT")...)[0]
	closeTo(t, "adjoint", got, []complex128{7.18 + 2.68i, -0.08 + 3.16i, 0.14 - 1.02i}, nil, 1e-5, 0)
}

func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 5))
	for _, dt := range []hlo.DType{hlo.F64, hlo.F32, hlo.C128, hlo.C64, hlo.BF16} {
		for _, shape := range [][]int64{{3, 3}, {2, 5, 5}, {2, 3, 7, 7}, {1, 1}, {0, 0}, {3, 0, 4, 4}, {40, 40}, {2, 200, 200}} {
			if shape[len(shape)-1] > 128 && dt != hlo.F64 && dt != hlo.F32 {
				continue
			}
			for _, lower := range []bool{true, false} {
				name := fmt.Sprintf("%s/%v/lower%v", dt, shape, lower)
				a := hpdMatrix(r, dt, shape, lower)
				got := mustRun(t, "stablehlo.cholesky", []*hlo.Literal{a}, []hlo.Type{tt(dt, shape...)}, hlo.NamedAttr{Name: "lower", Value: hlo.BoolAttr(lower)})[0]
				checkCholesky(t, name, a, got, lower)
			}
		}
	}
}

// hpdMatrix makes Hermitian positive definite matrices M M^H + n I, with
// garbage in the triangle that must not be read.
func hpdMatrix(r *rand.Rand, dt hlo.DType, shape []int64, lower bool) *hlo.Literal {
	rk := len(shape)
	n := int(shape[rk-1])
	l := hlo.NewLiteral(dt, shape...)
	batch := int(hlo.NumElements(shape[:rk-2]))
	for b := 0; b < batch; b++ {
		m := make([]complex128, n*n)
		for i := range m {
			m[i] = complex(r.Float64()*2-1, 0)
			if dt.IsComplex() {
				m[i] += complex(0, r.Float64()*2-1)
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s complex128
				for k := 0; k < n; k++ {
					s += m[i*n+k] * cmplx.Conj(m[j*n+k])
				}
				if i == j {
					s += complex(float64(n), 0)
				}
				if (j > i && lower) || (j < i && !lower) {
					s = 1e6 + 5i
				}
				l.SetComplex(b*n*n+i*n+j, s)
			}
		}
	}
	return l
}

func checkCholesky(t *testing.T, name string, a, f *hlo.Literal, lower bool) {
	t.Helper()
	rk := len(a.Dims)
	n := int(a.Dims[rk-1])
	batch := int(hlo.NumElements(a.Dims[:rk-2]))
	tol := 20 * ulpTol(a.DType)
	for b := 0; b < batch; b++ {
		at := func(i, j int) complex128 { return f.Complex(b*n*n + i*n + j) }
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if (lower && j > i) || (!lower && j < i) {
					if at(i, j) != 0 {
						t.Fatalf("%s: result (%d,%d) = %v outside the triangle, want 0", name, i, j, at(i, j))
					}
					continue
				}
				// Reconstruct a[i][j] from the factor.
				var s complex128
				for k := 0; k < n; k++ {
					if lower {
						s += at(i, k) * cmplx.Conj(at(j, k))
					} else {
						s += cmplx.Conj(at(k, i)) * at(k, j)
					}
				}
				want := a.Complex(b*n*n + i*n + j)
				if cmplx.Abs(s-want) > tol*float64(n)*float64(n) {
					t.Fatalf("%s: reconstructed (%d,%d) = %v, want %v", name, i, j, s, want)
				}
			}
		}
	}
}

func TestCholeskyBlockedNotPositiveDefinite(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	a := hpdMatrix(r, hlo.F64, []int64{2, 150, 150}, true)
	a.F64()[150*150-1] = -1e6 // last pivot of matrix 0 goes negative
	got := mustRun(t, "stablehlo.cholesky", []*hlo.Literal{a}, []hlo.Type{tt(hlo.F64, 2, 150, 150)}, hlo.NamedAttr{Name: "lower", Value: hlo.BoolAttr(true)})[0]
	if !math.IsNaN(got.F64()[0]) || math.IsNaN(got.F64()[150*150]) {
		t.Fatalf("want matrix 0 all NaN and matrix 1 factored, got %v and %v", got.F64()[0], got.F64()[150*150])
	}
}

func TestCholeskyNotPositiveDefinite(t *testing.T) {
	a := hlo.LiteralFromSlice([]float64{1, 0, 0, 0, 1, 0, 0, 0, -1, 4, 0, 0, 2, 5, 0, 1, 1, 6}, 2, 3, 3)
	got := mustRun(t, "stablehlo.cholesky", []*hlo.Literal{a}, []hlo.Type{tt(hlo.F64, 2, 3, 3)}, hlo.NamedAttr{Name: "lower", Value: hlo.BoolAttr(true)})[0]
	for i := 0; i < 9; i++ {
		if !math.IsNaN(got.F64()[i]) {
			t.Fatalf("matrix 0 is not positive definite: want NaN, got %v", got.F64()[:9])
		}
	}
	for i := 9; i < 18; i++ {
		if math.IsNaN(got.F64()[i]) {
			t.Fatalf("matrix 1 is positive definite: got %v", got.F64()[9:])
		}
	}
}
