package elementwise

import (
	"math"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// stablehlo.tan of a complex number with a large imaginary part is ±i (its
// real part underflows), not a NaN from dividing two infinite hyperbolic
// functions; moderate arguments match math/cmplx (floatops_test.go).
func TestTanLargeImaginary(t *testing.T) {
	zs := []complex128{complex(1, 400), complex(-2, -800), complex(0.5, 1e300), complex(3, math.MaxFloat32)}
	for _, dt := range []hlo.DType{hlo.C64, hlo.C128} {
		in := hlo.NewLiteral(dt, int64(len(zs)))
		for i, z := range zs {
			in.SetComplex(i, z)
		}
		got := runOp(t, "stablehlo.tan", hlo.NewTensorType(dt, int64(len(zs))), nil, in)
		for i, z := range zs {
			g := got.Complex(i)
			if want := math.Copysign(1, imag(z)); imag(g) != want || math.Abs(real(g)) > 1e-300 {
				t.Errorf("tan %s %v = %v, want (±0%+gi)", dt, z, g, want)
			}
		}
	}
}
