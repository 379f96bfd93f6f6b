package chlo

import "github.com/xlajit/xlajit/hlo"

// The CHLO element-wise ops are rows of package elementwise (Row, MathRow,
// BinaryMathRow; elementwise.go lists them). The float ones compute every
// element in float64 (complex128) and round once to the element type: for
// f16/bf16/f32 that is within half a ULP of the exact value whenever the
// float64 kernel is accurate, and the f64 kernels of this package are
// written for a few ULP at most.

// specialCost is the rough per-element cost of a special function relative
// to an f32 add (kernel.Elementwise.Cost).
const specialCost = 64

// realFn and complexFn are element kernels.
type (
	realFn    = func(float64) float64
	complexFn = func(complex128) complex128
)

// scalarIndex maps a tile index to src's element: a one-element source of a
// larger destination is a scalar operand (kernel.TileFn).
func scalarIndex(dst, src *hlo.Literal) func(int) int {
	if src.NumElements() == 1 && dst.NumElements() > 1 {
		return func(int) int { return 0 }
	}
	return func(i int) int { return i }
}
