package linalg

import (
	"math"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

func init() {
	kernel.Register(kernel.Entry{Name: "stablehlo.cholesky", Compile: compileCholesky, Fresh: true})
}

// compileCholesky factors each matrix of a batch as L L^H (lower) or
// U^H U (upper), reading only that triangle of the input. As XLA does, the
// other triangle of the result is zero, and a matrix that is not positive
// definite (a square root of a negative pivot) comes out all NaN.
func compileCholesky(c *kernel.OpCtx) (kernel.RunFn, error) {
	if len(c.In) != 1 {
		return nil, c.Errorf("expects 1 operand, has %d", len(c.In))
	}
	at, err := tensorIn(c, 0)
	if err != nil {
		return nil, err
	}
	ot, err := tensorOut(c, 0)
	if err != nil {
		return nil, err
	}
	if err := batchedSquare(c, "operand", at); err != nil {
		return nil, err
	}
	if !ot.Equal(&hlo.TensorType{DType: at.DType, Dims: at.Dims}) {
		return nil, c.Errorf("result %s must have the operand's type %s", ot.ShapeString(), at.ShapeString())
	}
	lower, err := boolAttr(c, "lower", false)
	if err != nil {
		return nil, err
	}
	r := at.Rank()
	n := int(at.Dims[r-1])
	batch := int(hlo.NumElements(at.Dims[:r-2]))
	return func(x *kernel.Ctx, args, results []kernel.Value) error {
		a, err := argLiteral(c, args, 0)
		if err != nil {
			return err
		}
		out := x.NewLiteralUninit(ot.DType, ot.Dims)
		if at.DType.IsComplex() {
			l := make([]complex128, len(a.Data)/a.DType.Size())
			choleskyRun(toC128(a), l, n, batch, lower)
			storeC128(out, l)
		} else {
			l := make([]float64, len(a.Data)/a.DType.Size())
			choleskyRun(toF64(a), l, n, batch, lower)
			storeF64(out, l)
		}
		results[0] = out
		return nil
	}, nil
}

func choleskyRun[T scalar](a, l []T, n, batch int, lower bool) {
	if af, real := any(a).([]float64); real && n > blockedMin {
		lf := any(l).([]float64)
		for b := 0; b < batch; b++ {
			ab, lb := af[b*n*n:(b+1)*n*n], lf[b*n*n:(b+1)*n*n]
			at := func(i, j int) float64 { return ab[i*n+j] }
			if !lower {
				at = func(i, j int) float64 { return ab[j*n+i] }
			}
			if !choleskyBlocked(at, lb, n) {
				for i := range lb {
					lb[i] = math.NaN()
				}
			} else if !lower {
				transposeSquare(lb, n)
			}
		}
		return
	}
	kernel.ParallelFor(batch, max(1, 4096/max(n*n*n, 1)), func(lo, hi int) {
		for b := lo; b < hi; b++ {
			choleskyOne(a[b*n*n:(b+1)*n*n], l[b*n*n:(b+1)*n*n], n, lower)
		}
	})
}

// choleskyOne computes the lower factor of the Hermitian matrix whose lower
// triangle is a's lower triangle (lower) or the conjugate transpose of a's
// upper triangle (upper, the result then transposed back), column by
// column (left-looking).
func choleskyOne[T scalar](a, l []T, n int, lower bool) {
	at := func(i, j int) T { // element (i, j), i >= j, of the lower triangle
		if lower {
			return a[i*n+j]
		}
		return conjOf(a[j*n+i])
	}
	lc := make([]T, n) // conj of row j of L, up to column j
	failed := false
	for j := 0; j < n; j++ {
		rowj := l[j*n : j*n+j]
		for k, v := range rowj {
			lc[k] = conjOf(v)
		}
		d := at(j, j)
		for k, v := range rowj {
			d -= v * lc[k]
		}
		piv := math.Sqrt(realOf(d))
		if math.IsNaN(piv) {
			failed = true
		}
		p := fromReal[T](piv)
		l[j*n+j] = p
		for i := j + 1; i < n; i++ {
			s := at(i, j)
			rowi := l[i*n : i*n+j]
			for k, v := range rowi {
				s -= v * lc[k]
			}
			l[i*n+j] = s / p
		}
	}
	if failed {
		nan := fromReal[T](math.NaN())
		for i := range l[:n*n] {
			l[i] = nan
		}
		return
	}
	if !lower {
		// U = L^H.
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				l[j*n+i] = conjOf(l[i*n+j])
				l[i*n+j] = 0
			}
			l[i*n+i] = conjOf(l[i*n+i])
		}
	}
}

func realOf[T scalar](x T) float64 {
	if c, ok := any(x).(complex128); ok {
		return real(c)
	}
	return any(x).(float64)
}

func fromReal[T scalar](v float64) T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(complex(v, 0)).(T)
	}
	return any(v).(T)
}

// transposeSquare transposes an n x n matrix in place.
func transposeSquare(m []float64, n int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			m[i*n+j], m[j*n+i] = m[j*n+i], m[i*n+j]
		}
	}
}
