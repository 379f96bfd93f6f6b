package chlo

import (
	"math"
	"math/bits"
	"math/cmplx"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/elementwise"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The element-wise CHLO ops of the conformance corpus (and their obvious
// siblings), as kernels rather than their StableHLO decompositions.
func init() {
	kernel.Register(
		kernel.Alias("chlo.tan", "stablehlo.tan"),
		elementwise.MathRow("chlo.sinh", specialCost, elementwise.Math{Real: perType(sinhDecomp), Complex: elementwise.Same(csinh)}),
		elementwise.MathRow("chlo.cosh", specialCost, elementwise.Math{Real: perType(coshDecomp), Complex: elementwise.Same(ccosh)}),
		elementwise.MathRow("chlo.asin", specialCost, elementwise.Math{Real: elementPrecision(asinDecomp, asinReal), Complex: complexPrecision(casinDecomp)}),
		elementwise.MathRow("chlo.acos", specialCost, elementwise.Math{Real: elementPrecision(acosDecomp, acosReal), Complex: complexPrecision(cacosDecomp)}),
		elementwise.MathRow("chlo.atan", specialCost, elementwise.Math{Real: elementPrecision(atanDecomp, math.Atan), Complex: elementwise.Same(catan)}),
		elementwise.MathRow("chlo.asinh", specialCost, elementwise.Math{Real: elementPrecision(asinhDecomp, math.Asinh), Complex: complexPrecision(casinhDecomp)}),
		elementwise.MathRow("chlo.acosh", specialCost, elementwise.Math{Real: elementPrecision(acoshDecomp, math.Acosh), Complex: complexPrecision(cacoshDecomp)}),
		elementwise.MathRow("chlo.atanh", specialCost, elementwise.Math{Real: elementPrecision(atanhDecomp, math.Atanh), Complex: elementwise.Same(catanh)}),
		elementwise.MathRow("chlo.lgamma", specialCost, elementwise.Math{Real: perType(lgammaDecomp)}),
		elementwise.MathRow("chlo.digamma", specialCost, elementwise.Math{Real: perType(digammaDecomp)}),
		elementwise.MathRow("chlo.erf", specialCost, elementwise.Math{Real: elementwise.Same(math.Erf), F32: elementwise.Erf32s}),
		elementwise.MathRow("chlo.erfc", specialCost, elementwise.Math{Real: elementwise.Same(math.Erfc)}),
		elementwise.MathRow("chlo.erf_inv", specialCost, elementwise.Math{Real: perType(erfInvDecomp)}),
		elementwise.MathRow("chlo.bessel_i1e", specialCost, elementwise.Math{Real: elementwise.Same(besselI1e)}),
		elementwise.MathRow("chlo.conj", specialCost, elementwise.Math{Real: elementwise.Same(func(x float64) float64 { return x }), Complex: elementwise.Same(cmplx.Conj)}),
		elementwise.BinaryMathRow("chlo.zeta", specialCost, zeta),
		elementwise.BinaryMathRow("chlo.polygamma", specialCost, polygamma),
		elementwise.Row("chlo.next_after", 2, prepareNextAfter),
		elementwise.Row("chlo.is_inf", 1, preparePredicate(func(f float64) bool { return math.IsInf(f, 0) })),
		elementwise.Row("chlo.is_pos_inf", 1, preparePredicate(func(f float64) bool { return math.IsInf(f, 1) })),
		elementwise.Row("chlo.is_neg_inf", 1, preparePredicate(func(f float64) bool { return math.IsInf(f, -1) })),
		elementwise.Row("chlo.mulhi", 2, prepareMulhi),
	)
}

// preparePredicate: float tensor -> i1 tensor.
func preparePredicate(p func(float64) bool) func(c *kernel.OpCtx) (kernel.TileFn, error) {
	return func(c *kernel.OpCtx) (kernel.TileFn, error) {
		in, out := c.InTensor(0), c.OutTensor(0)
		if len(c.In) != 1 || in == nil || out == nil || !in.DType.IsFloat() || out.DType != hlo.Bool {
			return nil, c.Errorf("want a float tensor operand and an i1 result, got %v -> %v", c.In, c.Out)
		}
		return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
			s := srcs[0]
			for i := lo; i < hi; i++ {
				if p(s.Float(i)) {
					dst.Data[i] = 1
				} else {
					dst.Data[i] = 0
				}
			}
		}, nil
	}
}

// prepareNextAfter steps each x one representable value of its type toward
// y, on the storage bits.
func prepareNextAfter(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("want 2 operands")
	}
	a, b := c.InTensor(0), c.InTensor(1)
	if a == nil || b == nil || a.DType != b.DType || !a.DType.IsFloat() || a.DType == hlo.F8E8M0FNU || a.DType == hlo.TF32 {
		return nil, c.Errorf("operands must be floats of one type with a sign bit, got %v", c.In)
	}
	dt := a.DType
	sign := uint64(1) << uint(dt.Bits()-1)
	nan := hlo.Float64ToFloatBits(dt, math.NaN())
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		xs, ys := srcs[0], srcs[1]
		xi, yi := scalarIndex(dst, xs), scalarIndex(dst, ys)
		for i := lo; i < hi; i++ {
			xb, yb := xs.Bits(xi(i)), ys.Bits(yi(i))
			x, y := hlo.FloatBitsToFloat64(dt, xb), hlo.FloatBitsToFloat64(dt, yb)
			var r uint64
			switch {
			case math.IsNaN(x) || math.IsNaN(y):
				r = nan
			case x == y:
				r = yb
			case x == 0:
				r = 1 | (yb & sign)
			case (x < y) == (x > 0):
				r = xb + 1
			default:
				r = xb - 1
			}
			dst.SetBits(i, r)
		}
	}, nil
}

// prepareMulhi: the high half of the double-width product of two integers.
func prepareMulhi(c *kernel.OpCtx) (kernel.TileFn, error) {
	if len(c.In) != 2 {
		return nil, c.Errorf("want 2 operands")
	}
	a, b, out := c.InTensor(0), c.InTensor(1), c.OutTensor(0)
	if a == nil || b == nil || out == nil || a.DType != b.DType || a.DType != out.DType || !a.DType.IsInt() {
		return nil, c.Errorf("operands and result must be integers of one type, got %v -> %v", c.In, c.Out)
	}
	dt := a.DType
	n := uint(dt.Bits())
	signed := dt.IsSigned()
	return func(dst *hlo.Literal, srcs []*hlo.Literal, lo, hi int) {
		xs, ys := srcs[0], srcs[1]
		xi, yi := scalarIndex(dst, xs), scalarIndex(dst, ys)
		for i := lo; i < hi; i++ {
			a, b := xi(i), yi(i)
			var h int64
			switch {
			case n == 64 && signed:
				h = mulhiSigned64(xs.Int(a), ys.Int(b))
			case n == 64:
				hu, _ := bits.Mul64(xs.Uint(a), ys.Uint(b))
				h = int64(hu)
			case signed:
				h = (xs.Int(a) * ys.Int(b)) >> n
			default:
				h = int64((xs.Uint(a) * ys.Uint(b)) >> n)
			}
			dst.SetInt(i, h)
		}
	}, nil
}

// mulhiSigned64 is the high 64 bits of the 128-bit signed product.
func mulhiSigned64(a, b int64) int64 {
	hi, _ := bits.Mul64(uint64(a), uint64(b))
	// Correct the unsigned product for negative operands.
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return int64(hi)
}
