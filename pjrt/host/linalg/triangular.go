package linalg

import (
	"math/cmplx"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.triangular_solve", Compile: compileTriangularSolve, Fresh: true})
}

// scalar is the arithmetic of the factorisation ops: real types run in
// float64, complex ones in complex128.
type scalar interface{ float64 | complex128 }

func conjOf[T scalar](x T) T {
	if c, ok := any(x).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return x
}

// batchedSquare checks a [..., n, n] tensor of float or complex type.
func batchedSquare(c *kernel.OpCtx, what string, t *hlo.TensorType) error {
	r := t.Rank()
	if r < 2 || t.Dims[r-1] != t.Dims[r-2] {
		return c.Errorf("%s %s must be a batch of square matrices", what, t.ShapeString())
	}
	if !(t.DType.IsFloat() || t.DType.IsComplex()) {
		return c.Errorf("%s %s must have a floating-point or complex element type", what, t.ShapeString())
	}
	return nil
}

func compileTriangularSolve(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("expects 2 operands, has %d", len(c.In))
	}
	at, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	bt, err := tensorIn(c, 1)
	if err != nil {
		return nil, err
	}
	ot, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if err := batchedSquare(c, "a", at); err != nil {
		return nil, err
	}
	var s triSolve
	if s.left, err = boolAttr(c, "left_side", false); err != nil {
		return nil, err
	}
	if s.lower, err = boolAttr(c, "lower", false); err != nil {
		return nil, err
	}
	if s.unit, err = boolAttr(c, "unit_diagonal", false); err != nil {
		return nil, err
	}
	tr, err := enumAttr(c, "transpose_a", "NO_TRANSPOSE")
	if err != nil {
		return nil, err
	}
	switch tr {
	case "NO_TRANSPOSE":
	case "TRANSPOSE":
		s.trans = true
	case "ADJOINT":
		s.trans, s.conj = true, true
	default:
		return nil, c.Errorf("unknown transpose_a %q", tr)
	}
	r := at.Rank()
	s.n = int(at.Dims[r-1])
	side := r - 1
	if s.left {
		side = r - 2
	}
	if bt.Rank() != r || !dimsEqual(at.Dims[:r-2], bt.Dims[:r-2]) || bt.Dims[side] != int64(s.n) {
		return nil, c.Errorf("b %s does not fit a %s (left_side=%v)", bt.ShapeString(), at.ShapeString(), s.left)
	}
	if at.DType != bt.DType || !ot.Equal(&hlo.TensorType{DType: bt.DType, Dims: bt.Dims}) {
		return nil, c.Errorf("a %s, b %s and result %s must share the element type and b's shape", at.ShapeString(), bt.ShapeString(), ot.ShapeString())
	}
	s.rows, s.cols = int(bt.Dims[r-2]), int(bt.Dims[r-1])
	s.batch = int(hlo.NumElements(at.Dims[:r-2]))
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		a, err := argLiteral(c, args, 0)
		if err != nil {
			return err
		}
		b, err := argLiteral(c, args, 1)
		if err != nil {
			return err
		}
		out := x.NewLiteralUninit(ot.DType, ot.Dims)
		if at.DType.IsComplex() {
			xs := append([]complex128(nil), toC128(b)...)
			triSolveRun(&s, toC128(a), xs)
			storeC128(out, xs)
		} else {
			xs := append([]float64(nil), toF64(b)...)
			triSolveRun(&s, toF64(a), xs)
			storeF64(out, xs)
		}
		results[0] = out
		return nil
	}, nil
}

// triSolve is a compiled triangular_solve over batch matrices: a is n x n,
// b (and x) rows x cols.
type triSolve struct {
	left, lower, unit, trans, conj bool
	n, rows, cols, batch           int
}

// triSolveRun overwrites x (holding b) with the solution, in parallel over
// batch entries and (left side) column blocks or (right side) rows.
func triSolveRun[T scalar](s *triSolve, a, x []T) {
	n := s.n
	mat := s.rows * s.cols
	const colBlock = 64
	parts := ceilDiv(s.cols, colBlock) // left side: column blocks
	if !s.left {
		parts = ceilDiv(s.rows, 16)
	}
	tmats := make([][]T, s.batch)
	kernel.ParallelFor(s.batch, 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			tmats[bi] = effectiveTri(s, a[bi*n*n:(bi+1)*n*n])
		}
	})
	// op(a) is lower triangular when exactly one of lower and transpose holds.
	effLower := s.lower != s.trans
	if _, real := any(a).([]float64); real && n > blockedMin {
		for bi := 0; bi < s.batch; bi++ {
			tm := any(tmats[bi]).([]float64)
			triSolveBlocked(tm, any(x[bi*mat:(bi+1)*mat]).([]float64), n, s.rows, s.cols, s.left, effLower)
		}
		return
	}
	kernel.ParallelFor(s.batch*parts, 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			bi, part := t/parts, t%parts
			tm := tmats[bi]
			xb := x[bi*mat : (bi+1)*mat]
			if s.left {
				c0, c1 := part*colBlock, min((part+1)*colBlock, s.cols)
				solveLeft(tm, xb, n, s.cols, c0, c1, effLower)
			} else {
				r0, r1 := part*16, min((part+1)*16, s.rows)
				for r := r0; r < r1; r++ {
					solveRightRow(tm, xb[r*n:(r+1)*n], n, effLower)
				}
			}
		}
	})
}

// effectiveTri returns op(a) as a dense n x n matrix: only the chosen
// triangle of a is read, and the diagonal is 1 when unit_diagonal is set.
func effectiveTri[T scalar](s *triSolve, a []T) []T {
	n := s.n
	t := make([]T, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if (s.lower && j > i) || (!s.lower && j < i) {
				continue
			}
			v := a[i*n+j]
			if i == j && s.unit {
				v = 1
			}
			if s.conj {
				v = conjOf(v)
			}
			if s.trans {
				t[j*n+i] = v
			} else {
				t[i*n+j] = v
			}
		}
	}
	return t
}

// solveLeft solves T X = B for columns [c0, c1) of the n x cols matrix x.
func solveLeft[T scalar](tm, x []T, n, cols, c0, c1 int, lower bool) {
	w := c1 - c0
	if lower {
		for i := 0; i < n; i++ {
			xi := x[i*cols+c0 : i*cols+c0+w]
			for j := 0; j < i; j++ {
				t := tm[i*n+j]
				xj := x[j*cols+c0 : j*cols+c0+w]
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
	for i := n - 1; i >= 0; i-- {
		xi := x[i*cols+c0 : i*cols+c0+w]
		for j := i + 1; j < n; j++ {
			t := tm[i*n+j]
			xj := x[j*cols+c0 : j*cols+c0+w]
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

// solveRightRow solves x T = b for one row (x holds b on entry).
func solveRightRow[T scalar](tm, x []T, n int, lower bool) {
	if !lower {
		for j := 0; j < n; j++ {
			x[j] /= tm[j*n+j]
			xj := x[j]
			row := tm[j*n : (j+1)*n]
			for l := j + 1; l < n; l++ {
				x[l] -= xj * row[l]
			}
		}
		return
	}
	for j := n - 1; j >= 0; j-- {
		x[j] /= tm[j*n+j]
		xj := x[j]
		row := tm[j*n : (j+1)*n]
		for l := 0; l < j; l++ {
			x[l] -= xj * row[l]
		}
	}
}

// storeF64 writes float64 values into a real floating-point literal.
func storeF64(l *hlo.Literal, v []float64) {
	switch l.DType {
	case hlo.F64:
		copy(l.F64(), v)
	case hlo.F32:
		d := l.F32()
		for i, x := range v {
			d[i] = float32(x)
		}
	default:
		for i, x := range v {
			l.SetFloat(i, x)
		}
	}
}
